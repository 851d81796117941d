"""Parquet input: the rows of one text column read as lines, a slice of rows at a time.

A corpus for a language model often comes as Parquet (a Hugging Face dataset's files, a data
lake's export). ``train``, ``eval`` and ``encode-corpus`` read such a file as the text file its
column would be, written one row a line: **the rows are joined by "\\n" and cut by the one line
rule** (:func:`~brahmic_pua.io.lines.split_text`), so a Parquet file and that text file give the
same lines, and so the same model and the same ids. What follows from the rule:

* a row holding line feeds is several lines (a text file could hold it no other way), and a
  "\\r" before each line end is dropped, as in a CRLF file;
* a null row is an empty line (what a CSV or text writer writes for a missing value);
* a byte order mark at the start of the file's first row is dropped, as at the start of a file;
* a line over :data:`~brahmic_pua.io.lines.MAX_LINE_BYTES` is refused with the text reader's
  message for that line.

A file is Parquet when its name ends in ``.parquet`` (any case); its column is named by
``text_column`` (default ``text``, the name Hugging Face datasets use) and must hold strings,
and be the only column of that name.

**Memory.** A row group bounds nothing about the text it holds once decompressed (a 3,996-byte
zstd file held ten rows of 39 MB, and ``to_pylist`` of them ran out of memory), so rows are
read per row group, ``ParquetFile.iter_batches`` asked for as many rows as make about
:data:`~brahmic_pua.io.lines.BATCH_CHARS` bytes (at most
:data:`~brahmic_pua.io.lines.BATCH_LINES`, at least one) by the footer's size of the column
chunk, or by the longest value of its dictionary, which its rows may repeat (read first, as a
dictionary: one page). Each batch's string lengths are
measured in Arrow (``pyarrow.compute.binary_length``) before a Python string is made, and rows
become Python strings a slice of about ``BATCH_CHARS`` bytes at a time; a row over
``MAX_LINE_BYTES`` (several lines, or one line to refuse) is cut at its line feeds in Arrow and
its lines measured there, a line over the bound refused before it is converted. So Python holds
about ``BATCH_CHARS`` of text at a time, and Arrow a batch (about ``BATCH_CHARS`` by the footer,
or one row) and one page, which Arrow decompresses whole. The footer's size of a column chunk is
a claim Arrow does not check: a footer that understates it makes batches of more rows than
their text warrants (up to ``BATCH_LINES``).

Reading needs pyarrow, the ``arrow`` extra; without it, the error says which to install. What
cannot be read (a damaged page, a column of bytes that are not UTF-8) is one line naming the
file and what to do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from brahmic_pua.io.lines import (
    BATCH_CHARS,
    BATCH_LINES,
    MAX_LINE_BYTES,
    Span,
    file_lines,
    line_too_long,
    plan_spans,
    read_lines,
    split_text,
)
from brahmic_pua.io.text_only import SUFFIX, is_parquet
from brahmic_pua.io.wording import one_line

#: The column read when none is named: the one Hugging Face datasets name their text.
DEFAULT_COLUMN = "text"
INSTALL = "pip install 'brahmic-pua[arrow]'"
#: The advice for a file whose pages cannot be read.
DAMAGED = "write the file again from its source, or leave it out of the inputs"


def _parquet_file(path: str) -> Any:
    """The opened file (its footer read), or one error line: no pyarrow, not Parquet."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError(
            f"{path} is Parquet: reading it needs pyarrow, the arrow extra ({INSTALL})"
        ) from None
    import pyarrow as pa

    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as error:
        reason = one_line(error)
        raise ValueError(
            f"{path} is not a Parquet file that can be read ({reason}): give a Parquet file, "
            "or a text file without the .parquet suffix"
        ) from None


def check_column(path: str, column: str) -> None:
    """One error line, before anything is read, for no pyarrow, a file that is not Parquet, a
    column it lacks (naming the columns it has), one it holds twice or more (which of them is
    meant cannot be said) or one that does not hold strings."""
    _open(path, column)


