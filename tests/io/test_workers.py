"""A worker process that dies is named in one line with how it ended (the pool itself says only
that it broke): real pools whose worker ends by a signal or an exit status of its own."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brahmic_pua.io.workers import WorkerDied, worker_died

ADVICE = "give it more memory"


def _end_by(signum: int) -> None:
    """In a worker: end by ``signum`` (its default action), as if sent from outside."""
    if signum != signal.SIGKILL:  # (whose action cannot be set)
        signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    time.sleep(60)  # not reached: the signal ends the process


def _exit_with(status: int) -> None:
    os._exit(status)


def _idle() -> None:
    time.sleep(60)  # until the pool ends it


def _reported(job: Callable[..., None], *arguments: int, others: int = 0) -> WorkerDied | None:
    """What :func:`worker_died` makes of a pool whose one job is ``job(*arguments)``, beside
    ``others`` workers that wait (the pool ends them with SIGTERM as it breaks)."""
    pool = ProcessPoolExecutor(1 + others, get_context("fork"))
    try:
        idle = [pool.submit(_idle) for _ in range(others)]
        future = pool.submit(job, *arguments)
        with pytest.raises(BrokenProcessPool) as broken:
            future.result(timeout=60)
        assert all(not task.done() or task.exception() for task in idle)
        return worker_died(pool, broken.value, "a worker", ADVICE)
    finally:
        for process in list((pool._processes or {}).values()):
            process.kill()
        pool.shutdown()


@pytest.mark.parametrize("others", [0, 1])
def test_sigkill_is_named_with_the_memory_advice(others: int) -> None:
    died = _reported(_end_by, signal.SIGKILL, others=others)
    assert isinstance(died, WorkerDied) and isinstance(died, OSError)
    message = str(died)
    assert message.startswith("a worker (pid ") and "\n" not in message
    assert "killed by SIGKILL (out of memory?)" in message and message.endswith(ADVICE)


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([signal.SIGTERM, signal.SIGHUP, signal.SIGSEGV, signal.SIGABRT]))
def test_each_signal_is_named_for_what_it_is(signum: signal.Signals) -> None:
    message = str(_reported(_end_by, signum))
    assert f"killed by {signum.name}" in message and "\n" not in message
    assert ADVICE not in message and "run it again" in message


def test_the_pools_sigterm_to_the_others_does_not_hide_the_signal() -> None:
    """The pool sends SIGTERM to the workers still alive as it breaks; the dead one's SIGSEGV is
    the one named, whichever worker it was."""
    message = str(_reported(_end_by, signal.SIGSEGV, others=2))
    assert "killed by SIGSEGV" in message and "SIGTERM" not in message


def test_an_exit_status_is_named() -> None:
    message = str(_reported(_exit_with, 3, others=1))  # (the other one: SIGTERM)
    assert "exited with status 3 before its work was done" in message


def test_a_broken_pool_with_a_cause_and_other_errors_are_left_as_they_are() -> None:
    """A worker whose initializer or result failed breaks the pool with that error as the
    cause, but did not die: it stays as it is (a bug, with its traceback), as any other
    error does."""
    pool = ProcessPoolExecutor(1, get_context("fork"))
    try:
        assert worker_died(pool, ValueError("bad"), "a worker", ADVICE) is None
        error = BrokenProcessPool("broken")
        error.__cause__ = RuntimeError("pickling failed")
        assert worker_died(pool, error, "a worker", ADVICE) is None
    finally:
        pool.shutdown()
