"""brahmic_pua.io.atomic: output files are whole or absent, durable, and get the user's umask."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from brahmic_pua.io.atomic import (
    OutputPathError,
    atomic_output,
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


def test_text_output_keeps_line_endings(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with atomic_output(target) as stream:
        stream.write("a\r\nb\rc\nద\n")
    assert target.read_bytes() == "a\r\nb\rc\nద\n".encode()
