"""The perplexity experiment of "Type-Driven Tokenization for Brahmic Scripts", measured honestly.

    python examples/perplexity/run.py --preset smoke           # < 20 s, the test runs this
    python examples/perplexity/run.py --preset cpu             # 4 arms × 3 seeds, ≤ 30 min
    python examples/perplexity/run.py --preset cpu-long --out DIR   # ≥ 20M tokens per model,
                                                               # resumable, gap vs compute
    python examples/perplexity/run.py --preset cpu --ngram-only     # Kneser–Ney n-grams only
    python examples/perplexity/run.py --preset paper --device cuda

Four tokenizers at one vocabulary size (plain spm Unigram and BPE with lossless options,
brahmic_pua Unigram and BPE; --stock-baseline adds spm with its default options), one small GPT
per tokenizer and seed, all scored on the same NFC held-out text: per-token perplexity as the
paper reports it, and bits per byte, which the conclusion rests on (per-token perplexity is not
comparable across tokenizers), with a paired bootstrap over held-out lines beside the seed
intervals; NSL vs o200k (GPT-4o's tokenizer) when the optional bpe-openai package is installed
(pip install 'brahmic-pua[compare]'); orphan-mark tokens in the held-out encoding and in text
each model generates. With --arms, variants of the brahmic_pua trainer (policy=akshara,
character_coverage=0.9995, complete_word_starts off). Log-spaced checkpoints give the gap against
tokens seen (trend.py), the final models' bits are split by token class (attribution.py), and
--ngram adds interpolated modified Kneser–Ney models (ngram.py) as a converged comparator. Every
run keeps its tokenizers and its per-model training state in --out, so an interrupted run resumes,
--only-seeds lets two processes share one run, and --so-far reports the checkpoints saved so far.
Writes results.json, results.md, bits_per_byte.png, training_curves.png (and gap_trend.png).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from itertools import groupby
from pathlib import Path
from typing import Any

import sentencepiece
import torch
from attribution import NotAttributable, attribute, cluster_counts
from data import (
    ARM_SPECS,
    EXTRA,
    STOCK_ARMS,
    TRAIN,
    Arm,
    heldout_lines,
    line_bytes,
    per_line,
    text_size,
    train_arm,
    training_text,
)
from gpt import (
    GPT,
    GPTConfig,
    TrainConfig,
    Trainer,
    parameter_count,
    sample,
    score,
    tokens_per_second,
)
from ngram import KneserNey
from plot import bar_chart, line_chart, trend_chart
from preset import Preset, PresetError, load_preset
from report import UNDERTRAINED, markdown, ngram_markdown, trend_section
from so_far import trend_so_far
from stats import bootstrap_ratio, mean_ci, paired_difference
from trend import checkpoint_bits_per_byte, checkpoint_steps, gap_trend

import brahmic_pua
from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.o200k import O200k
from brahmic_pua.io.lock import Held, exclusive


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
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
        metavar="FILE",
        help="held-out text files (default: the last lines of te.extra.txt, news "
        "that no tokenizer or model trains on)",
    )
    p.add_argument("--heldout-lines", type=int, help="held-out lines scored (preset's default)")
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
        help="held-out lines scored at each checkpoint (the first ones; default 1000)",
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
    return replace(preset, **{k: v for k, v in overrides.items() if v is not None})


def o200k_rows(heldout: list[str]) -> list[list[int]] | None:
    """The held-out lines in OpenAI's o200k_base (the paper's NSL baseline, GPT-4o's
    tokenizer), or None when the optional bpe-openai package is not installed."""
    try:
        rows: list[list[int]] = O200k().encode(heldout)
    except ValueError:
        return None
    return rows


def tokenizer_metrics(
    arm: Arm,
    plain: Arm,
    heldout: list[str],
    o200k: list[list[int]] | None,
    stock: Arm | None = None,
) -> dict[str, float]:
    """The tokenizer's own numbers on the held-out lines (end-of-line ids not counted); NSL vs
    ``stock``, spm with its default options, where that tokenizer was trained."""
    rows = arm.encode(heldout)
    vs_o200k = {} if o200k is None else {"nsl_vs_o200k": metrics.nsl(rows, o200k)}
    vs_stock = {} if stock is None else {"nsl_vs_stock": metrics.nsl(rows, stock.encode(heldout))}
    return {
        "tokens": metrics.total_tokens(rows),
        **vs_o200k,
        "nsl_vs_plain": metrics.nsl(rows, plain.encode(heldout)),
        **vs_stock,
        "fertility": metrics.fertility(rows, heldout),
        "bytes_per_token": metrics.bytes_per_token(rows, heldout),
        "orphan_marks_per_1000": metrics.orphan_marks_per_1000(rows, arm.processor),
        "unk_rate": metrics.unk_rate(rows, arm.processor),
        "round_trip_rate": metrics.round_trip_rate(heldout, arm.processor.decode(rows)),
    }


def sample_metrics(arm: Arm, rows: list[list[int]]) -> dict[str, Any]:
    """Orphan-mark tokens per 1000 in generated text (cut into lines at the end-of-sentence id,
    which is not counted, as in the held-out encoding) and a decoded snippet."""
    eos = int(arm.processor.eos_id())
    lines = [list(g) for row in rows for end, g in groupby(row, lambda i: i == eos) if not end]
    snippet = "\n".join(arm.processor.decode(lines[:4]))[:400]
    return {
        "tokens": metrics.total_tokens(lines),
        "orphan_marks_per_1000": metrics.orphan_marks_per_1000(lines, arm.processor),
        "snippet": snippet,
    }


def language_metrics(nll: list[float], n_bytes: int, n_chars: int) -> dict[str, float]:
    """Per-token perplexity, bits per byte and per character from one NLL per token, and the
    identity that ties the first two together (exact, since both use the same sum and count)."""
    total = math.fsum(nll)
    ppl = metrics.per_token_perplexity(total, len(nll))
    bpb = metrics.bits_per_byte(total, n_bytes)
    identity = len(nll) / n_bytes * math.log2(ppl)
    if not math.isclose(bpb, identity, rel_tol=1e-9):
        raise AssertionError(f"bits per byte {bpb} != tokens/bytes × log2(ppl) {identity}")
    return {
        "nll_nats": total,
        "tokens": len(nll),
        "ppl": ppl,
        "bits_per_byte": bpb,
        "bits_per_char": metrics.bits_per_char(total, n_chars),
        "identity_rhs": identity,
    }


def arm_steps(cfg: Preset, regime: str, tokens_per_byte: dict[str, float]) -> dict[str, int]:
    """Steps per arm: equal, or proportional to tokens per byte so bytes seen are equal."""
    if regime == "tokens":
        return dict.fromkeys(tokens_per_byte, cfg.steps)
    mean = math.fsum(tokens_per_byte.values()) / len(tokens_per_byte)
    return {name: max(1, round(cfg.steps * tpb / mean)) for name, tpb in tokens_per_byte.items()}


def size_run(
    cfg: Preset,
    args: argparse.Namespace,
    streams: dict[str, torch.Tensor],
    started: float,
    heldout_tokens: int,
    checkpoint_tokens: int,
    taken: list[int],
) -> Preset:
    """Calibrate tokens/s, fit the cpu preset's steps into its budget, print the finish time,
    and refuse a run whose estimate exceeds ``--budget-minutes``. ``taken`` holds the steps
    already taken by each model still to finish (0 for a model not begun)."""
    if not taken:
        print("estimate: every model has finished already; nothing to train", file=sys.stderr)
        return replace(cfg, calibrate=False)
    gcfg = gpt_config(cfg, cfg.vocab_size)
    probe = GPT(gcfg).to(args.device)
    tcfg = TrainConfig(cfg.steps, cfg.batch, cfg.lr, cfg.min_lr, cfg.warmup)
    rate = tokens_per_second(probe, next(iter(streams.values())), tcfg, args.device)
    runs = len(taken)
    step_tokens = cfg.batch * cfg.context
    eval_seconds = 2 * heldout_tokens / rate  # each token is read about twice, forward only
    # each generated token re-reads half a context on average, forward only (a third of the
    # cost of a training token)
    eval_seconds += cfg.sample_tokens * cfg.context / 2 / (3 * rate)
    # each checkpoint before the last reads its lines about twice, forward only
    marks = len(checkpoint_steps(cfg.steps, cfg.checkpoint_from, args.checkpoints)) - 1
    eval_seconds += marks * 2 * checkpoint_tokens / (3 * rate)
    elapsed = time.perf_counter() - started
    if cfg.calibrate and cfg.budget_minutes is not None:
        spare = cfg.budget_minutes * 60 * 0.9 - elapsed - runs * eval_seconds
        fit = int(spare / runs * rate / step_tokens)
        if fit < 10:
            raise SystemExit(f"only {fit} steps fit in {cfg.budget_minutes} minutes; refusing")
        cfg = replace(cfg, steps=min(cfg.steps, fit), warmup=min(cfg.warmup, fit // 10))
    left = sum(max(cfg.steps - t, 0) for t in taken)
    estimate = elapsed + left * step_tokens / rate + runs * eval_seconds
    finish = time.strftime("%H:%M:%S", time.localtime(time.time() + estimate - elapsed))
    print(
        f"estimate: {cfg.steps} steps per model, {runs} model(s) to train "
        f"({left:,} steps left), {estimate / 60:.1f} min in all "
        f"({estimate / 3600:.1f} h), finishing about {finish}",
        file=sys.stderr,
    )
    if cfg.budget_minutes is not None and estimate > cfg.budget_minutes * 60:
        raise SystemExit(
            f"estimated {estimate / 60:.1f} min exceeds --budget-minutes {cfg.budget_minutes}; "
            "refusing (lower --steps or --seeds)"
        )
    return replace(cfg, calibrate=False)


def gpt_config(cfg: Preset, vocab: int) -> GPTConfig:
    return GPTConfig(vocab, cfg.layers, cfg.heads, cfg.width, cfg.context, cfg.dropout)


@dataclass
class Budget:
    """Training steps this invocation may still take (``--stop-after-steps``; None: no limit)."""

    left: int | None
    stopped: bool = False

    def spend(self) -> bool:
        """Whether one more step may be taken."""
        if self.left is None:
            return True
        if self.left <= 0:
            self.stopped = True
            return False
        self.left -= 1
        return True


@dataclass
class Scoring:
    """What a run scores: the whole held-out stream at the end, the first lines at checkpoints."""

    heldout: list[int]
    checkpoint: list[int]
    checkpoint_rows: list[list[int]]
    marks: list[int] = field(default_factory=list)


def _write_json(path: Path, value: Any) -> None:
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(value, ensure_ascii=False) + "\n", encoding="utf-8")
    part.replace(path)


def _save_state(path: Path, state: dict[str, Any]) -> None:
    part = path.with_name(path.name + ".part")
    torch.save(state, part)
    part.replace(path)


def run_seed(
    arm: Arm,
    seed: int,
    cfg: Preset,
    steps: int,
    stream: torch.Tensor,
    scoring: Scoring,
    train_bpt: float,
    device: str,
    folder: Path,
    budget: Budget,
    save_every: int,
) -> dict[str, Any] | None:
    """Train, score and sample one model; the final model is scored. Its state is saved in
    ``folder`` at every checkpoint, every ``save_every`` steps and when the budget stops it
    (not on Ctrl-C, which may fall inside an optimizer step); a later call resumes from the
    last save, and a finished model's record (done.json) is read back. Returns None when the
    budget stopped it."""
    done = folder / "done.json"
    if done.is_file():
        print(f"  {arm.name} seed {seed}: finished earlier, read back", file=sys.stderr)
        record: dict[str, Any] = json.loads(done.read_text(encoding="utf-8"))
        return record
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    model = GPT(gpt_config(cfg, arm.vocab_size)).to(device)
    tcfg = TrainConfig(steps, cfg.batch, cfg.lr, cfg.min_lr, min(cfg.warmup, steps))
    trainer = Trainer(model, stream, tcfg, seed, device)
    state_file = folder / "train.pt"
    checkpoints: list[dict[str, Any]] = []
    seconds = 0.0
    if state_file.is_file():
        state = torch.load(state_file, map_location="cpu", weights_only=True)
        trainer.load_state_dict(state)
        checkpoints, seconds = list(state["checkpoints"]), float(state["train_seconds"])
        print(f"  {arm.name} seed {seed}: resumed at step {trainer.step}", file=sys.stderr)
    every = max(steps // 10, 1)
    step_tokens = cfg.batch * cfg.context

    def save() -> None:
        _save_state(
            state_file,
            trainer.state_dict()
            | {
                "checkpoints": checkpoints,
                "train_seconds": seconds,
            },
        )
        _write_json(folder / "progress.json", {"step": trainer.step, "steps": steps})

    while trainer.step < steps:
        if not budget.spend():
            save()
            return None
        start = time.perf_counter()
        loss = trainer.take_step()
        seconds += time.perf_counter() - start
        step = trainer.step
        if (step - 1) % every == 0 or step == steps:
            print(f"  {arm.name} seed {seed}: step {step}/{steps} loss {loss:.3f}", file=sys.stderr)
        if step in scoring.marks and step < steps:
            nll = score(model, scoring.checkpoint, device)
            checkpoints.append(
                {
                    "step": step,
                    "tokens_seen": step * step_tokens,
                    "lines": per_line(nll, scoring.checkpoint_rows),
                }
            )
            save()
        elif step % save_every == 0 and step < steps:
            save()
    nll = score(model, scoring.heldout, device)
    lines = len(scoring.checkpoint_rows)
    first = sum(len(row) + 1 for row in scoring.checkpoint_rows)  # the checkpoint lines' tokens
    checkpoints.append(
        {
            "step": steps,
            "tokens_seen": steps * step_tokens,
            "lines": per_line(nll[:first], scoring.checkpoint_rows)[:lines],
        }
    )
    generated = sample(model, int(arm.processor.eos_id()), cfg.sample_tokens, seed, device)
    tokens_seen = steps * step_tokens
    record = {
        "seed": seed,
        "steps": steps,
        "nll": nll,
        "samples": sample_metrics(arm, generated),
        "train_seconds": seconds,
        "loss_curve": trainer.losses,
        "parameters": parameter_count(model),
        "tokens_seen": tokens_seen,
        "bytes_seen": tokens_seen * train_bpt,
        "flops": 6 * parameter_count(model) * tokens_seen,
        "checkpoints": checkpoints,
    }
    torch.save(model.state_dict(), folder / "model.pt")
    _write_json(done, record)
    state_file.unlink(missing_ok=True)
    return record


class Busy(Exception):
    """Another process holds a model's lock (the message names it)."""


