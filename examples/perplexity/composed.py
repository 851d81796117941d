"""Composed embeddings (issue 30, lever 3): the matrix that spreads each piece over its parts.

A row per vocabulary id, a column per part (a character, or a fixtoken cluster) of the arm's
pieces, from ``brahmic_pua.model.embedding_parts``: row i holds 1/n in the columns of piece i's n
parts (a part used twice, 2/n), so ``composition @ parts`` is the mean of the parts' embeddings.
Control, unknown, unused and byte-fallback pieces have empty rows: their embedding is their own
row only. The same code serves both arms: a plain piece ానికి and a brahmic_pua piece కానికి are
both spelled by their characters, so the lever is given to each arm alike.
"""

from __future__ import annotations

import torch

from brahmic_pua.model.embedding_parts import Unit, piece_parts

from .data import Arm


def composition(arm: Arm, unit: Unit) -> torch.Tensor:
    """The arm's vocabulary × parts matrix (float32, dense: 8000 × ~150 is 5 MB)."""
    index = piece_parts(arm.processor, unit)
    matrix = torch.zeros((len(index.rows), len(index.parts)), dtype=torch.float32)
    for piece, row in enumerate(index.rows):
        for part in row:
            matrix[piece, part] += 1.0 / len(row)
    return matrix
