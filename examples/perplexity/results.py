"""What a run reports, from its finished models: the per-arm entries of results.json, the
paired differences, the settings and provenance recorded beside them, the plots, and the writer
of results.json and results.md (and of so_far.json and so_far.md).

results.json holds every number a table shows and the exact command line that made it, so a
reader can check a table against the numbers and rerun the command.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sentencepiece

import brahmic_pua

from .config import Config
from .data import ARM_SPECS, Arm, line_bytes, per_line, text_size
from .measures import language_metrics, malformed, pooled_malformed
from .plot import bar_chart, line_chart, trend_chart
from .stats import bootstrap_ratio, mean_ci, paired_difference
from .trend import checkpoint_bits_per_byte

Trajectory = dict[int, dict[str, Any]]  # step -> {"tokens_seen", "lines": each seed's per-line NLL}


@dataclass
class ArmScores:
    """One arm's finished models, scored on the held-out text: what its entry in results.json
    and the statistics between arms are computed from."""

    runs: list[dict[str, Any]]  # each seed's record (run.py's run_seed)
    scored: list[dict[str, float]]  # each seed's perplexity, bits per byte and per character
    lines: list[list[float]]  # each seed's NLL per held-out line, for the line bootstrap
    mean_nll: list[float]  # per held-out token, the mean over seeds, for the attribution
    trajectory: Trajectory  # the checkpoints, for the gap against tokens seen

    @property
    def bits_per_byte(self) -> list[float]:
        """Each seed's held-out bits per byte, the number the differences are taken on."""
        return [s["bits_per_byte"] for s in self.scored]


def score_arm(
    arm: Arm, runs: list[dict[str, Any]], heldout: list[str], n_bytes: int, n_chars: int
) -> ArmScores:
    """The seeds' records of ``arm`` scored on the ``heldout`` lines (their bytes and
    characters counted once, for every arm)."""
    rows = arm.encode(heldout)
    trajectory: Trajectory = {}
    for r in runs:
        for c in r["checkpoints"]:
            entry = trajectory.setdefault(c["step"], {"tokens_seen": c["tokens_seen"], "lines": []})
            entry["lines"].append(c["lines"])
    return ArmScores(
        runs=runs,
        scored=[language_metrics(r["nll"], n_bytes, n_chars) for r in runs],
        lines=[per_line(r["nll"], rows) for r in runs],
        mean_nll=[math.fsum(v) / len(v) for v in zip(*(r["nll"] for r in runs), strict=True)],
        trajectory=trajectory,
    )


