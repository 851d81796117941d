"""Write output files whole or not at all: a temporary file beside the target, then a rename.

Files are created with mode 0666 filtered by the user's umask, as ``open()`` would create them
(``tempfile.mkstemp`` would give 0600), and fsynced before the rename so that a crash never
leaves a renamed but empty file. Targets are checked before anything is written, so a missing
directory or a directory in the target's place is one clear error, not a half-finished run.
"""

from __future__ import annotations

import io
import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO, Protocol, TextIO


class Files(Protocol):
    """``{path: data}`` with str keys, Path keys or both (a Mapping would be invariant in them)."""

    def items(self) -> Iterable[tuple[str | Path, bytes]]: ...


class OutputPathError(ValueError):
    """An output path that cannot be written: its directory is missing or read-only, or it is a
    directory itself."""


def check_writable(path: str | Path) -> None:
    """Raise :class:`OutputPathError` unless ``path`` can be created or replaced; call it before
    long work (training) so that a bad path fails at once, not at the end."""
    target = Path(path)
    if target.name in ("", ".", ".."):
        raise OutputPathError(f"cannot write {str(path)!r}: it names a directory, not a file")
    if target.is_dir():
        raise OutputPathError(f"cannot write {path}: it is a directory")
    parent = target.parent
    if not parent.is_dir():
        raise OutputPathError(f"cannot write {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputPathError(f"cannot write {path}: directory {parent} is not writable")


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside ``target``; O_EXCL so that it is ours alone, 0o666 so the umask applies."""
    while True:
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue


def _sync_directory(directory: Path) -> None:
    """Make the renames durable; some file systems cannot fsync a directory, which is harmless."""
    with suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


@contextmanager
def _temporary_for(target: Path) -> Iterator[tuple[BinaryIO, Path]]:
    """A binary stream on a new temporary file, fsynced when the block ends; removed on error."""
    handle, temporary = _create_temporary(target)
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream, temporary
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_output(path: str | Path) -> Iterator[TextIO]:
    """A UTF-8 text stream (no newline translation; its ``.buffer`` takes bytes) that becomes
    ``path`` only if the block finishes without error. On any error, KeyboardInterrupt and
    SystemExit included, the temporary file is removed and ``path`` is left as it was."""
    target = Path(path)
    check_writable(target)
    with _temporary_for(target) as (stream, temporary):
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        yield text
        text.detach()  # flushes the text layer and leaves the file open for the fsync
    try:
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(target.parent)


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all."""
    write_atomic_many({path: data})


def write_atomic_many(files: Files) -> None:
    """Write several files as one unit (a model and its vocabulary): every target is checked
    first, then every temporary file is written and fsynced, and only then are they renamed into
    place. If a check or a write fails, no target is touched and no temporary file remains. The
    renames follow each other immediately; only a crash between two of them could leave a mix."""
    pairs = [(Path(path), data) for path, data in files.items()]
    targets = [target for target, _ in pairs]
    seen: set[str] = set()
    for target in targets:
        check_writable(target)
        key = os.path.realpath(target)
        if key in seen:
            raise OutputPathError(f"cannot write {target} twice in one unit")
        seen.add(key)
    written: list[Path] = []
    try:
        for target, data in pairs:
            with _temporary_for(target) as (stream, temporary):
                written.append(temporary)
                stream.write(data)
        for temporary, target in zip(written, targets, strict=True):
            os.replace(temporary, target)
    except BaseException:
        for temporary in written:
            temporary.unlink(missing_ok=True)
        raise
    for directory in {target.parent for target in targets}:
        _sync_directory(directory)
