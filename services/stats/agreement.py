"""Agreement between reviewers: Krippendorff's alpha over the items that two or more reviewers decided.

Alpha = 1 - D_o / D_e, from the coincidences of values within items (Krippendorff, "Computing
Krippendorff's Alpha-Reliability", 2011). The coincidence matrix is never built: its sums are taken over
the values each item holds, so the time and memory go with the number of decisions, not with the square of
the number of distinct values (the `krippendorff` package built a matrix of items x values x values: two
journals of 400 items with all-distinct ratings asked numpy for gigabytes, 6,000 items for 6 TiB).

- observed: for an item u with m_u values, sum over ordered pairs of values from different reviewers of
  delta^2(c, k), divided by m_u - 1; summed over items. Nominal: pairs that differ, m_u(m_u - 1) - sum of
  n_uc(n_uc - 1) over the item's values c; interval: 2 m_u sum (v - mean_u)^2.
- expected: sum over ordered pairs of all n pairable values, n_c n_k delta^2(c, k): nominal n^2 - sum n_c^2;
  interval 2 n sum (v - mean)^2.
- alpha = 1 - (n - 1) observed / expected; undefined when expected is 0 (every value the same).

Ratings that are not finite numbers (a journal's `1e999`) are left out, as values no interval holds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["interval", "nominal"]


@dataclass(frozen=True, slots=True)
class Alpha:
    level: Level
    items: int  # items decided by two or more reviewers
    value: float | None = None
    note: str | None = None  # why there is no value

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "items": self.items, "alpha": self.value, "note": self.note}


def alpha(level: Level, by_reviewer: Sequence[Mapping[Hashable, Any]]) -> Alpha:
    """Alpha over the items that at least two of the reviewers' {item: value} maps share."""
    units: dict[Hashable, list[Any]] = {}
    for values in by_reviewer:
        for item, value in values.items():
            units.setdefault(item, []).append(value)
    return alpha_of_units(level, units)


def alpha_of_units(level: Level, units: Mapping[Hashable, Sequence[Any]]) -> Alpha:
    """Alpha from each item's values (one per reviewer who decided it), over the items with two or more:
    for nominal data the values as text, for interval data as finite floats (others left out)."""
    return alpha_of_counted(level, ((values, 1) for values in units.values()))


def alpha_of_counted(level: Level, units: Iterable[tuple[Sequence[Any], int]]) -> Alpha:
    """Alpha from (an item's values, how many items hold just these values) pairs: a team's queue reads its
    items this way, grouped by the database (services/queue/status.py). With every count 1, this is
    `alpha_of_units` to the last bit."""
    coded = (([_coded(level, value) for value in values], count) for values, count in units)
    shared = [
        (kept, count)
        for kept, count in ((_known(values), count) for values, count in coded)
        if len(kept) >= 2
    ]
    if not shared:
        return Alpha(level, 0, note="no item was decided by two reviewers")
    if level == "interval":  # alpha is a ratio: the same scale on both sides, and no square overflows
        scale = max(abs(value) for values, _ in shared for value in values) or 1.0
        shared = [([value / scale for value in values], count) for values, count in shared]
    items = sum(count for _, count in shared)
    observed = math.fsum(count * _spread(level, values) / (len(values) - 1) for values, count in shared)
    pooled = sum(len(values) * count for values, count in shared)
    expected = _pooled_spread(level, shared, pooled)
    if expected == 0:
        return Alpha(level, items, note="undefined: every shared item got one and the same value")
    return Alpha(level, items, 1 - (pooled - 1) * observed / expected)


def _known(values: list[Any]) -> list[Any]:
    return [value for value in values if value is not None]


def _coded(level: Level, value: Any) -> Any:
    return str(value) if level == "nominal" else _finite(value)


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):  # an integer beyond a float's range
        return None
    return number if math.isfinite(number) else None


def _spread(level: Level, values: Sequence[Any]) -> float:
    return _nominal(Counter(values), len(values)) if level == "nominal" else _interval(values)


def _pooled_spread(level: Level, shared: list[tuple[list[Any], int]], pooled: int) -> float:
    """The spread of every shared value, each item's as many times as its count says."""
    if level == "nominal":
        counts: Counter[Any] = Counter()
        for values, count in shared:
            for value in values:
                counts[value] += count
        return _nominal(counts, pooled)
    mean = math.fsum(count * value for values, count in shared for value in values) / pooled
    return 2 * pooled * math.fsum(count * (value - mean) ** 2 for values, count in shared for value in values)


def _nominal(counts: Counter[Any], total: int) -> float:
    """Ordered pairs of the values (each value with each other one) that differ."""
    return float(total * total - sum(count * count for count in counts.values()))


def _interval(values: Sequence[float]) -> float:
    """The sum of (c - k)^2 over ordered pairs of the values: 2 n sum (v - mean)^2, taken about the mean so
    that large ratings lose no precision."""
    mean = math.fsum(values) / len(values)
    return 2 * len(values) * math.fsum((value - mean) ** 2 for value in values)
