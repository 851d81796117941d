"""brahmic_pua.io.atomic: output files are whole or absent, durable, and get the user's umask."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from brahmic_pua.io.atomic import (
    OutputPathError,
    atomic_output,
    atomic_path,
    check_writable,
    write_atomic,
    write_atomic_many,
)


@pytest.fixture
def umask_027() -> Iterator[None]:
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


def names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.mark.usefixtures("umask_027")
def test_files_get_the_users_umask(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a.bin", b"x")
    with atomic_output(tmp_path / "b.txt") as stream:
        stream.write("y")
    write_atomic_many({tmp_path / "c.model": b"m", tmp_path / "c.vocab": b"v"})
    assert {mode(p) for p in tmp_path.iterdir()} == {0o640}


def test_data_is_fsynced_before_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace

    def record_fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def record_replace(source: str | Path, target: str | Path) -> None:
        events.append(("replace", str(source)))
        replace(source, target)

    monkeypatch.setattr(os, "fsync", record_fsync)
    monkeypatch.setattr(os, "replace", record_replace)
    write_atomic_many({tmp_path / "m.model": b"m", tmp_path / "m.vocab": b"v"})
    with atomic_output(tmp_path / "t.txt") as stream:
        stream.write("t")
    renamed = [path for kind, path in events if kind == "replace"]
    assert len(renamed) == 3
    for path in renamed:
        assert events.index(("fsync", path)) < events.index(("replace", path))
    assert events[1][0] == "fsync", "both files of a unit are synced before the first rename"


def test_many_writes_every_file(tmp_path: Path) -> None:
    write_atomic_many({tmp_path / "m.model": b"model", str(tmp_path / "m.vocab"): b"vocab"})
    assert (tmp_path / "m.model").read_bytes() == b"model"
    assert (tmp_path / "m.vocab").read_bytes() == b"vocab"
    assert names(tmp_path) == ["m.model", "m.vocab"]


def test_a_directory_in_a_targets_place_fails_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "out.vocab").mkdir()
    with pytest.raises(OutputPathError) as caught:
        write_atomic_many({tmp_path / "out.model": b"m", tmp_path / "out.vocab": b"v"})
    message = str(caught.value)
    assert "out.vocab" in message and "is a directory" in message and "\n" not in message
    assert names(tmp_path) == ["out.vocab"]
    assert list((tmp_path / "out.vocab").iterdir()) == []


@pytest.mark.parametrize("fail_at", [1, 2])
def test_a_failed_write_touches_no_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    """The old model and vocab stay a matching pair when a new one cannot be written."""
    model, vocab = tmp_path / "m.model", tmp_path / "m.vocab"
    write_atomic_many({model: b"old model", vocab: b"old vocab"})
    calls: list[int] = []
    fsync = os.fsync

    def failing(fd: int) -> None:
        calls.append(fd)
        if len(calls) == fail_at:
            raise OSError(28, "No space left on device")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError, match="No space left"):
        write_atomic_many({model: b"new model", vocab: b"new vocab"})
    assert model.read_bytes() == b"old model" and vocab.read_bytes() == b"old vocab"
    assert names(tmp_path) == ["m.model", "m.vocab"]


def test_a_missing_directory_is_one_clear_line(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "m.model"
    writes: list[Callable[[], None]] = [
        lambda: check_writable(target),
        lambda: write_atomic(target, b""),
        lambda: write_atomic_many({tmp_path / "ok.vocab": b"", target: b""}),
    ]
    for write in writes:
        with pytest.raises(OutputPathError, match=r"directory .*missing does not exist"):
            write()
    assert names(tmp_path) == []


def test_a_file_in_the_directorys_place(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputPathError, match="does not exist"):
        check_writable(tmp_path / "file" / "m.model")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any directory")
def test_a_read_only_directory(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(OutputPathError, match="not writable"):
        check_writable(locked / "m.model")


def test_check_writable_accepts_new_and_existing_files_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "old.model").write_bytes(b"old")
    check_writable(tmp_path / "new.model")
    check_writable(tmp_path / "old.model")
    assert names(tmp_path) == ["old.model"]
    assert (tmp_path / "old.model").read_bytes() == b"old"


@pytest.mark.parametrize("path", ["", ".", ".."])
def test_a_path_that_names_no_file(path: str) -> None:
    with pytest.raises(OutputPathError, match="names a directory"):
        check_writable(path)


def test_one_target_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OutputPathError, match="twice"):
        write_atomic_many({tmp_path / "m": b"1", str(tmp_path / "." / "m"): b"2"})
    assert names(tmp_path) == []


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt, SystemExit])
def test_an_interrupted_block_leaves_nothing(tmp_path: Path, error: type[BaseException]) -> None:
    target = tmp_path / "out.txt"
    target.write_text("before")
    with pytest.raises(error), atomic_output(target) as stream:
        stream.write("half")
        raise error()
    assert target.read_text() == "before"
    assert names(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt, SystemExit])
def test_an_interrupted_write_by_name_leaves_nothing(
    tmp_path: Path, error: type[BaseException]
) -> None:
    target = tmp_path / "out.gguf"
    target.write_bytes(b"before")
    with pytest.raises(error), atomic_path(target) as name:
        name.write_bytes(b"GGUF")  # the writer opens, writes and closes the file by its name
        raise error()
    assert target.read_bytes() == b"before"
    assert names(tmp_path) == ["out.gguf"]
    _by_name(target, b"after")
    assert target.read_bytes() == b"after" and names(tmp_path) == ["out.gguf"]


def test_text_output_keeps_line_endings(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with atomic_output(target) as stream:
        stream.write("a\r\nb\rc\nద\n")
    assert target.read_bytes() == "a\r\nb\rc\nద\n".encode()


def null_device(path: Path) -> Path:
    """A character device that acts as /dev/null, made where the test can see it (root only)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device needs root")
    return path


