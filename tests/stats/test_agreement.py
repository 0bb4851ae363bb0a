"""Krippendorff's alpha as `evalkit stats` feeds it: only items two reviewers share, labels as categories,
checked against alpha computed by hand; and laws of the counting that hold whatever reviewers decide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.engine.config import analyze
from evalkit.engine.evaluator import Evaluator
from evalkit.services.agreement import alpha
from evalkit.services.reviews import read_reviews
from evalkit.services.stats import review_stats

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
    from evalkit.services.proposals import proposals_of

    evaluator = Evaluator(analyze(REPO / "config_samples"))
    moves = []
    for key, targets in reviews.journals[0].decisions.items():
        if f"rating.{dimension}" in targets:
            submission = reviews.submissions[key]
            for proposal in proposals_of(submission, evaluator.evaluate(submission)):
                if proposal.target == f"rating.{dimension}":
                    moves.append((proposal.proposed, proposal.original))
    return moves
