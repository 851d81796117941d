"""Write output files whole or not at all: a temporary file beside the target, then a rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def atomic_output(path: str | Path) -> Iterator[TextIO]:
    """A UTF-8 text stream that becomes ``path`` only if the block finishes without error."""
    target = Path(path)
    if not target.parent.is_dir():
        raise ValueError(f"cannot write {path}: directory {target.parent} does not exist")
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all."""
    with atomic_output(path) as stream:
        stream.buffer.write(data)