def arm_entry(
    scores: ArmScores,
    tokenizer: dict[str, float],
    tokens_per_byte: float,
    steps: int,
    stream_tokens: int,
    checkpoint_bytes: list[int],
) -> dict[str, Any]:
    """One arm in results.json: its tokenizer's numbers, the compute its models had, what they
    generate, their checkpoints, each seed, and the seed means with their t-intervals."""
    runs, scored = scores.runs, scores.scored
    first = runs[0]
    train_seconds = math.fsum(r["train_seconds"] for r in runs) / len(runs)
    generated = [r["samples"] for r in runs]
    seeds = [
        {k: v for k, v in r.items() if k not in ("nll", "nll_further", "checkpoints")}
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
    return {
        "tokenizer": tokenizer,
        "train_tokens_per_byte": tokens_per_byte,
        "compute": {
            "steps": steps,
            "tokens_seen": first["tokens_seen"],
            "bytes_seen": first["bytes_seen"],
            "parameters": first["parameters"],
            "flops": first["flops"],
            "train_seconds": train_seconds,
            "tokens_per_second": first["tokens_seen"] / max(train_seconds, 1e-9),
            "epochs": first["tokens_seen"] / stream_tokens,
        },
        "samples": {
            "tokens": sum(g["tokens"] for g in generated),
            "orphan_marks_per_1000": math.fsum(
                g["orphan_marks_per_1000"] * g["tokens"] for g in generated
            )
            / max(sum(g["tokens"] for g in generated), 1),  # pooled over seeds
            # (runs saved before the count was made have none: then it is left out)
            **(
                {"malformed": pooled_malformed([g["malformed"] for g in generated])}
                if all("malformed" in g for g in generated)
                else {}
            ),
            "snippet": generated[0]["snippet"],
        },
        "checkpoints": [
            {
                "step": step,
                "tokens_seen": c["tokens_seen"],
                **_summary([checkpoint_bits_per_byte(x, checkpoint_bytes) for x in c["lines"]]),
            }
            for step, c in sorted(scores.trajectory.items())
        ],
        "seeds": seeds,
        **{
            key: _summary([s[key] for s in scored])
            for key in ("ppl", "bits_per_byte", "bits_per_char")
        },
    }


def difference(
    arm: Arm, scores: dict[str, ArmScores], heldout_line_bytes: list[int], resamples: int
) -> dict[str, Any]:
    """Bits per byte of ``arm`` − the plain arm of its type: mean over seeds with the paired
    t-interval, and the paired bootstrap over held-out lines of the seeds' mean difference.
    Only a lossless arm (one that round-trips the held-out text) may be claimed from."""
    base = f"plain-{arm.model_type}"
    ours_bpb, base_bpb = scores[arm.name].bits_per_byte, scores[base].bits_per_byte
    d = _summary_of(paired_difference(ours_bpb, base_bpb))
    d["relative"] = d["mean"] / (math.fsum(base_bpb) / len(base_bpb))
    ours, theirs = scores[arm.name].lines, scores[base].lines
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


def heldout_file(
    source: str,
    lines: list[str],
    arms: list[Arm],
    tokenizers: dict[str, dict[str, float]],
    resamples: int,
    nll: dict[str, list[list[float]]] | None = None,
    ngram: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One held-out file scored on its own (results.json's "heldout_files", one per --heldout
    file when there are several): its size, the unattached signs it writes itself, each arm's
    tokenizer numbers on it, and, given ``nll`` (per arm, each seed's NLL per token of the
    file's stream, the models run.py trained once), each arm's per-token perplexity and bits per
    byte and character with their seed t-intervals, and each non-plain arm's difference from
    its plain arm (seed t-interval and bootstrap over this file's lines), as for the first
    file; ``ngram``: the Kneser–Ney table on this file."""
    n_bytes, n_chars = text_size(lines)
    entry: dict[str, Any] = {
        "source": source,
        "lines": len(lines),
        "bytes": n_bytes,
        "characters": n_chars,
        "malformed": malformed(lines),
        "tokenizers": tokenizers,
    }
    if nll is not None:
        scores = {
            a.name: score_arm(
                a, [{"nll": x, "checkpoints": []} for x in nll[a.name]], lines, n_bytes, n_chars
            )
            for a in arms
        }
        entry["arms"] = {
            a.name: {
                key: _summary([s[key] for s in scores[a.name].scored])
                for key in ("ppl", "bits_per_byte", "bits_per_char")
            }
            for a in arms
        }
        entry["differences"] = {
            a.name: difference(a, scores, line_bytes(lines), resamples)
            | {"round_trip_rate": tokenizers[a.name]["round_trip_rate"]}
            for a in arms
            if a.kind != "plain"
        }
    if ngram is not None:
        entry["ngram"] = ngram
    return entry


def heldout_files(
    cfg: Config,
    texts: list[list[str]],
    arms: list[Arm],
    tokenizers_on: list[tuple[dict[str, dict[str, float]], bool]],
    ngrams_on: list[dict[str, Any]] | None,
    records: dict[str, list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """Every --heldout file scored on its own (results.json's "heldout_files", when there are
    several; the first included, whose numbers equal the main tables'): heldout_file of each,
    with the tokenizers' numbers (``tokenizers_on``) and the n-gram table (``ngrams_on``) on
    it, and, given ``records`` (each arm's finished models; None under --ngram-only), the
    models' scores on it."""
    return [
        heldout_file(
            str(cfg.heldout[k]),
            text,
            arms,
            tokenizers_on[k][0],
            cfg.bootstrap,
            None
            if records is None
            else {a.name: [file_nll(r, k) for r in records[a.name]] for a in arms},
            None if ngrams_on is None else ngrams_on[k],
        )
        for k, text in enumerate(texts)
    ]


def file_nll(record: dict[str, Any], k: int) -> list[float]:
    """A finished model's NLL per token of held-out file ``k`` (0: the first, its "nll")."""
    return list(record["nll"]) if k == 0 else list(record["nll_further"][k - 1])


def _summary(values: list[float]) -> dict[str, Any]:
    return _summary_of(mean_ci(values)) | {"values": values}


def _summary_of(ci: tuple[float, float | None, float | None]) -> dict[str, Any]:
    return {"mean": ci[0], "low": ci[1], "high": ci[2]}


def data_settings(
    cfg: Config,
    names: list[str],
    train_sources: dict[str, Any],
    train_text: list[str],
    heldout: list[str],
    o200k: bool,
) -> dict[str, Any]:
    """The settings every report records (results.json's "settings", --ngram-only's too): the
    preset, the texts trained on and scored, the arms."""
    n_bytes, n_chars = text_size(heldout)
    return {
        "preset": cfg.preset,
        "vocab_size": cfg.vocab_size,
        "train": {
            "sources": train_sources,
            "extra": list(cfg.train_extra),
            "lines": len(train_text),
            "bytes": text_size(train_text)[0],
        },
        "heldout": {
            # with several files: the first, whose lines these are (run.py's heldout_file for each)
            "source": str(cfg.heldout[0]) if cfg.heldout else "te.extra.txt (tail, news)",
            **({"files": [str(p) for p in cfg.heldout]} if len(cfg.heldout) > 1 else {}),
            "lines": len(heldout),
            "bytes": n_bytes,
            "characters": n_chars,
            # the held-out text's own unattached signs: what people wrote, for comparison
            "malformed": malformed(heldout),
        },
        "arms": names,
        "arm_notes": {n: ARM_SPECS[n].note for n in names},
        "stock_baseline": cfg.stock_baseline,
        "o200k": o200k,
    }


def run_settings(
    data: dict[str, Any],
    cfg: Config,
    names: list[str],
    checkpoint_bytes: list[int],
    out: Path,
) -> dict[str, Any]:
    """The settings of a run that trained models: ``data`` (data_settings), every value of
    the preset as used (calibrated steps included), the model in words, where it ran."""
    return data | {
        "regime": cfg.regime,
        **cfg.preset_settings(),
        "arms": names,
        "seeds": list(range(cfg.seeds)),
        "model": cfg.model_words(),
        "sampling": cfg.sampling,
        "composed": cfg.composed,
        "threads": cfg.threads,
        "device": cfg.device,
        "checkpoint_lines": len(checkpoint_bytes),
        "checkpoint_bytes": sum(checkpoint_bytes),
        "out": str(out),
    }


def provenance() -> dict[str, Any]:
    """What the numbers came from besides the settings: versions and machine (a resumed run
    equals an uninterrupted one only on the same machine, threads and torch)."""
    import torch  # here only: scoring and tables need no torch, nor do the tests of them

    return {
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "sentencepiece": sentencepiece.__version__,
            "brahmic_pua": brahmic_pua.__version__,
        },
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor(),
            "cpu_count": os.cpu_count(),
            "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        },
    }


def write_results(out: Path, results: dict[str, Any], table: str, stem: str = "results") -> None:
    """Write ``stem``.json and ``stem``.md into ``out`` and print the table: one writer for the
    final report (results) and the report of a run in progress (so_far)."""
    (out / f"{stem}.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (out / f"{stem}.md").write_text(table, encoding="utf-8")
    print(table)
    print(f"{stem} in {out}: {stem}.md, {stem}.json", file=sys.stderr)


def plot_results(results: dict[str, Any], out: Path) -> str:
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
    plotted = plot_trend(results["trend"], out / "gap_trend.png")
    return f"{note} {plotted}".rstrip()


def plot_trend(trend: dict[str, Any], path: Path) -> str:
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
