"""Seed 000's E4 protocol: every metric of :mod:`brahmic_pua.evaluation.metrics` for one tokenizer
on a set
of texts, computed through its real encode and decode path, so evaluation cannot drift from use.

A tokenizer is brahmic_pua's processor or stock sentencepiece's on a plain model (its N is the
identity), or any :class:`~brahmic_pua.runtime.protocol.Encoder` (``encode(texts) -> rows of
ids``, ``decode(rows) -> texts``) such as :class:`O200k`; an encoder that is not a whole
:class:`~brahmic_pua.runtime.protocol.Processor` gets the metrics that need no vocabulary.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from brahmic_pua.evaluation import metrics
from brahmic_pua.model.script_ids import SCRIPT_ID
from brahmic_pua.runtime.protocol import Encoder, Processor

#: Table labels of the scalar results, in table order.
LABELS: dict[str, str] = {
    "lines": "lines",
    "tokens": "tokens",
    "fertility": "fertility (tokens per word)",
    "tokens_per_char": "tokens per character of N(s)",
    "bytes_per_token": "UTF-8 bytes of N(s) per token",
    "byte_fallback_per_1000": "byte-fallback tokens per 1000",
    "orphan_marks_per_1000": "orphan-mark tokens per 1000",
    "cluster_split_rate": "cluster-split rate",
    "unk_rate": "UNK rate",
    "round_trip_rate": "round-trip rate",
    "nsl": "NSL",
    "vocab_size": "vocabulary size",
}


class O200k:
    """OpenAI's o200k_base encoding as a baseline, from the optional ``bpe-openai`` package
    (``pip install 'brahmic-pua[compare]'``): ordinary text, no special tokens."""

    name = "o200k"

    def __init__(self) -> None:
        try:
            module = importlib.import_module("bpe_openai")
        except ImportError:
            raise ValueError(
                "the o200k baseline needs the optional bpe-openai package: "
                "pip install 'brahmic-pua[compare]' (or pip install bpe-openai)"
            ) from None
        self._encoding = module.get_encoding("o200k_base")

    def encode(self, input: list[str]) -> list[list[int]]:
        return [list(self._encoding.encode_ordinary(text)) for text in input]

    def decode(self, input: Sequence[Sequence[int]]) -> list[str]:
        return [str(self._encoding.decode(list(row))) for row in input]


def expected_text(processor: Encoder, text: str) -> str:
    """N(s): what decoding the encoding of ``text`` must give back. A brahmic_pua model's N as
    its manifest records it (mode and folding table); the identity for anything else."""
    manifest = getattr(processor, "manifest", None)
    return text if manifest is None else manifest.normalizer(text)


def evaluate(
    processor: Encoder, texts: Sequence[str], baseline: Encoder | None = None
) -> dict[str, Any]:
    """Every metric for ``processor`` on ``texts`` (keys: :data:`LABELS`, plus
    ``vocab_share``, script name → share of the usable vocabulary). ``nsl`` is there when a
    ``baseline`` tokenizer is given: this one's tokens ÷ the baseline's, on the same texts."""
    texts = list(texts)
    if not texts:
        raise ValueError("no text to evaluate on")
    rows = processor.encode(texts)
    normalized = [expected_text(processor, text) for text in texts]
    result: dict[str, Any] = {
        "lines": len(texts),
        "tokens": metrics.total_tokens(rows),
        "fertility": metrics.fertility(rows, texts),
        "tokens_per_char": metrics.tokens_per_char(rows, normalized),
        "bytes_per_token": metrics.bytes_per_token(rows, normalized),
        "round_trip_rate": metrics.round_trip_rate(normalized, processor.decode(rows)),
    }
    if baseline is not None:
        result["nsl"] = metrics.nsl(rows, baseline.encode(texts))
    if isinstance(processor, Processor):  # a SentencePiece vocabulary to look into
        result |= {
            "byte_fallback_per_1000": metrics.byte_fallback_per_1000(rows, processor),
            "orphan_marks_per_1000": metrics.orphan_marks_per_1000(rows, processor),
            "cluster_split_rate": metrics.cluster_split_rate(processor, normalized),
            "unk_rate": metrics.unk_rate(rows, processor),
            "vocab_size": processor.get_piece_size(),
            "vocab_share": metrics.vocabulary_share(processor),
        }
    return result


def format_table(columns: Mapping[str, Mapping[str, Any]], reference: str | None = None) -> str:
    """Results side by side: one row per metric, one column per tokenizer, aligned; ``-``
    where a metric does not apply. ``reference`` names the NSL baseline in its label."""
    labels = dict(LABELS)
    if reference is not None:
        labels["nsl"] = f"NSL (tokens ÷ {reference}'s)"
    shares = {name for c in columns.values() for name in c.get("vocab_share", {})}
    rows = [["metric", *columns]]
    for key, label in labels.items():
        if any(key in c for c in columns.values()):
            rows.append([label, *(_cell(c.get(key)) for c in columns.values())])
    for name in sorted(shares, key=SCRIPT_ID.__getitem__):
        cells = (_cell(c["vocab_share"].get(name, 0.0)) if "vocab_share" in c else "-"
                 for c in columns.values())  # fmt: skip
        rows.append([f"vocabulary share: {name}", *cells])
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    return "\n".join(
        "  ".join([label.ljust(widths[0]), *map(str.rjust, cells, widths[1:])])
        for label, *cells in rows
    )


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4f}"
