"""Where the trainer counts clusters and characters before spm runs: in this process, or as
tasks on a Ray cluster with a reduce here. Both give the same counts and line statistics, so the
same model file (guarantee 4); only the time and the machines differ."""

from __future__ import annotations

from brahmic_pua.segment.arrow_count import arrow_wanted
from brahmic_pua.segment.counting import CorpusCounts
from brahmic_pua.trainer.corpus import Corpus
from brahmic_pua.trainer.count_apart import count_apart, count_here, worth_apart
from brahmic_pua.trainer.range_count import count_in_processes, local_workers
from brahmic_pua.trainer.ray_count import count_on_ray

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


def count_clusters(
    corpus: Corpus,
    policy: str,
    engine: str,
    ray_address: str | None = None,
    num_threads: int = 1,
    keep_words: bool = False,
) -> CorpusCounts:
    """Counts of the corpus, with ``corpus.stats`` filled in as :meth:`Corpus.scan` fills it.
    Input files big enough are counted by up to ``num_threads`` processes, or on Ray; a sample
    (``input_sentence_size``) is counted here, as it is read. ``keep_words``: the words are
    kept in the counts where this process counts them all and they fit
    (:func:`~brahmic_pua.segment.counting.count_batches`)."""
    if corpus.parquet and engine == "ray":
        raise ValueError(
            "engine=ray reads input= text files by byte ranges on its workers, and Parquet "
            "input is read here: use engine=local, or write the column to a text file"
        )
    if corpus.sampled:
        return _count_in_one_process(corpus, policy, keep_words)
    if engine == "local":
        # Parquet is read in this process: its rows are not byte ranges of the file.
        workers = 1 if corpus.parquet else local_workers(corpus.inputs, num_threads)
        if workers == 1:
            return _count_in_one_process(corpus, policy, keep_words)
        arrow = arrow_wanted(corpus.input_bytes())
        counts, corpus.stats = count_in_processes(
            corpus.inputs,
            corpus.normalize,
            policy,
            corpus.progress,
            workers,
            corpus.spm_part,
            arrow,
            corpus.word_file,
        )
        return counts
    counts, corpus.stats = count_on_ray(
        corpus.inputs,
        corpus.normalize,
        policy,
        corpus.progress,
        ray_address,
        arrow_wanted(corpus.input_bytes()),
    )
    return counts


def _count_in_one_process(corpus: Corpus, policy: str, keep_words: bool) -> CorpusCounts:
    """The corpus scanned and counted by one process, its words handed to the corpus's word
    file (spm's input, where the trainer asked for one): a big one in a process of its own
    (:mod:`~brahmic_pua.trainer.count_apart`: its memory is gone before spm trains), else
    here."""
    if worth_apart(corpus):
        return count_apart(corpus, policy, keep_words)
    return count_here(corpus, policy, keep_words)
