"""The training corpus, streamed: files are read twice (scan, then train), an iterator is
spilled once to a temporary file, so the corpus is never held twice in memory."""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TextIO

from brahmic_pua.codec.counting import batched
from brahmic_pua.codec.layout import ESCAPED_LITERALS
from brahmic_pua.normalize import Normalizer
from brahmic_pua.segment.pieces import check_no_surrogates

BLOCK = "\u2585"  # spm silently drops every training line that contains it
ESCAPED_BLOCK = ESCAPED_LITERALS[BLOCK]  # its stand-in in spm's training lines


@dataclass
class CorpusStats:
    lines: int = 0
    bytes: int = 0
    longest_line_bytes: int = 0
    lines_with_block: int = 0

    def add(self, texts: list[str]) -> None:
        """Count a batch of lines after N (a lone surrogate, which N keeps, is named)."""
        if not texts:
            return
        joined = "\n".join(texts)
        try:
            data = joined.encode("utf-8")
        except UnicodeEncodeError:
            for number, text in enumerate(texts, self.lines + 1):
                try:
                    check_no_surrogates(text)
                except ValueError as error:
                    raise ValueError(f"line {number}: {error}") from None
            raise
        if joined.count("\n") == len(texts) - 1:
            sizes = list(map(len, data.split(b"\n")))
        else:  # a line holds a line feed
            sizes = [len(text.encode("utf-8")) for text in texts]
        self.lines += len(texts)
        self.bytes += sum(sizes) + len(sizes)
        self.longest_line_bytes = max(self.longest_line_bytes, *sizes)
        if BLOCK in joined:
            self.lines_with_block += sum(BLOCK in text for text in texts)


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
    """Lines of the training text after N, read from files or an iterable.

    The scan also writes the lines as spm will train on them to a temporary file: spm reads a
    file with the GIL released (so the trainer's Python work can overlap it), where a
    ``sentence_iterator`` takes the GIL back for every line.
    """

    def __init__(self, inputs: list[str], iterator: Iterable[str] | None, n: Normalizer) -> None:
        self.inputs = inputs
        self.iterator = iterator
        self.normalize = n
        self.stats = CorpusStats()
        self._spill: Path | None = None
        self._spm_parts: list[Path] = []
        for name in inputs:
            if not Path(name).is_file():
                raise ValueError(f"input file {name!r} not found: check the path in input=")

    def scan(self, progress: bool) -> Iterator[list[str]]:
        """Normalized lines in batches, once, collecting statistics, writing spm's line file
        and (for an iterator) a spill to read the lines again."""
        total = sum(Path(n).stat().st_size for n in self.inputs) if self.inputs else None
        shown = Progress(progress, total)
        with ExitStack() as files:
            spill = None
            if self.iterator is not None:
                spill = files.enter_context(text_writer(self._new_spill()))
            spm_lines: TextIO | None = files.enter_context(text_writer(self.spm_part()))
            for raw in batched(self._raw_lines()):
                texts = self.normalize.lines(raw)
                self.stats.add(texts)
                if spill is not None:  # length-prefixed: a line keeps its CR and inner LF
                    spill.write("".join(f"{len(text)}\n{text}" for text in texts))
                if spm_lines is not None:
                    if (text := spm_line_text(texts)) is None:  # no line file, then
                        spm_lines.close()
                        spm_lines = None
                        self._drop_spm_parts()
                    else:
                        spm_lines.write(text)
                shown.update(self.stats)
                yield texts
        shown.update(self.stats, final=True)

    def spm_part(self) -> str:
        """A new temporary file for the next lines of spm's line file (parts join in order)."""
        name = _temporary_name("brahmic_pua_spm_lines_")
        self._spm_parts.append(Path(name))
        return name

    def _new_spill(self) -> str:
        name = _temporary_name("brahmic_pua_corpus_")
        self._spill = Path(name)
        return name

    def spm_input(self, sample: int, first: bool, folder: str) -> str | None:
        """A file of the lines spm trains on (all, or the ``sample`` of :meth:`lines`), or
        None when the lines do not fit in a file of lines (then feed :meth:`lines`)."""
        if not self._spm_parts:
            return None
        whole = self._spm_parts[0]
        if len(self._spm_parts) > 1:
            with open(whole, "ab") as target:
                for part in self._spm_parts[1:]:
                    with open(part, "rb") as source:
                        shutil.copyfileobj(source, target)
                    part.unlink()
            del self._spm_parts[1:]
        if not 0 < sample < self.stats.lines:
            return str(whole)
        chosen = range(sample) if first else self._chosen(sample)
        path = Path(folder, "spm_sample.txt")
        with (
            open(whole, encoding="utf-8", newline="\n") as source,
            open(path, "w", encoding="utf-8", newline="\n") as target,
        ):
            target.writelines(line for number, line in enumerate(source) if number in chosen)
        return str(path)

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
        chosen = self._chosen(sample) if 0 < sample < self.stats.lines else None
        for number, line in enumerate(self._stored_lines()):
            if chosen is None or number in chosen:
                yield line

    def sample_lines(self, sample: int, first: bool) -> Iterator[str]:
        """The lines spm trains on: all, the first ``sample`` when ``first`` (spm's
        shuffle_input_sentence=false), else the seeded ``sample`` of :meth:`lines`."""
        return islice(self.lines(), sample) if first else self.lines(sample)

    def _chosen(self, sample: int) -> set[int]:
        return set(random.Random(SAMPLE_SEED).sample(range(self.stats.lines), sample))

    def _stored_lines(self) -> Iterator[str]:
        if self._spill is None:
            for raw in batched(self._raw_lines()):
                yield from self.normalize.lines(raw)
            return
        with open(self._spill, encoding="utf-8", newline="") as stream:
            while head := stream.readline():
                yield stream.read(int(head))

    def close(self) -> None:
        if self._spill is not None:
            self._spill.unlink(missing_ok=True)
            self._spill = None
        self._drop_spm_parts()

    def _drop_spm_parts(self) -> None:
        for part in self._spm_parts:
            part.unlink(missing_ok=True)
        self._spm_parts.clear()


def spm_line_text(texts: list[str]) -> str | None:
    """Lines as spm's line file holds them (U+2585 escaped: spm drops a line that holds it), or
    None when a line holds a line feed and cannot be a line of a file."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        return None
    return joined.replace(BLOCK, ESCAPED_BLOCK) + "\n" if texts else ""


def text_writer(path: str) -> TextIO:
    """A text file to write, with no newline translation."""
    return open(path, "w", encoding="utf-8", newline="")


def _temporary_name(prefix: str) -> str:
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=".txt")
    os.close(handle)
    return name


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
