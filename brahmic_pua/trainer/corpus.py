"""The training corpus, streamed: read once to scan and count (and written once as spm's line
file), read again by the passes after training; an iterator is spilled to a temporary file, so
the corpus is never held in memory."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TextIO

from brahmic_pua.io.leftovers import owned_prefix
from brahmic_pua.io.lines import BOM, batched, line_text, not_a_file
from brahmic_pua.io.parquet import DEFAULT_COLUMN, check_column, corpus_lines, is_parquet
from brahmic_pua.io.progress import Progress
from brahmic_pua.io.wording import counted
from brahmic_pua.normalize import Normalizer
from brahmic_pua.segment.sure_cuts import check_no_surrogates
from brahmic_pua.trainer.spm_words import BLOCK, ESCAPED_BLOCK, WordFile

#: The label of a scan's progress line (the count's plan adds how it counts).
SCAN_LABEL = "scanning corpus"


@dataclass
class CorpusStats:
    lines: int = 0
    bytes: int = 0
    longest_line_bytes: int = 0
    lines_with_block: int = 0
    empty_lines: int = 0

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
        self.empty_lines += sizes.count(0)
        if BLOCK in joined:
            self.lines_with_block += sum(BLOCK in text for text in texts)

    def merge(self, other: CorpusStats) -> None:
        """Add the statistics of the lines that follow these."""
        self.lines += other.lines
        self.bytes += other.bytes
        self.longest_line_bytes = max(self.longest_line_bytes, other.longest_line_bytes)
        self.lines_with_block += other.lines_with_block
        self.empty_lines += other.empty_lines

    def show(self, bar: Progress, final: bool = False) -> None:
        """These counts on the progress display: bytes (known for files) and lines."""
        detail = counted(self.lines, "line")
        if self.bytes:  # an iterator's lines are counted before their bytes are known
            detail = f"{self.bytes / 1e6:,.1f} MB, {detail}"
        if final:
            bar.finish(detail)
        else:
            bar.update(self.bytes or self.lines, detail)


class Corpus:
    """Lines of the training text after N, read from files or an iterable: all of them, or
    with ``sample`` > 0 the lines spm's ``input_sentence_size`` trains on (the first ``sample``
    when ``first``, spm's shuffle_input_sentence=false; else ``sample`` lines chosen by a fixed
    seed, in corpus order, so that retraining gives the same model, which spm's own sampling
    does not). The sample is the corpus from then on: only its lines are scanned and counted,
    so training on a sample is training on those lines.

    The scan also writes the lines as spm will train on them to a temporary file: spm reads a
    file with the GIL released (so the trainer's Python work can overlap it), where a
    ``sentence_iterator`` takes the GIL back for every line. After :meth:`write_words`, spm is
    to train on the words the count hands to :attr:`word_file` instead
    (:mod:`~brahmic_pua.trainer.spm_words`), and the line file is written only if the
    training needs lines after all (:meth:`spm_input`).

    An input named ``*.parquet`` is read as the lines of its ``text_column``
    (:mod:`brahmic_pua.io.parquet`: the lines the column written to a text file would give);
    the column is checked here, before anything is counted.
    """

    def __init__(
        self,
        inputs: list[str],
        iterator: Iterable[str] | None,
        normalizer: Normalizer,
        sample: int = 0,
        first: bool = False,
        progress: bool = False,
        text_column: str | None = None,
    ) -> None:
        self.inputs = inputs
        self.text_column = text_column or DEFAULT_COLUMN
        self.progress = progress  # a progress line on stderr for each pass over the input
        self.iterator = iterator
        self.normalize = normalizer
        self.sample = sample
        self.first = first
        self.stats = CorpusStats()
        self._spill: Path | None = None  # N of the lines, when they cannot be read again
        self._raw_spill: Path | None = None  # an iterator's lines, kept to sample them
        self._chosen: set[int] | None = None
        self._counted = False  # the lines counted and the sample chosen
        self._spm_parts: list[Path] = []
        self._spm_lines_wanted = True  # the scan writes spm's line file (or its words)
        #: The words with their counts, for spm, where the count hands them over (made once
        #: the inputs are checked: a refused input leaves no file behind).
        self.word_file: WordFile | None = None
        for name in inputs:
            if Path(name).is_dir():
                raise ValueError(
                    f"input {name!r} is a directory: give a text file, or a comma-separated "
                    "list of files (input=a.txt,b.txt)"
                )
            if not Path(name).is_file():
                raise ValueError(not_a_file(name, "check the path in input="))
            if is_parquet(name):
                check_column(name, self.text_column)

    def write_words(self) -> None:
        """The scan is to hand its words to :attr:`word_file` for spm, not write spm's line file
        (the count's plan says so: :mod:`~brahmic_pua.trainer.count_plan`); before the scan."""
        if self.word_file is None:
            self.word_file = WordFile()
            self._spm_lines_wanted = False

    @property
    def parquet(self) -> bool:
        """Whether an input is Parquet: its lines are not the file's bytes (no byte ranges, no
        byte total for the progress line)."""
        return any(map(is_parquet, self.inputs))

    def input_bytes(self) -> int | None:
        """The inputs' bytes, the total the progress line counts toward; None for an
        iterator or Parquet (whose lines' bytes are not its file's)."""
        if not self.inputs or self.parquet:
            return None
        return sum(Path(n).stat().st_size for n in self.inputs)

    @property
    def sampled(self) -> bool:
        """Whether only a sample of the lines is read (counting the lines first if need be)."""
        if self.sample <= 0:
            return False
        if self.first:
            return True
        self._choose()
        return self._chosen is not None

    def scan(self, label: str = SCAN_LABEL) -> Iterator[list[str]]:
        """Normalized lines in batches, once, collecting statistics, writing spm's line file
        and (for lines that cannot be read again) a spill to read them again; ``label``: the
        progress line's (the count's plan)."""
        sampled = self.sampled  # the sample is chosen first
        total = None if sampled else self.input_bytes()
        bar = Progress(self.progress, label, total)
        with ExitStack() as files:
            spill = None
            if self.iterator is not None and self._raw_spill is None:  # read once only
                spill = files.enter_context(text_writer(self._new_spill()))
            spm_lines: TextIO | None = None
            if self._spm_lines_wanted:
                spm_lines = files.enter_context(text_writer(self.spm_part()))
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
                self.stats.show(bar)
                yield texts
        self.stats.show(bar, final=True)

    def spm_part(self) -> str:
        """A new temporary file for the next lines of spm's line file (parts join in order)."""
        name = _temporary_name("spm_lines")
        self._spm_parts.append(Path(name))
        return name

    def _new_spill(self) -> str:
        name = _temporary_name("corpus")
        self._spill = Path(name)
        return name

    def spm_words(self) -> str | None:
        """The file of the words with their counts (spm's tsv input), if the count handed every
        word to it and each fits a row; else None (spm trains on :meth:`spm_input`)."""
        words = self.word_file
        if words is None or not words.finished or not words.usable:
            return None
        return str(words.path)

    def spm_input(self) -> str | None:
        """A file of the lines spm trains on, or None when the lines do not fit in a file of
        lines (then feed :meth:`lines`). Where the scan wrote none (its words were for spm), the
        lines are read again and written now."""
        if not self._spm_lines_wanted:
            self._spm_lines_wanted = True
            self._write_spm_lines()
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
        return str(whole)

    def _write_spm_lines(self) -> None:
        """spm's line file, from the lines read again (none if a line holds a line feed)."""
        with text_writer(self.spm_part()) as target:
            for texts in batched(self.lines()):
                if (text := spm_line_text(texts)) is None:
                    break
                target.write(text)
            else:
                return
        self._drop_spm_parts()

    def lines(self) -> Iterator[str]:
        """The normalized lines again (after :meth:`scan`)."""
        if self._spill is None:
            for raw in batched(self._raw_lines()):
                yield from self.normalize.lines(raw)
            return
        yield from _spilled(self._spill)

    def _raw_lines(self) -> Iterator[str]:
        """The lines as read, the sample's alone when sampled."""
        if self.sample > 0 and self.first:
            yield from islice(self._every_raw_line(), self.sample)
            return
        chosen = self._chosen if self.sampled else None
        for number, line in enumerate(self._every_raw_line()):
            if chosen is None or number in chosen:
                yield line

    def _every_raw_line(self) -> Iterator[str]:
        if self._raw_spill is not None:
            yield from _spilled(self._raw_spill)
        elif self.iterator is not None:
            for number, item in enumerate(self.iterator, 1):
                yield _iterator_line(item, number)
        else:
            for name in self.inputs:
                yield from self._file_lines(name)

    def _file_lines(self, name: str) -> Iterator[str]:
        """The lines of one input file: a text file's, or a Parquet file's column's."""
        return corpus_lines(name, self.text_column)

    def _choose(self) -> None:
        """Count the lines (an iterator's are spilled as read) and choose the sample."""
        if self._counted or self.sample <= 0 or self.first:
            return
        bar, seen = Progress(self.progress, "counting lines", self.input_bytes()), CorpusStats()
        if self.iterator is not None:
            name = _temporary_name("raw_corpus")
            try:
                with text_writer(name) as spill:
                    for lines in batched(self._every_raw_line()):
                        spill.write("".join(f"{len(line)}\n{line}" for line in lines))
                        seen.lines += len(lines)
                        seen.show(bar)
            except BaseException:  # a bad item, Ctrl-C: no file left behind
                Path(name).unlink(missing_ok=True)
                raise
            self._raw_spill = Path(name)
        else:
            for name in self.inputs:
                if is_parquet(name):  # its lines are known once its rows are cut
                    seen.lines += sum(1 for _ in self._file_lines(name))
                    seen.show(bar)
                else:
                    _count_lines(name, seen, bar)
        seen.show(bar, final=True)
        total = seen.lines
        self._counted = True
        if self.sample < total:
            self._chosen = set(random.Random(SAMPLE_SEED).sample(range(total), self.sample))

    def close(self) -> None:
        for spill in (self._spill, self._raw_spill):
            if spill is not None:
                spill.unlink(missing_ok=True)
        self._spill = self._raw_spill = None
        self._drop_spm_parts()
        if self.word_file is not None:
            self.word_file.close()

    def _drop_spm_parts(self) -> None:
        for part in self._spm_parts:
            part.unlink(missing_ok=True)
        self._spm_parts.clear()


def _spilled(path: Path) -> Iterator[str]:
    """The lines of a length-prefixed spill (each keeps its CR and inner LF)."""
    with open(path, encoding="utf-8", newline="") as stream:
        while head := stream.readline():
            yield stream.read(int(head))


def _count_lines(name: str, seen: CorpusStats, bar: Progress) -> None:
    """Add the lines of a file as :func:`read_lines` yields them, counted in C a block at a
    time, and its bytes to ``seen``."""
    last = b"\n"
    with open(name, "rb") as stream:
        while block := stream.read(1 << 20):
            seen.lines += block.count(b"\n")
            seen.bytes += len(block)
            last = block[-1:]
            seen.show(bar)
    seen.lines += last != b"\n"


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


def _temporary_name(kind: str) -> str:
    """A new temporary file of ``kind``, named after its run (:mod:`brahmic_pua.io.leftovers`)."""
    handle, name = tempfile.mkstemp(prefix=owned_prefix(kind), suffix=".txt")
    os.close(handle)
    return name


SAMPLE_SEED = 20261130


def _iterator_line(item: object, number: int) -> str:
    """One ``sentence_iterator`` item as spm takes it: str or UTF-8 bytes, without the line
    ending (``sentence_iterator=open(path)`` yields lines that end in "\\n") and, on the first,
    without a byte order mark: ``open(path, "rb")`` yields the file's first bytes, and the file
    read as ``input=`` loses its mark, so both give one model."""
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
    return line_text(item.removeprefix(BOM) if number == 1 else item)
