"""The one bounded reader of a small file read whole: a shard's marker, a vocabulary, a codec
table, a seed list, a folding table.

Such a file is untrusted input, and so is its path: ``--vocabulary /dev/zero`` grew to a
MemoryError at 2.9 GB, and a marker linked to ``/dev/zero`` to one at 2.7 GB. So each kind of
file has a bound, chosen by its caller with the reason (many times the largest real one), and
:func:`read_bounded` never holds more than that: a regular file larger than the bound is
refused by its size before a byte is read, and anything else (a pipe, a device) is read up to
one byte past the bound and refused there. A pipe stays a valid source (``--vocabulary <(...)``)
unless the caller wants a regular file only (a marker that encode-corpus wrote itself).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class TooLarge(ValueError):
    """A file over its kind's bound, or no regular file where one is needed: one line naming
    the file, what is wrong and the bound; ``reason`` is that line without the file's name."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}; is it the right file?")
        self.reason = reason


def read_bounded(path: str | Path, limit: int, what: str, *, regular_only: bool = False) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them, else :class:`TooLarge` (``what`` names
    the kind of file in its message: "--vocabulary file"). With ``regular_only`` anything but
    a regular file is refused too, opened without waiting for a writer (a FIFO would block)."""
    flags = os.O_RDONLY | (os.O_NONBLOCK if regular_only else 0)
    with open(os.open(path, flags), "rb") as stream:
        info = os.fstat(stream.fileno())
        regular = stat.S_ISREG(info.st_mode)
        if regular_only and not regular:
            raise TooLarge(path, "not a regular file")
        if regular and info.st_size > limit:
            raise TooLarge(
                path, f"{info.st_size:,} bytes, more than the {limit:,} a {what} may have"
            )
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(
            path, f"over {limit:,} bytes and not at its end, more than a {what} may have"
        )
    return data
