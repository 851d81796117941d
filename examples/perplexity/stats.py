"""Small-sample statistics without scipy: mean with a 95% Student-t interval, paired differences.

Three seeds give df = 2, where the t quantile (4.30) is more than twice the normal one (1.96):
an interval from the normal quantile would claim differences the seeds do not support.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# Two-sided 95% quantiles of Student's t (t_{0.975, df}), df = 1..30, then a few beyond.
T_975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
    9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
    17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
    25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000,
    120: 1.980,
}  # fmt: skip


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
