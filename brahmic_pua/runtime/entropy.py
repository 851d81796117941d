"""Entropy of a Unigram model's segmentation distribution (sentencepiece 0.2 dropped it).

p(segmentation) ∝ exp(alpha · Σ piece scores) over every segmentation of the normalized text
into vocabulary pieces; a character no piece covers is an unknown piece scored like spm's
(lowest score − 10). Computed by the forward algorithm in the entropy semiring, in log space.
"""

from __future__ import annotations

import math

from brahmic_pua.model.processor_types import Scored

UNKNOWN_PENALTY = 10.0


def segmentation_entropy(processor: Scored, normalized: str, alpha: float) -> float:
    """H in nats of the segmentations of ``normalized`` (spm's own normalized text)."""
    size = processor.get_piece_size()
    scores: dict[str, float] = {}
    for i in range(size):
        special = processor.is_control(i) or processor.is_unused(i) or processor.is_byte(i)
        if not (special or processor.is_unknown(i)):
            scores[processor.id_to_piece(i)] = processor.get_score(i)
    if not scores:
        return 0.0
    unknown = min(scores.values()) - UNKNOWN_PENALTY
    longest = max(len(p) for p in scores)
    n = len(normalized)
    log_z = [-math.inf] * (n + 1)
    expected = [0.0] * (n + 1)  # expected log-weight of the path so far
    log_z[0] = 0.0
    for end in range(1, n + 1):
        edges: list[tuple[float, float]] = []
        for start in range(max(0, end - longest), end):
            if log_z[start] == -math.inf:
                continue
            score = scores.get(normalized[start:end])
            if score is None and end - start == 1:
                score = unknown
            if score is not None:
                weight = alpha * score
                edges.append((log_z[start] + weight, expected[start] + weight))
        if edges:
            top = max(e[0] for e in edges)
            total = sum(math.exp(e[0] - top) for e in edges)
            log_z[end] = top + math.log(total)
            expected[end] = sum(math.exp(e[0] - top) / total * e[1] for e in edges)
    return log_z[n] - expected[n] if n else 0.0
