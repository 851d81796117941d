"""The trainer's count of input files cut into line ranges, counted in parallel: by worker
processes on this machine (the local engine, given ``num_threads`` > 1 and a corpus big enough
to pay for them: :mod:`~brahmic_pua.trainer.count_plan`) or by Ray tasks
(:mod:`brahmic_pua.integrations.distributed`).

Each range is read, normalized and counted by the same code as one process's scan, and the
reduce runs in input order, so the counts, the statistics and spm's line file (written by the
local workers in parts, which spm reads in order) are the ones a single scan makes.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from brahmic_pua.io.lines import Span, batched, plan_spans, read_lines
from brahmic_pua.io.progress import Progress
from brahmic_pua.io.workers import PoolWatch
from brahmic_pua.normalize import Normalizer
from brahmic_pua.segment.arrow_count import pyarrow_importable
from brahmic_pua.segment.counting import MAX_PIECES, CorpusCounts, count_batches
from brahmic_pua.trainer.corpus import SCAN_LABEL, CorpusStats, spm_line_text, text_writer
from brahmic_pua.trainer.signals import die_with_parent, signals_deferred
from brahmic_pua.trainer.spm_words import WordFile

if TYPE_CHECKING:
    from concurrent.futures import Future

#: Ranges: about four per worker, so that one slow worker does not hold up the reduce.
RANGES_PER_WORKER = 4
MIN_RANGE_BYTES = 1 << 20
MAX_RANGE_BYTES = 64 << 20
#: What to do when the out-of-memory killer ended a worker (SIGKILL).
MEMORY_ADVICE = (
    "give the run more memory, or count in fewer processes (--num_threads=1 counts in one)"
)


def count_spans(
    spans: list[Span],
    normalize: Normalizer,
    policy: str,
    lines_file: str | None = None,
    arrow: bool | None = False,
    words_file: str | None = None,
) -> tuple[CorpusCounts, CorpusStats]:
    """Counts and line statistics of some ranges, as :meth:`Corpus.scan` and
    :func:`count_batches` make them for the whole corpus; with ``lines_file``, the ranges'
    lines as spm's line file has them are written there; with ``words_file``, their words
    (:class:`~brahmic_pua.trainer.spm_words.WordFile`; the file is removed if a word cannot be
    a row). ``arrow``: as for :func:`count_batches` (the whole corpus's choice, not the
    range's); None: where pyarrow imports here (a Ray task on a machine that may lack it)."""
    stats = CorpusStats()
    with ExitStack() as files:
        target = files.enter_context(text_writer(lines_file)) if lines_file else None

        def batches() -> Iterator[list[str]]:
            for span in spans:
                for raw in batched(read_lines(span)):
                    texts = normalize.lines(raw)
                    stats.add(texts)
                    if target is not None:
                        text = spm_line_text(texts)
                        assert text is not None  # lines read from files hold no line feed
                        target.write(text)
                    yield texts

        use = pyarrow_importable() if arrow is None else arrow
        words = WordFile(words_file) if words_file else None  # (the parent removes it on error)
        counts = count_batches(batches(), policy, arrow=use, words_out=words)
        if words is not None:
            words.finish(stats.lines, stats.empty_lines, counts.characters[" "])
            if not words.usable:
                words.close()
        return counts, stats


def plan_ranges(files: list[str], workers: int) -> list[list[Span]]:
    """Groups of line ranges of ``files``, about :data:`RANGES_PER_WORKER` per worker."""
    total = sum(Path(name).stat().st_size for name in files)
    share = total // (RANGES_PER_WORKER * workers) + 1
    return plan_spans(files, min(MAX_RANGE_BYTES, max(MIN_RANGE_BYTES, share)))


def count_in_processes(
    files: list[str],
    normalize: Normalizer,
    policy: str,
    progress: bool,
    workers: int,
    part: Callable[[], str],
    arrow: bool = False,
    words: WordFile | None = None,
    label: str = SCAN_LABEL,
) -> tuple[CorpusCounts, CorpusStats]:
    """Counts and statistics of ``files`` from ``workers`` processes; each range's lines go to
    a new file from ``part()`` (the parts of spm's line file, in order), or with ``words`` its
    words to a part of that word file, gathered into it once every range is counted;
    ``label``: the progress line's.

    The workers die with this process (SIGKILL included), leave Ctrl-C to it, and are ended at
    once when the count fails or is interrupted, instead of finishing their ranges; a worker
    that dies (the out-of-memory killer's SIGKILL) is one line,
    :class:`~brahmic_pua.io.workers.WorkerDied`."""
    # Imported here: a pool is used only for a corpus big enough, and these imports are a
    # tenth of the trainer's start-up.
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    pool = ProcessPoolExecutor(workers, get_context("fork"), die_with_parent, (os.getpid(),))
    watch = PoolWatch(pool, "a counting worker", "the pool of counting workers", MEMORY_ADVICE)
    jobs: list[Future[tuple[CorpusCounts, CorpusStats]]] = []
    with watch:
        with signals_deferred():  # the workers are forked at the first submit
            for group in plan_ranges(files, workers):
                lines, word_part = (None, words.part()) if words is not None else (part(), None)
                jobs.append(
                    pool.submit(count_spans, group, normalize, policy, lines, arrow, word_part)
                )
        found = reduce_in_order((watch.result(job) for job in jobs), files, progress, label)
    if words is not None:
        words.gather()
    return found


def reduce_in_order(
    parts: Iterable[tuple[CorpusCounts, CorpusStats]],
    files: list[str],
    progress: bool,
    label: str = SCAN_LABEL,
) -> tuple[CorpusCounts, CorpusStats]:
    """The ranges' counts and statistics added up in input order, each part waited for as
    the reduce reaches it, with a progress line (``label``) over the bytes of ``files``."""
    total = sum(Path(name).stat().st_size for name in files)
    bar = Progress(progress, label, total)
    counts, stats = CorpusCounts(pieces=Counter()), CorpusStats()
    for part, lines in parts:
        counts.clusters.update(part.clusters)
        counts.characters.update(part.characters)
        if counts.pieces is not None and part.pieces is not None:
            counts.pieces.update(part.pieces)
            if len(counts.pieces) > MAX_PIECES:
                counts.pieces = None
        else:
            counts.pieces = None
        stats.merge(lines)
        stats.show(bar)
    stats.show(bar, final=True)
    return counts, stats