def _open(path: str, column: str) -> Any:
    """The opened file, its ``column`` checked (:func:`check_column`)."""
    opened = _parquet_file(path)
    schema = opened.schema_arrow
    if column not in schema.names:
        have = ", ".join(repr(name) for name in schema.names) or "none"
        raise ValueError(
            f"{path} has no column {column!r} (its columns: {have}): name the text column "
            "with text_column= (--text_column)"
        )
    if (count := schema.names.count(column)) > 1:
        raise ValueError(
            f"{path} holds {count} columns named {column!r}: which one is the text is "
            "ambiguous; write the file again with one column of that name, or name another "
            "column with text_column= (--text_column)"
        )
    kind = schema.field(column).type
    if not _is_text(kind):
        raise ValueError(
            f"{path}: column {column!r} holds {kind}, not text: name a column of strings with "
            "text_column= (--text_column)"
        )
    return opened


def _is_text(kind: Any) -> bool:
    """Strings of any layout: plain, large, views, or dictionary-encoded strings."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    view = getattr(pa.types, "is_string_view", None)  # pyarrow 16 and later
    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or (view is not None and view(kind))
    )


@dataclass(frozen=True)
class RowGroups:
    """Row groups ``first`` to ``stop`` (exclusive) of the Parquet file ``path``: the unit of
    work in which ``encode-corpus`` reads Parquet (a file of text is cut into byte ranges
    instead). ``size``: their column's bytes by the footer, uncompressed."""

    path: str
    first: int
    stop: int
    size: int


def plan_row_groups(
    path: str, column: str, max_bytes: int | None = None, max_lines: int | None = None
) -> list[RowGroups]:
    """Consecutive runs of whole row groups of ``path``, each of about ``max_bytes`` of its
    column (uncompressed, by the footer) or ``max_lines`` rows (a row holding line feeds is
    several lines: a row group's lines are known only once read); at least one row group each,
    and at least one row (a file without rows has none, as an empty text file has no range)."""
    opened = _open(path, column)
    meta, leaf = opened.metadata, _leaf(opened, column)
    plan: list[RowGroups] = []
    first, size, rows = 0, 0, 0
    for group in range(meta.num_row_groups):
        size += meta.row_group(group).column(leaf).total_uncompressed_size
        rows += meta.row_group(group).num_rows
        if (max_bytes is not None and size >= max_bytes) or (
            max_lines is not None and rows >= max_lines
        ):
            plan.append(RowGroups(path, first, group + 1, size))
            first, size, rows = group + 1, 0, 0
    if rows and first < meta.num_row_groups:
        plan.append(RowGroups(path, first, meta.num_row_groups, size))
    elif plan and first < meta.num_row_groups:  # row groups without rows: no shard of their own
        plan[-1] = RowGroups(path, plan[-1].first, meta.num_row_groups, plan[-1].size + size)
    return plan


#: A unit of work of ``encode-corpus``: a byte range of a text file, or row groups of Parquet.
Unit = Span | RowGroups


def plan_units(
    paths: Sequence[str],
    column: str | None,
    max_bytes: int | None = None,
    max_lines: int | None = None,
) -> list[list[Unit]]:
    """Groups of units in input order, each about ``max_bytes`` or ``max_lines``: text files by
    :func:`~brahmic_pua.io.lines.plan_spans` (a group may span several), a Parquet file by
    :func:`plan_row_groups` (a group of its own: its size is its column's, not its bytes')."""
    groups: list[list[Unit]] = []
    texts: list[str] = []  # text files not yet planned
    for path in [*paths, None]:
        if path is not None and not is_parquet(path):
            texts.append(path)
            continue
        if texts:
            groups += [list[Unit](group) for group in plan_spans(texts, max_bytes, max_lines)]
            texts = []
        if path is not None:
            units = plan_row_groups(path, column or DEFAULT_COLUMN, max_bytes, max_lines)
            groups += [[unit] for unit in units]
    return groups


