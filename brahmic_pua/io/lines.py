"""The one line reader: every text brahmic_pua reads (corpora, every command's input and
stdin, eval and filter corpora, vocabularies, seed files, folding tables, shards, the examples)
is cut into lines by one rule, so that one file gives one encoding, whichever command reads it.

**The rule.** A line ends at "\\n" and nowhere else: U+2028, U+2029, U+0085, form feeds and a
lone "\\r" are characters of the line, as SentencePiece reads a corpus (Python's
``str.splitlines`` would cut at all of them and count different lines than the trainer).
Trailing "\\r" characters are dropped, so CRLF files read as LF files (``encode`` once kept the
"\\r" of CRLF as a byte piece on every line where ``train`` and ``encode-corpus`` dropped it;
stock spm's default normalizer drops it too). A byte-order mark (U+FEFF) at the start of a file
or a stream is dropped. Blank lines are lines (a reader that ignores them, like ``eval``, says
``skip_blank=True``). A byte that is not UTF-8 is one error naming the file, its line and its
byte offset. A Parquet file (``*.parquet``, or the bytes it starts with) is no text: reading one
here is one error saying what reads Parquet (:mod:`~brahmic_pua.io.text_only`).

**A line is at most** :data:`MAX_LINE_BYTES` **long.** A line has no natural bound, but it is
held whole (and encoding one takes some 20 times its size), so a longer one is one error naming
its file and line, raised once that many bytes of it are read: ``encode /dev/zero`` (one
endless line) grew to a MemoryError at 2.9 GB before. Small files read whole (a vocabulary, a
seed list, a folding table) have a bound of their own on the whole file
(:func:`bounded_lines`).

Files are also cut into line-aligned byte ranges (:func:`plan_spans`), so that several
processes or machines read one corpus in parallel, each line exactly once: a range starts at a
line start and ends after a "\\n" (or at the end of its file), planned by seeking
(``max_bytes``) or by counting newlines in C (``max_lines``), never by decoding.
"""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from brahmic_pua.io.bounded import read_bounded
from brahmic_pua.io.text_only import MAGIC, parquet_not_text

BLOCK = 1 << 20
#: The longest line read, in bytes, its line end left out. Real lines are far shorter (spm's
#: trainer skips any over 65,536 bytes; a whole book without a line end is a few MB), and a line
#: this long already takes about 1.3 GB to encode; a longer "line" is a file without line ends.
#: Never below :data:`BLOCK` (a line inside one block is not measured).
MAX_LINE_BYTES = 64 << 20
BOM = "\ufeff"
#: Lines handled together (counting, normalizing, encoding shards): whole-batch C calls
#: instead of Python calls per line, and a bounded list in memory.
BATCH_LINES = 2048
#: And at most about this many characters (the line that passes it included): 2,048 lines of
#: up to MAX_LINE_BYTES each would be 128 GiB held at once, where real batches are a few
#: hundred KB. The count holds some 20 bytes a character of a batch (its words as strings), so
#: 4 Mi characters: ten lines of 39 MB (a 390 MB file) peaked at 0.55 GB counted here, 0.95 GB
#: at 16 Mi (docs/cli.md).
BATCH_CHARS = 4 << 20


@dataclass(frozen=True)
class Span:
    """Bytes ``start`` to ``end`` of ``path``: whole lines."""

    path: str
    start: int
    end: int


def batched(
    items: Iterable[str], size: int = BATCH_LINES, chars: int = BATCH_CHARS
) -> Iterator[list[str]]:
    """``items`` in order, in lists of ``size``, a list ended early once it holds ``chars``
    characters (its last item at most takes it past them), so a batch of long lines stays
    bounded (``itertools.batched`` is Python 3.12, gives tuples and knows no characters).

    Items are taken one at a time, none before the batch before it is handed on: lines read
    lazily are then held a batch at a time. Taken 16 at a time (a step that saved 10 ms of a
    1 s count of ne.train.txt), ten lines of 39 MB were all held at once, decoded and
    normalized: 2.0 GB for a 390 MB file."""
    batch: list[str] = []
    held = 0
    for item in items:
        batch.append(item)
        held += len(item)
        if len(batch) == size or held >= chars:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def not_a_file(name: str, fix: str = "") -> str:
    """The one line for an input that is no regular file or directory: not found, or a pipe
    (``<(...)``, a FIFO) or device, whose lines could be read once only, while a corpus is
    read more than once (counted, sampled, scanned) and a shard is read from an offset."""
    if os.path.exists(name):
        return (
            f"input {name!r} is a pipe or a device, not a file: its lines are read more than "
            "once; write them to a file and give that"
        )
    return f"input file {name!r} not found" + (f": {fix}" if fix else "")


