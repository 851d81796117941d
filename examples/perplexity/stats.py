"""Small-sample statistics without scipy: mean with a 95% Student-t interval, paired differences,
and a bootstrap over held-out lines.

Three seeds give df = 2, where the t quantile (4.30) is more than twice the normal one (1.96):
an interval from the normal quantile would claim differences the seeds do not support. The seed
interval covers training noise on one fixed text; the bootstrap over lines covers the choice of
text with the models fixed. A difference is claimed only where both exclude zero.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

# Two-sided 95% quantiles of Student's t (t_{0.975, df}), df = 1..30, then a few beyond.
T_975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


def t_quantile(df: int) -> float:
    """t_{0.975, df}; between table rows the next smaller df's (wider, so conservative)."""
    if df < 1:
        raise ValueError("a t interval needs at least two values")
    if df > 120:
        return 1.960
    return T_975[max(k for k in T_975 if k <= df)]


def mean_ci(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """(mean, low, high) of a 95% t-interval; low and high are None for a single value."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None, None
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def paired_difference(
    treated: Sequence[float], control: Sequence[float]
) -> tuple[float, float | None, float | None]:
    """Mean and 95% t-interval of treated − control, paired by seed (same init and data order)."""
    return mean_ci([a - b for a, b in zip(treated, control, strict=True)])


def excludes_zero(low: float | None, high: float | None) -> bool:
    """Whether an interval supports claiming a difference at all."""
    return low is not None and high is not None and (low > 0 or high < 0)


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile (0 ≤ q ≤ 1) of sorted values, linearly interpolated between order
    statistics at rank q·(n − 1) (numpy's default)."""
    rank = q * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def bootstrap_ratio(
    numerators: Sequence[float], denominators: Sequence[float], resamples: int, seed: int
) -> tuple[float, float, float]:
    """(Σ numerators / Σ denominators, low, high of its 95% percentile interval) over
    ``resamples`` resamples of the items with replacement, from a generator seeded by ``seed``.
    With per-line NLL differences (bits) over per-line bytes, the same resampled lines for both
    arms, it is the paired bootstrap of a bits-per-byte difference: a ratio of sums, not a mean
    of per-line ratios, because short lines must weigh by their bytes."""
    if len(numerators) != len(denominators) or not numerators:
        raise ValueError("a bootstrap needs as many numerators as denominators, at least one")
    draw = random.Random(seed)
    items = range(len(numerators))
    ratios = []
    for _ in range(resamples):
        picks = draw.choices(items, k=len(numerators))
        ratios.append(sum(numerators[i] for i in picks) / sum(denominators[i] for i in picks))
    ratios.sort()
    point = math.fsum(numerators) / math.fsum(denominators)
    return point, percentile(ratios, 0.025), percentile(ratios, 0.975)


def linear_fit(
    xs: Sequence[float], ys: Sequence[float]
) -> tuple[float, float, float | None, float | None]:
    """Least squares y = a + b·x: (b, a, low, high) with the 95% t-interval of the slope b
    (df = n − 2; None for fewer than three points). The interval treats the residuals as
    independent, which points from one training run are not: see ``bootstrap_slope``."""
    n = len(xs)
    if n != len(ys) or n < 2:
        raise ValueError("a line needs at least two (x, y) pairs")
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("a line needs two different x values")
    slope = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = my - slope * mx
    if n < 3:
        return slope, intercept, None, None
    residual = math.fsum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    half = t_quantile(n - 2) * math.sqrt(residual / (n - 2) / sxx)
    return slope, intercept, slope - half, slope + half


def bootstrap_slope(
    xs: Sequence[float],
    numerators: Sequence[Sequence[float]],
    denominators: Sequence[float],
    resamples: int,
    seed: int,
) -> tuple[float, float, float]:
    """(slope, low, high): the least-squares slope over ``xs`` of Σ numerators[k] / Σ
    denominators (one ratio of sums per x, the items being held-out lines), and its 95%
    percentile interval when the same resample of the lines is used at every x. Resampling
    lines, not points, keeps what the points share: the same text scored at every checkpoint."""
    if len(xs) != len(numerators) or any(len(v) != len(denominators) for v in numerators):
        raise ValueError("one numerator per line at every x, one x per row")
    draw = random.Random(seed)
    items = range(len(denominators))

    def slope_of(picks: Sequence[int]) -> float:
        size = math.fsum(denominators[i] for i in picks)
        ys = [math.fsum(row[i] for i in picks) / size for row in numerators]
        return linear_fit(xs, ys)[0]

    slopes = sorted(slope_of(draw.choices(items, k=len(denominators))) for _ in range(resamples))
    return slope_of(list(items)), percentile(slopes, 0.025), percentile(slopes, 0.975)