def unit_lines(unit: Unit, column: str | None) -> Iterator[str]:
    """The lines of one unit: a text range's, or the rows of ``column`` of row groups."""
    if isinstance(unit, RowGroups):
        return parquet_lines(unit.path, column or DEFAULT_COLUMN, unit)
    return read_lines(unit)


def unit_bytes(unit: Unit) -> int:
    """A unit's size: a range's bytes, or its row groups' column bytes, uncompressed."""
    return unit.size if isinstance(unit, RowGroups) else unit.end - unit.start


def _leaf(opened: Any, column: str) -> int:
    """The index of ``column``'s column chunk in each row group (its leaf in the schema)."""
    schema = opened.metadata.schema
    paths = [schema.column(i).path for i in range(len(schema))]
    return paths.index(column) if column in paths else 0


def corpus_lines(
    path: str, column: str | None = None, *, skip_blank: bool = False
) -> Iterator[str]:
    """The lines of one input of a command that reads Parquet (``train``, ``eval``,
    ``encode-corpus``): a Parquet file's ``column`` (default :data:`DEFAULT_COLUMN`) by the rule
    above, any other file by the one line reader; ``skip_blank`` leaves out lines of white
    space only."""
    if not is_parquet(path):
        return file_lines(path, skip_blank=skip_blank)
    lines = parquet_lines(path, column or DEFAULT_COLUMN)
    return (line for line in lines if line.strip()) if skip_blank else lines


def check_text_column(column: object, inputs: Sequence[str]) -> str | None:
    """``text_column`` (``--text_column``) of a command that reads Parquet, checked: a column's
    name, given only where an input is Parquet (a text file has no columns: the option would be
    silently ignored); None when not given."""
    if column is None:
        return None
    if not isinstance(column, str) or not column:
        raise ValueError(f"text_column={column!r}: give the name of a column of strings")
    if not any(is_parquet(name) for name in inputs):
        raise ValueError(
            f"text_column={column!r} names a column of Parquet input (a file named *.parquet), "
            "and no input is Parquet: leave text_column out for text files"
        )
    return column


def parquet_lines(
    path: str, column: str = DEFAULT_COLUMN, groups: RowGroups | None = None
) -> Iterator[str]:
    """The lines of ``column`` of the Parquet file ``path`` (of ``groups`` alone, if given), by
    the rule above."""
    opened = _open(path, column)
    import pyarrow as pa

    meta, leaf = opened.metadata, _leaf(opened, column)
    span = range(meta.num_row_groups) if groups is None else range(groups.first, groups.stop)
    before = sum(meta.row_group(group).num_rows for group in range(span.start))
    where = path if before == 0 else f"{path} (row group {span.start}, row {before + 1} on)"
    reader, dictionaries = _Reader(where, first=before == 0), _Dictionaries(path, column)
    try:
        for group in span:
            for batch in opened.iter_batches(
                batch_size=_rows_per_batch(opened, dictionaries, leaf, group),
                row_groups=[group],
                columns=[column],
            ):
                yield from reader.batch(batch.column(0))
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path}: column {column!r} holds a string that is not UTF-8 ({error.reason}): the "
            f"file is damaged, or was written with bytes for text; {DAMAGED}"
        ) from None
    except (pa.ArrowException, OSError) as error:  # a damaged page (pyarrow: OSError)
        raise ValueError(
            f"{path} is damaged: its column {column!r} cannot be read ({_printable(error)}): "
            f"{DAMAGED}"
        ) from None


