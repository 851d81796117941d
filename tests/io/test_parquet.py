"""Parquet input: a column's rows read as the lines of the text file those rows make written one
a line (the oracle: that file, read by the one line reader), a batch at a time, and one line
for every file or column that cannot be read."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import require_extra
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import parquet_rows

from brahmic_pua.io import lines, parquet
from brahmic_pua.io.lines import BATCH_LINES, file_lines
from brahmic_pua.io.parquet import check_column, is_parquet, parquet_lines

require_extra("pyarrow", "arrow", "Parquet input")

import pyarrow as pa  # noqa: E402 (after the check: a skip, not an ImportError)
import pyarrow.parquet as pq  # noqa: E402


def write_parquet(path: Path, rows: list[str | None], group: int = 3, **columns: Any) -> None:
    table = pa.table({"text": pa.array(rows, pa.string()), **columns})
    pq.write_table(table, path, row_group_size=max(1, group))


def as_text_file(path: Path, rows: list[str | None]) -> list[str]:
    """The oracle: the rows written one a line (a null as nothing), read as a text file."""
    path.write_text("".join(f"{row or ''}\n" for row in rows), encoding="utf-8", newline="")
    return list(file_lines(path))


rows = parquet_rows(12)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(rows=rows, group=st.integers(1, 5))
def test_rows_read_as_the_text_file_they_make(
    tmp_path: Path, rows: list[str | None], group: int
) -> None:
    source = tmp_path / "c.parquet"
    write_parquet(source, rows, group)
    assert list(parquet_lines(str(source))) == as_text_file(tmp_path / "c.txt", rows)


def test_what_a_row_becomes(tmp_path: Path) -> None:
    """The decisions, spelled out: a row with line feeds is several lines, a null an empty
    line, CR before a line end dropped, a BOM dropped at the very start only."""
    source = tmp_path / "c.parquet"
    write_parquet(source, ["\ufeffఒకటి", "a\nb", None, "c\r\n", "", "\ufeffd"], group=2)
    assert list(parquet_lines(str(source))) == ["ఒకటి", "a", "b", "", "c", "", "", "\ufeffd"]
    write_parquet(source, [])
    assert list(parquet_lines(str(source))) == []


@pytest.mark.parametrize(
    "kind", [pa.large_string(), pa.string_view(), pa.dictionary(pa.int32(), pa.string())]
)
def test_every_layout_of_strings_is_text(tmp_path: Path, kind: Any) -> None:
    source = tmp_path / "c.parquet"
    pq.write_table(pa.table({"body": pa.array(["క", "a b"]).cast(kind)}), source)
    assert list(parquet_lines(str(source), "body")) == ["క", "a b"]


def test_rows_are_read_a_batch_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first line comes after one batch of rows, not the whole file; no batch holds more
    than BATCH_LINES rows (counted, not timed)."""
    source = tmp_path / "c.parquet"
    write_parquet(source, [f"line {i}" for i in range(5 * BATCH_LINES)], group=BATCH_LINES)
    sizes: list[int] = []
    real = pq.ParquetFile.iter_batches

    def watched(self: Any, *args: Any, **kwargs: Any) -> Any:
        for batch in real(self, *args, **kwargs):
            if kwargs.get("batch_size") != 1:  # not the read of a row group's dictionary
                sizes.append(batch.num_rows)
            yield batch

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", watched)
    lines = parquet_lines(str(source))
    assert next(lines) == "line 0" and sizes == [BATCH_LINES]
    assert sum(1 for _ in lines) == 5 * BATCH_LINES - 1
    assert sizes == [BATCH_LINES] * 5


def test_is_parquet_by_the_name() -> None:
    assert is_parquet("a/b.parquet") and is_parquet("B.PARQUET")
    assert not is_parquet("b.parquet.txt") and not is_parquet("parquet")


def _one_line(call: Any) -> str:
    with pytest.raises(ValueError) as error:
        call()
    message = str(error.value)
    assert "\n" not in message
    return message


