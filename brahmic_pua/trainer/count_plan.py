"""How the trainer counts a corpus before spm trains, and what spm then trains on: one plan,
made once from the corpus, the options and the engine (:func:`plan_count`), as a value the
counting follows and the progress display shows (the scan's label). Every way gives the same
counts and line statistics, so the same model file; only the time, the memory and the
processes differ.

Where the count runs (:attr:`CountPlan.where`):

- ``here``: this process scans and counts (a sample, Parquet, a small corpus, one worker);
- ``apart``: one forked process (:mod:`~brahmic_pua.trainer.count_apart`), for text files of
  :data:`APART_MIN_BYTES` or more whose words go to spm: its memory is gone before spm trains;
- ``workers``: line ranges in worker processes (:mod:`~brahmic_pua.trainer.range_count`),
  given ``num_threads`` > 1 and :data:`PARALLEL_MIN_BYTES` or more;
- ``ray``: line ranges as Ray tasks (:mod:`~brahmic_pua.trainer.ray_count`).

A process forks only on Linux with no other thread in it (forking beside a thread is unsafe).
The count is Arrow's (:mod:`~brahmic_pua.segment.arrow_count`) for input of
:data:`~brahmic_pua.segment.arrow_count.ARROW_MIN_BYTES` or more (or Parquet, or an iterator),
where pyarrow imports; else the pure count. spm trains on the words the count writes
(:mod:`~brahmic_pua.trainer.spm_words`) where its options make the same model from them, else
on the lines.

Two switches in the environment, for tests (they compare the ways; read here alone):
``BRAHMIC_PUA_COUNT=python`` forces the pure count and ``BRAHMIC_PUA_COUNT=arrow`` the Arrow
count at any size; ``BRAHMIC_PUA_SPM_INPUT=lines`` makes spm train on lines always.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from brahmic_pua.io.wording import counted
from brahmic_pua.segment.arrow_count import ARROW_MIN_BYTES, pyarrow_importable
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.spm_options import SpmOptions
from brahmic_pua.trainer.spm_words import words_train_alike

#: The switch that picks the count: ``python`` (the pure count) or ``arrow`` (at any size).
COUNT_ENV = "BRAHMIC_PUA_COUNT"
#: The switch that makes spm train on lines always: ``lines``.
INPUT_ENV = "BRAHMIC_PUA_SPM_INPUT"
#: Text files this big (or bigger) whose words go to spm are counted in a forked process: the
#: Arrow count's size, whose memory (pyarrow's library, the heap it grew) would stay with spm.
APART_MIN_BYTES = ARROW_MIN_BYTES
#: Below this much input a second counting process costs more than it saves.
PARALLEL_MIN_BYTES = 4 << 20

Where = Literal["here", "apart", "workers", "ray"]


class PlanOptions(Protocol):
    """What the plan reads of a training's options
    (:class:`~brahmic_pua.trainer.options.TrainOptions`, whose module imports the engine's,
    which follows the plan: named here by what it has, not imported)."""

    @property
    def policy(self) -> str: ...
    @property
    def engine(self) -> str: ...
    @property
    def spm(self) -> SpmOptions: ...
    @property
    def pretokenizer(self) -> Callable[[str], Any] | None: ...


_WHERE = {"here": "in this process", "apart": "in a forked process", "ray": "on Ray"}


@dataclass(frozen=True)
class CountPlan:
    """Which count, where, and what spm trains on, with why (one clause per choice)."""

    where: Where
    #: The Arrow count: here and in workers, pyarrow imports; apart and on Ray, where it
    #: imports there (this process does not import it for them).
    arrow: bool
    spm_input: Literal["words", "lines"]
    reason: str
    workers: int = 1  # processes, for ``workers``

    @property
    def choice(self) -> str:
        """The plan in a few words: "Arrow count in a forked process, spm on words"."""
        where = f"in {self.workers} processes" if self.where == "workers" else _WHERE[self.where]
        count = "Arrow" if self.arrow else "pure"
        return f"{count} count {where}, spm on {self.spm_input}"

    @property
    def label(self) -> str:
        """The label of the scan's progress line (shown only where progress is on)."""
        return f"scanning corpus ({self.choice})"


