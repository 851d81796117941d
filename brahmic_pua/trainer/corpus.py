"""The training corpus, streamed: files are read twice (scan, then train), an iterator is
spilled once to a temporary file, so the corpus is never held twice in memory."""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from brahmic_pua.normalize import Normalizer
from brahmic_pua.segment.pieces import check_no_surrogates

BLOCK = "\u2585"  # spm silently drops every training line that contains it


@dataclass
class CorpusStats:
    lines: int = 0
    bytes: int = 0
    longest_line_bytes: int = 0
    lines_with_block: int = 0


class Progress:
    """A one-line progress display on stderr, updated at most five times a second."""

    def __init__(self, enabled: bool, total_bytes: int | None) -> None:
        self.enabled = enabled
        self.total = total_bytes
        self.last = 0.0

    def update(self, stats: CorpusStats, final: bool = False) -> None:
        now = time.monotonic()
        if not self.enabled or (not final and now - self.last < 0.2):
            return
        self.last = now
        done = f"{stats.bytes / 1e6:,.1f} MB, {stats.lines:,} lines"
        if self.total:
            share = min(1.0, stats.bytes / self.total)
            bar = "#" * int(share * 30)
            done = f"[{bar:<30}] {share:4.0%} {done}"
        end = "\n" if final else ""
        print(f"\rscanning corpus {done}", end=end, file=sys.stderr, flush=True)


class Corpus:
    """Lines of the training text after N, read from files or an iterable."""

    def __init__(self, inputs: list[str], iterator: Iterable[str] | None, n: Normalizer) -> None:
        self.inputs = inputs
        self.iterator = iterator
        self.normalize = n
        self.stats = CorpusStats()
        self._spill: Path | None = None
        for name in inputs:
            if not Path(name).is_file():
                raise ValueError(f"input file {name!r} not found: check the path in input=")

    def scan(self, progress: bool) -> Iterator[str]:
        """Normalized lines, once, collecting statistics (and spilling an iterator to disk)."""
        total = sum(Path(n).stat().st_size for n in self.inputs) if self.inputs else None
        shown = Progress(progress, total)
        stats = self.stats
        spill = None
        if self.iterator is not None:
            handle, name = tempfile.mkstemp(prefix="brahmic_pua_corpus_", suffix=".txt")
            self._spill = Path(name)
            spill = os.fdopen(handle, "w", encoding="utf-8", newline="")
        try:
            for line in self._raw_lines():
                text = self.normalize(line)
                try:
                    size = len(text.encode("utf-8"))
                except UnicodeEncodeError:  # a lone surrogate (N keeps it): name it
                    try:
                        check_no_surrogates(line)
                    except ValueError as error:
                        raise ValueError(f"line {stats.lines + 1}: {error}") from None
                    raise
                stats.lines += 1
                stats.bytes += size + 1
                if size > stats.longest_line_bytes:
                    stats.longest_line_bytes = size
                if BLOCK in text:
                    stats.lines_with_block += 1
                if spill is not None:  # length-prefixed: a line keeps its CR and inner LF
                    spill.write(f"{len(text)}\n{text}")
                shown.update(stats)
                yield text
        finally:
            if spill is not None:
                spill.close()
        shown.update(stats, final=True)

    def _raw_lines(self) -> Iterator[str]:
        if self.iterator is not None:
            for number, item in enumerate(self.iterator, 1):
                yield _iterator_line(item, number)
            return
        for name in self.inputs:
            yield from _file_lines(name)

    def lines(self, sample: int = 0) -> Iterator[str]:
        """The normalized lines again, for SentencePiece (after :meth:`scan`).

        ``sample`` > 0 keeps that many lines, chosen by a fixed seed from the line count, so
        that retraining on the same input gives the same model (spm's own sampling does not).
        """
        chosen: set[int] | None = None
        if 0 < sample < self.stats.lines:
            chosen = set(random.Random(SAMPLE_SEED).sample(range(self.stats.lines), sample))
        for number, line in enumerate(self._stored_lines()):
            if chosen is None or number in chosen:
                yield line

    def _stored_lines(self) -> Iterator[str]:
        if self._spill is None:
            for line in self._raw_lines():
                yield self.normalize(line)
            return
        with open(self._spill, encoding="utf-8", newline="") as stream:
            while head := stream.readline():
                yield stream.read(int(head))

    def close(self) -> None:
        if self._spill is not None:
            self._spill.unlink(missing_ok=True)
            self._spill = None


SAMPLE_SEED = 20261130
BOM = "\ufeff"


def _iterator_line(item: object, number: int) -> str:
    """One ``sentence_iterator`` item as spm takes it: str or UTF-8 bytes, without the line
    ending (``sentence_iterator=open(path)`` yields lines that end in "\\n")."""
    if isinstance(item, bytes):
        try:
            item = item.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(
                f"sentence_iterator item {number} is not UTF-8 ({error.reason} at byte "
                f"{error.start}): decode it first"
            ) from None
    if not isinstance(item, str):
        raise ValueError(
            f"sentence_iterator item {number} is {type(item).__name__}, not str or bytes"
        )
    return item.rstrip("\r\n")


def _file_lines(name: str) -> Iterator[str]:
    """Lines of a UTF-8 file without their line ending or a leading byte-order mark; a bad
    byte is reported with its line and its offset in the file."""
    offset = 0
    with open(name, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(
                    f"{name} is not UTF-8 at line {number} (byte offset {offset + error.start}: "
                    f"{error.reason}): convert it with iconv -t UTF-8"
                ) from None
            offset += len(raw)
            if number == 1:
                line = line.removeprefix(BOM)
            yield line.rstrip("\r\n")
