"""Nepali end to end: brahmic_pua with the NepBPE layer against plain SentencePiece.

    python examples/nepali/run.py                 # 8000 pieces, Unigram and BPE (a few minutes)
    python examples/nepali/run.py --quick         # small and fast (the tests run this)

Trains, on ne.train.txt minus its last --held_out lines, at the same vocabulary size:
  plain spm     stock sentencepiece, identity normalization, byte fallback (lossless options)
  brahmic_pua   `brahmic-pua train` (NFC, clusters as codes)
  + NepBPE      `brahmic-pua train --normalization nepali-lm --nepali_seeds`, then
                `brahmic-pua filter --filters all` with the shipped Nepali seeds
and prints, for each model type: every `brahmic_pua.evaluation.evaluate` metric on the held-out
lines
(NSL against plain spm), the pieces each filter disabled and the fertility each one costs
alone, and the segmentation of the README's sentence. Each step is a line on stderr with its
time (the progress display of brahmic_pua.io.progress), the report goes to stdout.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import sentencepiece

import brahmic_pua
from brahmic_pua.evaluation.evaluate import evaluate, format_table
from brahmic_pua.evaluation.metrics import fertility
from brahmic_pua.io.lines import file_lines
from brahmic_pua.io.progress import Phases
from brahmic_pua.nepbpe.filters import FILTERS, apply_filters
from brahmic_pua.nepbpe.seeds import nepali_seeds

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ne.train.txt"
SENTENCE = "मेरो नाम राम हो र म काठमाडौंमा बस्छु"
CLI = [sys.executable, "-m", "brahmic_pua.cli.main"]


def cli(*args: str) -> str:
    """Run a brahmic-pua command, as a user would; what it printed is returned."""
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"brahmic-pua {args[0]} failed: {done.stderr.strip()}")
    return done.stdout + done.stderr


def train_all(
    args: argparse.Namespace, model_type: str, train: Path, work: Path, steps: Phases
) -> dict[str, Path]:
    """The three models of one type; returns their .model paths."""
    size = str(args.vocab_size)
    plain = work / f"plain_{model_type}"
    steps.start(f"{model_type}: training plain spm")
    with open(train, encoding="utf-8") as lines:
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=lines,
            model_prefix=str(plain),
            vocab_size=args.vocab_size,
            model_type=model_type,
            normalization_rule_name="identity",
            byte_fallback=True,
            remove_extra_whitespaces=False,
            split_digits=True,
            character_coverage=1.0,
            minloglevel=2,
        )
    ours = work / f"ours_{model_type}"
    common = ["--input", str(train), "--vocab_size", size, "--model_type", model_type]
    steps.start(f"{model_type}: brahmic-pua train")
    cli("train", *common, "--model_prefix", str(ours))
    layered = work / f"nepbpe_{model_type}"
    steps.start(f"{model_type}: brahmic-pua train --normalization nepali-lm --nepali_seeds")
    cli(
        "train",
        *common,
        "--model_prefix",
        str(work / f"seeded_{model_type}"),
        "--normalization",
        "nepali-lm",
        "--nepali_seeds",
    )
    steps.start(f"{model_type}: brahmic-pua filter --filters all")
    filtered = cli(
        "filter",
        "--model",
        str(work / f"seeded_{model_type}.model"),
        "--output",
        f"{layered}.model",
        "--filters",
        ",".join(FILTERS),
        "--nepali-seeds",
        "--corpus",
        str(train),
    )
    steps.end()
    print(f"{model_type}: brahmic-pua filter\n{filtered.strip()}", flush=True)
    return {
        "plain spm": Path(f"{plain}.model"),
        "brahmic_pua": Path(f"{ours}.model"),
        "+ NepBPE layer": Path(f"{layered}.model"),
        "seeded": work / f"seeded_{model_type}.model",
    }


def filter_costs(seeded: Path, train: list[str], held: list[str]) -> list[str]:
    """Each filter alone on the nepali-lm model: pieces disabled, fertility before → after."""
    data = seeded.read_bytes()
    base = brahmic_pua.SentencePieceProcessor(model_proto=data)
    before = fertility(base.encode(held), held)
    rows = [
        f"| filter | pieces disabled | fertility {before:.4f} → | cost |",
        "|---|---:|---:|---:|",
    ]
    for name in FILTERS:
        out, report = apply_filters(data, [name], seeds=nepali_seeds(), corpus=train, source="m")
        after = fertility(brahmic_pua.SentencePieceProcessor(model_proto=out).encode(held), held)
        rows.append(
            f"| {name} | {report.disabled} | {after:.4f} | {100 * (after / before - 1):+.2f}% |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--vocab_size", type=int, default=8000)
    parser.add_argument("--held_out", type=int, default=3000, help="last lines, never trained on")
    parser.add_argument("--train_lines", type=int, default=0, help="0: every other line")
    parser.add_argument("--model_types", nargs="+", default=["unigram", "bpe"])
    parser.add_argument("--quick", action="store_true", help="2000 pieces, 4000 lines, Unigram")
    args = parser.parse_args()
    if args.quick:
        args.vocab_size, args.held_out, args.train_lines = 2000, 300, 4000
        args.model_types = ["unigram"]
    with Phases(True) as steps:
        steps.start("reading the corpus")
        lines = list(file_lines(args.corpus))  # the trainer's line rule (brahmic_pua.io.lines)
        steps.end()
        held = [line for line in lines[-args.held_out :] if line.strip()]
        train = lines[: -args.held_out]
        if args.train_lines:
            train = train[: args.train_lines]
        print(
            f"training on {len(train):,} lines, held out {len(held):,}; vocab {args.vocab_size}\n",
            flush=True,
        )
        with tempfile.TemporaryDirectory(prefix="brahmic_pua_nepali_") as folder:
            work = Path(folder)
            train_file = work / "train.txt"
            train_file.write_text("\n".join(train) + "\n", encoding="utf-8")
            for model_type in args.model_types:
                paths = train_all(args, model_type, train_file, work, steps)
                report(model_type, paths, train, held, steps)


def report(
    model_type: str, paths: dict[str, Path], train: list[str], held: list[str], steps: Phases
) -> None:
    steps.start(f"{model_type}: evaluating on the held-out lines")
    processors: dict[str, Any] = {
        name: brahmic_pua.SentencePieceProcessor(model_file=str(path))
        for name, path in paths.items()
        if name != "seeded"
    }
    plain = processors["plain spm"]
    columns = {name: evaluate(sp, held, baseline=plain) for name, sp in processors.items()}
    steps.start(f"{model_type}: each filter's cost")
    costs = filter_costs(paths["seeded"], train, held)
    steps.end()
    print(f"\n## {model_type}, {len(held):,} held-out lines\n")
    print(format_table(columns))
    print("\n" + "\n".join(costs))
    print(f"\n{SENTENCE}")
    for name, sp in processors.items():
        print(f"  {name:15} {' | '.join(sp.encode(SENTENCE, out_type=str))}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