@contextmanager
def model_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s lock while one model trains in it (brahmic_pua/io/lock.py), or raise
    Busy naming the process that holds it: two processes training one model would overwrite
    each other's saved state."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with exclusive(folder / "lock"):
            yield
    except Held as held:
        raise Busy(f"{folder} is being trained by {held.holder}") from None


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


def check_request(path: Path, request: dict[str, Any]) -> dict[str, Any] | None:
    """The stored record of an earlier run in this output folder (None for a new folder),
    refusing one made with other options: its tokenizers and states would not be this run's."""
    if not path.is_file():
        return None
    stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if stored["request"] != request:
        keys = sorted(
            k for k in {*stored["request"], *request} if stored["request"].get(k) != request.get(k)
        )
        raise SystemExit(
            f"{path.parent.parent} holds a run with other options ({', '.join(keys)}: "
            f"{[stored['request'].get(k) for k in keys]} there, {[request.get(k) for k in keys]} "
            "now); give a new --out, or the same options to resume it"
        )
    return stored


def ngram_table(
    arms: list[Arm],
    train_text: list[str],
    heldout: list[str],
    orders: list[int],
    resamples: int,
) -> dict[str, Any]:
    """Bits per byte of an interpolated modified Kneser–Ney model of each order on each arm's
    training tokens (every line then its end-of-sentence id, after a leading one), on the
    held-out stream the GPTs score; for every arm but the plain ones, the difference from the
    plain arm of its type with the paired bootstrap over held-out lines."""
    table: dict[str, Any] = {}
    per_line_bits: dict[tuple[str, int], list[float]] = {}
    sizes = line_bytes(heldout)
    for arm in arms:
        train_ids = arm.stream(train_text, lead=True)
        held = arm.stream(heldout, lead=True)
        rows = arm.encode(heldout)
        row: dict[str, Any] = {"train_tokens": len(train_ids), "orders": {}}
        for order in orders:
            start = time.perf_counter()
            model = KneserNey(train_ids, arm.vocab_size, order)
            bits = per_line([-b for b in model.log2_probabilities(held)], rows)
            per_line_bits[arm.name, order] = bits
            bpb = math.fsum(bits) / sum(sizes)
            seconds = time.perf_counter() - start
            row["orders"][str(order)] = {
                "bits_per_byte": bpb,
                "seconds": seconds,
                "discounts": [list(level.discounts) for level in model.levels],
            }
            print(
                f"  {arm.name} {order}-gram: {bpb:.4f} bits per byte ({seconds:.1f} s)",
                file=sys.stderr,
            )
        table[arm.name] = row
    for arm in arms:
        base = f"plain-{arm.model_type}"
        if arm.kind == "plain" or base not in table:
            continue
        for order in orders:
            ours, theirs = per_line_bits[arm.name, order], per_line_bits[base, order]
            diff = [a - b for a, b in zip(ours, theirs, strict=True)]
            point, low, high = bootstrap_ratio(diff, sizes, resamples, seed=0)
            table[arm.name]["orders"][str(order)]["gap"] = {
                "mean": point,
                "low": low,
                "high": high,
                "baseline": base,
            }
    return table


