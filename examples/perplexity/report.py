"""results.md: the paper's layout (NSL, per-token perplexity) next to bits per byte."""

from __future__ import annotations

from typing import Any

from stats import excludes_zero

UNDERTRAINED = (
    "Models this small, trained this briefly, are under-trained: their losses are still falling "
    "when training stops, so the numbers compare tokenizations early in learning, not what each "
    "tokenization allows a converged model to reach; a difference here may shrink, grow or flip "
    "with more parameters and more steps."
)


def _ci(entry: dict[str, Any], digits: int = 4) -> str:
    mean, low, high = entry["mean"], entry["low"], entry["high"]
    if low is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def markdown(results: dict[str, Any]) -> str:
    """The whole results.md from results.json's content."""
    s = results["settings"]
    seeds = len(s["seeds"])
    lines = [
        f"# Perplexity experiment: preset `{s['preset']}`, regime `{s['regime']}`",
        "",
        f"Vocabulary {s['vocab_size']} for every arm; model {s['model']}; "
        f"{seeds} seed(s) {s['seeds']}; held-out: {s['heldout']['lines']} lines, "
        f"{s['heldout']['bytes']:,} UTF-8 bytes (NFC, line ends included), from "
        f"{s['heldout']['source']}. Wall time {results['wall_seconds']:.1f} s.",
        "",
        "| tokenizer | NSL vs plain | per-token PPL | **bits per byte** (95% CI) | bits per char "
        "| fertility | bytes/token | orphan marks /1000 | round-trip |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, arm in results["arms"].items():
        t = arm["tokenizer"]
        lines.append(
            f"| {name} | {t['nsl_vs_plain']:.3f} | {_ci(arm['ppl'], 1)} | "
            f"**{_ci(arm['bits_per_byte'])}** | {_ci(arm['bits_per_char'])} | "
            f"{t['fertility']:.3f} | {t['bytes_per_token']:.3f} | "
            f"{t['orphan_marks_per_1000']:.2f} | {t['round_trip_rate']:.4f} |"
        )
    lines += [
        "",
        "| arm | steps | tokens seen | training bytes seen | parameters | FLOPs ≈ 6·N·tokens "
        "| train s (mean) | tokens/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, arm in results["arms"].items():
        c = arm["compute"]
        lines.append(
            f"| {name} | {c['steps']:,} | {c['tokens_seen']:,} | {c['bytes_seen']:,.0f} | "
            f"{c['parameters']:,} | {c['flops']:.3g} | {c['train_seconds']:.1f} | "
            f"{c['tokens_per_second']:,.0f} |"
        )
    lines += ["", "Paired difference in bits per byte, brahmic_pua − plain (same seeds):", ""]
    for model_type, d in results["differences"].items():
        if d["low"] is None:
            verdict = "one seed: no interval, no claim"
        elif excludes_zero(d["low"], d["high"]):
            verdict = "the interval excludes zero: a difference"
        else:
            verdict = "the interval includes zero: no difference claimed"
        lines.append(f"- {model_type}: {_ci(d)} ({d['relative']:+.2%} of plain; {verdict})")
    lines += [
        "",
        "The conclusion rests on bits per byte: total NLL in bits over the UTF-8 bytes of the "
        "same NFC held-out text, which every arm must predict in full, line ends included. "
        "Per-token perplexity is shown in the paper's layout only: it divides by each "
        "tokenizer's own token count, so a tokenizer with fewer, longer tokens gets a higher "
        "per-token perplexity for the same model quality (Mielke et al. 2019). Checked in the "
        "code for every run: bits per byte = tokens/bytes × log2(per-token perplexity).",
        "",
        UNDERTRAINED,
        "",
        results["plot_note"],
        "",
    ]
    return "\n".join(lines)
