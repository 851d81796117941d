"""What every benchmark shares: where the corpora are, and how a run is timed.

The scripts run as ``python bench/bench_x.py``, so bench/ is ``sys.path[0]`` and they import
this module as ``from common import CORPORA, best_of, timed``.

Timing rule. The benchmarks run on a shared, noisy machine (other tenants change its speed by
up to 1.6× within minutes, docs/measured.md), so a time is the best of N runs: noise only ever
adds time, and the fastest run is the least disturbed one. Two or more things compared are run
in alternation (a, b, a, b…), never all of a then all of b, so that a slow minute hits both
alike and their ratio stays honest. :func:`best_of` is that rule; :func:`timed` is one run, for
what is measured once (a training of minutes).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
CORPORA_VARIABLE = "BRAHMIC_PUA_CORPORA"
#: The corpora: the folder $BRAHMIC_PUA_CORPORA names, else ../shared/corpora beside the
#: checkout; the same rule as the tests' (tests/conftest.py), so both read the same text.
CORPORA = Path(os.environ.get(CORPORA_VARIABLE) or ROOT.parent / "shared" / "corpora")

T = TypeVar("T")


def timed(run: Callable[[], T]) -> tuple[float, T]:
    """Wall-clock seconds (``time.perf_counter``) of one call of ``run``, and what it returned."""
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def best_of(
    runs: Mapping[str, Callable[[], T]], repeat: int, setup: Callable[[], object] | None = None
) -> dict[str, tuple[float, T]]:
    """Name → (fewest seconds of ``repeat`` calls, the last call's result) for every run.

    Each of the ``repeat`` rounds calls every run once, in the mapping's order: the runs
    alternate, so the machine's noise falls on all of them alike and their ratios are fair,
    and the minimum keeps each run's least disturbed call. ``setup``, when given, is called
    before every timed call and is not timed (to start each call from a fresh state).
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    best: dict[str, tuple[float, T]] = {}
    for _ in range(repeat):
        for name, run in runs.items():
            if setup is not None:
                setup()
            seconds, result = timed(run)
            fewest = min(seconds, best[name][0]) if name in best else seconds
            best[name] = (fewest, result)
    return best