def main(argv: list[str] | None = None) -> None:
    started = time.perf_counter()
    args = parse_args(argv)
    cfg = settings(args)
    torch.set_num_threads(args.threads)
    if str(args.device).startswith("cuda"):
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    out = args.out or Path(tempfile.mkdtemp(prefix="perplexity_"))
    out.mkdir(parents=True, exist_ok=True)
    names = arm_names(args, cfg)
    heldout = heldout_lines(args.heldout, cfg.heldout_lines)
    news_tail = 0 if args.heldout else cfg.heldout_lines
    train_text, train_sources = training_text(
        cfg.train_lines, args.train_extra, heldout, news_tail, args.train
    )
    n_bytes, n_chars = text_size(heldout)
    heldout_line_bytes = line_bytes(heldout)
    train_bytes = text_size(train_text)[0]
    tokenizer_request = {
        "vocab_size": cfg.vocab_size,
        "train_lines": cfg.train_lines,
        "train_extra": sorted(args.train_extra),
        "train_sources": train_sources,
        "train_bytes": train_bytes,
    }
    check_request(out / "tokenizers" / "request.json", tokenizer_request)
    arms = [train_arm(ARM_SPECS[n], train_text, cfg.vocab_size, out / "tokenizers") for n in names]
    (out / "tokenizers").mkdir(parents=True, exist_ok=True)
    _write_json(out / "tokenizers" / "request.json", {"request": tokenizer_request})
    plain = {arm.model_type: arm for arm in arms if arm.kind == "plain"}
    stock = {
        t: train_arm(ARM_SPECS[f"stock-{t}"], train_text, cfg.vocab_size, out / "tokenizers")
        for t in plain
    }  # NSL vs spm with its default options, for every arm
    o200k = o200k_rows(heldout)
    tokenizers = {
        arm.name: tokenizer_metrics(
            arm, plain[arm.model_type], heldout, o200k, stock[arm.model_type]
        )
        for arm in arms
    }
    base_settings: dict[str, Any] = {
        "preset": args.preset,
        "vocab_size": cfg.vocab_size,
        "train": {
            "sources": train_sources,
            "extra": args.train_extra,
            "lines": len(train_text),
            "bytes": train_bytes,
        },
        "heldout": {
            "source": ", ".join(map(str, args.heldout or [])) or "te.extra.txt (tail, news)",
            "lines": len(heldout),
            "bytes": n_bytes,
            "characters": n_chars,
        },
        "arms": names,
        "arm_notes": {n: ARM_SPECS[n].note for n in names},
        "stock_baseline": args.stock_baseline,
        "o200k": o200k is not None,
    }
    ngrams = None
    if args.ngram or args.ngram_only:
        ngrams = ngram_table(arms, train_text, heldout, args.ngram_orders, cfg.bootstrap)
    results: dict[str, Any]
    if args.ngram_only:
        results = {
            "settings": base_settings,
            "tokenizers": tokenizers,
            "ngram": ngrams,
            "versions": _versions(),
            "machine": _machine(),
            "wall_seconds": time.perf_counter() - started,
        }
        _write_results(out, results, ngram_markdown(results))
        return
    streams = {a.name: torch.tensor(a.stream(train_text), dtype=torch.long) for a in arms}
    heldout_streams = {a.name: a.stream(heldout, lead=True) for a in arms}
    tokens_per_byte = {name: len(s) / train_bytes for name, s in streams.items()}
    checkpoint_lines = heldout[: args.checkpoint_lines]
    request = {
        "preset": args.preset,
        "regime": args.regime,
        **{
            k: v
            for k, v in asdict(cfg).items()
            if k not in ("seeds", "bootstrap", "budget_minutes", "arms")
        },
        "tokenizers": tokenizer_request,
        "heldout": [str(p) for p in args.heldout or []],
        "heldout_lines": cfg.heldout_lines,
        "checkpoints": args.checkpoints,
        "checkpoint_lines": len(checkpoint_lines),
        "arms": sorted(names) if args.regime == "bytes" else None,
    }
    state_dir = out / "state"
    stored = check_request(state_dir / "run.json", request)
    if stored is not None:  # the sizes the earlier run chose (calibration included)
        cfg = replace(
            Preset(**{**stored["settings"], "arms": tuple(stored["settings"]["arms"])}),
            seeds=cfg.seeds,
            bootstrap=cfg.bootstrap,
            budget_minutes=cfg.budget_minutes,
            calibrate=False,
        )
        print(f"resuming the run in {out} ({cfg.steps} steps per model)", file=sys.stderr)
    if args.so_far:
        if stored is None:
            raise SystemExit(
                f"--so-far: {out} holds no run begun with these options; give "
                "the --out and options of a run in progress"
            )
        report_so_far(
            out,
            arms,
            cfg,
            arm_steps(cfg, args.regime, tokens_per_byte),
            line_bytes(checkpoint_lines),
            len(checkpoint_lines),
        )
        return
    if args.only_seeds is not None and not all(0 <= k < cfg.seeds for k in args.only_seeds):
        raise SystemExit(
            f"--only-seeds: each seed must be from 0 to {cfg.seeds - 1} (--seeds is {cfg.seeds})"
        )
    chosen = sorted(set(args.only_seeds)) if args.only_seeds is not None else range(cfg.seeds)
    taken = []
    for arm in arms:
        for seed in chosen:
            folder = state_dir / arm.name / f"seed{seed}"
            if not (folder / "done.json").is_file():
                progress = folder / "progress.json"
                taken.append(json.loads(progress.read_text())["step"] if progress.is_file() else 0)
    if cfg.calibrate or cfg.budget_minutes is not None or cfg.estimate:
        longest = max(map(len, heldout_streams.values()))
        ckpt_tokens = max(len(a.stream(checkpoint_lines)) for a in arms)
        cfg = size_run(cfg, args, streams, started, longest, ckpt_tokens, taken)
    state_dir.mkdir(parents=True, exist_ok=True)
    _write_json(state_dir / "run.json", {"request": request, "settings": asdict(cfg)})
    steps = arm_steps(cfg, args.regime, tokens_per_byte)
    budget = Budget(args.stop_after_steps)
    records: dict[str, list[dict[str, Any]]] = {arm.name: [] for arm in arms}
    skipped: list[str] = []  # with --only-seeds: models another process holds
    for seed in chosen:  # seed-major: a stopped run has whole pairs first
        for arm in arms:
            rows = arm.encode(checkpoint_lines)
            scoring = Scoring(
                heldout_streams[arm.name],
                arm.stream(checkpoint_lines, lead=True),
                rows,
                checkpoint_steps(steps[arm.name], cfg.checkpoint_from, args.checkpoints),
            )
            print(f"{arm.name} seed {seed}: {steps[arm.name]} steps", file=sys.stderr)
            folder = state_dir / arm.name / f"seed{seed}"
            try:
                with model_lock(folder):
                    record = run_seed(
                        arm,
                        seed,
                        cfg,
                        steps[arm.name],
                        streams[arm.name],
                        scoring,
                        1 / tokens_per_byte[arm.name],
                        args.device,
                        folder,
                        budget,
                        args.save_every,
                    )
            except Busy as busy:
                if args.only_seeds is None:  # a report needs every model
                    raise SystemExit(f"{busy}: wait for that run to end, then report") from None
                print(f"  skipped: {busy}", file=sys.stderr)
                skipped.append(f"{arm.name} seed {seed}")
                continue
            if record is None:
                print(
                    f"stopped after --stop-after-steps {args.stop_after_steps} steps, "
                    f"state saved in {state_dir}; the same command resumes",
                    file=sys.stderr,
                )
                return
            records[arm.name].append(record)
    if args.only_seeds is not None:
        others = f" (except {', '.join(skipped)}, which other runs are training)" if skipped else ""
        print(
            f"seeds {', '.join(map(str, chosen))} finished{others}; the same command "
            "without --only-seeds reports every finished seed",
            file=sys.stderr,
        )
        return
    results = {"arms": {}}
    per_seed_bpb: dict[str, list[float]] = {}
    per_seed_lines: dict[str, list[list[float]]] = {}  # NLL per held-out line, per seed
    mean_nll: dict[str, list[float]] = {}  # per held-out token, mean over seeds
    checkpoint_bytes = line_bytes(checkpoint_lines)
    trajectories: dict[str, dict[int, dict[str, Any]]] = {}
    for arm in arms:
        runs = records[arm.name]
        rows = arm.encode(heldout)
        per_seed_lines[arm.name] = [per_line(r["nll"], rows) for r in runs]
        mean_nll[arm.name] = [
            math.fsum(v) / len(v) for v in zip(*(r["nll"] for r in runs), strict=True)
        ]
        trajectories[arm.name] = {}
        for r in runs:
            for c in r["checkpoints"]:
                entry = trajectories[arm.name].setdefault(
                    c["step"], {"tokens_seen": c["tokens_seen"], "lines": []}
                )
                entry["lines"].append(c["lines"])
        scored = [language_metrics(r["nll"], n_bytes, n_chars) for r in runs]
        per_seed_bpb[arm.name] = [s["bits_per_byte"] for s in scored]
        first = runs[0]
        train_seconds = math.fsum(r["train_seconds"] for r in runs) / len(runs)
        generated = [r["samples"] for r in runs]
        seeds = [
            {k: v for k, v in r.items() if k not in ("nll", "checkpoints")}
            | {
                "checkpoints": [
                    {
                        "step": c["step"],
                        "tokens_seen": c["tokens_seen"],
                        "bits_per_byte": checkpoint_bits_per_byte(c["lines"], checkpoint_bytes),
                    }
                    for c in r["checkpoints"]
                ]
            }
            | s
            for r, s in zip(runs, scored, strict=True)
        ]
        results["arms"][arm.name] = {
            "tokenizer": tokenizers[arm.name],
            "train_tokens_per_byte": tokens_per_byte[arm.name],
            "compute": {
                "steps": steps[arm.name],
                "tokens_seen": first["tokens_seen"],
                "bytes_seen": first["bytes_seen"],
                "parameters": first["parameters"],
                "flops": first["flops"],
                "train_seconds": train_seconds,
                "tokens_per_second": first["tokens_seen"] / max(train_seconds, 1e-9),
                "epochs": first["tokens_seen"] / len(streams[arm.name]),
            },
            "samples": {
                "tokens": sum(g["tokens"] for g in generated),
                "orphan_marks_per_1000": math.fsum(
                    g["orphan_marks_per_1000"] * g["tokens"] for g in generated
                )
                / max(sum(g["tokens"] for g in generated), 1),  # pooled over seeds
                "snippet": generated[0]["snippet"],
            },
            "checkpoints": [
                {
                    "step": step,
                    "tokens_seen": c["tokens_seen"],
                    **_summary([checkpoint_bits_per_byte(x, checkpoint_bytes) for x in c["lines"]]),
                }
                for step, c in sorted(trajectories[arm.name].items())
            ],
            "seeds": seeds,
            **{
                key: _summary([s[key] for s in scored])
                for key in ("ppl", "bits_per_byte", "bits_per_char")
            },
        }
    results["differences"] = {
        arm.name: difference(arm, per_seed_bpb, per_seed_lines, heldout_line_bytes, cfg.bootstrap)
        | {"round_trip_rate": results["arms"][arm.name]["tokenizer"]["round_trip_rate"]}
        for arm in arms
        if arm.kind != "plain"
    }
    results["trend"] = {
        arm.name: gap_trend(
            trajectories[arm.name],
            trajectories[f"plain-{arm.model_type}"],
            checkpoint_bytes,
            cfg.bootstrap,
            min(cfg.warmup, steps[arm.name]),
            results["arms"][arm.name]["compute"]["parameters"],
        )
        | {"baseline": f"plain-{arm.model_type}"}
        for arm in arms
        if arm.kind != "plain"
    }
    results["attribution"] = attribution(arms, heldout, train_text, mean_nll)
    if ngrams is not None:
        results["ngram"] = ngrams
    results["identity_check"] = all(
        math.isclose(s["bits_per_byte"], s["identity_rhs"], rel_tol=1e-9)
        for arm in results["arms"].values()
        for s in arm["seeds"]
    )
    results["settings"] = base_settings | {
        "regime": args.regime,
        **asdict(cfg),
        "arms": names,
        "seeds": list(range(cfg.seeds)),
        "model": f"{cfg.layers} layers, {cfg.heads} heads, width {cfg.width}, context "
        f"{cfg.context}, dropout {cfg.dropout}, batch {cfg.batch}, AdamW lr {cfg.lr} "
        f"cosine to {cfg.min_lr}, warmup {cfg.warmup}",
        "threads": args.threads,
        "device": args.device,
        "checkpoint_lines": len(checkpoint_lines),
        "checkpoint_bytes": sum(checkpoint_bytes),
        "out": str(out),
    }
    results["versions"] = _versions()
    results["machine"] = _machine()
    results["undertrained"] = UNDERTRAINED
    results["plot_note"] = _plot(results, out)
    results["wall_seconds"] = time.perf_counter() - started
    _write_results(out, results, markdown(results))
    for name, t in results["trend"].items():
        if t["fit"]["points"] >= 3:
            print(f"trend of {name} − {t['baseline']}: {t['fit']['verdict']}", file=sys.stderr)


