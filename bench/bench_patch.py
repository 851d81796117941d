"""Patched SentencePiece (patches/) vs brahmic_pua vs stock spm on the same text (issue #10).

    patches/build.sh /tmp/spm && python bench/bench_patch.py --bin /tmp/spm/bin

For each corpus, every 20th line is held out and the rest trains every tokenizer with the same
options (vocab_size, byte_fallback, split_digits, no whitespace collapsing; spm's identity
normalization, so that round trip measures the tokenizer, not NFKC). Rows:

* stock spm: the sentencepiece pip package (what users have, and what brahmic_pua trains with);
* stock 0.2.1: the same sdist built without the patch (only with --stock_bin), to show what the
  version alone changes;
* patched: spm_train built by patches/build.sh (the paper's rule, every script);
* patched+switch: the same with --dependents_via_byte_fallback;
* brahmic_pua: ``train_model`` with its defaults (fixtoken clusters as PUA code points).

Every number comes from :func:`brahmic_pua.evaluation.evaluate.evaluate` (the metrics module) on
the held-out
lines; "mark-start pieces" counts the vocabulary (multi-character / single-character).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sentencepiece as spm

import brahmic_pua
from brahmic_pua.evaluation.evaluate import evaluate
from brahmic_pua.evaluation.patch_table import mark_start_pieces
from brahmic_pua.trainer import train_model

from common import CORPORA, timed

DEFAULT_CORPORA = ("te.train.txt", "hi.sample.txt")
SWITCH = "dependents_via_byte_fallback"


def spm_options(vocab_size: int, model_type: str) -> dict[str, Any]:
    return {
        "vocab_size": vocab_size,
        "model_type": model_type,
        "byte_fallback": True,
        "split_digits": True,
        "remove_extra_whitespaces": False,
        "num_threads": 1,
        "minloglevel": 2,
    }


def flag(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def train_binary(bin_dir: Path, train: Path, prefix: str, options: dict[str, Any]) -> None:
    """Run a built spm_train; a failure is one error with spm's last lines."""
    args = [str(bin_dir / "spm_train"), f"--input={train}", f"--model_prefix={prefix}"]
    args += [f"--{name}={flag(value)}" for name, value in options.items()]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        raise SystemExit(f"{args[0]} failed ({done.returncode}): {tail}")


def tokenizers(
    args: argparse.Namespace, work: Path, train: Path, model_type: str
) -> dict[str, Callable[[], Any]]:
    """Row name → a function that trains that tokenizer and returns its processor."""
    options = spm_options(args.vocab_size, model_type)
    raw = {**options, "normalization_rule_name": "identity"}

    def stock() -> Any:
        spm.SentencePieceTrainer.train(input=str(train), model_prefix=f"{work}/stock", **raw)
        return spm.SentencePieceProcessor(model_file=f"{work}/stock.model")

    def built(name: str, bin_dir: Path, extra: dict[str, Any]) -> Callable[[], Any]:
        def run() -> Any:
            train_binary(bin_dir, train, f"{work}/{name}", {**raw, **extra})
            return spm.SentencePieceProcessor(model_file=f"{work}/{name}.model")

        return run

    def ours() -> Any:
        train_model(input=str(train), model_prefix=f"{work}/ours", **options)
        return brahmic_pua.SentencePieceProcessor(model_file=f"{work}/ours.model")

    rows: dict[str, Callable[[], Any]] = {f"stock spm {spm.__version__}": stock}
    if args.stock_bin:
        rows["stock 0.2.1 (built)"] = built("stock021", args.stock_bin, {})
    rows["patched"] = built("patched", args.bin, {})
    rows["patched+switch"] = built("switch", args.bin, {SWITCH: True})
    rows["brahmic_pua"] = ours
    return rows


HEADER = (
    "| corpus | model | tokenizer | mark-start pieces (multi / single) | orphan marks /1000 "
    "| byte fallback /1000 | cluster-split rate | fertility | round trip | train s |"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", type=Path, required=True, help="patches/build.sh DIR/bin")
    parser.add_argument("--stock_bin", type=Path, help="an unpatched 0.2.1 build, optional")
    parser.add_argument("--corpus", nargs="+", default=list(DEFAULT_CORPORA))
    parser.add_argument("--model_type", nargs="+", default=["unigram", "bpe"])
    parser.add_argument("--vocab_size", type=int, default=8000)
    args = parser.parse_args()
    if not (args.bin / "spm_train").is_file():
        raise SystemExit(f"no spm_train in {args.bin}: run patches/build.sh DIR first")
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for corpus in args.corpus:
        path = Path(corpus) if Path(corpus).is_file() else CORPORA / corpus
        lines = path.read_text(encoding="utf-8").split("\n")
        held = [line for i, line in enumerate(lines) if i % 20 == 0 and line.strip()]
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            train = work / "train.txt"
            train.write_text("\n".join(line for i, line in enumerate(lines) if i % 20) + "\n")
            for model_type in args.model_type:
                for name, make in tokenizers(args, work, train, model_type).items():
                    seconds, processor = timed(make)
                    multi, single = mark_start_pieces(processor)
                    m = evaluate(processor, held)
                    print(
                        f"| {path.name} | {model_type} | {name} | {multi} / {single} "
                        f"| {m['orphan_marks_per_1000']:.1f} | {m['byte_fallback_per_1000']:.1f} "
                        f"| {m['cluster_split_rate']:.4f} | {m['fertility']:.3f} "
                        f"| {m['round_trip_rate']:.4f} | {seconds:.0f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