def expand_inputs(patterns: Sequence[str]) -> list[str]:
    """Files in the order given, each glob's matches sorted; one error line for a name that
    names nothing readable."""
    files: list[str] = []
    for pattern in patterns:
        if Path(pattern).is_file():
            matches = [pattern]
        elif any(ch in pattern for ch in "*?["):
            matches = sorted(p for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
            if not matches:
                raise ValueError(f"input {pattern!r} matches no file")
        elif Path(pattern).is_dir():
            raise ValueError(f"input {pattern!r} is a directory: give files or a glob like DIR/*")
        else:
            raise ValueError(not_a_file(pattern))
        for name in matches:
            if not os.access(name, os.R_OK):
                raise ValueError(f"input file {name!r} is not readable")
        files += matches
    if not files:
        raise ValueError("no input files given")
    return files


def plan_spans(
    paths: Sequence[str], max_bytes: int | None = None, max_lines: int | None = None
) -> list[list[Span]]:
    """Groups of consecutive ranges, in input order, each of about ``max_bytes`` or exactly
    ``max_lines`` lines (the last group may hold less); a group may span several files."""
    if (max_bytes is None) == (max_lines is None) or (max_bytes or max_lines or 0) < 1:
        raise ValueError("give one of max_bytes or max_lines, at least 1")
    groups: list[list[Span]] = []
    group: list[Span] = []
    size = lines = 0
    for path in paths:
        total = os.path.getsize(path)
        position = 0
        with open(path, "rb") as stream:
            while position < total:
                if max_lines is not None:
                    end, found = _after_lines(stream, position, max_lines - lines, total)
                else:
                    assert max_bytes is not None
                    end, found = _after_bytes(stream, position + max_bytes - size, total), 0
                group.append(Span(path, position, end))
                size, lines, position = size + end - position, lines + found, end
                if lines == max_lines or (max_bytes is not None and size >= max_bytes):
                    groups.append(group)
                    group, size, lines = [], 0, 0
    if group:
        groups.append(group)
    return groups


def _after_bytes(stream: BinaryIO, target: int, total: int) -> int:
    """The end of the line that holds byte ``target - 1``."""
    if target >= total:
        return total
    stream.seek(target - 1)
    position = target - 1
    while block := stream.read(BLOCK):
        found = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)
    return total


def _after_lines(stream: BinaryIO, start: int, wanted: int, total: int) -> tuple[int, int]:
    """The end of the ``wanted``-th line from ``start`` (or the file's end) and the lines
    before it; a last line without "\\n" counts."""
    stream.seek(start)
    position, found, last = start, 0, b"\n"
    while block := stream.read(BLOCK):
        newlines = block.count(b"\n")
        if found + newlines >= wanted:
            cut = -1
            for _ in range(wanted - found):
                cut = block.index(b"\n", cut + 1)
            return position + cut + 1, wanted
        found += newlines
        position += len(block)
        last = block[-1:]
    return total, found + (last != b"\n")


def read_lines(span: Span) -> Iterator[str]:
    """The range's lines, decoded a block at a time (a block always ends at a line end); a line
    longer than :data:`MAX_LINE_BYTES` is refused once that much of it is read."""
    with open(span.path, "rb") as stream:
        if span.start == 0:
            _check_text(span.path, stream.read(len(MAGIC)))
        stream.seek(span.start)
        left, offset = span.end - span.start, span.start
        held: list[bytes] = []  # the start of a line that no block read so far ends
        size = 0  # its bytes
        while left > 0:
            chunk = stream.read(min(BLOCK, left))
            if not chunk:
                raise ValueError(f"{span.path} changed while it was read: it is shorter now")
            left -= len(chunk)
            end = chunk.find(b"\n")
            if size + (len(chunk) if end < 0 else end) > MAX_LINE_BYTES:
                raise ValueError(line_too_long(span.path, _line_number(span.path, offset)))
            cut = chunk.rfind(b"\n") + 1 if left > 0 else len(chunk)
            if cut == 0:  # one long line: read on (kept in parts, not copied again each block)
                held.append(chunk)
                size += len(chunk)
                continue
            data = b"".join([*held, chunk[:cut]])
            held, size = ([chunk[cut:]], len(chunk) - cut) if cut < len(chunk) else ([], 0)
            yield from _lines(span.path, data, offset)
            offset += len(data)


