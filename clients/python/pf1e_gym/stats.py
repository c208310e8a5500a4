"""Small statistics for scorecards, strategy comparisons and the leaderboard (no dependency
beyond ``math``, so that every part of the package can use them without an extra)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a proportion ``successes / n`` (default 95 %: z = 1.96);
    ``(0.0, 1.0)`` when ``n`` is 0. E. B. Wilson (1927), J. Am. Stat. Assoc. 22, 209-212."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # 0 and n successes have the exact bounds 0 and 1 (the subtraction leaves ~1e-17).
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


def band_3sigma(successes: int, n: int) -> tuple[float, float]:
    """``[p - 3 sigma, p + 3 sigma]`` clamped to [0, 1], sigma = sqrt(p(1 - p)/n) (the sweep
    report's band)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    s = math.sqrt(p * (1 - p) / n)
    return (max(0.0, p - 3 * s), min(1.0, p + 3 * s))


def two_proportion_z(s1: int, n1: int, s2: int, n2: int) -> tuple[float, float]:
    """Pooled two-proportion z test of ``s1/n1`` against ``s2/n2``: ``(z, p)``, ``z`` > 0
    when the first is higher, ``p`` the two-sided p-value. ``(0.0, 1.0)`` when undefined
    (an empty sample, or both proportions 0 or both 1)."""
    if n1 <= 0 or n2 <= 0:
        return (0.0, 1.0)
    pooled = (s1 + s2) / (n1 + n2)
    var = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if var <= 0:
        return (0.0, 1.0)
    z = (s1 / n1 - s2 / n2) / math.sqrt(var)
    return (z, math.erfc(abs(z) / math.sqrt(2)))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between order statistics (NumPy's
    default); 0.0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    k = (len(xs) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)
