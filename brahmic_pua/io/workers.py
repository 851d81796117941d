"""Worker processes that end with the process that started them, and leave Ctrl-C to it.

A pool worker orphaned by a parent that died (kill -9 included) would finish its queue and then
wait forever for more work, holding the run's stdout and stderr (``… | tail`` would never return)
and the resource tracker's pipe. The trainer's counting workers and ``encode-corpus``'s shard
workers both call :func:`exit_with_parent` first thing.

Ctrl-C reaches every process of the terminal's foreground group, workers included: each would
print its own KeyboardInterrupt traceback (and a worker still starting, its unpickling or
semaphore errors) beside the run's one line. So workers ignore SIGINT from birth
(:func:`sigint_ignored_by_children`), and the run, which handles it, ends them at once
(:func:`kill_workers`) rather than waiting for their shards.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pool is the caller's; importing it costs a start-up 10 ms
    from concurrent.futures import ProcessPoolExecutor

#: prctl's option that has the kernel signal a process when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def exit_with_parent(parent: int) -> None:
    """End this process when ``parent`` (the pid that started it) dies.

    On Linux the kernel sends SIGKILL when the parent dies (PR_SET_PDEATHSIG); a parent that
    died before the call sends nothing, hence the check of the parent's pid right after it.
    Elsewhere a daemon thread polls the parent's pid.

    >>> exit_with_parent(os.getppid())  # a live parent: returns at once
    """
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:  # it died before the call
                os._exit(1)
            return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    """Exit once the parent is gone (the worker is then re-parented: another ppid)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


@contextmanager
def sigint_ignored_by_children() -> Iterator[None]:
    """The block (which starts worker processes) with SIGINT ignored, so that every process it
    starts ignores it from its first instruction: a spawned child keeps an ignored signal
    across exec (a handled one is reset, and Python would install KeyboardInterrupt before the
    worker's initializer could say otherwise), and Python leaves an ignored SIGINT ignored.
    SIGINT is blocked meanwhile, and Linux keeps a blocked signal pending even while it is
    ignored: a Ctrl-C in the block reaches this process's handler as it ends. Main thread
    only; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def kill_workers(pool: ProcessPoolExecutor) -> None:
    """End a pool's worker processes at once (SIGKILL), for a run that failed or was
    interrupted: its shutdown would otherwise wait for each worker's current job. The pool's
    manager thread then fails every pending future (cancelling them instead would make it
    raise InvalidStateError in its thread). Python 3.14 has ``terminate_workers()``; until
    then, the pool's table of processes."""
    for process in list((pool._processes or {}).values()):
        process.kill()