def report_so_far(
    out: Path,
    arms: list[Arm],
    cfg: Preset,
    steps: dict[str, int],
    checkpoint_bytes: list[int],
    checkpoint_lines: int,
) -> None:
    """--so-far: the trend table and plot from the checkpoints saved so far (so_far.py)."""
    trends: dict[str, Any] = {}
    for arm in arms:
        if arm.kind == "plain":
            continue
        parameters = parameter_count(GPT(gpt_config(cfg, arm.vocab_size)))
        trends[arm.name] = trend_so_far(
            out / "state",
            arm.name,
            f"plain-{arm.model_type}",
            cfg.seeds,
            checkpoint_bytes,
            cfg.bootstrap,
            min(cfg.warmup, steps[arm.name]),
            parameters,
        )
    results = {
        "trend": trends,
        "settings": {
            "checkpoint_lines": checkpoint_lines,
            "checkpoint_bytes": sum(checkpoint_bytes),
            "steps": steps,
            "seeds": cfg.seeds,
        },
    }
    section = trend_section(results)
    if not section:
        section = ["", "No step has been scored by both arms of a pair yet."]
    plotted = _plot_trend(trends, out / "gap_trend_so_far.png")
    table = "\n".join(
        [
            f"# The gap so far ({out}, models of {max(steps.values()):,} steps, {cfg.seeds} seeds)",
            *section,
            *(["", plotted] if plotted else []),
            "",
        ]
    )
    _write_results(out, results, table, stem="so_far")