def test_a_column_it_lacks_names_the_columns(tmp_path: Path) -> None:
    source = tmp_path / "c.parquet"
    write_parquet(source, ["a"], id=pa.array([1]))
    message = _one_line(lambda: check_column(str(source), "body"))
    assert "has no column 'body' (its columns: 'text', 'id')" in message
    assert "text_column=" in message


def test_a_column_of_numbers_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "c.parquet"
    write_parquet(source, ["a"], id=pa.array([1]))
    message = _one_line(lambda: list(parquet_lines(str(source), "id")))
    assert "column 'id' holds int64, not text" in message


def test_a_file_that_is_not_parquet_is_one_line(tmp_path: Path) -> None:
    text = tmp_path / "text.parquet"
    text.write_text("just text\n", encoding="utf-8")
    assert "is not a Parquet file that can be read" in _one_line(
        lambda: check_column(str(text), "text")
    )
    damaged = tmp_path / "damaged.parquet"
    write_parquet(damaged, ["a"] * 100)
    damaged.write_bytes(damaged.read_bytes()[: damaged.stat().st_size // 2])
    assert "is not a Parquet file that can be read" in _one_line(
        lambda: list(parquet_lines(str(damaged)))
    )


def test_without_pyarrow_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "c.parquet"
    write_parquet(source, ["a"])
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # its import fails
    message = _one_line(lambda: check_column(str(source), "text"))
    assert message == (
        f"{source} is Parquet: reading it needs pyarrow, the arrow extra "
        "(pip install 'brahmic-pua[arrow]')"
    )
    assert parquet.INSTALL in message


def test_a_line_over_the_bound_is_refused_as_in_a_text_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row's line longer than MAX_LINE_BYTES gets the text reader's message for the same line
    (it was read whatever its size); a long row of short lines is read."""
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(lines, "BLOCK", 1024)
    monkeypatch.setattr(parquet, "MAX_LINE_BYTES", 4096)
    fine: list[str | None] = ["క" * 1300 + "\n" + "క" * 1300]  # two lines of 3,900 bytes
    write_parquet(tmp_path / "fine.parquet", fine)
    assert list(parquet_lines(str(tmp_path / "fine.parquet"))) == ["క" * 1300] * 2
    rows: list[str | None] = ["short", "a\n" + "క" * 1400 + "\nb", "x"]  # line 3: 4,200 bytes
    write_parquet(tmp_path / "c.parquet", rows)
    with pytest.raises(ValueError) as text:
        as_text_file(tmp_path / "c.txt", rows)
    with pytest.raises(ValueError) as rows_read:
        list(parquet_lines(str(tmp_path / "c.parquet")))
    assert "line 3 is longer than 4,096 bytes" in str(text.value)
    assert str(rows_read.value) == str(text.value).replace("c.txt", "c.parquet")


def test_long_rows_are_made_lines_a_part_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No more than about BATCH_CHARS characters of rows are joined into lines at once (the
    one batching rule: its last few rows may pass the bound): a batch of long rows was joined
    whole. The lines are the text file's."""
    monkeypatch.setattr(parquet, "BATCH_CHARS", 100)
    rows: list[str | None] = [f"{i:02d}" + "x" * 28 for i in range(40)]
    rows += ["y" * 250, None]
    write_parquet(tmp_path / "c.parquet", rows, group=len(rows))
    joined: list[int] = []
    real = lines.split_text

    def watched(text: str, *, first: bool = True) -> list[str]:
        joined.append(len(text.encode("utf-8")))
        return real(text, first=first)

    monkeypatch.setattr(parquet, "split_text", watched)
    assert list(parquet_lines(str(tmp_path / "c.parquet"))) == as_text_file(
        tmp_path / "c.txt", rows
    )
    assert len(joined) > 1  # several parts of the one batch
    assert max(joined) < 1000  # 42 rows, 1,450 characters with their line ends, all at once


def test_a_column_held_twice_is_ambiguous(tmp_path: Path) -> None:
    """Two columns of the asked name: one line saying how many and what to do (pyarrow's
    schema.field raised a KeyError that it does not exist)."""
    source = tmp_path / "c.parquet"
    table = pa.Table.from_arrays([pa.array(["a"]), pa.array(["b"])], names=["text", "text"])
    pq.write_table(table, source)
    message = _one_line(lambda: check_column(str(source), "text"))
    assert f"{source} holds 2 columns named 'text'" in message
    assert "ambiguous" in message and "text_column=" in message


def damage_a_page(source: Path, target: Path, group: int, at_header: bool) -> None:
    """``source`` with 32 bytes of one data page of row group ``group`` flipped (XOR 0x5A):
    its page header, or the middle of its data. The footer, which holds the offsets, is
    intact."""
    chunk = pq.ParquetFile(source).metadata.row_group(group).column(0)
    start = chunk.data_page_offset
    end = (chunk.dictionary_page_offset or start) + chunk.total_compressed_size
    at = start if at_header else (start + end) // 2
    data = bytearray(source.read_bytes())
    for i in range(at, at + 32):
        data[i] ^= 0x5A
    target.write_bytes(bytes(data))


@pytest.mark.parametrize("compression", ["snappy", "none"])
@pytest.mark.parametrize("at_header", [True, False])
def test_a_damaged_page_is_one_line_naming_the_file(
    tmp_path: Path, compression: str, at_header: bool
) -> None:
    """A page of the second row group damaged: pyarrow raises OSError (not ArrowException)
    for a page header it cannot parse or snappy data it cannot decompress; either is one
    line that names the file and what to do. Data flipped inside an uncompressed page is bytes
    that are not UTF-8 here; flipped otherwise it could still be strings (pages carry no
    checksum by default), read as they are."""
    rows: list[str | None] = [f"line {i} " + "క" * (i % 50) for i in range(900)]
    source = tmp_path / "good.parquet"
    pq.write_table(
        pa.table({"text": rows}),
        source,
        compression=compression,
        row_group_size=300,
        use_dictionary=False,
    )
    damaged = tmp_path / "bad.parquet"
    damage_a_page(source, damaged, 1, at_header)
    try:
        read = list(parquet_lines(str(damaged)))
    except ValueError as error:
        message = str(error)
        assert "\n" not in message
        assert message.startswith(
            (f"{damaged} is damaged: its column 'text' cannot be read (", f"{damaged}: column")
        )
        assert message.endswith(
            "write the file again from its source, or leave it out of the inputs"
        )
    else:
        assert compression == "none" and not at_header, "a damaged snappy page or header read"
        assert read[:300] == rows[:300] and len(read) == len(rows)


@pytest.mark.parametrize("dictionary", [True, False])
def test_a_batch_holds_about_batch_chars_of_text_however_often_rows_repeat_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dictionary: bool
) -> None:
    """Rows that repeat one long value of a dictionary page: the footer counts the value once
    (a 3,996-byte zstd file of ten rows of 39 MB said 39 MB), so batches sized by the footer
    alone held every row at once. Arrow's batches stay within BATCH_CHARS and one row, and
    the lines are the text file's."""
    monkeypatch.setattr(parquet, "BATCH_CHARS", 4096)
    rows: list[str | None] = ["x" * 3000, "క" * 1000, None, "short"] * 25
    source = tmp_path / "c.parquet"
    table = pa.table({"text": pa.array(rows, pa.string())})
    pq.write_table(table, source, compression="zstd", use_dictionary=dictionary)
    chunk = pq.ParquetFile(source).metadata.row_group(0).column(0)
    assert chunk.has_dictionary_page == dictionary
    held: list[int] = []
    real = pq.ParquetFile.iter_batches

    def watched(self: Any, *args: Any, **kwargs: Any) -> Any:
        for batch in real(self, *args, **kwargs):
            column = batch.column(0)
            if pa.types.is_dictionary(column.type):  # the read of the dictionary itself
                column = column.dictionary
            held.append(sum(len(row.encode()) for row in column.to_pylist() if row))
            yield batch

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", watched)
    assert list(parquet_lines(str(source))) == as_text_file(tmp_path / "c.txt", rows)
    assert held and max(held) <= 4096 + 3000
