"""Agreement in `queue status` is the statistic `evalkit stats` reports: alpha from value counts per item
(services/agreement.alpha_of_units) equals alpha from the reviewers x items matrix (alpha) on any data."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalkit.services.stats.agreement import alpha, alpha_of_units

DECISIONS = st.dictionaries(
    st.tuples(st.integers(0, 5), st.integers(0, 12)),  # (reviewer, item)
    st.sampled_from([1.0, 2.0, 3.5, 4.0, 5.0]),
    max_size=40,
)


@pytest.mark.parametrize("level", ["interval", "nominal"])
@given(decided=DECISIONS)
def test_alpha_from_value_counts_is_alpha(level: Any, decided: dict[tuple[int, int], float]) -> None:
    by_reviewer: dict[int, dict[int, float]] = defaultdict(dict)
    units: dict[int, list[float]] = defaultdict(list)
    for (reviewer, item), value in decided.items():
        by_reviewer[reviewer][item] = value
        units[item].append(value)
    expected = alpha(level, list(by_reviewer.values()))
    found = alpha_of_units(level, units)
    assert (found.items, found.note) == (expected.items, expected.note)
    assert found.value == pytest.approx(expected.value)