def attribution(
    arms: list[Arm], heldout: list[str], train_text: list[str], mean_nll: dict[str, list[float]]
) -> dict[str, Any]:
    """Per brahmic_pua arm and its plain arm: the held-out bits per token class (attribution.py),
    from the final models' NLL per token, the mean over seeds."""
    pairs = [a for a in arms if a.kind == "brahmic_pua"]
    if not pairs:
        return {}
    clusters = cluster_counts(train_text)
    tables: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for arm in arms:
        if arm.kind == "stock":
            continue
        try:
            tables[arm.name] = attribute(arm, heldout, mean_nll[arm.name], clusters)
        except NotAttributable as error:
            tables[arm.name] = {"error": str(error)}
    for arm in pairs:
        base = f"plain-{arm.model_type}"
        out[arm.name] = {"baseline": base, "arm": tables[arm.name], "plain": tables[base]}
    return out


def _versions() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "sentencepiece": sentencepiece.__version__,
        "brahmic_pua": brahmic_pua.__version__,
    }


def _machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }


def _write_results(out: Path, results: dict[str, Any], table: str, stem: str = "results") -> None:
    """Write ``stem``.json and ``stem``.md into ``out`` and print the table: one writer for the
    final report (results) and the report of a run in progress (so_far)."""
    (out / f"{stem}.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out / f"{stem}.md").write_text(table, encoding="utf-8")
    print(table)
    print(f"{stem} in {out}: {stem}.md, {stem}.json", file=sys.stderr)


def difference(
    arm: Arm,
    per_seed_bpb: dict[str, list[float]],
    per_seed_lines: dict[str, list[list[float]]],
    heldout_line_bytes: list[int],
    resamples: int,
) -> dict[str, Any]:
    """Bits per byte of ``arm`` − the plain arm of its type: mean over seeds with the paired
    t-interval, and the paired bootstrap over held-out lines of the seeds' mean difference.
    Only a lossless arm (one that round-trips the held-out text) may be claimed from."""
    base = f"plain-{arm.model_type}"
    d = _summary_of(paired_difference(per_seed_bpb[arm.name], per_seed_bpb[base]))
    d["relative"] = d["mean"] / (math.fsum(per_seed_bpb[base]) / len(per_seed_bpb[base]))
    ours, theirs = per_seed_lines[arm.name], per_seed_lines[base]
    bits = [
        (math.fsum(s[i] for s in ours) / len(ours) - math.fsum(s[i] for s in theirs) / len(theirs))
        / math.log(2)
        for i in range(len(heldout_line_bytes))
    ]
    point, low, high = bootstrap_ratio(bits, heldout_line_bytes, resamples, seed=0)
    if not math.isclose(point, d["mean"], rel_tol=1e-9, abs_tol=1e-12):
        raise AssertionError(f"bootstrap point {point} != mean seed difference {d['mean']}")
    d["bootstrap"] = {"mean": point, "low": low, "high": high, "resamples": resamples}
    d["baseline"] = base
    return d


def _summary(values: list[float]) -> dict[str, Any]:
    return _summary_of(mean_ci(values)) | {"values": values}


def _summary_of(ci: tuple[float, float | None, float | None]) -> dict[str, Any]:
    return {"mean": ci[0], "low": ci[1], "high": ci[2]}


def _plot(results: dict[str, Any], out: Path) -> str:
    """bits_per_byte.png (per-arm mean with its seed interval) and training_curves.png (the
    training loss of each arm in bits per training byte, mean over seeds: per token it would
    not compare across tokenizers), drawn by plot.py without matplotlib."""
    arms = results["arms"]
    bpb = [arms[n]["bits_per_byte"] for n in arms]
    bar_chart(
        out / "bits_per_byte.png",
        list(arms),
        [b["mean"] for b in bpb],
        [b["low"] for b in bpb],
        [b["high"] for b in bpb],
        "held-out bits per byte, mean and 95% t-interval over seeds",
    )
    curves = {}
    for name, arm in arms.items():
        seeds = [s["loss_curve"] for s in arm["seeds"]]
        scale = arm["train_tokens_per_byte"] / math.log(2) / len(seeds)
        curves[name] = [math.fsum(step) * scale for step in zip(*seeds, strict=True)]
    line_chart(
        out / "training_curves.png",
        curves,
        "training loss in bits per byte (mean over seeds, smoothed)",
        "step",
    )
    note = (
        "Plots: bits_per_byte.png (per-arm held-out bits per byte with 95% t-intervals over "
        "seeds; its axis does not start at 0) and training_curves.png (training loss per "
        "arm, nats per token × the arm's training tokens per byte / ln 2, mean over seeds)."
    )
    plotted = _plot_trend(results["trend"], out / "gap_trend.png")
    return f"{note} {plotted}".rstrip()


def _plot_trend(trend: dict[str, Any], path: Path) -> str:
    """The gap at each checkpoint against log10(tokens seen) (plot.trend_chart), when some pair
    has two checkpoints or more; returns the plot's note for the report ('' when none)."""
    trends = {n: t for n, t in trend.items() if len(t["checkpoints"]) >= 2}
    if not trends:
        return ""
    series = {
        name: [
            (math.log10(c["tokens_seen"]), c["gap"], c["bootstrap"]["low"], c["bootstrap"]["high"])
            for c in t["checkpoints"]
        ]
        for name, t in trends.items()
    }
    fits = {
        name: (t["fit"]["intercept"], t["fit"]["slope"])
        for name, t in trends.items()
        if "slope" in t["fit"]
    }
    trend_chart(
        path,
        series,
        fits,
        "bits per byte, arm - plain, at each checkpoint (line bootstrap 95%), and the fit",
        "log10 tokens seen",
    )
    return (
        f"{path.name}: the gap to the plain arm of the same type at each checkpoint "
        "against log10(tokens seen), whiskers the line bootstrap's 95% interval, the "
        "least-squares line over the fitted checkpoints dashed."
    )


if __name__ == "__main__":
    main()
