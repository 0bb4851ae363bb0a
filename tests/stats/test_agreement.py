"""Krippendorff's alpha as `evalkit stats` feeds it: only items two reviewers share, labels as categories,
checked against alpha computed by hand; and laws of the counting that hold whatever reviewers decide."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.engine.config import analyze
from evalkit.engine.evaluator import Evaluator
from evalkit.services.review.reviews import read_reviews
from evalkit.services.stats.agreement import alpha
from evalkit.services.stats.compute import review_stats

REPO = Path(__file__).parents[2]


def test_nominal_alpha_matches_the_hand_computed_value() -> None:
    # coincidences: a-a 2, a-b 1, b-a 1, b-b 4; n = 8, n_a = 3, n_b = 5
    # D_o = 2/8, D_e = 2 * 3 * 5 / (8 * 7); alpha = 1 - D_o / D_e = 8/15
    first = {"s1": "good", "s2": "good", "s3": "poor", "s4": "poor"}
    second = {"s1": "good", "s2": "poor", "s3": "poor", "s4": "poor", "s5": "good"}  # s5: one reviewer only
    found = alpha("nominal", [first, second])
    assert found.items == 4 and found.value == pytest.approx(8 / 15)


def test_interval_alpha_matches_the_hand_computed_value() -> None:
    # values 1,2 | 3,3: pairs (1,2),(2,1),(3,3),(3,3); n = 4
    # D_o = (1 + 1) / 4 = 0.5; D_e = sum over ordered pairs of all 4 values (1,2,3,3) of (c-k)^2 / (4 * 3)
    #     = 2 * (1 + 4 + 4 + 1 + 1 + 0) / 12 = 22/12; alpha = 1 - 0.5 / (22/12) = 1 - 6/22 = 8/11
    found = alpha("interval", [{"a": 1.0, "b": 3.0}, {"a": 2.0, "b": 3.0}])
    assert found.items == 2 and found.value == pytest.approx(8 / 11)


def test_no_shared_item_and_no_variation_say_why() -> None:
    assert alpha("nominal", [{"a": "x"}, {"b": "x"}]).note == "no item was decided by two reviewers"
    same = alpha("interval", [{"a": 3.0, "b": 3.0}, {"a": 3.0, "b": 3.0}])
    assert same.value is None and same.items == 2 and "same value" in (same.note or "")


ACTIONS = st.sampled_from(["accept", "discard", "edit", "skip"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(choices=st.lists(ACTIONS, min_size=40, max_size=40), only=st.integers(1, 8))
def test_every_decision_is_counted_once_and_rates_add_up(
    workspace: Path, reviewer: Any, choices: list[str], only: int
) -> None:
    turn = iter(choices * 10)

    def policy(proposal: Any) -> tuple[str, Any] | None:
        action = next(turn)
        if action == "skip":
            return None
        if action == "edit":
            edits = {"rating": 3.0, "label": "poor", "rewrite": "x", "ranking": proposal.proposed}
            return ("edit", edits[proposal.kind]) if proposal.kind in edits else ("accept", None)
        return action, None

    journal = reviewer(f"r{len(list(workspace.glob('*.jsonl')))}", policy, only=only)
    reviews = read_reviews([str(journal)])
    stats = review_stats(reviews, Evaluator(analyze(REPO / "config_samples")).evaluate)
    decided = sum(len(targets) for targets in reviews.journals[0].decisions.values())
    assert sum(tally.decided for tally in stats.kinds.values()) + stats.unmatched == decided
    assert stats.unmatched == 0 and stats.submissions <= only
    for tally in [*stats.kinds.values(), *(rule.tally for rule in stats.rules)]:
        if tally.decided:
            rates = [tally.rate(n) or 0.0 for n in (tally.accepted, tally.discarded, tally.edited)]
            assert sum(rates) == pytest.approx(1.0)
    label = stats.kinds["label"]
    assert sum(stats.labels.values()) == label.decided
    assert sum(d.decided for d in stats.dimensions) == stats.kinds["rating"].decided
    for drift in stats.dimensions:  # the triangle inequality: final, proposed and original on one line
        assert (
            drift.from_original
            <= drift.from_proposed
            + sum(abs(p - o) for p, o in _rating_moves(reviews, drift.dimension))
            + 1e-9
        )


def _rating_moves(reviews: Any, dimension: str) -> list[tuple[float, float]]:
    from evalkit.services.review.proposals import proposals_of

    evaluator = Evaluator(analyze(REPO / "config_samples"))
    moves = []
    for key, targets in reviews.journals[0].decisions.items():
        if f"rating.{dimension}" in targets:
            submission = reviews.submissions[key]
            for proposal in proposals_of(submission, evaluator.evaluate(submission)):
                if proposal.target == f"rating.{dimension}":
                    moves.append((proposal.proposed, proposal.original))
    return moves


VALUES = st.one_of(  # the package squares raw differences: tiny ones underflow to 0 there, so none here
    st.integers(-3, 3).map(float), st.floats(-1e6, 1e6).filter(lambda value: value == 0 or abs(value) > 1e-6)
)


@settings(max_examples=200, deadline=None)
@given(
    level=st.sampled_from(["interval", "nominal"]),
    table=st.lists(st.lists(st.one_of(st.none(), VALUES), min_size=3, max_size=3), min_size=1, max_size=12),
)
def test_alpha_is_the_krippendorff_packages_alpha(level: Any, table: list[list[float | None]]) -> None:
    """The sums over decisions give the alpha the `krippendorff` package computes from its coincidence
    matrix (a test dependency only: the package's matrix grows with the square of the distinct values)."""
    import warnings

    import krippendorff
    import numpy

    warnings.simplefilter("ignore", RuntimeWarning)  # the package's own 0/0 on no variation

    if level == "nominal":  # categories: a few, named
        table = [[None if value is None else float(round(value) % 4) for value in row] for row in table]
    coded = (lambda value: f"c{value:g}") if level == "nominal" else (lambda value: value)
    reviewers = [
        {item: coded(row[r]) for item, row in enumerate(table) if row[r] is not None} for r in range(3)
    ]
    found = alpha(level, reviewers)
    data = numpy.array([[numpy.nan if row[r] is None else row[r] for row in table] for r in range(3)])
    pairable = sum(1 for row in table if sum(value is not None for value in row) >= 2)
    assert found.items == pairable
    if not pairable:
        assert found.value is None
        return
    try:
        expected = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:  # one value only: undefined
        expected = float("nan")
    if math.isnan(expected):  # the package's nan: no variation among the pairable values
        assert found.value is None and "same value" in (found.note or "")
        return
    assert found.value == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_ratings_no_float_holds_are_left_out() -> None:
    found = alpha("interval", [{"a": 1.0, "b": 10**400, "c": float("inf")}, {"a": 2.0, "b": 3.0, "c": 1.0}])
    assert found.items == 1


@pytest.mark.parametrize("items", [400, 6000])
def test_all_distinct_values_take_bounded_memory_and_time(items: int) -> None:
    """Two reviewers, every rating and label distinct: the coincidence matrix would be (2 * items)^2 cells
    (6,000 items: numpy was asked for 6 TiB); the sums take a few MB. Run under RLIMIT_AS 512 MB."""
    code = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
from evalkit.services.stats.agreement import alpha
first = {{f"s{{i}}": float(i) for i in range({items})}}
second = {{f"s{{i}}": float(i) + 0.5 for i in range({items})}}
rated = alpha("interval", [first, second])
labels = [{{k: f"{{side}}{{v}}" for k, v in values.items()}} for side, values in zip("ab", (first, second))]
labelled = alpha("nominal", labels)
print(rated.items, repr(rated.value), labelled.items, repr(labelled.value))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    rated_items, rated, labelled_items, labelled = done.stdout.split()
    assert int(rated_items) == int(labelled_items) == items
    assert 0.99 < float(rated) < 1.0  # near agreement: half a point apart over a range of thousands
    assert abs(float(labelled)) < 1e-9  # no two labels alike: no better than chance
