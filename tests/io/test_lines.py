"""The one line reader's bound on a line (``MAX_LINE_BYTES``), exact in both readers (a file
read a block at a time, a stream read as it arrives), and how little of an endless line is
read before it is refused."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import examples, through_fifo
from hypothesis import example, given, settings
from hypothesis import strategies as st

from brahmic_pua.io import lines
from brahmic_pua.io.lines import batched, bounded_lines, file_lines, stream_lines

#: The bound in these tests, and the block the file reader reads (never above the bound).
BOUND, BLOCK = 4096, 1024

Reader = Callable[[Path], Iterator[str]]
READERS: dict[str, Reader] = {
    "file": lambda path: file_lines(path),
    "stream": lambda path: stream_lines(io.BytesIO(path.read_bytes()), str(path)),
}


@pytest.fixture
def small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", BOUND)
    monkeypatch.setattr(lines, "BLOCK", BLOCK)


@pytest.mark.usefixtures("small_bound")
@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("start", [0, 1, BLOCK - 1, BLOCK + 7])
@pytest.mark.parametrize("ending", ["\n", "\r\n", ""])
def test_a_line_of_the_bound_is_read_and_one_byte_more_is_refused(
    tmp_path: Path, reader: str, start: int, ending: str
) -> None:
    """Wherever the line starts in a block, and whether it ends the file without a line end;
    a "\\r" before the "\\n" counts as a byte of the line."""
    head = "h" * start + "\n" if start else ""
    path = tmp_path / "text.txt"
    width = BOUND - len(ending.removesuffix("\n"))
    path.write_bytes(f"{head}{'x' * width}{ending}".encode())
    assert list(READERS[reader](path))[-1] == "x" * width
    path.write_bytes(f"{head}{'x' * (width + 1)}{ending}".encode())
    number = 2 if start else 1
    with pytest.raises(ValueError, match=rf"line {number} is longer than 4,096 bytes"):
        list(READERS[reader](path))


class _Endless(io.RawIOBase):
    """Zero bytes without a line end, counting what was read; ends after ``cap`` bytes, so
    that a reader without a bound fails its assertion instead of all memory."""

    def __init__(self, cap: int) -> None:
        self.served, self.cap = 0, cap

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        size = min(len(buffer), self.cap - self.served)
        buffer[:size] = b"\0" * size
        self.served += size
        return size


def test_an_endless_stream_is_read_no_further_than_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lines, "MAX_LINE_BYTES", 1 << 20)
    source = _Endless(cap=64 << 20)
    with pytest.raises(ValueError, match=r"^input stdin: line 1 is longer than 1,048,576 bytes"):
        list(stream_lines(io.BufferedReader(source)))
    assert source.served <= (1 << 20) + io.DEFAULT_BUFFER_SIZE


def test_a_small_file_read_whole_is_cut_by_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "seeds.txt"
    path.write_bytes("\ufeffకి\r\n\na\rb\r\n".encode())
    assert bounded_lines(path, 100, "seed file") == ["కి", "", "a\rb"]
    path.write_bytes(b"ok\n\xff\n")
    with pytest.raises(ValueError, match=r"seeds.txt is not UTF-8 at line 2 \(byte offset 3"):
        bounded_lines(path, 100, "seed file")
    with pytest.raises(ValueError, match=r"5 bytes, more than the 4 a seed file may have"):
        bounded_lines(path, 4, "seed file")


@pytest.mark.parametrize("skip_blank", [False, True])
def test_a_pipe_gives_the_lines_a_file_with_the_same_bytes_gives(
    tmp_path: Path, skip_blank: bool
) -> None:
    """A path that is a pipe has no size: its lines are read as they arrive, the same lines a
    regular file gives (BOM dropped, CRLF one ending, a lone CR kept, blank lines as asked)."""
    data = "\ufeffతెలుగు\r\n\n  \nनेपाल\rx\nlast".encode()
    expected = ["తెలుగు", "", "  ", "नेपाल\rx", "last"]
    if skip_blank:
        expected = ["తెలుగు", "नेपाल\rx", "last"]
    regular = tmp_path / "file.txt"
    regular.write_bytes(data)
    assert list(file_lines(regular, skip_blank=skip_blank)) == expected
    piped = through_fifo(
        tmp_path / "pipe", [data], lambda p: list(file_lines(p, skip_blank=skip_blank))
    )
    assert piped == expected


@given(
    st.lists(st.text(max_size=40) | st.sampled_from(["x" * 500, ""]), max_size=300),
    st.integers(1, 70),
    st.integers(1, 900),
)
@example(items=["ab"] * 100, size=50, chars=900)  # full by count
@example(items=["abcd"] * 100, size=70, chars=90)  # full by characters
@settings(max_examples=examples(100))
def test_batches_keep_the_order_and_both_bounds(items: list[str], size: int, chars: int) -> None:
    """Every item once, in order; no batch over ``size`` items; a batch ends at the first item
    by which it holds ``chars`` characters, so without its last item it holds fewer; every
    batch but the last is full by one bound; and no item is taken before the batch before it
    is handed on (a lazy reader's lines are held a batch at a time). The oracle: lists and
    lengths counted here."""
    taken: list[int] = []

    def lazily() -> Iterator[str]:
        for item in items:
            taken.append(len(item))
            yield item

    handed = 0
    for batch in batched(lazily(), size, chars):
        handed += len(batch)
        assert len(taken) == handed
    taken.clear()
    batches = list(batched(items, size, chars))
    assert [item for batch in batches for item in batch] == items
    assert all(batch for batch in batches)
    for batch in batches:
        assert len(batch) <= size
        assert sum(map(len, batch[:-1])) < chars
    for batch in batches[:-1]:  # and no batch ends before one of its bounds
        assert len(batch) == size or sum(map(len, batch)) >= chars


def test_long_lines_end_a_batch_early() -> None:
    """2,048 lines of a million characters are not held at once (they were: a batch was
    2,048 lines whatever their length)."""
    lines = ("y" * 1_000_000 for _ in range(2048))
    sizes = [len(batch) for batch in batched(lines, 2048, 16_000_000)]
    assert sizes[0] == 16 and sum(sizes) == 2048


def test_parquet_read_as_text_is_one_line_saying_what_reads_it(tmp_path: Path) -> None:
    """A file named *.parquet, or one that starts as every Parquet file does (PAR1, then the
    byte 0x15), is refused before a line of it is read, by every reader of text, with a line
    naming what reads Parquet and the command that writes its column as text (it said "not
    UTF-8 ... convert it with iconv"); a text file that starts with "PAR1" is text."""
    parquet_bytes = b"PAR1\x15\x00\x15\x1c" + "క\n".encode() * 3
    named, unnamed = tmp_path / "a.parquet", tmp_path / "a.bin"
    named.write_bytes("క\n".encode())  # by its name alone, whatever it holds
    unnamed.write_bytes(parquet_bytes)
    readers: list[Callable[[Path], object]] = [
        lambda path: list(file_lines(path)),
        lambda path: bounded_lines(path, 1000, "seed file"),
        lambda path: list(stream_lines(io.BytesIO(path.read_bytes()), str(path))),
    ]
    for path, advice in ((named, "a.parquet --output"), (unnamed, "a.bin --output")):
        for read in readers:
            with pytest.raises(ValueError) as error:
                read(path)
            message = str(error.value)
            assert f"{path} is Parquet, and this reads text: train, eval and" in message
            assert f"brahmic-pua parquet-text {tmp_path}/{advice}" in message
    with pytest.raises(ValueError, match=r"input stdin is Parquet.*parquet-text FILE\.parquet"):
        list(stream_lines(io.BytesIO(parquet_bytes)))
    text = tmp_path / "par.txt"
    text.write_bytes(b"PAR1 is a word\nPAR1\n")
    assert list(file_lines(text)) == ["PAR1 is a word", "PAR1"]
