"""Temporary files named by their owner, so that the next run removes what a dead run left.

A run that dies where no cleanup can run leaves its temporary files in ``$TMPDIR``: SIGKILL
(the out-of-memory killer), and a native abort inside the process, which the address-space
limit of ``ulimit -v`` gives spm's C++ threads (``terminate called without an active
exception``, exit 134; ``cannot allocate memory for thread-local data``, exit 127). spm's word
file of a training is megabytes, its line file the corpus's size.

So a training holds an owner lock in the folder while it runs (:func:`owner`),
``brahmic_pua_owner_<pid>_<random>.lock``: an exclusive ``flock``, which the kernel drops when
the process dies, however it dies (and its forked workers with it, which share it). It names
its files and folders after it, ``brahmic_pua_<kind>_<pid>_<random>_…``
(:func:`owned_prefix`), and removes the lock file as it ends. :func:`remove_orphans` (each
training calls it as it starts) removes the files of every owner whose lock no process holds,
and the lock file. A live run's lock is held, so its files are never touched, whatever its pid
namespace; files of other names (a user's, an older version's) are never touched either. By
hand, with no training running: ``rm -rf "${TMPDIR:-/tmp}"/brahmic_pua_*``.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

PREFIX = "brahmic_pua_"
OWNER = "owner"
#: An owner lock's name: its owner's token (pid and random letters) in group 1.
_LOCK = re.compile(rf"{PREFIX}{OWNER}_(\d+_[A-Za-z0-9_]{{8}})\.lock")
#: This process's owner lock in each temporary folder: folder -> [descriptor, token, users].
_OWNED: dict[str, list[Any]] = {}
_GUARD = threading.Lock()


@contextmanager
def owner() -> Iterator[None]:
    """The block as an owner of temporary files in ``tempfile.gettempdir()``: what dead
    owners left there is removed (:func:`remove_orphans`) and a lock taken, or shared with
    another block of this process that holds it; once the last block ends, its lock file is
    removed (the run's files are removed by then). Also a decorator."""
    folder = tempfile.gettempdir()
    with _GUARD:
        held = _OWNED.get(folder)
        if held is None:
            remove_orphans(folder)
            held = _OWNED[folder] = [*_lock(folder), 0]
        held[2] += 1
    try:
        yield
    finally:
        with _GUARD:
            held[2] -= 1
            if held[2] == 0 and _OWNED.get(folder) is held:
                del _OWNED[folder]
                with suppress(OSError):
                    os.unlink(os.path.join(folder, f"{PREFIX}{OWNER}_{held[1]}.lock"))
                os.close(held[0])


def _lock(folder: str) -> tuple[int, str]:
    """A new owner lock in ``folder``, locked before it takes its name (a sweep never sees it
    unlocked): its descriptor and its token."""
    handle, name = tempfile.mkstemp(prefix=f"{PREFIX}new_{os.getpid()}_", dir=folder)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        token = f"{os.getpid()}_{os.path.basename(name)[-8:]}"
        os.rename(name, os.path.join(folder, f"{PREFIX}{OWNER}_{token}.lock"))
    except BaseException:
        os.close(handle)
        with suppress(OSError):
            os.unlink(name)
        raise
    return handle, token


def owned_prefix(kind: str) -> str:
    """The prefix of a new temporary file or folder of ``kind`` (``spm_words``) in
    ``tempfile.gettempdir()``: ``brahmic_pua_<kind>_<token>_`` inside an :func:`owner` block
    of this process (a forked worker shares its parent's), else ``brahmic_pua_<kind>_``."""
    folder = tempfile.gettempdir()
    with _GUARD:
        held = _OWNED.get(folder)
    return f"{PREFIX}{kind}_{held[1]}_" if held is not None else f"{PREFIX}{kind}_"


def remove_orphans(folder: str | None = None) -> list[str]:
    """Remove from ``folder`` (``tempfile.gettempdir()``) the temporary files and folders of
    every owner that is gone (its lock held by no process), and their lock files; returns
    the names removed. Errors (a file of another user, a folder removed meanwhile) are
    skipped: what is left is left for a later run."""
    folder = folder or tempfile.gettempdir()
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed: list[str] = []
    for name in names:
        match = _LOCK.fullmatch(name)
        if match is None:
            continue
        lock = os.path.join(folder, name)
        try:
            handle = os.open(lock, os.O_RDWR | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: its owner lives
                continue
            token = match.group(1)
            for other in names:
                if other.startswith(PREFIX) and f"_{token}_" in other and other != name:
                    _remove(os.path.join(folder, other))
                    removed.append(other)
            os.unlink(lock)  # (still locked: a run starting now takes a lock of its own)
            removed.append(name)
        except OSError:
            continue
        finally:
            os.close(handle)
    return removed


def _remove(path: str) -> None:
    """A file, or a folder with what is in it; a link is removed, never followed."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        Path(path).unlink(missing_ok=True)
