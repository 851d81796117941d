"""The count of a big corpus in a process of its own, so that its memory is gone before spm
trains.

The Arrow count of the 50 MB mix peaks at about 250 MB, and the process keeps what it touched:
pyarrow's library code (about 60 MB resident once its compute functions load) and the heap the
count grew. spm's BPE training then adds as much again as raw spm takes in all (about 220 MB on
the mix), so the training peaked 1.26 times raw spm's memory. Counted in one forked process (no
parallel work: this process only waits), the count's memory goes back to the system when it
ends, this process never imports pyarrow, and the training's peak is spm's own plus the
trainer's Python.

The child is forked with the corpus in its memory (as the line-range workers are,
:mod:`brahmic_pua.trainer.range_count`); it scans and counts exactly as this process would,
writing the corpus's word file, and sends back the counts, the line statistics and what became
of the word file. It dies with this process, leaves Ctrl-C to it, and is ended at once when the
count fails or is interrupted; its errors come back as themselves (one line each), and its
death (the out-of-memory killer's SIGKILL) as one line too
(:class:`~brahmic_pua.io.workers.WorkerDied`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from multiprocessing import current_process
from typing import TYPE_CHECKING

from brahmic_pua.io.workers import PoolWatch
from brahmic_pua.segment.arrow_count import pyarrow_importable
from brahmic_pua.segment.counting import CorpusCounts, count_batches
from brahmic_pua.trainer.corpus import SCAN_LABEL, Corpus, CorpusStats
from brahmic_pua.trainer.signals import die_with_parent, signals_deferred

if TYPE_CHECKING:
    from concurrent.futures import Future

#: The environment variable by which pyarrow picks its allocator when it loads.
ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"
#: What to do when the out-of-memory killer ended the child (SIGKILL): a sample is counted
#: as it is read, in this process.
MEMORY_ADVICE = "give the run more memory, or train on a sample (--input_sentence_size=N lines)"


def count_apart(
    corpus: Corpus, policy: str, keep_words: bool, arrow: bool, label: str = SCAN_LABEL
) -> tuple[CorpusCounts, CorpusStats]:
    """The counts and line statistics of ``corpus`` (a word file's corpus), made in a forked
    process, its word file as a scan here leaves it. ``arrow``: the Arrow count where pyarrow
    imports in the child (this process does not import it).

    The child gets the corpus as memory, with its open word file, not pickled: the pool's
    initializer takes the count as its argument, which the fork hands over as it is, and puts
    it on the child's process object, where the job submitted to the pool finds it."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    words = corpus.word_file
    assert words is not None, "only a corpus that writes its words for spm is counted apart"

    def count() -> tuple[CorpusCounts, CorpusStats, bool]:  # (in the child)
        # Arrow's allocator, chosen as pyarrow loads (there, not here): the system's gives
        # back what the count frees, where the default (mimalloc) kept it (the count's peak on
        # the 50 MB mix 260 MB against 290-330); jemalloc (250 MB) is not in every pyarrow
        # build, and one without it warns on stderr
        os.environ.setdefault(ARROW_POOL, "system")
        counts = count_here(corpus, policy, keep_words, arrow and pyarrow_importable(), label)
        assert corpus.word_file is not None
        return counts, corpus.stats, corpus.word_file.usable

    pool = ProcessPoolExecutor(1, get_context("fork"), _inherit, (os.getpid(), count))
    watch = PoolWatch(pool, "the counting process", "the counting process's pool", MEMORY_ADVICE)
    with watch:
        with signals_deferred():  # the child is forked at the submit
            job: Future[tuple[CorpusCounts, CorpusStats, bool]] = pool.submit(_inherited)
        counts, stats, usable = watch.result(job)
    words.written(usable)
    return counts, stats


#: The attribute of the child's process object that holds its count.
_COUNT = "brahmic_pua_count"


def _inherit(parent: int, count: Callable[[], tuple[CorpusCounts, CorpusStats, bool]]) -> None:
    """In the child, first: die with ``parent``, and keep ``count`` (inherited by the fork)
    for :func:`_inherited` on this process's object, which only the child has."""
    die_with_parent(parent)
    setattr(current_process(), _COUNT, count)


def _inherited() -> tuple[CorpusCounts, CorpusStats, bool]:
    """In the child: the count the fork handed over, run."""
    count: Callable[[], tuple[CorpusCounts, CorpusStats, bool]] = getattr(current_process(), _COUNT)
    return count()


def count_here(
    corpus: Corpus, policy: str, keep_words: bool, arrow: bool, label: str = SCAN_LABEL
) -> CorpusCounts:
    """The corpus scanned and counted in this process (``arrow``: the Arrow count), its words
    written to its word file (where it has one) and the file finished against the count's lines
    and spaces; ``label``: the scan's progress line's."""
    words = corpus.word_file
    counts = count_batches(corpus.scan(label), policy, keep_words, arrow, words)
    if words is not None:
        stats = corpus.stats
        words.finish(stats.lines, stats.empty_lines, counts.characters[" "])
    return counts


__all__ = ["count_apart", "count_here"]
