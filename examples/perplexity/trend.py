"""The gap with compute: held-out bits per byte at log-spaced checkpoints of each run, the paired
gap (arm − plain arm of its type) at each with its two intervals, and a straight-line fit of the
gap against log10(tokens seen).

Each checkpoint scores the first ``--checkpoint-lines`` held-out lines (the final one is read
off the final scoring, which covers them with the same windows). A checkpoint is a model in the
middle of its run, with the learning rate not yet decayed: it is not the model a run of that
length would give (its cosine would have ended there), so mid-run gaps describe one run's
trajectory, not a family of compute-optimal models.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .stats import bootstrap_ratio, bootstrap_slope, excludes_zero, linear_fit, paired_difference

TREND_CAVEAT = (
    "How far to trust the fit: the checkpoints come from the same runs and score the same lines, "
    "so they are not independent; the t-interval of the slope treats them as if they were, "
    "the line bootstrap keeps the shared lines but not the shared runs, and with one or "
    "two seeds nothing covers the training noise of the trajectory. Mid-run checkpoints have "
    "not had their learning rate decayed, so they are not what a run that stopped there would "
    "reach. A line in log tokens over the measured range says nothing beyond it: any zero "
    "crossing outside the range is an extrapolation, not a result. Many passes over a small "
    "training text (see epochs) mix more training with memorization."
)


def checkpoint_steps(steps: int, first: int | None, given: Sequence[int] | None) -> list[int]:
    """Steps at which a run scores the checkpoint lines: ``given`` (up to ``steps``), or
    ``first``, 2·first, 4·first … below ``steps``; the last step always."""
    if given is not None:
        marks = {s for s in given if 0 < s < steps}
    elif first is not None and first > 0:
        marks, s = set(), first
        while s < steps:
            marks.add(s)
            s *= 2
    else:
        marks = set()
    return sorted(marks | {steps})


def checkpoint_bits_per_byte(line_nll: list[float], line_bytes: list[int]) -> float:
    """Bits per byte of the checkpoint lines from one NLL (nats) per line."""
    return math.fsum(line_nll) / math.log(2) / sum(line_bytes)


def gap_trend(
    arm: dict[int, dict[str, Any]],
    base: dict[int, dict[str, Any]],
    line_bytes: list[int],
    resamples: int,
    fit_from: int,
    parameters: int,
) -> dict[str, Any]:
    """The gap arm − base at every step both scored, and the fit over the steps ≥ ``fit_from``.
    ``arm`` and ``base`` map a step to its per-seed lists of per-line NLLs (nats), seeds
    paired by position."""
    rows = []
    per_line_bits: dict[int, list[float]] = {}
    for step in sorted(set(arm) & set(base)):
        ours, theirs = arm[step]["lines"], base[step]["lines"]
        if len(ours) != len(theirs):
            continue  # seeds must pair
        a = [checkpoint_bits_per_byte(s, line_bytes) for s in ours]
        b = [checkpoint_bits_per_byte(s, line_bytes) for s in theirs]
        mean, low, high = paired_difference(a, b)
        bits = [
            (
                math.fsum(s[i] for s in ours) / len(ours)
                - math.fsum(s[i] for s in theirs) / len(theirs)
            )
            / math.log(2)
            for i in range(len(line_bytes))
        ]
        per_line_bits[step] = bits
        point, boot_low, boot_high = bootstrap_ratio(bits, line_bytes, resamples, seed=0)
        plain = math.fsum(b) / len(b)
        tokens = arm[step]["tokens_seen"]
        rows.append(
            {
                "step": step,
                "seeds": len(ours),
                "tokens_seen": tokens,
                "flops": 6 * parameters * tokens,
                "arm_bits_per_byte": math.fsum(a) / len(a),
                "plain_bits_per_byte": plain,
                "gap": mean,
                "low": low,
                "high": high,
                "relative": mean / plain,
                "bootstrap": {"mean": point, "low": boot_low, "high": boot_high},
            }
        )
    fitted = [r for r in rows if r["step"] >= fit_from]
    return {"checkpoints": rows, "fit": fit(fitted, per_line_bits, line_bytes, resamples)}


def fit(
    rows: list[dict[str, Any]],
    per_line_bits: dict[int, list[float]],
    line_bytes: list[int],
    resamples: int,
) -> dict[str, Any]:
    """gap = a + b·log10(tokens seen) by least squares over ``rows``: the slope b (bits per
    byte per tenfold tokens) with its t-interval and its line-bootstrap interval, the verdict,
    and where the line would cross zero."""
    if len(rows) < 3:
        return {"points": len(rows), "verdict": "too few checkpoints (< 3) for a trend"}
    xs = [math.log10(r["tokens_seen"]) for r in rows]
    ys = [r["gap"] for r in rows]
    slope, intercept, low, high = linear_fit(xs, ys)
    _, boot_low, boot_high = bootstrap_slope(
        xs, [per_line_bits[r["step"]] for r in rows], line_bytes, resamples, seed=0
    )
    last = rows[-1]["gap"]
    both = excludes_zero(low, high) and excludes_zero(boot_low, boot_high)
    if not both:
        verdict = (
            "holds: neither a shrinking nor a growing gap is supported (an interval of the "
            "slope includes zero)"
        )
    elif (slope < 0) == (last > 0):
        verdict = (
            "shrinks: the gap moves toward zero as training goes on (both intervals of the "
            "slope exclude zero)"
        )
    else:
        verdict = (
            "grows: the gap moves away from zero as training goes on (both intervals of the "
            "slope exclude zero)"
        )
    crossing = None
    if slope != 0:
        x0 = -intercept / slope
        if x0 > xs[-1] and "shrinks" in verdict:
            crossing = 10**x0 if x0 < 300 else math.inf
    return {
        "points": len(rows),
        "x": "log10(tokens seen)",
        "slope": slope,
        "intercept": intercept,
        "low": low,
        "high": high,
        "bootstrap": {"low": boot_low, "high": boot_high},
        "relative_slope": slope / rows[-1]["plain_bits_per_byte"],
        "from_tokens": rows[0]["tokens_seen"],
        "to_tokens": rows[-1]["tokens_seen"],
        "verdict": verdict,
        "zero_crossing_tokens": crossing,
        "caveat": TREND_CAVEAT,
    }
