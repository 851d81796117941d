"""Write output files whole or not at all: a temporary file beside the target, then a rename.

Files are created with mode 0666 filtered by the user's umask, as ``open()`` would create them
(``tempfile.mkstemp`` would give 0600), and fsynced before the rename so that a crash never
leaves a renamed but empty file. Targets are checked before anything is written, so a missing
directory or a directory in the target's place is one clear error, not a half-finished run.

Only a regular file or a new path is replaced by a rename. A rename over anything else would
destroy it: run as root, ``--output /dev/null`` would turn the system's null device into a
regular file, a FIFO's reader would wait on a pipe nobody writes, and ``/dev/stdout`` would
swap the file a shell redirected to. So a path that exists and is not a regular file (a
device, a FIFO, a socket), and any path under /dev or /proc (``/dev/stdout``, ``/dev/fd/3``),
is written through, as ``>`` and ``spm_encode --output`` write: opened, written, closed. A
symbolic link is followed: the file it names is replaced, the link stays.
"""

from __future__ import annotations

import io
import os
import secrets
import stat
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


_PSEUDO_ROOTS = ("/dev/", "/proc/")


def writes_through(path: str | Path) -> bool:
    """Whether ``path`` is written in place rather than replaced: it exists and is not a regular
    file or a directory (a device, a FIFO, a socket), or it exists under /dev or /proc, where a
    name can stand for a file the caller's shell already holds open (``/dev/stdout``)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False  # a new path (or a dangling link) is created by a rename, even under /dev
    except OSError as error:  # ELOOP: links that name each other
        raise OutputPathError(f"cannot write {path}: {error.strerror}") from None
    if stat.S_ISDIR(mode):
        return False
    return not stat.S_ISREG(mode) or os.path.abspath(path).startswith(_PSEUDO_ROOTS)


def _replaced(path: str | Path) -> Path:
    """The path a rename must replace: a symbolic link's final target (a dangling link's too),
    so that the link stays and the file it names gets the new content, as ``>`` gives it."""
    target = Path(path)
    return Path(os.path.realpath(target)) if target.is_symlink() else target


def check_writable(path: str | Path) -> None:
    """Raise :class:`OutputPathError` unless ``path`` can be created or replaced (or, for a
    device or FIFO, opened for writing); call it before long work (training) so that a bad path
    fails at once, not at the end."""
    if Path(path).name in ("", ".", ".."):
        raise OutputPathError(f"cannot write {str(path)!r}: it names a directory, not a file")
    if Path(path).is_dir():
        raise OutputPathError(f"cannot write {path}: it is a directory")
    if writes_through(path):
        if not os.access(path, os.W_OK):
            raise OutputPathError(f"cannot write {path}: permission denied")
        return
    target = _replaced(path)
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
def _through(path: str | Path) -> Iterator[BinaryIO]:
    """``path`` opened for writing in place (a device, a FIFO: see the module's docstring);
    what was written before an error stays written, as it would through ``>``."""
    with open(path, "wb") as stream:
        yield stream


@contextmanager
def atomic_output(path: str | Path) -> Iterator[TextIO]:
    """A UTF-8 text stream (no newline translation; its ``.buffer`` takes bytes) that becomes
    ``path`` only if the block finishes without error: :func:`atomic_path`'s file, opened.
    On any error, KeyboardInterrupt and SystemExit included, the temporary file is removed and
    ``path`` is left as it was. A device or FIFO is written through instead (the module's
    docstring says why)."""
    with atomic_path(path) as name, open(name, "wb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield text
        text.detach()  # flushes the text layer; the file is closed before the rename


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """For a writer that opens its file by name (gguf's ``GGUFWriter``), which
    :func:`atomic_output`'s stream cannot serve: the path of a new temporary file beside
    ``path``, which becomes ``path`` only if the block finishes without error. On any error,
    KeyboardInterrupt and SystemExit included, the temporary file is removed and ``path`` is
    left as it was. A device or FIFO is given as itself, written through (the module's
    docstring says why)."""
    check_writable(path)
    if writes_through(path):
        yield Path(path)
        return
    target = _replaced(path)
    handle, temporary = _create_temporary(target)
    os.close(handle)
    try:
        yield temporary
        handle = os.open(temporary, os.O_RDONLY)  # the writer closed it: fsync what it wrote
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
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
    renames follow each other immediately; only a crash between two of them could leave a mix.
    A device or FIFO in the unit is written through after the temporary files and before the
    renames, so a failed write to it still leaves every replaced target as it was."""
    seen: set[str] = set()
    for path, _ in files.items():
        check_writable(path)
        key = os.path.realpath(path)
        if key in seen:
            raise OutputPathError(f"cannot write {path} twice in one unit")
        seen.add(key)
    pairs: list[tuple[Path, bytes]] = []
    through: list[tuple[str | Path, bytes]] = []
    for path, data in files.items():
        if writes_through(path):
            through.append((path, data))
        else:
            pairs.append((_replaced(path), data))
    targets = [target for target, _ in pairs]
    written: list[Path] = []
    try:
        for target, data in pairs:
            with _temporary_for(target) as (stream, temporary):
                written.append(temporary)
                stream.write(data)
        for path, data in through:
            with _through(path) as stream:
                stream.write(data)
        for temporary, target in zip(written, targets, strict=True):
            os.replace(temporary, target)
    except BaseException:
        for temporary in written:
            temporary.unlink(missing_ok=True)
        raise
    for directory in {target.parent for target in targets}:
        _sync_directory(directory)
