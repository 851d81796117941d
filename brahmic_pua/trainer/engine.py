"""The trainer's count of clusters and characters before spm runs, where its plan says
(:mod:`~brahmic_pua.trainer.count_plan`): in this process, in a forked one, in worker processes,
or as tasks on a Ray cluster with a reduce here. All give the same counts and line statistics,
so the same model file (guarantee 4); only the time and the machines differ."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from brahmic_pua.segment.counting import CorpusCounts
from brahmic_pua.trainer.corpus import Corpus, CorpusStats
from brahmic_pua.trainer.count_apart import count_apart, count_here
from brahmic_pua.trainer.range_count import count_in_processes
from brahmic_pua.trainer.ray_count import count_on_ray

if TYPE_CHECKING:  # (the plan's module reads the options, whose module checks the engine here)
    from brahmic_pua.trainer.count_plan import CountPlan

ENGINES = ("local", "ray")


def check_engine(engine: str, files: bool) -> str:
    """``engine`` if known; Ray reads input files on its workers, so it needs files."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if engine == "ray" and not files:
        raise ValueError(
            "engine=ray reads input= files on its workers; a sentence_iterator cannot be split "
            "among them: write it to a file, or use engine=local"
        )
    return engine


@dataclass(frozen=True)
class Counted:
    """What a count returns: the counts, and the line statistics of the lines it scanned (the
    caller's corpus takes them: :attr:`Corpus.stats`)."""

    counts: CorpusCounts
    stats: CorpusStats


def count_clusters(
    corpus: Corpus,
    plan: CountPlan,
    policy: str,
    ray_address: str | None = None,
    keep_words: bool = False,
) -> Counted:
    """Counts and line statistics of the corpus, as :meth:`Corpus.scan` makes them, counted
    where ``plan`` says (:func:`~brahmic_pua.trainer.count_plan.plan_count`), its words written
    for spm where the plan says spm trains on them. ``keep_words``: the words are kept in the
    counts where one process counts them all and they fit
    (:func:`~brahmic_pua.segment.counting.count_batches`)."""
    if plan.spm_input == "words":
        corpus.write_words()
    if plan.where == "here":
        counts = count_here(corpus, policy, keep_words, plan.arrow, plan.label)
        return Counted(counts, corpus.stats)
    if plan.where == "apart":
        return Counted(*count_apart(corpus, policy, keep_words, plan.arrow, plan.label))
    if plan.where == "workers":
        found = count_in_processes(
            corpus.inputs,
            corpus.normalize,
            policy,
            corpus.progress,
            plan.workers,
            corpus.spm_part,
            plan.arrow,
            corpus.word_file,
            plan.label,
        )
        return Counted(*found)
    found = count_on_ray(
        corpus.inputs,
        corpus.normalize,
        policy,
        corpus.progress,
        ray_address,
        plan.arrow,
        plan.label,
    )
    return Counted(*found)