def plan_count(corpus: Corpus, options: PlanOptions) -> CountPlan:
    """The plan for counting ``corpus`` under ``options`` (its policy, spm's options, the
    engine and ``num_threads``); a sample not yet chosen is chosen here (the lines are counted
    first). Parquet on Ray is refused: its rows are not byte ranges of the file."""
    if corpus.parquet and options.engine == "ray":
        raise ValueError(
            "engine=ray reads input= text files by byte ranges on its workers, and Parquet "
            "input is read here: use engine=local, or write the column to a text file"
        )
    spm_input, why_input = _spm_input(options)
    size = corpus.input_bytes()
    arrow, why_count = _count(size, options.policy)
    words = spm_input == "words"
    where: Where = "workers"
    workers = 1
    if corpus.sampled:
        where, why = _one_process(size, words, "a sample, counted as it is read")
    elif options.engine == "ray":
        where, why = "ray", "engine=ray"
    elif corpus.parquet:
        where, why = _one_process(size, words, "Parquet is read here")
    else:
        workers, why = local_workers(corpus.inputs, options.spm.integer("num_threads"))
        if workers == 1:
            where, why = _one_process(size, words, why)
    if where in ("here", "workers") and arrow:
        arrow = pyarrow_importable()  # (the count itself imports it: no cost here)
        why_count += "" if arrow else ", but pyarrow does not import"
    reason = f"{why}; {why_count}; {why_input}"
    return CountPlan(where, arrow, spm_input, reason, workers)


def _spm_input(options: PlanOptions) -> tuple[Literal["words", "lines"], str]:
    """What spm trains on, and why."""
    if os.environ.get(INPUT_ENV, "").strip().lower() == "lines":
        return "lines", f"{INPUT_ENV}=lines"
    if options.policy == "grapheme":
        return "lines", "grapheme clusters may hold a space (no words to hand over)"
    if options.pretokenizer is not None:
        return "lines", "a pretokenizer cuts the lines"
    if not words_train_alike(options.spm):
        return "lines", "spm's options need its lines"
    return "words", "spm's options make the same model from the words"


def _count(size: int | None, policy: str) -> tuple[bool, str]:
    """Whether the Arrow count is wanted for ``size`` bytes of input (None: an iterator or
    Parquet, which has pyarrow loaded already), and why."""
    choice = os.environ.get(COUNT_ENV, "").strip().lower()
    if policy == "grapheme":
        return False, "grapheme is counted in Python"
    if choice == "python":
        return False, f"{COUNT_ENV}=python"
    if choice == "arrow":
        return True, f"{COUNT_ENV}=arrow"
    if size is not None and size < ARROW_MIN_BYTES:
        return False, f"under {ARROW_MIN_BYTES >> 20} MiB, the pure count"
    return True, "the Arrow count"


def _one_process(size: int | None, words: bool, why: str) -> tuple[Where, str]:
    """Here, or apart: text files big enough, their words for spm, and a process that can fork."""
    if not words or size is None or size < APART_MIN_BYTES:
        return "here", why
    if not can_fork():
        return "here", f"{why}, here (this process cannot fork)"
    return "apart", f"{why}, apart ({APART_MIN_BYTES >> 20} MiB or more)"


def can_fork() -> bool:
    """Whether this process may fork a counting process: Linux, and no other thread."""
    return sys.platform == "linux" and threading.active_count() == 1


def local_workers(files: list[str], num_threads: int) -> tuple[int, str]:
    """Worker processes for counting ``files`` here, and why: spm's ``num_threads``, at most one
    per usable CPU, and one (no pool) for a small corpus, off Linux, or in a process with other
    threads (forking one is unsafe; starting fresh interpreters costs more than it saves)."""
    if not files or not can_fork():
        return 1, "one process (this process cannot fork)"
    if sum(Path(name).stat().st_size for name in files) < PARALLEL_MIN_BYTES:
        return 1, f"one process (under {PARALLEL_MIN_BYTES >> 20} MiB)"
    cpus = usable_cpus()
    workers = max(1, min(num_threads, cpus))
    if workers == 1:
        return 1, f"one process (num_threads={num_threads}, {counted(cpus, 'CPU')})"
    return workers, f"{workers} processes (num_threads={num_threads}, {counted(cpus, 'CPU')})"


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


__all__ = [
    "APART_MIN_BYTES",
    "COUNT_ENV",
    "INPUT_ENV",
    "PARALLEL_MIN_BYTES",
    "CountPlan",
    "PlanOptions",
    "can_fork",
    "local_workers",
    "plan_count",
    "usable_cpus",
]
