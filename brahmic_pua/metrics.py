"""The one home of every tokenizer metric (ARCHITECTURE.md's names), for tests, bench and demo.

Each takes encoded rows of ids and a processor, stock sentencepiece's or brahmic_pua's (anything
with ``get_piece_size``, ``id_to_piece`` and ``is_byte``), so both are measured the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brahmic_pua.codec.layout import is_private_use
from brahmic_pua.model.pieces import starts_with_mark

Rows = Sequence[Sequence[int]]


def fertility(rows: Rows, texts: Sequence[str]) -> float:
    """Tokens per whitespace-separated word."""
    words = sum(len(text.split()) for text in texts)
    return sum(map(len, rows)) / max(words, 1)


def orphan_mark_ids(processor: Any) -> frozenset[int]:
    """Ids whose piece, after a leading ▁, starts with a combining mark (byte pieces aside)."""
    return frozenset(
        i
        for i in range(processor.get_piece_size())
        if not processor.is_byte(i) and starts_with_mark(processor.id_to_piece(i))
    )


def orphan_marks_per_1000(rows: Rows, processor: Any) -> float:
    """Orphan-mark tokens per 1000 tokens: pieces that render on a dotted circle."""
    bad = orphan_mark_ids(processor)
    return _per_1000(sum(1 for row in rows for i in row if i in bad), rows)


def byte_fallback_per_1000(rows: Rows, processor: Any) -> float:
    """Byte-fallback tokens per 1000 tokens: text the vocabulary spells byte by byte."""
    size = processor.get_piece_size()
    byte = frozenset(i for i in range(size) if processor.is_byte(i))
    return _per_1000(sum(1 for row in rows for i in row if i in byte), rows)


def private_code_byte_runs(rows: Rows, processor: Any) -> tuple[int, int]:
    """(runs of byte pieces, private code points those runs decode to). brahmic_pua keeps the
    second at 0: a byte piece must stand for bytes of the text, not for an internal code."""
    runs = private = 0
    for row in rows:
        run = bytearray()
        for i in [*row, -1]:
            if i >= 0 and processor.is_byte(i):
                run.append(int(processor.id_to_piece(i)[3:5], 16))
            elif run:
                text = run.decode("utf-8", "replace")
                private += sum(1 for ch in text if is_private_use(ch))
                runs += 1
                run = bytearray()
    return runs, private


def round_trip_rate(texts: Sequence[str], decoded: Sequence[str]) -> float:
    """Share of lines whose decoding equals the expected text (N(text) for brahmic_pua)."""
    return sum(a == b for a, b in zip(texts, decoded, strict=True)) / max(len(texts), 1)


def _per_1000(count: int, rows: Rows) -> float:
    return 1000 * count / max(sum(map(len, rows)), 1)
