"""One process at a time: an exclusive ``flock`` on a lock file, and who holds it if not us.

Used wherever two runs writing one place would break each other: ``encode-corpus`` into one
output directory (integrations/shards.py) and the perplexity experiment's training of one model
(examples/perplexity/run.py). The kernel drops a ``flock`` when its holder exits, kill -9
included, so a killed run never leaves a stale lock: its lock file stays, unlocked, and the next
run takes it. The holder writes its pid and command into the file, so a refused run can say
which process to wait for.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class Held(Exception):
    """Another live process holds the lock; ``holder`` is what it wrote (``pid N: command``)."""

    def __init__(self, path: Path, holder: str) -> None:
        super().__init__(f"{path} is held by {holder}")
        self.path = path
        self.holder = holder


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) for the block, or raise
    :class:`Held` at once, without waiting, if another process holds it.

    The holder deletes the file as it ends (a directory left clean). A run that
    opened the file just before then may lock a file no longer in the directory, so after
    locking it checks that the path still names the file it locked, and opens it again if not.
    Raises FileNotFoundError if the file's directory does not exist (or was removed)."""
    while True:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(handle)
            os.close(handle)
            raise Held(path, holder) from None
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        if current is not None and os.path.samestat(os.fstat(handle), current):
            break
        os.close(handle)
    try:
        command = " ".join([os.path.basename(sys.argv[0]), *sys.argv[1:]]).replace("\n", " ")
        os.ftruncate(handle, 0)
        os.write(handle, f"pid {os.getpid()}: {command[:300]}\n".encode())
        yield
    finally:
        path.unlink(missing_ok=True)  # still locked: no other run can have taken this file
        os.close(handle)


def _holder(handle: int) -> str:
    """The pid and command the lock file names; the holder writes them just after locking, so
    a run that comes in between waits briefly for them."""
    for _ in range(20):
        text = os.pread(handle, 1000, 0).decode("utf-8", "replace").strip()
        if text:
            return text
        time.sleep(0.01)
    return "its pid not yet written"
