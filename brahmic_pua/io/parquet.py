"""Parquet input: the rows of one text column read as lines, a batch of rows at a time.

A corpus for a language model often comes as Parquet (a Hugging Face dataset's files, a data
lake's export). ``train`` reads such a file as the text file its column would be, written one
row a line: **the rows are joined by "\\n" and cut by the one line rule**
(:func:`~brahmic_pua.io.lines.split_text`), so a Parquet file and that text file give the same
lines, and so the same model. What follows from the rule:

* a row holding line feeds is several lines (a text file could hold it no other way), and a
  "\\r" before each line end is dropped, as in a CRLF file;
* a null row is an empty line (what a CSV or text writer writes for a missing value);
* a byte order mark at the start of the file's first row is dropped, as at the start of a file.

A file is Parquet when its name ends in ``.parquet`` (any case); its column is named by
``text_column`` (default ``text``, the name Hugging Face datasets use) and must hold strings.
Rows are read :data:`~brahmic_pua.io.lines.BATCH_LINES` at a time (``ParquetFile.iter_batches``,
that column alone) and made lines at most :data:`~brahmic_pua.io.lines.BATCH_CHARS` characters of
them at a time (the one batching rule), so memory stays bounded by a row group, however large the
file; a line over :data:`~brahmic_pua.io.lines.MAX_LINE_BYTES` is refused with the text reader's
message. Reading needs pyarrow, the ``arrow`` extra; without it, the error says which to install.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from brahmic_pua.io.lines import (
    BATCH_CHARS,
    BATCH_LINES,
    MAX_LINE_BYTES,
    batched,
    line_too_long,
    split_text,
)
from brahmic_pua.io.wording import one_line

SUFFIX = ".parquet"
#: The column read when none is named: the one Hugging Face datasets name their text.
DEFAULT_COLUMN = "text"
INSTALL = "pip install 'brahmic-pua[arrow]'"


def is_parquet(name: str) -> bool:
    """Whether ``name`` is read as Parquet: by its suffix, as a text file is any other name."""
    return name.lower().endswith(SUFFIX)


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
    column it lacks (naming the columns it has) or one that does not hold strings."""
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


def parquet_lines(path: str, column: str = DEFAULT_COLUMN) -> Iterator[str]:
    """The lines of ``column`` of the Parquet file ``path``, by the rule above."""
    opened = _open(path, column)
    import pyarrow as pa

    first, number = True, 0
    try:
        for batch in opened.iter_batches(batch_size=BATCH_LINES, columns=[column]):
            rows = [row if row is not None else "" for row in batch.column(0).to_pylist()]
            for part in batched(rows, BATCH_LINES, BATCH_CHARS):
                lines = split_text("\n".join(part) + "\n", first=first)
                # a line of more than a quarter of the bound may be over it in UTF-8
                if max(map(len, part)) > MAX_LINE_BYTES // 4:
                    for i, line in enumerate(lines, number + 1):
                        if len(line.encode("utf-8")) > MAX_LINE_BYTES:
                            raise ValueError(line_too_long(path, i))
                yield from lines
                first, number = False, number + len(lines)
    except (pa.ArrowException, UnicodeDecodeError) as error:  # a damaged page, bad UTF-8
        reason = one_line(error)
        raise ValueError(f"{path}: column {column!r} cannot be read ({reason})") from None
