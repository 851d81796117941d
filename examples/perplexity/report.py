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


def verdict(d: dict[str, Any]) -> str:
    """Whether a difference is claimed: both intervals (seeds, lines) exclude zero, and the arm
    round-trips the held-out text (otherwise its bits per byte skip what it cannot give back)."""
    if d["round_trip_rate"] < 1:
        return (
            f"not claimed: it round-trips {d['round_trip_rate']:.2%} of the held-out lines, so "
            "it is not scored on all of the text"
        )
    boot = d["bootstrap"]
    if d["low"] is None:
        return "one seed: no seed interval, no claim"
    seeds, lines = excludes_zero(d["low"], d["high"]), excludes_zero(boot["low"], boot["high"])
    if seeds and lines:
        return "both intervals exclude zero: a difference"
    which = (
        "neither interval"
        if not (seeds or lines)
        else ("the bootstrap" if seeds else "the seed interval")
    )
    return f"{which} includes zero: no difference claimed"


def markdown(results: dict[str, Any]) -> str:
    """The whole results.md from results.json's content."""
    s = results["settings"]
    seeds = len(s["seeds"])
    train = s["train"]
    sources = ", ".join(
        f"{name} ({c['lines']:,} lines" + (f", {c['dropped_as_heldout']} equal to held-out "
        "lines dropped)" if c["dropped_as_heldout"] else ")")
        for name, c in train["sources"].items()
    )  # fmt: skip
    o200k = s["o200k"]
    lines = [
        f"# Perplexity experiment: preset `{s['preset']}`, regime `{s['regime']}`",
        "",
        f"Vocabulary {s['vocab_size']} for every arm; model {s['model']}; "
        f"{seeds} seed(s) {s['seeds']}; training text: {sources}; {train['bytes']:,} UTF-8 "
        f"bytes; held-out: {s['heldout']['lines']} lines, "
        f"{s['heldout']['bytes']:,} UTF-8 bytes (NFC, line ends included), from "
        f"{s['heldout']['source']}. Wall time {results['wall_seconds']:.1f} s.",
        "",
        "| tokenizer | " + ("NSL vs o200k | " if o200k else "") + "NSL vs plain | "
        "per-token PPL | **bits per byte** (95% CI) | bits per char | fertility | "
        "bytes/token | orphan marks /1000 held-out | orphan marks /1000 generated | UNK rate | "
        "round-trip |",
        "|---|" + ("---:|" if o200k else "") + "---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]  # fmt: skip
    for name, arm in results["arms"].items():
        t = arm["tokenizer"]
        nsl = f"{t['nsl_vs_o200k']:.3f} | " if o200k else ""
        lines.append(
            f"| {name} | {nsl}{t['nsl_vs_plain']:.3f} | {_ci(arm['ppl'], 1)} | "
            f"**{_ci(arm['bits_per_byte'])}** | {_ci(arm['bits_per_char'])} | "
            f"{t['fertility']:.3f} | {t['bytes_per_token']:.3f} | "
            f"{t['orphan_marks_per_1000']:.2f} | "
            f"{arm['samples']['orphan_marks_per_1000']:.2f} | {t['unk_rate']:.4f} | "
            f"{t['round_trip_rate']:.4f} |"
        )
    lines += [
        "",
        "NSL: the arm's held-out tokens ÷ the baseline's on the same lines (below 1: shorter "
        "sequences). "
        + (
            "NSL vs o200k uses OpenAI's o200k_base (GPT-4o's tokenizer), the paper's baseline."
            if o200k
            else "NSL vs o200k (the paper's baseline, GPT-4o's tokenizer) was skipped: the "
            "optional bpe-openai package is not installed (`pip install 'brahmic-pua[compare]'`)."
        ),
        f"Generated: {s['sample_tokens']:,} tokens per model ({seeds} model(s) per arm), "
        "sampled at temperature 1 from an end-of-line context (seeded), cut into lines at the "
        "end-of-sentence id (not counted); orphan marks per 1000 generated are pooled over "
        "seeds.",
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
    resamples = next(iter(results["differences"].values()))["bootstrap"]["resamples"]
    lines += [
        "",
        "Difference in bits per byte, arm − plain arm of the same type: mean over seeds with "
        f"the paired 95% t-interval over seeds, and the 95% percentile interval of a paired "
        f"bootstrap over held-out lines ({resamples} resamples; each line's NLL, its end "
        "included, over its UTF-8 bytes and newline). A difference is claimed only where both "
        "intervals exclude zero.",
        "",
    ]
    for name, d in results["differences"].items():
        boot = d["bootstrap"]
        seed_ci = "" if d["low"] is None else f" seeds [{d['low']:+.4f}, {d['high']:+.4f}];"
        lines.append(
            f"- {name} − {d['baseline']}: {d['mean']:+.4f} ({d['relative']:+.2%} of plain);"
            f"{seed_ci} lines [{boot['low']:+.4f}, {boot['high']:+.4f}]; {verdict(d)}"
        )
    stock = [n for n in results["arms"] if n.startswith("stock-")]
    if stock:
        lines += [
            "",
            "The stock arms use sentencepiece's default options (nmt_nfkc normalization, no "
            "byte fallback, extra whitespace removed, character coverage 0.9995). Round-trip "
            "on the held-out lines: "
            + ", ".join(
                f"{n} {results['arms'][n]['tokenizer']['round_trip_rate']:.2%}" for n in stock
            )
            + ". A tokenizer that does not give the text back is scored on less than the text "
            "(what becomes UNK or is normalized away costs it nothing), so its bits per byte "
            "is shown but no claim rests on it unless it round-trips every line.",
        ]
    lines += ["", "One generated snippet per arm (seed 0, first lines, `/` between lines):", ""]
    for name, arm in results["arms"].items():
        snippet = arm["samples"]["snippet"].replace("\n", " / ")[:120]
        lines.append(f"- {name}: {snippet}")
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
