"""The numbers measured on each arm: its tokenizer on the held-out lines, a model's NLL per
token as per-token perplexity and bits per byte, and the text a model generates.

Per-token perplexity is what the paper reports; it does not compare across tokenizers, since
each counts tokens differently. Bits per byte divides the same total NLL by the held-out text's
UTF-8 bytes, the same for every arm, which is why the conclusion rests on it; the identity that
ties the two together is checked for every model.
"""

from __future__ import annotations

import math
from itertools import groupby
from pathlib import Path
from typing import Any

from brahmic_pua.evaluation import metrics
from brahmic_pua.evaluation.malformed import MalformedCount, count_malformed
from brahmic_pua.evaluation.o200k import O200k

from .data import ARM_SPECS, Arm, train_arm


def tokenizer_table(
    arms: list[Arm], heldout: list[str], train_text: list[str], vocab_size: int, folder: Path
) -> tuple[dict[str, dict[str, float]], bool]:
    """Every arm's tokenizer_metrics, and whether o200k could be compared. NSL is measured
    against the plain arm of the arm's type and against spm with its default options (the stock
    arm of its type, trained into ``folder`` for that whether or not it is an arm)."""
    plain = {arm.model_type: arm for arm in arms if arm.kind == "plain"}
    stock = {t: train_arm(ARM_SPECS[f"stock-{t}"], train_text, vocab_size, folder) for t in plain}
    o200k = o200k_rows(heldout)
    table = {
        arm.name: tokenizer_metrics(
            arm, plain[arm.model_type], heldout, o200k, stock[arm.model_type]
        )
        for arm in arms
    }
    return table, o200k is not None


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
    """What a model writes (cut into lines at the end-of-sentence id, which is not counted, as
    in the held-out encoding): orphan-mark tokens per 1000 tokens, the Brahmic signs its text
    leaves unattached (what renders on a dotted circle, :func:`malformed`), the text itself and
    a snippet of it."""
    eos = int(arm.processor.eos_id())
    lines = [list(g) for row in rows for end, g in groupby(row, lambda i: i == eos) if not end]
    texts = [str(text) for text in arm.processor.decode(lines)]
    return {
        "tokens": metrics.total_tokens(lines),
        "orphan_marks_per_1000": metrics.orphan_marks_per_1000(lines, arm.processor),
        "malformed": malformed(texts),
        "snippet": "\n".join(texts[:4])[:400],
        "text": "\n".join(texts),
    }


def malformed(texts: list[str]) -> dict[str, float]:
    """Unattached Brahmic signs in ``texts`` by where they sit, the characters, and the rate per
    1000 characters (brahmic_pua.evaluation.malformed)."""
    count = count_malformed(texts)
    return malformed_record(count)


def malformed_record(count: MalformedCount) -> dict[str, float]:
    return {
        "line_start": count.line_start,
        "after_space": count.after_space,
        "cannot_follow": count.cannot_follow,
        "characters": count.characters,
        "per_1000_characters": count.per_1000(),
    }


def pooled_malformed(records: list[dict[str, float]]) -> dict[str, float]:
    """Records of :func:`malformed` added up (over seeds), the rate recomputed."""
    total = MalformedCount()
    for r in records:
        total += MalformedCount(
            int(r["line_start"]),
            int(r["after_space"]),
            int(r["cannot_follow"]),
            int(r["characters"]),
        )
    return malformed_record(total)


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
