"""Per data source statistics of a run's scores: how many, their mean, and how they spread.

Scores are kept in compact float arrays (8 bytes each) so that the quartiles of millions of rows are exact.

>>> summary = ScoreSummary()
>>> for value in (0.0, 0.5, 1.0, 1.0):
...     summary.add("connections", value)
>>> stats = summary.stats()["connections"]
>>> stats.count, stats.mean, stats.median, stats.histogram
(4, 0.625, 0.75, (1, 0, 0, 0, 0, 1, 0, 0, 0, 2))
"""

from __future__ import annotations

import statistics
from array import array
from dataclasses import asdict, dataclass
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

    @property
    def total(self) -> int:
        return sum(len(scores) for scores in self._scores.values())

    def stats(self) -> dict[str, SourceStats]:
        """Statistics per data source, in name order."""
        return {name: _stats(self._scores[name]) for name in sorted(self._scores)}


def _stats(scores: array[float]) -> SourceStats:
    ordered = sorted(scores)
    p25, median, p75 = _quartiles(ordered)
    return SourceStats(
        count=len(ordered),
        mean=statistics.fmean(ordered),
        std=statistics.pstdev(ordered),
        min=ordered[0],
        p25=p25,
        median=median,
        p75=p75,
        max=ordered[-1],
        histogram=_histogram(ordered),
    )


def _quartiles(ordered: list[float]) -> tuple[float, float, float]:
    if len(ordered) == 1:  # statistics.quantiles needs two points
        return ordered[0], ordered[0], ordered[0]
    p25, median, p75 = statistics.quantiles(ordered, n=4, method="inclusive")
    return p25, median, p75


def _histogram(scores: list[float]) -> tuple[int, ...]:
    counts = [0] * HISTOGRAM_BINS
    for score in scores:
        counts[min(HISTOGRAM_BINS - 1, max(0, int(score * HISTOGRAM_BINS)))] += 1
    return tuple(counts)
