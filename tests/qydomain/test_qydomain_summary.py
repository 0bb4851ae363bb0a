"""The summary of a run's scores: the figures statistics gives from every score, computed from how often
each distinct score occurs."""

from __future__ import annotations

import statistics
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.qydomain.summary import HISTOGRAM_BINS, ScoreSummary
from tests.budget import examples

# Scores as the scorers give them (0 or 1, k/4, (n - d)/n) and any float besides.
scores = st.one_of(
    st.sampled_from([0.0, 1.0]),
    st.integers(0, 4).map(lambda k: k / 4),
    st.tuples(st.integers(1, 40), st.integers(0, 40)).map(lambda nd: max(0.0, (nd[0] - nd[1]) / nd[0])),
    st.floats(min_value=-1e300, max_value=1e300),
)


@settings(deadline=None, max_examples=examples(300))
@given(st.lists(scores, min_size=1, max_size=60), st.integers(0, 60))
def test_the_summary_is_what_statistics_gives_from_every_score(values: list[float], split: int) -> None:
    summary = ScoreSummary()
    for value in values[:split]:
        summary.add("typos", value)
    summary.extend("typos", array("d", values[split:]))
    stats = summary.stats()["typos"]
    ordered = sorted(values)
    assert stats.count == len(values) == summary.total
    assert stats.mean == statistics.fmean(ordered)
    assert stats.std == statistics.pstdev(ordered)  # exactly: the same float, not a close one
    assert (stats.min, stats.max) == (ordered[0], ordered[-1])
    expected = [0] * HISTOGRAM_BINS
    for value in ordered:
        expected[min(HISTOGRAM_BINS - 1, max(0, int(value * HISTOGRAM_BINS)))] += 1
    assert list(stats.histogram) == expected
