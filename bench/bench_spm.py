"""brahmic_pua against raw SentencePiece, measured side by side in one run (issue #3 targets).

    python bench/bench_spm.py [--corpus ../shared/corpora/te.train.txt] [--vocab_size 8000]

Both tokenizers train on the same lines (the corpus minus every 20th line, which is held out)
with the same options (byte_fallback, split_digits, no whitespace collapsing, spm's identity
normalization for the raw model) and the same num_threads. Encode and decode times are the best
of --repeat runs taken in alternation (raw, ours, raw, ours…) so both see the same machine load;
training runs once each.
Ratios are brahmic_pua ÷ raw spm; targets: encode ≤ 1.25, decode ≤ 1.25, training ≤ 1.2,
fertility ≤ 1.05.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sentencepiece as spm

import brahmic_pua
from brahmic_pua.metrics import (
    byte_fallback_per_1000,
    fertility,
    orphan_marks_per_1000,
    round_trip_rate,
)
from brahmic_pua.trainer import train_model

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "te.train.txt"


def best(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def side_by_side(
    first: Callable[[], Any], second: Callable[[], Any], repeat: int
) -> tuple[float, float, Any, Any]:
    """Best times of two runs taken in alternation, so both see the same machine load."""
    a_times, b_times = [], []
    a_result = b_result = None
    for _ in range(repeat):
        a, a_result = best(first, 1)
        b, b_result = best(second, 1)
        a_times.append(a)
        b_times.append(b)
    return min(a_times), min(b_times), a_result, b_result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--vocab_size", type=int, default=8000)
    parser.add_argument("--num_threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = args.corpus.read_text(encoding="utf-8").split("\n")
    train = [line for i, line in enumerate(lines) if i % 20]
    held = [line for i, line in enumerate(lines) if i % 20 == 0 and line.strip()]
    words = sum(len(line.split()) for line in held)
    print(
        f"corpus {args.corpus.name}: {len(train):,} training lines, {len(held):,} held out "
        f"({words:,} words); vocab {args.vocab_size}, num_threads {args.num_threads}\n"
    )
    common = {
        "vocab_size": args.vocab_size, "byte_fallback": True, "split_digits": True,
        "remove_extra_whitespaces": False, "num_threads": args.num_threads, "minloglevel": 2,
    }  # fmt: skip
    for model_type in ("unigram", "bpe"):
        compare(model_type, train, held, common, args)


def compare(
    model_type: str, train: list[str], held: list[str], common: dict[str, Any],
    args: argparse.Namespace,
) -> None:  # fmt: skip
    """Train both tokenizers with ``model_type`` and print one table of ratios."""
    header = f"{'':24}{'raw spm':>12}{'brahmic_pua':>14}{'ratio':>8}{'target':>8}"
    with tempfile.TemporaryDirectory() as work:
        raw_prefix, ours_prefix = f"{work}/raw", f"{work}/ours"
        raw_train, _ = best(lambda: spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train), model_prefix=raw_prefix, model_type=model_type,
            normalization_rule_name="identity", character_coverage=1.0, **common,
        ), 1)  # fmt: skip
        ours_train, _ = best(lambda: train_model(
            sentence_iterator=iter(train), model_prefix=ours_prefix, model_type=model_type,
            **common,
        ), 1)  # fmt: skip
        raw = spm.SentencePieceProcessor(model_file=raw_prefix + ".model")
        ours = brahmic_pua.SentencePieceProcessor(model_file=ours_prefix + ".model")
        raw_size = Path(raw_prefix + ".model").stat().st_size
        ours_size = Path(ours_prefix + ".model").stat().st_size
    threads = {"num_threads": args.num_threads}
    raw_enc, ours_enc, raw_ids, our_ids = side_by_side(
        lambda: raw.encode(train, **threads), lambda: ours.encode(train, **threads), args.repeat
    )
    raw_dec, ours_dec, _, _ = side_by_side(
        lambda: raw.decode(raw_ids, **threads), lambda: ours.decode(our_ids, **threads), args.repeat
    )
    raw_held, ours_held = raw.encode(held), ours.encode(held)
    raw_fert, ours_fert = fertility(raw_held, held), fertility(ours_held, held)
    print(f"{model_type}\n{header}")
    rows = [
        ("train (s)", raw_train, ours_train, 1.2),
        ("batch encode (s)", raw_enc, ours_enc, 1.25),
        ("batch decode (s)", raw_dec, ours_dec, 1.25),
        ("fertility (held out)", raw_fert, ours_fert, 1.05),
    ]
    for name, a, b, target in rows:
        print(f"{name:24}{a:12.3f}{b:14.3f}{b / a:8.2f}{target:8.2f}")
    for name, metric in (
        ("orphan-mark tokens/1000", orphan_marks_per_1000),
        ("byte-fallback tok/1000", byte_fallback_per_1000),
    ):
        print(f"{name:24}{metric(raw_held, raw):12.1f}{metric(ours_held, ours):14.1f}")
    print(f"{'model size (MB)':24}{raw_size / 1e6:12.2f}{ours_size / 1e6:14.2f}")
    exact = round_trip_rate(held, ours.decode(ours_held))
    print(f"{'round trip (held out)':24}{'':12}{exact:14.4f}\n")


if __name__ == "__main__":
    main()
