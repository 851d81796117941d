"""The trainer's count, pure Python against Arrow (brahmic_pua.segment.arrow_count), on one
corpus: the lines read and normalized once, then ``count_batches`` both ways, alternating,
the median of ``--repeat`` runs each; the two counts are checked equal.

    python bench/bench_count.py                 # the 50 MB mix of bench_cost.py
    python bench/bench_count.py --corpus FILE --repeat 5

pyarrow is imported before the first run: its import (0.05-0.1 s) is part of a whole training
(``BRAHMIC_PUA_COUNT=python`` / ``arrow`` with ``brahmic-pua train``), not of the count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench_cost import corpus_file

from brahmic_pua.io.lines import Span, batched, read_lines
from brahmic_pua.normalize import normalizer
from brahmic_pua.segment.arrow_count import pyarrow_importable
from brahmic_pua.segment.counting import count_batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=None, help="a text file [default: the 50 MB mix]")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--policy", default="fixtoken")
    args = parser.parse_args()
    if not pyarrow_importable():
        raise SystemExit("the Arrow count needs pyarrow: pip install -e '.[arrow]'")
    with tempfile.TemporaryDirectory() as work:
        path = Path(args.corpus) if args.corpus else corpus_file("mix", Path(work))
        n = normalizer("nfc")
        span = Span(str(path), 0, path.stat().st_size)
        batches = [n.lines(raw) for raw in batched(read_lines(span))]
    times: dict[bool, list[float]] = {False: [], True: []}
    counts = {}
    for _ in range(args.repeat):
        for arrow in (False, True):
            start = time.perf_counter()
            counts[arrow] = count_batches(batches, args.policy, arrow=arrow)
            times[arrow].append(time.perf_counter() - start)
    pure, arrow_counts = counts[False], counts[True]
    assert (pure.clusters, pure.characters) == (arrow_counts.clusters, arrow_counts.characters)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{path.name}: {sum(map(len, batches)):,} lines; load average {load}")
    for arrow, runs in times.items():
        each = " ".join(f"{t:.2f}" for t in runs)
        name = "Arrow" if arrow else "pure"
        print(f"{name:>5}: median {statistics.median(runs):.2f} s ({each})")


if __name__ == "__main__":
    main()
