"""brahmic_pua against raw SentencePiece, measured side by side in one run (issue #3, #11 targets).

    python bench/bench_spm.py [--corpus te.train.txt ne.train.txt] [--vocab_size 8000]
                              [--model_types unigram bpe] [--repeat 3] [--train_repeat 1]
                              [--num_threads 1] [--feed file|iterator]

Both tokenizers train on the same lines (the corpus minus every 20th line, which is held out)
with the same options (byte_fallback, split_digits, no whitespace collapsing, spm's identity
normalization for the raw model) and the same num_threads, given as a file (input=, as the CLI
trains) or with --feed iterator as a sentence_iterator. Each training runs in a fresh Python
process, as a command-line user runs it (nothing cached from an earlier training; the imports
are not timed), and reports wall-clock and CPU seconds (CPU time, worker processes included,
is steadier on a busy machine; brahmic_pua overlaps spm with its own rule building, so its
wall time is below its CPU time); raw and ours alternate, best of --train_repeat. Encode and
decode times are the best of --repeat runs taken in alternation (raw, ours, raw, ours…) so both
see the same load.
Ratios are brahmic_pua ÷ raw spm; targets: encode ≤ 1.25, decode ≤ 1.25, training ≤ 1.2,
fertility ≤ 1.05. The last table puts every ratio of every corpus side by side.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import sentencepiece as spm

import brahmic_pua
from brahmic_pua.evaluation.metrics import (
    byte_fallback_per_1000,
    fertility,
    orphan_marks_per_1000,
    round_trip_rate,
)
from brahmic_pua.trainer import train_model

from common import CORPORA, best_of

TARGETS = {"train (s)": 1.2, "train (cpu s)": 1.2, "batch encode (s)": 1.25}
TARGETS |= {"batch decode (s)": 1.25, "fertility (held out)": 1.05}


def train_once(
    kind: str, lines_file: str, prefix: str, options: dict[str, Any], feed: str
) -> tuple[float, float]:
    """Train in this (fresh) process; (wall, CPU) seconds of the training call alone, the CPU
    of any worker processes it ran included."""
    lines = Path(lines_file).read_text(encoding="utf-8").split("\n")
    source: dict[str, Any] = {"input": lines_file}
    if feed == "iterator":
        source = {"sentence_iterator": iter(lines)}
    wall, cpu = time.perf_counter(), _cpu()
    if kind == "raw":
        spm.SentencePieceTrainer.train(
            **source,
            model_prefix=prefix,
            normalization_rule_name="identity",
            character_coverage=1.0,
            **options,
        )
    else:
        train_model(**source, model_prefix=prefix, **options)
    return time.perf_counter() - wall, _cpu() - cpu


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def train_fresh(
    kind: str, lines_file: str, prefix: str, options: dict[str, Any], feed: str
) -> tuple[float, float]:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(train_once, kind, lines_file, prefix, options, feed).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, nargs="+", default=[Path("te.train.txt")])
    parser.add_argument("--vocab_size", type=int, default=8000)
    parser.add_argument("--num_threads", type=int, default=1)
    parser.add_argument("--model_types", nargs="+", default=["unigram", "bpe"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--train_repeat", type=int, default=1)
    parser.add_argument(
        "--feed",
        choices=["file", "iterator"],
        default="file",
        help="training lines as input= (a file, as the CLI trains) or as a sentence_iterator",
    )
    args = parser.parse_args()
    summary: dict[tuple[str, str], dict[str, float]] = {}
    for corpus in args.corpus:
        path = corpus if corpus.exists() else CORPORA / corpus
        lines = path.read_text(encoding="utf-8").split("\n")
        train = [line for i, line in enumerate(lines) if i % 20]
        held = [line for i, line in enumerate(lines) if i % 20 == 0 and line.strip()]
        words = sum(len(line.split()) for line in held)
        print(
            f"corpus {path.name}: {len(train):,} training lines, {len(held):,} held out "
            f"({words:,} words); vocab {args.vocab_size}, num_threads {args.num_threads}, "
            f"training lines fed as {args.feed}\n"
        )
        common = {
            "vocab_size": args.vocab_size,
            "byte_fallback": True,
            "split_digits": True,
            "remove_extra_whitespaces": False,
            "num_threads": args.num_threads,
            "minloglevel": 2,
        }
        for model_type in args.model_types:
            ratios = compare(model_type, train, held, common, args)
            for name, ratio in ratios.items():
                summary.setdefault((model_type, name), {})[path.name] = ratio
    names = [(c if c.exists() else CORPORA / c).name for c in args.corpus]
    print("ratios brahmic_pua ÷ raw spm")
    print(f"{'':32}" + "".join(f"{name:>16}" for name in names) + f"{'target':>8}")
    for (model_type, metric), by_corpus in summary.items():
        cells = "".join(f"{by_corpus.get(name, float('nan')):16.2f}" for name in names)
        print(f"{model_type + ' ' + metric:32}{cells}{TARGETS[metric]:8.2f}")


def compare(
    model_type: str,
    train: list[str],
    held: list[str],
    common: dict[str, Any],
    args: argparse.Namespace,
) -> dict[str, float]:
    """Train both tokenizers with ``model_type``, print one table, return its ratios."""
    header = f"{'':24}{'raw spm':>12}{'brahmic_pua':>14}{'ratio':>8}{'target':>8}"
    options = {"model_type": model_type, **common}
    with tempfile.TemporaryDirectory() as work:
        raw_prefix, ours_prefix = f"{work}/raw", f"{work}/ours"
        lines_file = f"{work}/train.txt"
        Path(lines_file).write_text("\n".join(train), encoding="utf-8")
        raw_train, ours_train = [], []
        for _ in range(args.train_repeat):
            raw_train.append(train_fresh("raw", lines_file, raw_prefix, options, args.feed))
            ours_train.append(train_fresh("ours", lines_file, ours_prefix, options, args.feed))
        raw = spm.SentencePieceProcessor(model_file=raw_prefix + ".model")
        ours = brahmic_pua.SentencePieceProcessor(model_file=ours_prefix + ".model")
        raw_size = Path(raw_prefix + ".model").stat().st_size
        ours_size = Path(ours_prefix + ".model").stat().st_size
    threads = {"num_threads": args.num_threads}
    encode: dict[str, Callable[[], Any]] = {
        "raw": lambda: raw.encode(train, **threads),
        "ours": lambda: ours.encode(train, **threads),
    }
    encoded = best_of(encode, args.repeat)
    (raw_enc, raw_ids), (ours_enc, our_ids) = encoded["raw"], encoded["ours"]
    decode: dict[str, Callable[[], Any]] = {
        "raw": lambda: raw.decode(raw_ids, **threads),
        "ours": lambda: ours.decode(our_ids, **threads),
    }
    decoded = best_of(decode, args.repeat)
    raw_dec, ours_dec = decoded["raw"][0], decoded["ours"][0]
    raw_held, ours_held = raw.encode(held), ours.encode(held)
    raw_fert, ours_fert = fertility(raw_held, held), fertility(ours_held, held)
    print(f"{model_type}\n{header}")
    rows = [
        ("train (s)", min(w for w, _ in raw_train), min(w for w, _ in ours_train)),
        ("train (cpu s)", min(c for _, c in raw_train), min(c for _, c in ours_train)),
        ("batch encode (s)", raw_enc, ours_enc),
        ("batch decode (s)", raw_dec, ours_dec),
        ("fertility (held out)", raw_fert, ours_fert),
    ]
    for name, a, b in rows:
        print(f"{name:24}{a:12.3f}{b:14.3f}{b / a:8.2f}{TARGETS[name]:8.2f}")
    for name, metric in (
        ("orphan-mark tokens/1000", orphan_marks_per_1000),
        ("byte-fallback tok/1000", byte_fallback_per_1000),
    ):
        print(f"{name:24}{metric(raw_held, raw):12.1f}{metric(ours_held, ours):14.1f}")
    print(f"{'model size (MB)':24}{raw_size / 1e6:12.2f}{ours_size / 1e6:14.2f}")
    exact = round_trip_rate(held, ours.decode(ours_held))
    print(f"{'round trip (held out)':24}{'':12}{exact:14.4f}\n")
    return {name: b / a for name, a, b in rows}


if __name__ == "__main__":
    main()
