"""What every benchmark shares: where the corpora are, and how a run is timed.

The scripts run as ``python bench/bench_x.py``, so bench/ is ``sys.path[0]`` and they import
this module as ``from common import CORPORA, best_of, timed``.

A training is timed as a whole process, as a user runs it: :func:`measured` gives its wall and
CPU seconds and its peak memory, worker processes included; :data:`RAW_TRAIN` is the child that
trains raw spm with the options it is given as JSON, :data:`RAW_SPM_OPTIONS` the baseline's.

Timing rule. The benchmarks run on a shared, noisy machine (other tenants change its speed by
up to 1.6× within minutes, docs/measured.md), so a time is the best of N runs: noise only ever
adds time, and the fastest run is the least disturbed one. Two or more things compared are run
in alternation (a, b, a, b…), never all of a then all of b, so that a slow minute hits both
alike and their ratio stays honest. :func:`best_of` is that rule; :func:`timed` is one run, for
what is measured once (a training of minutes).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
CORPORA_VARIABLE = "BRAHMIC_PUA_CORPORA"
#: The corpora: the folder $BRAHMIC_PUA_CORPORA names, else ../shared/corpora beside the
#: checkout; the same rule as the tests' (tests/conftest.py), so both read the same text.
CORPORA = Path(os.environ.get(CORPORA_VARIABLE) or ROOT.parent / "shared" / "corpora")

T = TypeVar("T")

#: Raw spm as the benchmarks compare against it: stock's trainer with identity normalization
#: and every character kept, and brahmic_pua's lossless defaults (byte fallback, digits split,
#: spaces kept), so both train the same text with the same options.
RAW_SPM_OPTIONS: dict[str, Any] = {
    "normalization_rule_name": "identity",
    "character_coverage": 1.0,
    "byte_fallback": True,
    "split_digits": True,
    "remove_extra_whitespaces": False,
}
_ARGS = "import json, sys; options = json.loads(sys.argv[1]); "
#: ``[sys.executable, "-c", RAW_TRAIN, json.dumps(options)]``: stock's trainer in a process.
RAW_TRAIN = _ARGS + "import sentencepiece as s; s.SentencePieceTrainer.train(**options)"
#: The same for brahmic_pua's trainer (its Python API; the CLI is ``brahmic-pua train``).
OURS_TRAIN = _ARGS + "from brahmic_pua.trainer import train_model; train_model(**options)"
PAGE = os.sysconf("SC_PAGE_SIZE")


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


@dataclass(frozen=True)
class Measured:
    """One finished process: wall and CPU seconds, peak resident memory in MB."""

    wall: float
    cpu: float
    peak_mb: float


_BYTECODE: dict[str, str] = {}


def installed_env() -> dict[str, str]:
    """The environment a measured process runs in: this one, with Python's bytecode cache on,
    in a folder of this run's own (``PYTHONPYCACHEPREFIX``), filled once before the first
    measurement. An installed package has its ``.pyc`` files (pip compiles them), but an
    environment with ``PYTHONDONTWRITEBYTECODE=1`` (this machine's) makes every run of an
    editable checkout compile brahmic_pua's source again: 0.05 s of a 0.5 s training that a
    user never pays, and raw spm's modules in site-packages were compiled at install."""
    if not _BYTECODE:
        folder = tempfile.mkdtemp(prefix="brahmic_pua_bench_pycache_")
        atexit.register(shutil.rmtree, folder, True)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = folder
        warm = "import sentencepiece, brahmic_pua.cli.main, brahmic_pua.trainer.train"
        subprocess.run([sys.executable, "-c", warm], env=env, check=True)
        _BYTECODE.update(env)
    return dict(_BYTECODE)


def measured(command: list[str]) -> Measured:
    """Run ``command`` to its end (stdout discarded, stderr shown if it fails) in
    :func:`installed_env`: its wall time, CPU time and peak memory. ``os.wait4`` reports the
    child alone (RUSAGE_CHILDREN would fold every earlier child in); its worker processes'
    memory is sampled every 20 ms and added to its own where that is higher (shared pages count
    in each, so this errs high)."""
    env = installed_env()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert process.stderr is not None
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], tree_rss(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    done.set()
    sampler.join()
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        shown = errors.decode(errors="replace")
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)[:200]}\n{shown}")
    peak_mb = max(usage.ru_maxrss / 1024, peak[0])
    return Measured(wall, usage.ru_utime + usage.ru_stime, peak_mb)


def tree_rss(pid: int) -> float:
    """MB resident now in ``pid`` and its descendants (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/statm") as statm:
                total += int(statm.read().split()[1]) * PAGE
            with open(f"/proc/{current}/task/{current}/children") as children:
                todo += [int(child) for child in children.read().split()]
        except (OSError, ValueError, IndexError):  # it ended meanwhile
            continue
    return total / 2**20
