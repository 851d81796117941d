"""``read_bounded``: a small file read whole, never more than its bound, whatever the path
names (a regular file, a pipe, a device, a FIFO)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import through_fifo

from brahmic_pua.io.bounded import HEAD_BYTES, TooLarge, read_bounded


def test_a_file_up_to_the_bound_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 1000)
    assert read_bounded(path, 1000, "list") == b"x" * 1000
    assert read_bounded(path, 1000, "list", regular_only=True) == b"x" * 1000


def test_a_regular_file_over_the_bound_is_refused_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "f"
    with open(path, "wb") as file:  # 1 TB of hole: reading it would take all memory and then some
        file.truncate(1 << 40)
    with pytest.raises(TooLarge) as error:
        read_bounded(path, 1000, "seed list")
    assert str(error.value) == (
        f"{path}: 1,099,511,627,776 bytes, more than the 1,000 a seed list may have; "
        "is it the right file?"
    )


def test_a_pipe_that_never_ends_is_read_to_one_byte_past_the_bound(tmp_path: Path) -> None:
    """The writer counts what the reader took (and the chunk it was writing): the bound and a
    pipe's buffer, not the stream."""
    written = [0]
    with pytest.raises(TooLarge, match=r"over 100,000 bytes and not at its end"):
        through_fifo(
            tmp_path / "fifo", _zeros(written), lambda p: read_bounded(p, 100_000, "vocabulary")
        )
    assert written[0] <= 100_001 + (1 << 20)  # a pipe buffers at most 1 MiB on Linux


def _zeros(written: list[int]) -> Iterator[bytes]:
    """Zeros, 4 KiB at a time, up to 1 GiB; ``written[0]``: the bytes handed to the pipe."""
    while written[0] < 1 << 30:
        written[0] += 4096
        yield b"\0" * 4096


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_read_to_the_bound_or_refused_unread() -> None:
    with pytest.raises(TooLarge, match=r"^/dev/zero: over 10 bytes and not at its end"):
        read_bounded("/dev/zero", 10, "codec")
    with pytest.raises(TooLarge, match=r"^/dev/zero: not a regular file"):
        read_bounded("/dev/zero", 10, "marker", regular_only=True)


def test_a_fifo_without_a_writer_is_refused_at_once_where_a_file_is_needed(
    tmp_path: Path,
) -> None:
    """Opened without waiting for a writer: a late writer (two seconds) would let a blocking
    open go on and read an empty file, which the assertion would catch."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def late_writer() -> None:
        time.sleep(2)
        with contextlib.suppress(OSError):  # no reader left: nothing to unblock
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=late_writer, daemon=True).start()
    with pytest.raises(TooLarge, match=r"not a regular file"):
        read_bounded(fifo, 10, "marker", regular_only=True)


def test_the_head_check_sees_the_first_bytes_and_the_size(tmp_path: Path) -> None:
    """A regular file's size, a short file's length, an unknown size (None) for a pipe."""
    seen: list[tuple[bytes, int | None]] = []
    data = bytes(range(256)) * (HEAD_BYTES // 256) + b"tail"
    path = tmp_path / "f"
    path.write_bytes(data)
    short = tmp_path / "short"
    short.write_bytes(b"0123456789")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: Path(fifo).write_bytes(data))
    writer.start()
    for name in (path, short, fifo):
        whole = path if name == fifo else name
        read = read_bounded(name, 1 << 20, "list", head=lambda h, n: seen.append((h, n)))
        assert read == whole.read_bytes()
    writer.join()
    assert seen == [(data[:HEAD_BYTES], len(data)), (b"0123456789", 10), (data[:HEAD_BYTES], None)]


def test_a_head_refused_is_all_that_is_read(tmp_path: Path) -> None:
    """The writer counts what the reader took (and the chunk it was writing): the head and a
    pipe's buffer, not the stream."""
    written = [0]

    def refuse(head: bytes, size: int | None) -> None:
        raise ValueError(f"{len(head)} bytes of zeros")

    with pytest.raises(ValueError, match=f"^{HEAD_BYTES} bytes of zeros$"):
        through_fifo(
            tmp_path / "fifo",
            _zeros(written),
            lambda p: read_bounded(p, 1 << 30, "model", head=refuse),
        )
    assert written[0] <= HEAD_BYTES + (1 << 20)  # a pipe buffers at most 1 MiB on Linux
