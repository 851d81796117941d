"""The experiment's command line: every option, its default and its help, and what the
options make of the preset (the settings a run uses, and the arms it trains).

Kept apart from run.py so that the script reads as the experiment; every option is documented
here and in README.md's table, and ``run.py --help`` prints them with run.py's docstring.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from data import ARM_SPECS, EXTRA, STOCK_ARMS, TRAIN
from preset import Preset, PresetError, load_preset


def parse_args(argv: list[str] | None, description: str | None) -> argparse.Namespace:
    """The options of ``argv`` (None: the command line's), ``--help`` led by ``description``."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--preset",
        default="smoke",
        metavar="NAME|FILE",
        help="sizes: smoke (tiny model, a few steps, 800 lines, vocab 1000, 1 seed; "
        "< 20 s), cpu (1.4M-parameter model, vocab 8000, 3 seeds, steps sized "
        "by calibration to fit --budget-minutes, default 30), cpu-long (the cpu model, "
        "10,000 steps = 20.5M tokens per model, the Unigram pair, 3 seeds, log-spaced "
        "checkpoints; hours: resumable), paper (the nanoGPT "
        "prototype: 6 layers, 6 heads, width 384, dropout 0.2, context 256, "
        "batch 64, lr 1e-3 cosine to 1e-4, 5,000 steps; for a GPU); every setting of "
        "each, with a comment, in presets/NAME.toml, or give the path of a preset file "
        "(preset.py checks it)",
    )
    p.add_argument(
        "--arms",
        nargs="+",
        choices=list(ARM_SPECS),
        metavar="ARM",
        help="arms to run (default: the preset's; cpu-long: plain-unigram brahmic_pua-unigram, "
        "otherwise the four plain and brahmic_pua arms); the plain arm of each named arm's type "
        "is added. Names: " + ", ".join(ARM_SPECS),
    )
    p.add_argument(
        "--regime",
        choices=["tokens", "bytes"],
        default="tokens",
        help="tokens: equal steps × batch × context for every arm (the paper's "
        "implicit setting); bytes: every arm sees the same training text the "
        "same number of times (steps scaled by its tokens per byte, around the "
        "mean of the arms, so total compute stays the same)",
    )
    p.add_argument(
        "--heldout",
        type=Path,
        nargs="+",
        action="extend",
        metavar="FILE",
        help="held-out text files, several after one --heldout or one per --heldout (default: "
        "the last lines of te.extra.txt, news that no tokenizer or model trains on); the models "
        "are trained once, without any line equal to a held-out line of any file, and each file "
        "is scored and reported on its own; the first file is the text of the main tables, the "
        "checkpoints (--so-far too), the trend and the attribution",
    )
    p.add_argument(
        "--heldout-lines",
        type=int,
        help="held-out lines scored, of each --heldout file its first ones (preset's default)",
    )
    p.add_argument(
        "--train",
        type=Path,
        default=TRAIN,
        metavar="FILE",
        help="the training text of tokenizers and models (default te.train.txt); another "
        "language needs --heldout in it too, e.g. the last lines of hi.sample.txt cut off "
        "into their own file (any training line equal to a held-out line is dropped)",
    )
    p.add_argument(
        "--train-lines",
        type=int,
        help="first lines of the --train text used to train tokenizers and models "
        "(the --train-extra corpora are added in full)",
    )
    p.add_argument(
        "--train-extra",
        nargs="+",
        choices=sorted(EXTRA),
        default=[],
        metavar="CORPUS",
        help="add corpora to the training text of tokenizers and models: wikisource "
        "(te.wikisource.txt, classical verse and one modern prose work, public domain) "
        "and/or extra (te.extra.txt, recent Wikipedia and news, research-only licences); "
        "with the default held-out text, te.extra's held-out tail is cut from training, "
        "and any training line equal to a held-out line is dropped",
    )
    p.add_argument(
        "--stock-baseline",
        action="store_true",
        help="also train spm Unigram and BPE with sentencepiece's default options "
        "(nmt_nfkc normalization, no byte fallback, extra whitespace removed, "
        "character coverage 0.9995): reported in every table, but excluded from "
        "bits-per-byte claims unless it round-trips every held-out line",
    )
    p.add_argument("--vocab-size", type=int, help="vocabulary size of every tokenizer")
    p.add_argument(
        "--steps",
        type=int,
        help="training steps per model (tokens regime; the bytes regime scales it "
        "per arm); skips the cpu preset's budget sizing",
    )
    p.add_argument(
        "--lr",
        type=float,
        help="peak learning rate (the cosine's floor keeps the preset's ratio to it: the cpu "
        "presets decay 0.002 to 0.0002)",
    )
    p.add_argument(
        "--warmup",
        type=int,
        metavar="STEPS",
        help="linear warmup steps (cpu: 50, at most a tenth of the calibrated steps; "
        "cpu-long and paper: 100)",
    )
    p.add_argument(
        "--sampling",
        type=float,
        metavar="ALPHA",
        help="subword regularization while the models train, for every arm alike: each pass "
        "over the training text is encoded anew with sampling (Unigram: alpha ALPHA over the "
        "whole lattice; BPE: dropout probability ALPHA), the held-out text with the best "
        "segmentation (Kudo 2018 uses 0.1 to 0.2; BPE-dropout 0.1)",
    )
    p.add_argument(
        "--composed",
        choices=["char", "cluster"],
        help="composed embeddings for every arm alike: a token's input and tied output "
        "embedding is its own row plus the mean of the rows of its characters (char) or "
        "fixtoken clusters (cluster), so pieces spelled alike share parameters",
    )
    p.add_argument(
        "--seeds",
        type=int,
        help="seeds 0..N-1; each fixes initialization and data order, paired across "
        "arms; intervals need at least 2, the statistics ask for 3 or more",
    )
    p.add_argument(
        "--sample-tokens",
        type=int,
        help="tokens generated per model after training, as 8 sequences (rounded down to a "
        "multiple of 8; seeded, temperature 1, from an end-of-line context), in which "
        "orphan-mark tokens are counted (preset's default: smoke 64, cpu 1024, paper 2048)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        help="resamples of held-out lines for the paired bootstrap of the bits-per-byte "
        "difference (preset's default: smoke 200, otherwise 1000)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (default 1: on a shared 2-core machine one thread "
        "measured faster than two)",
    )
    p.add_argument(
        "--device",
        default="cpu",
        help="torch device, e.g. cuda (default cpu; on CUDA, float32 matmuls may use TF32)",
    )
    p.add_argument("--batch", type=int, help="sequences per training step (preset's default)")
    p.add_argument(
        "--checkpoints",
        type=int,
        nargs="+",
        metavar="STEP",
        help="steps at which every run scores the first --checkpoint-lines held-out lines "
        "(the last step always; default: cpu-long and paper 50, 100, 200, … doubling below "
        "the last step; smoke and cpu the last step only)",
    )
    p.add_argument(
        "--checkpoint-lines",
        type=int,
        default=1000,
        help="held-out lines scored at each checkpoint (the first ones, of the first --heldout "
        "file; default 1000)",
    )
    p.add_argument(
        "--save-every",
        type=int,
        default=500,
        help="save each run's training state every N steps (and at every checkpoint), so "
        "that a run killed in the middle resumes from there (default 500)",
    )
    p.add_argument(
        "--stop-after-steps",
        type=int,
        metavar="N",
        help="stop, state saved, after N training steps in this invocation (over all "
        "models); the same command again resumes: runs that finished are read back, the "
        "one in progress continues from its saved step",
    )
    p.add_argument(
        "--only-seeds",
        type=int,
        nargs="+",
        metavar="K",
        help="train only these seeds (numbered from 0, each below --seeds) and stop without "
        "a report: two processes given the same --out train in parallel, each skipping a "
        "model the other is training (even of the same seed); the same command without "
        "--only-seeds then reads every finished model back and reports",
    )
    p.add_argument(
        "--so-far",
        action="store_true",
        help="train nothing: report the gap at every checkpoint the run in --out has saved "
        "so far, finished models and models still training alike, each step with the seeds "
        "that reached it in both arms (so_far.md, so_far.json, gap_trend_so_far.png)",
    )
    p.add_argument(
        "--ngram",
        action="store_true",
        help="also fit interpolated modified Kneser–Ney n-gram models (--ngram-orders) on "
        "each arm's training tokens and report their held-out bits per byte",
    )
    p.add_argument(
        "--ngram-only",
        action="store_true",
        help="tokenizers, their metrics and the n-gram table only: no GPT (fast)",
    )
    p.add_argument(
        "--ngram-orders",
        type=int,
        nargs="+",
        default=[2, 3, 4, 5],
        metavar="N",
        help="n-gram orders for --ngram / --ngram-only (default 2 3 4 5)",
    )
    p.add_argument(
        "--budget-minutes",
        type=float,
        help="refuse to start training when the calibrated estimate exceeds this "
        "(the cpu preset defaults to 30 and sizes its steps to fit)",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="output directory for results.json, results.md, the PNGs, the tokenizers "
        "(tokenizers/) and each run's state (state/); a run given the folder of an earlier "
        "one with the same options resumes it (default: a new temporary directory)",
    )
    return p.parse_args(argv)


