"""How ``eval`` and ``audit`` show a metric: one label per metric key and one table layout.

Both reports print the bundle of :func:`brahmic_pua.evaluation.evaluate.text_metrics`; the
labels live here once, so that the same number cannot be called two things in two tables, and
both tables are laid out by :func:`table` (labels left, values right-aligned, ``-`` where a
metric does not apply to a tokenizer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from brahmic_pua.model.script_ids import SCRIPT_ID

#: The label of every scalar metric, in ``eval``'s table order; a report shows the rows its
#: results have, so a metric one report does not compute (``nsl`` without a baseline) is simply
#: absent there.
LABELS: dict[str, str] = {
    "lines": "lines",
    "tokens": "tokens",
    "fertility": "fertility (tokens per word)",
    "tokens_per_char": "tokens per character of N(s)",
    "bytes_per_token": "UTF-8 bytes of N(s) per token",
    "byte_fallback_per_1000": "byte-fallback tokens per 1000",
    "orphan_marks_per_1000": "orphan-mark tokens per 1000",
    "cluster_split_rate": "cluster-split rate",
    "conjunct_split_rate": "conjunct-split rate",
    "unk_rate": "UNK rate",
    "round_trip_rate": "round-trip rate",
    "nsl": "NSL",
    "vocab_size": "vocabulary size",
}


def labels_of(keys: Sequence[str]) -> dict[str, str]:
    """:data:`LABELS` for ``keys``, in that order: a report's own row order, with the one
    wording."""
    return {key: LABELS[key] for key in keys}


def cell(value: Any) -> str:
    """A count as it is, a rate to four places, ``-`` for a metric that does not apply."""
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def grid(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as aligned lines: the first column left-aligned, the others right-aligned,
    two spaces apart. Cells are never empty (:func:`cell` writes ``-``), so no line ends in
    spaces."""
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    return [
        "  ".join([first.ljust(widths[0]), *map(str.rjust, cells, widths[1:])])
        for first, *cells in rows
    ]


def table(
    columns: Mapping[str, Mapping[str, Any]],
    labels: Mapping[str, str] = LABELS,
    reference: str | None = None,
    header: bool = True,
) -> list[str]:
    """Results side by side as lines: one row per metric of ``labels`` that some column has,
    one column per tokenizer (headed by its name and ``metric`` over the labels when
    ``header``), then each script's ``vocab_share`` where a column has one. ``reference``
    names the NSL baseline in its label."""
    labels = dict(labels)
    if reference is not None:
        labels["nsl"] = f"NSL (tokens ÷ {reference}'s)"
    rows = [["metric", *columns]] if header else []
    for key, label in labels.items():
        if any(key in c for c in columns.values()):
            rows.append([label, *(cell(c.get(key)) for c in columns.values())])
    shares = {name for c in columns.values() for name in c.get("vocab_share", {})}
    for name in sorted(shares, key=SCRIPT_ID.__getitem__):
        cells = (
            cell(c["vocab_share"].get(name, 0.0)) if "vocab_share" in c else "-"
            for c in columns.values()
        )
        rows.append([f"vocabulary share: {name}", *cells])
    return grid(rows)
