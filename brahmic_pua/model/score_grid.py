"""Unigram scores on a grid that every sentencepiece release adds up exactly.

sentencepiece's Unigram encoder (``EncodeOptimized``) keeps each position's best path score
as a float32. Up to 0.2.1 (0.1.99, 0.2.0, onnxruntime-extensions) it added the next piece's
score in double (a ``0.1`` literal in the user-defined branch made the sum a double) and
compared that exact sum with a stored value already rounded to float32; 0.2.2 and 0.2.3 add
in float32. Two paths that tie (the same pieces in another order: ``०+००`` and ``००+०``, or
``.+.....`` and ``.....+.``) then differ only in rounding, and the versions break the tie
differently: 246 of 79,012 held-out te.extra lines (NFC and NFD) got other ids in 0.1.99-0.2.1
than in 0.2.3, 2 of 4,000 Nepali lines.

A score that is a multiple of 2^-10 makes every partial sum exact in float32 and double alike
while the total stays under 2^14 in magnitude (about 1,600 pieces of a line), so every
version compares the same numbers and picks the same path: 0 of those lines differ. Rounding
moves a score by at most 2^-11 (0.0005 nats), which only reorders paths that were tied to
within it; a newly trained model has no earlier ids to keep. Unknown pieces' scores (the least
score minus 10) land on the grid too. User-defined pieces are left alone: their score is a
formula that itself changed in 0.2.2, so a model with user_defined_symbols can still differ in
older versions (docs/runtimes.md).
"""

from __future__ import annotations

from brahmic_pua.model.model_proto import NORMAL, ModelProto

#: The grid: 2^-10. Coarser grids flip more genuine near-ties; finer ones stay exact only on
#: shorter lines (2^-12 ends at totals of 4,096, which 42 te.extra lines exceed).
STEP_BITS = 10


def on_grid(score: float) -> float:
    """``score`` rounded to the nearest multiple of 2^-STEP_BITS."""
    scale = 1 << STEP_BITS
    return round(score * scale) / scale


def quantize_scores(model: ModelProto) -> int:
    """Put a Unigram ModelProto's NORMAL scores on the grid; the number of scores moved."""
    moved = 0
    for piece in model.pieces:
        if piece.type == NORMAL and (score := on_grid(piece.score)) != piece.score:
            piece.score = score
            moved += 1
    return moved