def settings(args: argparse.Namespace) -> Preset:
    """The preset with the command line's overrides. A preset that is not one (no such name or
    file, a key unknown, missing or mistyped) stops the run in one line, with argparse's exit
    status for a bad option (2), before anything is trained."""
    try:
        preset = load_preset(args.preset)
    except PresetError as error:
        print(f"{Path(sys.argv[0]).name}: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    overrides: dict[str, Any] = {
        "vocab_size": args.vocab_size,
        "steps": args.steps,
        "seeds": args.seeds,
        "train_lines": args.train_lines,
        "heldout_lines": args.heldout_lines,
        "budget_minutes": args.budget_minutes,
        "sample_tokens": args.sample_tokens,
        "bootstrap": args.bootstrap,
        "batch": args.batch,
        "warmup": args.warmup,
    }
    if args.lr is not None:
        if not args.lr > 0:
            raise SystemExit(f"--lr must be above 0, not {args.lr}")
        overrides |= {"lr": args.lr, "min_lr": preset.min_lr * args.lr / preset.lr}
    if args.warmup is not None and args.warmup < 0:
        raise SystemExit(f"--warmup must be 0 or more, not {args.warmup}")
    if args.steps is not None:
        overrides["calibrate"] = False
    cfg = replace(preset, **{k: v for k, v in overrides.items() if v is not None})
    given = [str(path) for path in args.heldout or []]
    twice = sorted({path for path in given if given.count(path) > 1})
    if twice:  # its section would be reported twice, under one name
        print(
            f"{Path(sys.argv[0]).name}: error: --heldout: {twice[0]} is given twice; give each "
            "held-out file once",
            file=sys.stderr,
        )
        raise SystemExit(2)
    if args.only_seeds is not None and not all(0 <= k < cfg.seeds for k in args.only_seeds):
        raise SystemExit(
            f"--only-seeds: each seed must be from 0 to {cfg.seeds - 1} (--seeds is {cfg.seeds})"
        )
    return cfg


def arm_names(args: argparse.Namespace, cfg: Preset) -> list[str]:
    """The arms to run: --arms or the preset's, the stock pair with --stock-baseline, and the
    plain arm of every model type among them (the baseline of each difference); plain first."""
    names = list(args.arms or cfg.arms)
    if args.stock_baseline:
        names += [n for n in STOCK_ARMS if n not in names]
    plain = list(dict.fromkeys(f"plain-{ARM_SPECS[n].model_type}" for n in names))
    for name in plain:
        if name not in names:
            print(f"adding {name}, the baseline of the arms of its type", file=sys.stderr)
    ordered = list(dict.fromkeys([n for n in [*plain, *names] if ARM_SPECS[n].kind == "plain"]))
    return ordered + [n for n in dict.fromkeys(names) if ARM_SPECS[n].kind != "plain"]