def _printable(error: BaseException) -> str:
    """pyarrow's message as one line, a control character in it (Arrow quotes the bytes it
    could not parse) written as its escape."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in one_line(error))


def _rows_per_batch(opened: Any, dictionaries: _Dictionaries, leaf: int, group: int) -> int:
    """As many rows as make about BATCH_CHARS bytes (1 to BATCH_LINES), by the footer's bytes
    per row (of the column chunk ``leaf``), or by the longest value of the row group's
    dictionary where that is longer: a row of a dictionary page is any of its values, however
    often the rows repeat it, where the footer counts each value once (ten rows of one 39 MB
    value: 39 MB by the footer)."""
    row_group = opened.metadata.row_group(group)
    chunk = row_group.column(leaf)
    per_row = int(chunk.total_uncompressed_size) // max(int(row_group.num_rows), 1)
    if chunk.has_dictionary_page:
        per_row = max(per_row, dictionaries.longest(group))
    return max(1, min(BATCH_LINES, BATCH_CHARS // max(per_row, 1)))


class _Dictionaries:
    """The row groups' dictionaries, read as dictionaries (``read_dictionary``): the first row
    of a row group comes with its dictionary page's values, none of them repeated."""

    def __init__(self, path: str, column: str) -> None:
        self.path, self.column = path, column
        self.opened: Any = None

    def longest(self, group: int) -> int:
        """The bytes of the longest value of the dictionary of row group ``group``."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        if self.opened is None:
            self.opened = pq.ParquetFile(self.path, read_dictionary=[self.column])
        for batch in self.opened.iter_batches(
            batch_size=1, row_groups=[group], columns=[self.column]
        ):
            values = batch.column(0)
            if pa.types.is_dictionary(values.type):
                values = values.dictionary
            if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
                values = values.cast(pa.large_string())
            longest = pc.max(pc.binary_length(values)).as_py()
            return int(longest or 0)
        return 0


class _Reader:
    """Batches of a column made lines, in order, the line count and the first row kept."""

    def __init__(self, where: str, first: bool) -> None:
        self.where = where  # the file, as a line number is counted from
        self.first = first  # the next row starts the file (a BOM there is dropped)
        self.number = 0  # the lines made so far

    def batch(self, strings: Any) -> Iterator[str]:
        """The lines of one batch of rows: measured in Arrow, converted a slice at a time."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
            strings = strings.cast(pa.large_string())  # views and dictionaries: no kernels
        sizes = pc.binary_length(strings).fill_null(0).to_pylist()
        start = 0
        while start < len(sizes):
            if sizes[start] > MAX_LINE_BYTES:  # several lines, or one to refuse
                yield from self._long_row(strings.slice(start, 1))
                start += 1
                continue
            stop, held = start, 0
            while stop < len(sizes) and sizes[stop] <= MAX_LINE_BYTES and held < BATCH_CHARS:
                held += sizes[stop]
                stop += 1
            texts = strings.slice(start, stop - start).to_pylist()
            lines = self._lines(["" if row is None else row for row in texts])
            del texts  # (not held while the lines are used)
            yield from lines
            start = stop

    def _lines(self, rows: list[str]) -> list[str]:
        """Rows (or a long row's lines) made lines by the one rule."""
        lines = split_text("\n".join(rows) + "\n", first=self.first)
        self.first = False
        self.number += len(lines)
        return lines

    def _long_row(self, row: Any) -> Iterator[str]:
        """A row over MAX_LINE_BYTES: cut at its line feeds in Arrow, each line measured there
        (the text reader's bound: the bytes before its "\\n", a "\\r" included)."""
        import pyarrow.compute as pc

        lines = pc.split_pattern(row, "\n").flatten()
        sizes = pc.binary_length(lines).to_pylist()
        for at, size in enumerate(sizes):
            if size > MAX_LINE_BYTES:
                raise ValueError(line_too_long(self.where, self.number + at + 1))
        start = 0
        while start < len(sizes):
            stop, held = start, 0
            while stop < len(sizes) and (stop == start or held < BATCH_CHARS):
                held += sizes[stop]
                stop += 1
            yield from self._lines(lines.slice(start, stop - start).to_pylist())
            start = stop


__all__ = [
    "DEFAULT_COLUMN",
    "SUFFIX",
    "RowGroups",
    "Unit",
    "check_column",
    "check_text_column",
    "corpus_lines",
    "is_parquet",
    "parquet_lines",
    "plan_row_groups",
    "plan_units",
    "unit_bytes",
    "unit_lines",
]
