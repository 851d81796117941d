"""Unigram scores on the grid (model/score_grid.py): every sentencepiece adds them up alike.

The oracle is exact arithmetic (fractions): a sum of grid scores accumulated in float32, in any
order, is the exact sum while it stays under 2^14, so old releases (which add in double) and
new ones (float32) compare the same numbers.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from brahmic_pua.model.model_proto import NORMAL, parse_model
from brahmic_pua.model.score_grid import STEP_BITS, on_grid

STEP = Fraction(1, 1 << STEP_BITS)
scores = st.floats(min_value=-60.0, max_value=0.0, allow_nan=False, width=32)


@given(scores)
def test_a_score_moves_to_the_nearest_grid_point(score: float) -> None:
    moved = on_grid(score)
    assert (Fraction(moved) / STEP).denominator == 1
    assert abs(Fraction(moved) - Fraction(score)) <= STEP / 2
    assert on_grid(moved) == moved
    assert np.float32(moved) == moved, "a grid score is stored in the proto's float32 as is"


@given(st.lists(scores.map(on_grid), max_size=250), st.randoms())
def test_float32_sums_of_grid_scores_are_exact_in_any_order(path: list[float], rng: object) -> None:
    exact = sum((Fraction(s) for s in path), Fraction(0))
    for order in (path, list(reversed(path)), sorted(path)):
        total = np.float32(0.0)
        for score in order:
            total = np.float32(total + np.float32(score))
        assert Fraction(float(total)) == exact


def test_a_trained_unigram_model_has_every_normal_score_on_the_grid(
    sample_models: dict[str, Path],
) -> None:
    model = parse_model(sample_models["unigram"].read_bytes())
    normal = [p.score for p in model.pieces if p.type == NORMAL]
    assert len(normal) > 1000
    assert all((Fraction(s) / STEP).denominator == 1 for s in normal)
    assert len(set(normal)) > 200, "the grid keeps the scores apart"