WRITERS: dict[str, Callable[[Path, bytes], None]] = {
    "write_atomic": write_atomic,
    "write_atomic_many": lambda path, data: write_atomic_many({path: data}),
    "atomic_output": lambda path, data: _through_text(path, data),
    "atomic_path": lambda path, data: _by_name(path, data),
}


def _by_name(path: Path, data: bytes) -> None:
    """As a writer that opens its file by name (gguf's) writes through ``atomic_path``."""
    with atomic_path(path) as name, open(name, "wb") as stream:
        stream.write(data)


def _through_text(path: Path, data: bytes) -> None:
    with atomic_output(path) as stream:
        stream.write(data.decode("utf-8"))


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_device_is_written_through_not_replaced(tmp_path: Path, writer: str) -> None:
    device = null_device(tmp_path / "null")
    WRITERS[writer](device, "క్రాంతి\n".encode())
    assert stat.S_ISCHR(device.stat().st_mode), "the device must stay a device"
    assert names(tmp_path) == ["null"], "no temporary file is left beside it"


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_reader_gets_the_bytes(tmp_path: Path, writer: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    WRITERS[writer](fifo, "తెలుగు\n".encode())
    reader.join(timeout=10)
    assert not reader.is_alive() and received == ["తెలుగు\n".encode()]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_symlink_stays_and_its_target_gets_the_content(tmp_path: Path, writer: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "real.txt"
    target.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    WRITERS[writer](link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new"
    assert names(elsewhere) == ["real.txt"] and names(tmp_path) == ["elsewhere", "link.txt"]


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "made.txt")
    write_atomic(link, b"x")
    assert link.is_symlink() and (tmp_path / "made.txt").read_bytes() == b"x"


def test_links_that_loop_are_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OutputPathError, match=r"cannot write .*a: Too many levels"):
        write_atomic(tmp_path / "a", b"x")


def test_a_unit_with_a_device_writes_it_and_renames_the_rest(tmp_path: Path) -> None:
    device = null_device(tmp_path / "null")
    write_atomic_many({device: b"model", tmp_path / "null.vocab": b"vocab"})
    assert stat.S_ISCHR(device.stat().st_mode)
    assert (tmp_path / "null.vocab").read_bytes() == b"vocab"


def test_an_inherited_descriptor_redirected_to_a_file_writes_into_that_file(
    tmp_path: Path,
) -> None:
    """/proc/self/fd/1 (what /dev/stdout links to) names a regular file when a shell redirects;
    replacing it by a rename would leave the shell's file empty, so a name under /dev or /proc
    is written through. (The test does not name /dev/stdout itself: code that renames over it
    would replace the machine's /dev/stdout, as this module once did.)"""
    out = tmp_path / "out.txt"
    script = (
        "from brahmic_pua.io.atomic import write_atomic; write_atomic('/proc/self/fd/1', b'ids')"
    )
    with out.open("wb") as handle:
        subprocess.run([sys.executable, "-c", script], stdout=handle, check=True)
    assert out.read_bytes() == b"ids" and names(tmp_path) == ["out.txt"]
