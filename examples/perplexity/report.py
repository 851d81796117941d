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
        f"{name} ({c['lines']:,} lines"
        + (
            f", {c['dropped_as_heldout']} equal to held-out lines dropped)"
            if c["dropped_as_heldout"]
            else ")"
        )
        for name, c in train["sources"].items()
    )
    o200k = s["o200k"]
    has_stock = any("nsl_vs_stock" in a["tokenizer"] for a in results["arms"].values())
    lines = [
        f"# Perplexity experiment: preset `{s['preset']}`, regime `{s['regime']}`",
        "",
        f"Vocabulary {s['vocab_size']} for every arm; model {s['model']}; "
        f"{seeds} seed(s) {s['seeds']}; training text: {sources}; {train['bytes']:,} UTF-8 "
        f"bytes; held-out: {s['heldout']['lines']} lines, "
        f"{s['heldout']['bytes']:,} UTF-8 bytes (NFC, line ends included), from "
        f"{s['heldout']['source']}. Wall time {results['wall_seconds']:.1f} s.",
        "",
        "| tokenizer | "
        + ("NSL vs o200k | " if o200k else "")
        + "NSL vs plain | "
        + ("NSL vs stock | " if has_stock else "")
        + "per-token PPL | **bits per byte** (95% CI) | bits per char | fertility | "
        "bytes/token | orphan marks /1000 held-out | orphan marks /1000 generated | UNK rate | "
        "round-trip |",
        "|---|"
        + ("---:|" if o200k else "")
        + ("---:|" if has_stock else "")
        + "---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, arm in results["arms"].items():
        t = arm["tokenizer"]
        nsl = f"{t['nsl_vs_o200k']:.3f} | " if o200k else ""
        vs_stock = f" {t['nsl_vs_stock']:.3f} |" if has_stock else ""
        lines.append(
            f"| {name} | {nsl}{t['nsl_vs_plain']:.3f} |{vs_stock} {_ci(arm['ppl'], 1)} | "
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
        )
        + (
            " NSL vs stock: against spm of the same type with its default options (nmt_nfkc, "
            "no byte fallback, character coverage 0.9995), trained on the same text."
            if has_stock
            else ""
        ),
        f"Generated: {s['sample_tokens']:,} tokens per model ({seeds} model(s) per arm), "
        "sampled at temperature 1 from an end-of-line context (seeded), cut into lines at the "
        "end-of-sentence id (not counted); orphan marks per 1000 generated are pooled over "
        "seeds.",
        "",
        "| arm | steps | tokens seen | training bytes seen | epochs | parameters "
        "| FLOPs ≈ 6·N·tokens | train s (mean) | tokens/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, arm in results["arms"].items():
        c = arm["compute"]
        lines.append(
            f"| {name} | {c['steps']:,} | {c['tokens_seen']:,} | {c['bytes_seen']:,.0f} | "
            f"{c['epochs']:.2f} | {c['parameters']:,} | {c['flops']:.3g} | "
            f"{c['train_seconds']:.1f} | {c['tokens_per_second']:,.0f} |"
        )
    if results["differences"]:  # none when only plain arms ran (--arms plain-unigram)
        resamples = next(iter(results["differences"].values()))["bootstrap"]["resamples"]
        lines += [
            "",
            "Difference in bits per byte, arm − plain arm of the same type: mean over seeds "
            "with the paired 95% t-interval over seeds, and the 95% percentile interval of a "
            f"paired bootstrap over held-out lines ({resamples} resamples; each line's NLL, its "
            "end included, over its UTF-8 bytes and newline). A difference is claimed only "
            "where both intervals exclude zero.",
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
    lines += trend_section(results)
    lines += attribution_section(results.get("attribution", {}))
    if "ngram" in results:
        lines += ngram_section(results["ngram"], results["arms"], results["differences"])
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


def _interval(low: float | None, high: float | None, signed: bool = True) -> str:
    if low is None or high is None:
        return "—"
    return f"[{low:+.4f}, {high:+.4f}]" if signed else f"[{low:.4f}, {high:.4f}]"


def trend_section(results: dict[str, Any]) -> list[str]:
    """The gap at each checkpoint against tokens seen and FLOPs, and the fit."""
    trends = {n: t for n, t in results.get("trend", {}).items() if len(t["checkpoints"]) >= 2}
    if not trends:
        return []
    s = results["settings"]
    out = [
        "",
        f"## The gap with compute (checkpoints on the first {s['checkpoint_lines']:,} held-out "
        f"lines, {s['checkpoint_bytes']:,} bytes)",
        "",
        "Gap: bits per byte of the arm − the plain arm of its type, mean over seeds, with the "
        "paired t-interval over seeds and the paired bootstrap over the checkpoint lines.",
    ]
    for name, t in trends.items():
        out += [
            "",
            f"{name} − {t['baseline']}:",
            "",
            "| step | seeds | tokens seen | FLOPs | plain bits/byte | arm bits/byte | gap "
            "| seeds 95% | lines 95% | gap % of plain |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for c in t["checkpoints"]:
            b = c["bootstrap"]
            out.append(
                f"| {c['step']:,} | {c.get('seeds', '—')} | {c['tokens_seen']:,} | "
                f"{c['flops']:.3g} | "
                f"{c['plain_bits_per_byte']:.4f} | {c['arm_bits_per_byte']:.4f} | "
                f"{c['gap']:+.4f} | {_interval(c['low'], c['high'])} | "
                f"{_interval(b['low'], b['high'])} | {c['relative']:+.2%} |"
            )
        f = t["fit"]
        out.append("")
        if "slope" not in f:
            out.append(f"Trend: {f['verdict']}.")
            continue
        crossing = (
            f" Extrapolated, the line reaches zero near {f['zero_crossing_tokens']:.3g} tokens "
            "(outside the measured range: not a result)."
            if f["zero_crossing_tokens"] is not None
            else ""
        )
        out.append(
            f"Trend (least squares over {f['points']} checkpoints from {f['from_tokens']:,} to "
            f"{f['to_tokens']:,} tokens; gap = a + b·log10 tokens): b = {f['slope']:+.4f} bits "
            f"per byte per tenfold tokens ({f['relative_slope']:+.2%} of plain), t-interval "
            f"{_interval(f['low'], f['high'])}, line bootstrap "
            f"{_interval(f['bootstrap']['low'], f['bootstrap']['high'])}. **The gap "
            f"{f['verdict']}.**{crossing}"
        )
        out += ["", f["caveat"]]
    return out


def attribution_section(attribution: dict[str, Any]) -> list[str]:
    """Per pair and dimension: share of bytes, bits per byte within the class and the bits it
    contributes per byte of the whole text, for both arms, and the difference."""
    if not attribution:
        return []
    out = [
        "",
        "## Where the bits go (final models, NLL per token averaged over seeds)",
        "",
        "Each token's bytes are the UTF-8 bytes of its shown piece (▁ = one space byte, a "
        "byte-fallback piece one byte, the line's leading ▁ none, the end-of-sentence id the "
        "newline), so a line's tokens spell its bytes. Contribution: the class's bits over all "
        "held-out bytes; in each dimension the contributions add up to the arm's bits per "
        "byte, and their differences to the gap (the line end, a class in every dimension, is "
        "shown once). Rare: a fixtoken cluster seen fewer than 10 "
        "times in the training text. Cluster cut: the token starts inside a fixtoken cluster "
        "(a piece that begins with a vowel sign, such as plain spm's suffix ానికి), which a "
        "brahmic_pua tokenizer never does.",
    ]
    for name, pair in attribution.items():
        ours, theirs, base = pair["arm"], pair["plain"], pair["baseline"]
        if "error" in ours or "error" in theirs:
            out += [
                "",
                f"{name} vs {base}: not attributed ({ours.get('error') or theirs['error']})",
            ]
            continue
        out += [
            "",
            f"{name} vs {base}:",
            "",
            f"| dimension | class | {base} bytes % | tokens % | bits/byte | contribution | "
            f"{name} bytes % | tokens % | bits/byte | contribution | Δ contribution |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for k, (dim, classes) in enumerate(ours["classes"].items()):
            for cls, cell in classes.items():
                other = theirs["classes"][dim][cls]
                if (cell["tokens"] == 0 and other["tokens"] == 0) or (k and cls == "line end"):
                    continue  # the line end, shown once, belongs to every dimension
                a = _cells(other, theirs)
                b = _cells(cell, ours)
                delta = (cell["bits"] / ours["bytes"]) - (other["bits"] / theirs["bytes"])
                out.append(f"| {dim} | {cls} | {a} | {b} | {delta:+.4f} |")
    return out


def _cells(cell: dict[str, float], table: dict[str, Any]) -> str:
    per_byte = f"{cell['bits'] / cell['bytes']:.3f}" if cell["bytes"] else "—"
    return (
        f"{cell['bytes'] / table['bytes']:.1%} | {cell['tokens'] / table['tokens']:.1%} | "
        f"{per_byte} | {cell['bits'] / table['bytes']:.4f}"
    )


def ngram_section(
    ngram: dict[str, Any],
    arms: dict[str, Any] | None = None,
    differences: dict[str, Any] | None = None,
) -> list[str]:
    """Bits per byte of each arm's Kneser–Ney models, per order, beside the GPT's."""
    orders = list(next(iter(ngram.values()))["orders"])
    with_gpt = arms is not None
    out = [
        "",
        "## Interpolated modified Kneser–Ney n-grams (a converged comparator)",
        "",
        "Bits per byte on the same held-out text (every token and line end, ÷ its UTF-8 "
        "bytes); below each arm that is not plain, its difference from the plain arm of the "
        "same type, % of plain, and the paired bootstrap's 95% interval over held-out lines "
        "(the n-gram models are deterministic: the text is the only noise).",
        "",
        "| arm | training tokens | "
        + " | ".join(f"{o}-gram" for o in orders)
        + (" | GPT (final) |" if with_gpt else " |"),
        "|---|---:|" + "---:|" * (len(orders) + (1 if with_gpt else 0)),
    ]
    for name, row in ngram.items():
        cells = [f"{row['orders'][o]['bits_per_byte']:.4f}" for o in orders]
        if arms is not None:
            cells.append(f"{arms[name]['bits_per_byte']['mean']:.4f}" if name in arms else "—")
        out.append(f"| {name} | {row['train_tokens']:,} | " + " | ".join(cells) + " |")
        if "gap" in row["orders"][orders[0]]:
            gaps = []
            for o in orders:
                g = row["orders"][o]["gap"]
                ref = ngram[g["baseline"]]["orders"][o]["bits_per_byte"]
                gaps.append(
                    f"{g['mean']:+.4f} ({g['mean'] / ref:+.1%}) {_interval(g['low'], g['high'])}"
                )
            gpt = ""
            if arms is not None:
                d = (differences or {}).get(name)
                gpt = (
                    " | —"
                    if d is None
                    else (
                        f" | {d['mean']:+.4f} ({d['relative']:+.1%}) "
                        f"{_interval(d['bootstrap']['low'], d['bootstrap']['high'])}"
                    )
                )
            out.append(
                f"| − {row['orders'][orders[0]]['gap']['baseline']} | | "
                + " | ".join(gaps)
                + gpt
                + " |"
            )
    return out


def ngram_markdown(results: dict[str, Any]) -> str:
    """results.md of a --ngram-only run: the tokenizers and the n-gram table."""
    s = results["settings"]
    lines = [
        f"# Kneser–Ney n-grams only: preset `{s['preset']}` sizes",
        "",
        f"Vocabulary {s['vocab_size']}; training text {s['train']['lines']:,} lines, "
        f"{s['train']['bytes']:,} UTF-8 bytes; held-out {s['heldout']['lines']} lines, "
        f"{s['heldout']['bytes']:,} bytes, from {s['heldout']['source']}. Wall time "
        f"{results['wall_seconds']:.1f} s.",
        "",
        "| tokenizer | NSL vs plain | NSL vs stock | fertility | bytes/token | round-trip |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, t in results["tokenizers"].items():
        lines.append(
            f"| {name} | {t['nsl_vs_plain']:.3f} | {t.get('nsl_vs_stock', float('nan')):.3f} | "
            f"{t['fertility']:.3f} | {t['bytes_per_token']:.3f} | {t['round_trip_rate']:.4f} |"
        )
    lines += ngram_section(results["ngram"])
    lines += [
        "",
        "A stock arm that does not round-trip the held-out text is scored on what it keeps of "
        "it: its bits per byte are not comparable.",
        "",
    ]
    return "\n".join(lines)
