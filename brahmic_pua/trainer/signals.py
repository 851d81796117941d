"""Signals during training: SIGINT and SIGTERM leave nothing behind.

What the trainer writes outside its output paths (spm's line file, an iterator's spill, the
folder of rule files and spm's model, a local Ray cluster's session folder) is removed by a
``finally`` as the signal's exception unwinds the stack. Three things would stop that, and are
handled here:

- Python's default SIGTERM ends the process at once, no ``finally`` run: while a training runs,
  :func:`terminated_cleanly` makes it an exception, then ends the process by SIGTERM as before.
- Processes started by a start that was interrupted halfway, which nothing tracks, and a
  handler's exception raised in an at-fork hook, which Python prints as "Exception ignored" and
  drops: the start of Ray or of a worker pool holds signals back (:func:`signals_deferred`).
- Worker processes orphaned by a parent that died: :func:`die_with_parent`.

SIGKILL cannot be caught: what it leaves is named in the README (training from the command line).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from brahmic_pua.io.workers import exit_with_parent


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _die(signum: int) -> None:
    """End the process by ``signum``'s default action, as if no handler had been set."""
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)
    os._exit(128 + signum)  # not reached: the default action of SIGTERM ends the process


@contextmanager
def terminated_cleanly() -> Iterator[None]:
    """The block with SIGTERM as an exception (SystemExit), where Python's default would end
    the process at once, skipping every ``finally``; after the cleanup the process ends by
    SIGTERM all the same (its parent sees what it saw before). A second SIGTERM ends it at
    once. Nothing changes where another handler is set (the CLI's, a user's) or outside the
    main thread, where no handler can be set."""
    if not _in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    received = False

    def terminate(signum: int, frame: FrameType | None) -> None:
        nonlocal received
        if received:
            _die(signum)
        received = True
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if received:
            _die(signal.SIGTERM)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """The block (starting a Ray cluster or a pool of worker processes) with SIGINT and SIGTERM
    held back until it ends, when their handlers run. Interrupted halfway, the start would leave
    processes that nothing tracks (Ray's shutdown stops only those of a finished ``ray.init``)
    to write in a folder after its removal; and a handler runs between any two bytecodes, also
    in the hooks Python runs around a fork, which print its exception ("Exception ignored")
    and drop it: the run went on as if there had been no Ctrl-C. The same signal a second time
    is not held back (a start that hangs can still be interrupted)."""
    if not _in_main_thread():
        yield
        return
    handlers: dict[int, Any] = {
        sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if signum not in held:
            held.append(signum)
            return
        handler = handlers[signum]
        if callable(handler):
            handler(signum, frame)

    for sig, handler in handlers.items():
        if callable(handler):
            signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            if handler is not None:
                signal.signal(sig, handler)
        for signum in held:  # now, as the signals arrived
            handler = handlers[signum]
            if callable(handler):
                handler(signum, None)


def reinstall_sigterm() -> None:
    """Put the SIGTERM handler Python has on record back in force. Ray's shutdown resets the
    C-level handler to the default, behind Python's back: a SIGTERM after it would kill the
    process at once, skipping every ``finally``, though ``signal.getsignal`` names a handler."""
    if _in_main_thread():
        handler = signal.getsignal(signal.SIGTERM)
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)


@contextmanager
def temporary_folder(prefix: str) -> Iterator[str]:
    """A new temporary folder, removed afterwards by :func:`remove_tree` (where
    ``tempfile.TemporaryDirectory`` would fail on a file added as it removes the folder)."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        yield path
    finally:
        remove_tree(path)


def remove_tree(path: str | Path, tries: int = 5) -> None:
    """Remove a temporary folder, again while it is still there: a thread or process that had
    not yet stopped (spm's training, Ray's) may add a file as it is removed."""
    for attempt in range(tries):
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            return
        time.sleep(0.05 * (attempt + 1))


def die_with_parent(parent: int) -> None:
    """For a worker process: end when the process that started it (``parent``) dies, SIGKILL
    included, instead of waiting forever for work, holding the run's stderr. Ctrl-C is the
    parent's to handle (it ends the workers), and SIGTERM ends a worker quietly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    exit_with_parent(parent)
