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
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Final

#: How much is read, and handed to a caller's ``head`` check, before the rest.
HEAD_BYTES: Final[int] = 64 << 10
#: The rest is read in chunks of this size: one read of the whole bound would reserve it all.
_CHUNK = 16 << 20


class TooLarge(ValueError):
    """A file over its kind's bound, or no regular file where one is needed: one line naming
    the file, what is wrong and the bound; ``reason`` is that line without the file's name,
    ``size`` its size as the line says it ("1,000 bytes", "over 10 bytes and not at its end";
    "" for no regular file), for a caller that words its own refusal."""

    def __init__(self, path: str | Path, reason: str, size: str = "") -> None:
        super().__init__(f"{path}: {reason}; is it the right file?")
        self.reason = reason
        self.size = size


def read_bounded(
    path: str | Path,
    limit: int,
    what: str,
    *,
    regular_only: bool = False,
    head: Callable[[bytes, int | None], None] | None = None,
) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them, else :class:`TooLarge` (``what`` names
    the kind of file in its message: "--vocabulary file"). With ``regular_only`` anything but
    a regular file is refused too, opened without waiting for a writer (a FIFO would block).
    ``head``, if given, sees the first :data:`HEAD_BYTES` (all of a shorter file) and the
    file's size (None: unknown) before the rest is read, and may refuse them by raising."""
    nonblocking = os.O_NONBLOCK if regular_only else 0
    with open(path, "rb", opener=lambda name, flags: os.open(name, flags | nonblocking)) as stream:
        info = os.fstat(stream.fileno())
        regular = stat.S_ISREG(info.st_mode)
        if regular_only and not regular:
            raise TooLarge(path, "not a regular file")
        known = info.st_size if regular and info.st_size else None
        if known is not None and known > limit:
            size = f"{known:,} bytes"
            raise TooLarge(path, f"{size}, more than the {limit:,} a {what} may have", size)
        chunks = _read(stream, limit, known, head)
    if sum(map(len, chunks)) > limit:
        size = f"over {limit:,} bytes and not at its end"
        raise TooLarge(path, f"{size}, more than a {what} may have", size)
    return b"".join(chunks)


def _read(
    stream: BinaryIO,
    limit: int,
    known: int | None,
    head: Callable[[bytes, int | None], None] | None,
) -> list[bytes]:
    """The file's bytes, in chunks, up to one byte past ``limit`` (a whole head past it): the
    first :data:`HEAD_BYTES` handed to ``head``, then the rest."""
    chunks: list[bytes] = []
    if head is not None:
        first = stream.read(HEAD_BYTES)
        head(first, known if len(first) == HEAD_BYTES else len(first))
        chunks.append(first)
    total = sum(map(len, chunks))
    while total <= limit and (chunk := stream.read(min(_CHUNK, limit + 1 - total))):
        chunks.append(chunk)
        total += len(chunk)
    return chunks