def _lines(path: str, data: bytes, offset: int) -> list[str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = offset + error.start
        raise ValueError(_not_utf8(path, _line_number(path, where), where, error.reason)) from None
    return split_text(text, first=offset == 0)


def _not_utf8(path: str | Path, line: int, offset: int, reason: str) -> str:
    return (
        f"{path} is not UTF-8 at line {line} (byte offset {offset}: {reason}): convert it with "
        "iconv -t UTF-8"
    )


def line_too_long(where: str | Path, line: int) -> str:
    """The one message for a line over :data:`MAX_LINE_BYTES` (``where``: the file, or
    "input stdin")."""
    return (
        f"{where}: line {line} is longer than {MAX_LINE_BYTES:,} bytes, more than a line of "
        "text may have: is it a text file with line ends?"
    )


def split_text(text: str, *, first: bool = True) -> list[str]:
    """``text`` cut by the rule; ``first``: it starts a file (a BOM there is dropped)."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    if first:  # a BOM alone is then an empty line: a line all the same, as spm counts it
        lines[0] = lines[0].removeprefix(BOM)
    if "\r" not in text:  # (no line to strip: no call per line)
        return lines
    return [line_text(line) for line in lines]


def line_text(line: str) -> str:
    """A line without its line end: trailing "\\r" and "\\n" dropped. Also the rule for one
    ``sentence_iterator`` item, which may come with its "\\n" (``open(path)`` yields such)."""
    return line.rstrip("\r\n")


def file_lines(path: str | Path, *, skip_blank: bool = False) -> Iterator[str]:
    """Every line of the UTF-8 file ``path``, read a block at a time; ``skip_blank`` leaves out
    lines of white space only. A pipe (``<(...)``, a FIFO) is read as it arrives: its size
    says nothing (``getsize`` is 0), so reading it as a span would give no lines at all."""
    info = os.stat(path)
    if stat.S_ISREG(info.st_mode):
        lines = read_lines(Span(str(path), 0, info.st_size))
    else:
        lines = _pipe_lines(str(path))
    return (line for line in lines if line.strip()) if skip_blank else lines


def _pipe_lines(path: str) -> Iterator[str]:
    with open(path, "rb") as stream:
        yield from stream_lines(stream, path)


def stream_lines(stream: BinaryIO, name: str = "<stdin>") -> Iterator[str]:
    """The lines of a binary stream (stdin, a pipe) as they arrive, one at a time, so that an
    interactive pipe gets each line's answer at once; a line is read no further than
    :data:`MAX_LINE_BYTES` (and refused there)."""
    offset = number = 0
    label = "stdin" if name == "<stdin>" else name
    while raw := stream.readline(MAX_LINE_BYTES + 1):
        number += 1
        if number == 1:
            _check_text("input stdin" if name == "<stdin>" else name, raw[: len(MAGIC)])
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise ValueError(line_too_long(f"input {label}", number))
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            where = f"line {number} (byte offset {offset + error.start}: {error.reason})"
            raise ValueError(
                f"input {label} is not UTF-8 at {where}; convert it first, "
                "e.g. iconv -f LATIN1 -t UTF-8"
            ) from None
        yield from split_text(line, first=number == 1)
        offset += len(raw)


def bounded_lines(path: str | Path, limit: int, what: str) -> list[str]:
    """Every line of a small file read whole (a vocabulary, a seed list, a folding table),
    which may be a pipe (``<(...)``), never more than ``limit`` bytes of it
    (:func:`~brahmic_pua.io.bounded.read_bounded`; ``what`` names its kind in the error)."""
    data = read_bounded(path, limit, what)
    _check_text(str(path), data[: len(MAGIC)])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ValueError(_not_utf8(path, line, error.start, error.reason)) from None
    return split_text(text)


def _check_text(name: str, head: bytes) -> None:
    """A Parquet file (by its name or first bytes, :mod:`~brahmic_pua.io.text_only`) read as
    text is one line saying what reads Parquet, before any of it is taken for lines: its bytes
    are no text, and "not UTF-8 ... iconv" was advice that cannot work."""
    if (message := parquet_not_text(name, head)) is not None:
        raise ValueError(message)


def _line_number(path: str, offset: int) -> int:
    """The line that holds byte ``offset``: counted only when an error needs it."""
    newlines = 0
    with open(path, "rb") as stream:
        while offset > 0 and (block := stream.read(min(BLOCK, offset))):
            newlines += block.count(b"\n")
            offset -= len(block)
    return newlines + 1
