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

A worker that dies (the kernel's out-of-memory killer sends SIGKILL; a user may send SIGTERM to
it alone) breaks the pool, which says only that "a process in the process pool was terminated
abruptly", under some fifty lines of the waiting thread's frames: :func:`worker_died` names the
worker, how it ended and what to do, in one line (:class:`WorkerDied`).
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
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the pool is the caller's; importing it costs a start-up 10 ms
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")

#: Seconds to wait, once a worker has died, for the pool to end the others (it sends them
#: SIGTERM at once): their ends tell the dead worker's signal from the pool's own.
ENDS_WITHIN = 5.0
#: Seconds between two looks at the pool's thread while a result is waited for.
WAIT_STEP = 0.5
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


class WorkerDied(ChildProcessError):
    """A worker process ended before its work was done, as one line: which worker, how it
    ended (a signal, or an exit status) and what to do. An OSError (a child process's), so a
    command shows it as its other expected errors."""


def worker_died(
    pool: ProcessPoolExecutor, error: BaseException, what: str, memory_advice: str
) -> WorkerDied | None:
    """The one-line error for ``error`` where it is ``pool``'s report of a worker that died
    (``BrokenProcessPool`` with no cause: a worker whose result or initializer failed has its
    error as the cause, and is a bug with its traceback), else None. Call it before
    :func:`kill_workers`, whose SIGKILL would hide the signal. ``what`` names the worker
    ("a counting worker"); ``memory_advice`` is what to do when SIGKILL ended it, which is
    how the out-of-memory killer ends a process.

    The pool sends SIGTERM to the other workers as it breaks, so the worker's own end is the
    one that is not the pool's: SIGKILL, another signal, an exit status, then SIGTERM (sent to
    the worker alone: then each worker ended by SIGTERM, and which was first is not known,
    so no pid is named). The others are given :data:`ENDS_WITHIN` seconds to end; their ends
    are read after the pool's thread has read them (two threads that wait for one child race,
    and the loser sees no end)."""
    from concurrent.futures.process import BrokenProcessPool

    if not isinstance(error, BrokenProcessPool) or error.__cause__ is not None:
        return None
    processes = list((pool._processes or {}).values())
    deadline = time.monotonic() + ENDS_WITHIN
    while any(p.exitcode is None for p in processes) and time.monotonic() < deadline:
        time.sleep(0.01)
    ends = [(p.exitcode, p.pid) for p in processes if p.exitcode]
    if not ends:
        return WorkerDied(f"{what} ended before its work was done: run it again")
    code, pid = min(ends, key=lambda end: _rank(end[0]))
    if [end for end, _ in ends].count(code) == 1:
        what = f"{what} (pid {pid})"
    if code >= 0:
        return WorkerDied(f"{what} exited with status {code} before its work was done")
    name = _signal_name(-code)
    if code == -signal.SIGKILL:
        return WorkerDied(f"{what} was killed by SIGKILL (out of memory?): {memory_advice}")
    if code in (-signal.SIGTERM, -signal.SIGINT, -signal.SIGHUP):
        return WorkerDied(f"{what} was killed by {name}, sent from outside this run: run it again")
    return WorkerDied(f"{what} was killed by {name}: run it again, and report it if it recurs")


class PoolWatch:
    """A pool's waits, each with an exit when the other side died, and its failures as one
    line: the block (``with``) in which ``pool`` is given work and its results waited for.
    Leaving it, the pool is shut down; on an error its workers are killed first
    (:func:`kill_workers`), and a worker's death is raised as :class:`WorkerDied`.

    A worker that dies breaks the pool, and :meth:`died` says so. The pool's own thread,
    which hands the workers their work, can die too: under an address-space limit
    (``ulimit -v``) it cannot start the thread that feeds the workers' queue ("can't start new
    thread"), prints its traceback and ends, and the futures are never done: the run hung for
    good, the workers waiting for work. So :meth:`result` waits in steps and, once that thread
    has ended with the job not done, raises :class:`WorkerDied` with the thread's error,
    which the block keeps from being printed."""

    def __init__(
        self, pool: ProcessPoolExecutor, worker: str, pool_name: str, memory_advice: str
    ) -> None:
        self.pool = pool
        self.worker = worker  # "a counting worker"
        self.pool_name = pool_name  # "the counting pool"
        self.memory_advice = memory_advice
        self.errors: list[BaseException] = []
        self._previous = threading.excepthook

    def __enter__(self) -> PoolWatch:
        self._previous = threading.excepthook
        threading.excepthook = self._keep
        return self

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        threading.excepthook = self._previous
        try:
            if error is not None:
                died = self.died(error)  # (before the kill, whose SIGKILL would hide its end)
                kill_workers(self.pool)  # not their futures cancelled: see kill_workers
                if died is not None:
                    raise died from None
        finally:
            self.shutdown()

    def _keep(self, args: threading.ExceptHookArgs) -> None:
        """The pool's thread's error kept (for :meth:`result`'s line), any other's as before."""
        if args.exc_value is not None and args.thread is self._thread():
            self.errors.append(args.exc_value)
        else:
            self._previous(args)

    def _thread(self) -> threading.Thread | None:
        thread: threading.Thread | None = getattr(self.pool, "_executor_manager_thread", None)
        return thread

    def result(self, job: Future[T]) -> T:
        """``job``'s result, or its error; :class:`WorkerDied` once the pool's thread has
        ended without it."""
        while True:
            try:
                return job.result(timeout=WAIT_STEP)
            except TimeoutError:
                thread = self._thread()
                if thread is None or thread.is_alive() or job.done():
                    continue
                cause = f": {self.errors[0]}" if self.errors else ""
                raise WorkerDied(
                    f"{self.pool_name} stopped, its thread ended{cause} (out of memory?): "
                    f"{self.memory_advice}"
                ) from None

    def shutdown(self) -> None:
        """The pool shut down, its thread waited for where it started: one that could not
        start cannot be joined, and the error of joining it would replace the run's."""
        thread = self._thread()
        self.pool.shutdown(wait=thread is None or thread.ident is not None)

    def died(self, error: BaseException) -> WorkerDied | None:
        """:func:`worker_died` for this pool's workers."""
        return worker_died(self.pool, error, self.worker, self.memory_advice)


def _rank(code: int) -> int:
    """How surely an exit code is the dead worker's own: SIGKILL, another signal, an exit
    status, SIGTERM (which the pool sends the others)."""
    if code == -signal.SIGKILL:
        return 0
    if code == -signal.SIGTERM:
        return 3
    return 1 if code < 0 else 2


def _signal_name(number: int) -> str:
    """SIGKILL for 9; the number where the signal has no name here."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
