"""Per data source statistics of a run's scores: how many, their mean, and how they spread.

Scores are kept in compact float arrays (8 bytes each) so that the quartiles of millions of rows are exact.
The spread is computed from each distinct score and how often it occurs (scores take few values: 0 or 1,
k/4, (n - d)/n), exactly, as `statistics.pstdev` computes it from every score, with the same result.

>>> summary = ScoreSummary()
>>> for value in (0.0, 0.5, 1.0, 1.0):
...     summary.add("connections", value)
>>> stats = summary.stats()["connections"]
>>> stats.count, stats.mean, stats.median, stats.histogram
(4, 0.625, 0.75, (1, 0, 0, 0, 0, 1, 0, 0, 0, 2))
"""

from __future__ import annotations

import math
import statistics
import sys
from array import array
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

HISTOGRAM_BINS = 10  # [0, 0.1), [0.1, 0.2), …, [0.9, 1.0]


@dataclass(frozen=True, slots=True)
class SourceStats:
    """The scores of one data source. Quartiles interpolate linearly; std is the population's."""

    count: int
    mean: float
    std: float
    min: float
    p25: float
    median: float
    p75: float
    max: float
    histogram: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "histogram": list(self.histogram)}


class ScoreSummary:
    """Collects (data source, score) pairs and summarises them per data source."""

    def __init__(self) -> None:
        self._scores: dict[str, array[float]] = {}

    def add(self, data_source: str, score: float) -> None:
        self._scores.setdefault(data_source, array("d")).append(score)

    def extend(self, data_source: str, scores: array[float]) -> None:
        """`add` for each of `scores`, in order."""
        self._scores.setdefault(data_source, array("d")).extend(scores)

    @property
    def total(self) -> int:
        return sum(len(scores) for scores in self._scores.values())

    def stats(self) -> dict[str, SourceStats]:
        """Statistics per data source, in name order."""
        return {name: _stats(self._scores[name]) for name in sorted(self._scores)}


def _stats(scores: array[float]) -> SourceStats:
    ordered = sorted(scores)
    counts = Counter(scores)
    p25, median, p75 = _quartiles(ordered)
    return SourceStats(
        count=len(ordered),
        mean=statistics.fmean(ordered),
        std=_pstdev(counts, ordered),
        min=ordered[0],
        p25=p25,
        median=median,
        p75=p75,
        max=ordered[-1],
        histogram=_histogram(counts),
    )


def _quartiles(ordered: list[float]) -> tuple[float, float, float]:
    if len(ordered) == 1:  # statistics.quantiles needs two points
        return ordered[0], ordered[0], ordered[0]
    p25, median, p75 = statistics.quantiles(ordered, n=4, method="inclusive")
    return p25, median, p75


def _histogram(counts: Counter[float]) -> tuple[int, ...]:
    bins = [0] * HISTOGRAM_BINS
    for score, count in counts.items():
        bins[min(HISTOGRAM_BINS - 1, max(0, int(score * HISTOGRAM_BINS)))] += count
    return tuple(bins)


def _pstdev(counts: Counter[float], ordered: list[float]) -> float:
    """statistics.pstdev of the scores counted in `counts`: the exact population variance, then its square
    root correctly rounded (what statistics does since Python 3.11), from each distinct score once."""
    if not all(map(math.isfinite, counts)):
        return statistics.pstdev(ordered)
    total = len(ordered)
    # Exact sums as statistics._ss keeps them: numerators per denominator (a power of two for a float).
    sums: defaultdict[int, int] = defaultdict(int)
    squares: defaultdict[int, int] = defaultdict(int)
    for score, count in counts.items():
        numerator, denominator = score.as_integer_ratio()
        sums[denominator] += numerator * count
        squares[denominator] += numerator * numerator * count
    sx = sum((Fraction(n, d) for d, n in sums.items()), Fraction(0))
    sxx = sum((Fraction(n, d * d) for d, n in squares.items()), Fraction(0))
    variance = (total * sxx - sx * sx) / total / total
    return _sqrt_of_fraction(variance.numerator, variance.denominator)


_SQRT_BITS = 2 * sys.float_info.mant_dig + 3  # enough bits that rounding the root to a float rounds once


def _sqrt_of_fraction(numerator: int, denominator: int) -> float:
    """The square root of numerator/denominator as a float, correctly rounded: the integer root of the
    fraction scaled to _SQRT_BITS bits, its last bit set when inexact (round to odd), then one rounding."""
    shift = (numerator.bit_length() - denominator.bit_length() - _SQRT_BITS) // 2
    if shift >= 0:
        return (_isqrt_to_odd(numerator, denominator << 2 * shift) << shift) / 1
    return _isqrt_to_odd(numerator << -2 * shift, denominator) / (1 << -shift)


def _isqrt_to_odd(numerator: int, denominator: int) -> int:
    root = math.isqrt(numerator // denominator)
    return root | (root * root * denominator != numerator)
