"""Worker processes that end with the process that started them.

A pool worker orphaned by a parent that died (kill -9 included) would finish its queue and then
wait forever for more work, holding the run's stdout and stderr (``… | tail`` would never return)
and the resource tracker's pipe. The trainer's counting workers and ``encode-corpus``'s shard
workers both call :func:`exit_with_parent` first thing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

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
