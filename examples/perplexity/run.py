"""The perplexity experiment of "Type-Driven Tokenization for Brahmic Scripts", measured honestly.

    python examples/perplexity/run.py --preset smoke           # < 20 s, the test runs this
    python examples/perplexity/run.py --preset cpu             # 4 arms × 3 seeds, ≤ 30 min
    python examples/perplexity/run.py --preset paper --device cuda

Four tokenizers at one vocabulary size (plain spm Unigram and BPE with lossless options,
brahmic_pua Unigram and BPE; --stock-baseline adds spm with its default options), one small GPT
per tokenizer and seed, all scored on the same NFC held-out text: per-token perplexity as the
paper reports it, and bits per byte, which the conclusion rests on (per-token perplexity is not
comparable across tokenizers), with a paired bootstrap over held-out lines beside the seed
intervals; NSL vs o200k (GPT-4o's tokenizer) when the optional bpe-openai package is installed
(pip install 'brahmic-pua[compare]'); orphan-mark tokens in the held-out encoding and in text
each model generates. Writes results.json, results.md, bits_per_byte.png and
training_curves.png.
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
from dataclasses import asdict, dataclass, replace
from itertools import groupby
from pathlib import Path
from typing import Any

import sentencepiece
import torch
from data import (
    EXTRA,
    Arm,
    heldout_lines,
    line_bytes,
    per_line,
    text_size,
    train_arms,
    training_text,
)
from gpt import (
    GPT,
    GPTConfig,
    TrainConfig,
    parameter_count,
    sample,
    score,
    tokens_per_second,
    train,
)
from plot import bar_chart, line_chart
from report import UNDERTRAINED, markdown
from stats import bootstrap_ratio, mean_ci, paired_difference

import brahmic_pua
from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.evaluate import O200k


@dataclass(frozen=True)
class Preset:
    vocab_size: int
    layers: int
    heads: int
    width: int
    context: int
    dropout: float
    batch: int
    lr: float
    min_lr: float
    warmup: int
    steps: int  # for cpu: the most steps; calibration may choose fewer to fit the budget
    seeds: int
    train_lines: int | None  # None: the whole of te.train.txt
    heldout_lines: int
    budget_minutes: float | None
    calibrate: bool
    sample_tokens: int  # generated per model, for orphan marks in what the model writes
    bootstrap: int  # resamples of held-out lines


PRESETS = {
    "smoke": Preset(
        1000, 1, 2, 32, 32, 0.0, 8, 3e-3, 3e-4, 2, 12, 1, 800, 40, None, False, 64, 200
    ),
    "cpu": Preset(
        8000, 2, 4, 128, 128, 0.1, 16, 2e-3, 2e-4, 50, 3000, 3, None, 1000, 30, True, 1024, 1000
    ),
    "paper": Preset(
        8000, 6, 6, 384, 256, 0.2, 64, 1e-3, 1e-4, 100, 5000, 3, None, 3000, None, False, 2048,
        1000,
    ),
}  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="smoke",
        help="sizes: smoke (tiny model, a few steps, 800 lines, vocab 1000, 1 seed; "
        "< 20 s), cpu (1.4M-parameter model, vocab 8000, 3 seeds, steps sized "
        "by calibration to fit --budget-minutes, default 30), paper (the nanoGPT "
        "prototype: 6 layers, 6 heads, width 384, dropout 0.2, context 256, "
        "batch 64, lr 1e-3 cosine to 1e-4, 5,000 steps; for a GPU)",
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
        "--train-lines",
        type=int,
        help="first lines of te.train.txt used to train tokenizers and models "
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
    p.add_argument("--device", default="cpu", help="torch device, e.g. cuda (default cpu)")
    p.add_argument(
        "--budget-minutes",
        type=float,
        help="refuse to start training when the calibrated estimate exceeds this "
        "(the cpu preset defaults to 30 and sizes its steps to fit)",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="output directory for results.json, results.md, bits_per_byte.png and "
        "training_curves.png (default: a new temporary directory, printed at the end)",
    )
    return p.parse_args(argv)


def settings(args: argparse.Namespace) -> Preset:
    """The preset with the command line's overrides."""
    preset = PRESETS[args.preset]
    overrides: dict[str, Any] = {
        "vocab_size": args.vocab_size, "steps": args.steps, "seeds": args.seeds,
        "train_lines": args.train_lines, "heldout_lines": args.heldout_lines,
        "budget_minutes": args.budget_minutes, "sample_tokens": args.sample_tokens,
        "bootstrap": args.bootstrap,
    }  # fmt: skip
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
    arm: Arm, plain: Arm, heldout: list[str], o200k: list[list[int]] | None
) -> dict[str, float]:
    """The tokenizer's own numbers on the held-out lines (end-of-line ids not counted)."""
    rows = arm.encode(heldout)
    vs_o200k = {} if o200k is None else {"nsl_vs_o200k": metrics.nsl(rows, o200k)}
    return {
        "tokens": metrics.total_tokens(rows),
        **vs_o200k,
        "nsl_vs_plain": metrics.nsl(rows, plain.encode(heldout)),
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
        "nll_nats": total, "tokens": len(nll), "ppl": ppl, "bits_per_byte": bpb,
        "bits_per_char": metrics.bits_per_char(total, n_chars), "identity_rhs": identity,
    }  # fmt: skip


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
) -> Preset:
    """Calibrate tokens/s, fit the cpu preset's steps into its budget, print the finish time,
    and refuse a run whose estimate exceeds ``--budget-minutes``."""
    gcfg = gpt_config(cfg, cfg.vocab_size)
    probe = GPT(gcfg).to(args.device)
    tcfg = TrainConfig(cfg.steps, cfg.batch, cfg.lr, cfg.min_lr, cfg.warmup)
    rate = tokens_per_second(probe, next(iter(streams.values())), tcfg, args.device)
    runs = len(streams) * cfg.seeds
    step_tokens = cfg.batch * cfg.context
    eval_seconds = 2 * heldout_tokens / rate  # each token is read about twice, forward only
    # each generated token re-reads half a context on average, forward only (a third of the
    # cost of a training token)
    eval_seconds += cfg.sample_tokens * cfg.context / 2 / (3 * rate)
    elapsed = time.perf_counter() - started
    if cfg.calibrate and cfg.budget_minutes is not None:
        spare = cfg.budget_minutes * 60 * 0.9 - elapsed - runs * eval_seconds
        fit = int(spare / runs * rate / step_tokens)
        if fit < 10:
            raise SystemExit(f"only {fit} steps fit in {cfg.budget_minutes} minutes; refusing")
        cfg = replace(cfg, steps=min(cfg.steps, fit), warmup=min(cfg.warmup, fit // 10))
    estimate = elapsed + runs * (cfg.steps * step_tokens / rate + eval_seconds)
    finish = time.strftime("%H:%M:%S", time.localtime(time.time() + estimate - elapsed))
    print(f"estimate: {cfg.steps} steps per model, {runs} models, {estimate / 60:.1f} min "
          f"in all, finishing about {finish}", file=sys.stderr)  # fmt: skip
    if cfg.budget_minutes is not None and estimate > cfg.budget_minutes * 60:
        raise SystemExit(
            f"estimated {estimate / 60:.1f} min exceeds --budget-minutes {cfg.budget_minutes}; "
            "refusing (lower --steps or --seeds)"
        )
    return replace(cfg, calibrate=False)


def gpt_config(cfg: Preset, vocab: int) -> GPTConfig:
    return GPTConfig(vocab, cfg.layers, cfg.heads, cfg.width, cfg.context, cfg.dropout)


def run_arm(
    arm: Arm,
    cfg: Preset,
    steps: int,
    stream: torch.Tensor,
    heldout_stream: list[int],
    train_bpt: float,
    device: str,
) -> list[dict[str, Any]]:
    """Train, score and sample one model per seed for one arm; the final model is scored."""
    runs = []
    for seed in range(cfg.seeds):
        torch.manual_seed(seed)
        model = GPT(gpt_config(cfg, arm.vocab_size)).to(device)
        tcfg = TrainConfig(steps, cfg.batch, cfg.lr, cfg.min_lr, min(cfg.warmup, steps))
        every = max(steps // 10, 1)

        def progress(
            step: int, loss: float, name: str = arm.name, seed: int = seed, every: int = every
        ) -> None:
            if step % every == 0 or step == steps - 1:
                print(f"  {name} seed {seed}: step {step + 1}/{steps} loss {loss:.3f}",
                      file=sys.stderr)  # fmt: skip

        start = time.perf_counter()
        curve = train(model, stream, tcfg, seed, device, progress)
        seconds = time.perf_counter() - start
        nll = score(model, heldout_stream, device)
        generated = sample(model, int(arm.processor.eos_id()), cfg.sample_tokens, seed, device)
        tokens_seen = steps * cfg.batch * cfg.context
        runs.append({
            "seed": seed, "nll": nll, "samples": sample_metrics(arm, generated),
            "train_seconds": seconds, "loss_curve": curve,
            "parameters": parameter_count(model), "tokens_seen": tokens_seen,
            "bytes_seen": tokens_seen * train_bpt,
            "flops": 6 * parameter_count(model) * tokens_seen,
        })  # fmt: skip
    return runs


def main(argv: list[str] | None = None) -> None:
    started = time.perf_counter()
    args = parse_args(argv)
    cfg = settings(args)
    torch.set_num_threads(args.threads)
    out = args.out or Path(tempfile.mkdtemp(prefix="perplexity_"))
    out.mkdir(parents=True, exist_ok=True)
    heldout = heldout_lines(args.heldout, cfg.heldout_lines)
    news_tail = 0 if args.heldout else cfg.heldout_lines
    train_text, train_sources = training_text(cfg.train_lines, args.train_extra, heldout, news_tail)
    n_bytes, n_chars = text_size(heldout)
    heldout_line_bytes = line_bytes(heldout)
    train_bytes = text_size(train_text)[0]
    with tempfile.TemporaryDirectory() as work:
        arms = train_arms(train_text, cfg.vocab_size, Path(work), stock=args.stock_baseline)
    plain = {arm.model_type: arm for arm in arms if arm.kind == "plain"}
    o200k = o200k_rows(heldout)
    streams = {a.name: torch.tensor(a.stream(train_text), dtype=torch.long) for a in arms}
    heldout_streams = {a.name: a.stream(heldout, lead=True) for a in arms}
    tokens_per_byte = {name: len(s) / train_bytes for name, s in streams.items()}
    if cfg.calibrate or cfg.budget_minutes is not None:
        longest = max(map(len, heldout_streams.values()))
        cfg = size_run(cfg, args, streams, started, longest)
    steps = arm_steps(cfg, args.regime, tokens_per_byte)
    results: dict[str, Any] = {"arms": {}}
    per_seed_bpb: dict[str, list[float]] = {}
    per_seed_lines: dict[str, list[list[float]]] = {}  # NLL per held-out line, per seed
    for arm in arms:
        print(f"{arm.name}: {steps[arm.name]} steps × {cfg.seeds} seed(s)", file=sys.stderr)
        runs = run_arm(arm, cfg, steps[arm.name], streams[arm.name], heldout_streams[arm.name],
                       1 / tokens_per_byte[arm.name], args.device)  # fmt: skip
        rows = arm.encode(heldout)
        per_seed_lines[arm.name] = [per_line(r["nll"], rows) for r in runs]
        scored = [language_metrics(r.pop("nll"), n_bytes, n_chars) for r in runs]
        per_seed_bpb[arm.name] = [s["bits_per_byte"] for s in scored]
        first = runs[0]
        train_seconds = math.fsum(r["train_seconds"] for r in runs) / len(runs)
        generated = [r["samples"] for r in runs]
        results["arms"][arm.name] = {
            "tokenizer": tokenizer_metrics(arm, plain[arm.model_type], heldout, o200k),
            "train_tokens_per_byte": tokens_per_byte[arm.name],
            "compute": {
                "steps": steps[arm.name], "tokens_seen": first["tokens_seen"],
                "bytes_seen": first["bytes_seen"], "parameters": first["parameters"],
                "flops": first["flops"], "train_seconds": train_seconds,
                "tokens_per_second": first["tokens_seen"] / max(train_seconds, 1e-9),
            },
            "samples": {
                "tokens": sum(g["tokens"] for g in generated),
                "orphan_marks_per_1000": math.fsum(
                    g["orphan_marks_per_1000"] * g["tokens"] for g in generated
                ) / max(sum(g["tokens"] for g in generated), 1),  # pooled over seeds
                "snippet": generated[0]["snippet"],
            },
            "seeds": [{**r, **s} for r, s in zip(runs, scored, strict=True)],
            **{key: _summary([s[key] for s in scored])
               for key in ("ppl", "bits_per_byte", "bits_per_char")},
        }  # fmt: skip
    results["differences"] = {
        arm.name: difference(arm, per_seed_bpb, per_seed_lines, heldout_line_bytes, cfg.bootstrap)
        | {"round_trip_rate": results["arms"][arm.name]["tokenizer"]["round_trip_rate"]}
        for arm in arms
        if arm.kind != "plain"
    }
    results["identity_check"] = all(
        math.isclose(s["bits_per_byte"], s["identity_rhs"], rel_tol=1e-9)
        for arm in results["arms"].values() for s in arm["seeds"]
    )  # fmt: skip
    results["settings"] = {
        "preset": args.preset, "regime": args.regime, **asdict(cfg),
        "seeds": list(range(cfg.seeds)),
        "model": f"{cfg.layers} layers, {cfg.heads} heads, width {cfg.width}, context "
                 f"{cfg.context}, dropout {cfg.dropout}, batch {cfg.batch}, AdamW lr {cfg.lr} "
                 f"cosine to {cfg.min_lr}, warmup {cfg.warmup}",
        "threads": args.threads, "device": args.device,
        "train": {"sources": train_sources, "extra": args.train_extra,
                  "lines": len(train_text), "bytes": train_bytes},
        "heldout": {"source": ", ".join(map(str, args.heldout or [])) or "te.extra.txt (tail, "
                    "news)", "lines": len(heldout), "bytes": n_bytes, "characters": n_chars},
        "arms": [arm.name for arm in arms], "stock_baseline": args.stock_baseline,
        "o200k": o200k is not None,
    }  # fmt: skip
    results["versions"] = {
        "python": platform.python_version(), "torch": torch.__version__,
        "sentencepiece": sentencepiece.__version__, "brahmic_pua": brahmic_pua.__version__,
    }  # fmt: skip
    results["machine"] = {
        "platform": platform.platform(), "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
    }  # fmt: skip
    results["undertrained"] = UNDERTRAINED
    results["plot_note"] = _plot(results, out)
    results["wall_seconds"] = time.perf_counter() - started
    (out / "results.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    table = markdown(results)
    (out / "results.md").write_text(table, encoding="utf-8")
    print(table)
    print(f"results in {out}", file=sys.stderr)


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
        out / "bits_per_byte.png", list(arms), [b["mean"] for b in bpb],
        [b["low"] for b in bpb], [b["high"] for b in bpb],
        "held-out bits per byte, mean and 95% t-interval over seeds",
    )  # fmt: skip
    curves = {}
    for name, arm in arms.items():
        seeds = [s["loss_curve"] for s in arm["seeds"]]
        scale = arm["train_tokens_per_byte"] / math.log(2) / len(seeds)
        curves[name] = [math.fsum(step) * scale for step in zip(*seeds, strict=True)]
    line_chart(
        out / "training_curves.png", curves,
        "training loss in bits per byte (mean over seeds, smoothed)", "step",
    )  # fmt: skip
    return (
        "Plots: bits_per_byte.png (per-arm held-out bits per byte with 95% t-intervals over "
        "seeds; its axis does not start at 0) and training_curves.png (training loss per "
        "arm, nats per token × the arm's training tokens per byte / ln 2, mean over seeds)."
    )


if __name__ == "__main__":
    main()
