"""Every action of a fired rule and every rules.yaml option (issue point 3).

The minimal submission's ratings sit on their ideals, so the dimension phase keeps them and the actions
start from instructions 4.0, accuracy 4.2, optimality 3.8, presentation 4.0, freshness 3.5.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine.actions import ACTIONS, compile_actions
from evalkit.engine.context import RuleState, Signals
from evalkit.engine.submission import parse_submission
from tests.budget import examples
from tests.engine.conftest import IDEALS

Evaluate = Callable[..., dict[str, Any]]
Rules = Callable[..., str]
Factory = Callable[..., dict[str, Any]]


def rule(rule_id: str, actions: dict[str, Any], when: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": rule_id, "actions": actions, **({"when": when} if when is not None else {})}


# --- adjust_dimension ------------------------------------------------------------------------------


def test_adjust_dimension_records_from_to_delta(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(
        rules=rules_text(rule("r", {"adjust_dimension": {"dimension": "optimality", "delta": -0.5}}))
    )
    (action,) = result["fired_rules"][0]["actions"]
    assert action == {
        "adjust_dimension": {"dimension": "optimality", "from": 3.8, "to": pytest.approx(3.3), "delta": -0.5}
    }
    assert result["corrected_ratings"]["optimality"]["original"] == 3.8
    assert result["corrected_ratings"]["optimality"]["updated"] == pytest.approx(3.3)


def test_adjust_dimension_is_clamped_to_the_top_of_the_scale(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(
        rules=rules_text(rule("r", {"adjust_dimension": {"dimension": "accuracy", "delta": 2}}))
    )
    action = result["fired_rules"][0]["actions"][0]["adjust_dimension"]
    assert action["from"] == 4.2
    assert action["to"] == 5.0
    assert action["delta"] == 2
    assert result["corrected_ratings"]["accuracy"]["updated"] == 5.0


def test_adjust_dimension_is_clamped_to_the_bottom_of_the_scale(
    evaluate: Evaluate, rules_text: Rules
) -> None:
    result = evaluate(
        rules=rules_text(rule("r", {"adjust_dimension": {"dimension": "freshness", "delta": -10}}))
    )
    assert result["fired_rules"][0]["actions"][0]["adjust_dimension"]["to"] == 0.0
    assert result["corrected_ratings"]["freshness"]["updated"] == 0.0


def test_adjust_dimension_is_clamped_to_a_configured_scale(
    evaluate: Evaluate, rules_text: Rules, make_submission: Factory
) -> None:
    dimensions = "scale: [1, 10]\ndimensions:\n  accuracy: {ideal: 8, tolerance: 2}\n"
    result = evaluate(
        make_submission(ratings={"accuracy": 9.5}),
        dimensions=dimensions,
        rules=rules_text(rule("r", {"adjust_dimension": {"dimension": "accuracy", "delta": 3}})),
    )
    assert result["corrected_ratings"]["accuracy"]["updated"] == 10.0


def test_adjust_dimension_starts_from_the_pulled_value(
    evaluate: Evaluate, rules_text: Rules, make_submission: Factory
) -> None:
    # accuracy 0.0 is pulled to 0 + 0.4 * (4.2 - 0) = 1.68, then the rule adds 1
    result = evaluate(
        make_submission(ratings={"accuracy": 0.0}),
        rules=rules_text(rule("r", {"adjust_dimension": {"dimension": "accuracy", "delta": 1}})),
    )
    action = result["fired_rules"][0]["actions"][0]["adjust_dimension"]
    assert action["from"] == pytest.approx(1.68)
    assert action["to"] == pytest.approx(2.68)
    assert result["corrected_ratings"]["accuracy"]["original"] == 0.0
    assert result["corrected_ratings"]["accuracy"]["updated"] == pytest.approx(2.68)


def test_adjustments_of_several_rules_accumulate(evaluate: Evaluate, rules_text: Rules) -> None:
    down = {"adjust_dimension": {"dimension": "presentation", "delta": -1}}
    result = evaluate(rules=rules_text(rule("one", down), rule("two", down)))
    first, second = (r["actions"][0]["adjust_dimension"] for r in result["fired_rules"])
    assert (first["from"], first["to"]) == (4.0, 3.0)
    assert (second["from"], second["to"]) == (3.0, 2.0)
    assert result["corrected_ratings"]["presentation"]["updated"] == 2.0


# --- add_comment / add_comment_template ----------------------------------------------------------


def test_add_comment_goes_to_comments_and_summary(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(rules=rules_text(rule("r", {"add_comment": "Needs an example."})))
    assert result["fired_rules"][0]["actions"] == [{"add_comment": "Needs an example."}]
    assert result["comments"] == ["Needs an example."]
    assert "Needs an example." in result["global_summary"]


def test_add_comment_template_renders_signals(evaluate: Evaluate, rules_text: Rules) -> None:
    template = "len={{ signals.length_total }} n={{signals.response_count}}"
    result = evaluate(rules=rules_text(rule("r", {"add_comment_template": template})))
    assert result["fired_rules"][0]["actions"] == [{"add_comment_template": "len=18 n=2"}]
    assert result["comments"] == ["len=18 n=2"]


def test_add_comment_template_sees_the_adjustment_of_its_own_rule(
    evaluate: Evaluate, rules_text: Rules
) -> None:
    actions = {
        "add_comment_template": "accuracy now {{ corrected.accuracy }}",
        "adjust_dimension": {"dimension": "accuracy", "delta": 0.8},
    }
    result = evaluate(rules=rules_text(rule("r", actions)))
    assert result["comments"] == ["accuracy now 5.0"]


def test_add_comment_template_sees_the_condition_detail(evaluate: Evaluate, rules_text: Rules) -> None:
    template = "min ok: {{ detail.min_total_length.held }} at {{ detail.min_total_length.length_total }}"
    result = evaluate(
        rules=rules_text(rule("r", {"add_comment_template": template}, {"min_total_length": 5}))
    )
    assert result["comments"] == ["min ok: True at 18"]


# --- set_flag --------------------------------------------------------------------------------------


def test_set_flag(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(
        rules=rules_text(rule("r", {"set_flag": "low_accuracy"}), rule("s", {"set_flag": "other"}))
    )
    assert result["flags"] == {"low_accuracy": True, "other": True}
    assert result["fired_rules"][0]["actions"] == [{"set_flag": "low_accuracy"}]


def test_no_flags_when_nothing_sets_one(evaluate: Evaluate) -> None:
    assert evaluate()["flags"] == {}


# --- increment_score -------------------------------------------------------------------------------


def test_score_is_null_until_a_rule_increments_it(evaluate: Evaluate, rules_text: Rules) -> None:
    assert evaluate()["score"] is None
    assert evaluate(rules=rules_text(rule("r", {"set_flag": "f"})))["score"] is None
    never = rule("never", {"increment_score": 5}, {"min_total_length": 1000})
    assert evaluate(rules=rules_text(never))["score"] is None


def test_increment_score_accumulates(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(
        rules=rules_text(
            rule("a", {"increment_score": 2}),
            rule("b", {"increment_score": 1.5}),
            rule("c", {"increment_score": -0.5}),
        )
    )
    assert result["score"] == 3.0
    assert [r["actions"] for r in result["fired_rules"]] == [
        [{"increment_score": 2}],
        [{"increment_score": 1.5}],
        [{"increment_score": -0.5}],
    ]


def test_a_score_back_to_zero_is_zero_not_null(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(rules=rules_text(rule("a", {"increment_score": 2}), rule("b", {"increment_score": -2})))
    assert result["score"] == 0.0


def test_decimal_increments_sum_in_the_decimal_sense(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(
        rules=rules_text(rule("a", {"increment_score": 0.1}), rule("b", {"increment_score": 0.2}))
    )
    assert result["score"] == pytest.approx(0.3)


# --- assign_label ----------------------------------------------------------------------------------


def test_assign_label(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(rules=rules_text(rule("r", {"assign_label": "needs_review"})))
    assert result["label"] == "needs_review"
    assert result["fired_rules"][0]["actions"] == [{"assign_label": "needs_review"}]


def test_label_is_null_when_nothing_assigns_one_and_no_default(evaluate: Evaluate) -> None:
    assert evaluate()["label"] is None


def test_a_later_rule_relabels(evaluate: Evaluate, rules_text: Rules) -> None:
    first, second = rule("a", {"assign_label": "first"}), rule("b", {"assign_label": "second"})
    result = evaluate(rules=rules_text(first, second))
    assert result["label"] == "second"


# --- the fixed action order ------------------------------------------------------------------------


def test_actions_run_in_the_seed_order_whatever_the_yaml_order(evaluate: Evaluate) -> None:
    rules = """\
    rating_rules:
      - id: everything
        actions:
          assign_label: needs_review
          increment_score: 2
          set_flag: checked
          add_comment_template: "accuracy={{ corrected.accuracy }}"
          add_comment: "plain"
          adjust_dimension: { dimension: accuracy, delta: -0.2 }
    """
    result = evaluate(rules=rules)
    actions = result["fired_rules"][0]["actions"]
    assert [next(iter(a)) for a in actions] == [
        "adjust_dimension",
        "add_comment",
        "add_comment_template",
        "set_flag",
        "increment_score",
        "assign_label",
    ]
    assert actions[0]["adjust_dimension"]["to"] == pytest.approx(4.0)
    assert result["comments"] == ["plain", "accuracy=4.0"]
    assert result["flags"] == {"checked": True}
    assert result["score"] == 2.0
    assert result["label"] == "needs_review"


# --- options ---------------------------------------------------------------------------------------


ANY_ACTIONS = st.lists(st.sampled_from(list(ACTIONS)), min_size=1, unique=True).flatmap(
    lambda names: st.fixed_dictionaries({name: ACTIONS[name].values(st, None) for name in names})
)
"""Any of the actions, in any order, each with a value drawn from its record's strategy."""


@settings(max_examples=examples(100), deadline=None)
@given(ANY_ACTIONS)
def test_any_actions_apply_in_the_records_order_one_record_each(actions: dict[str, Any]) -> None:
    submission = parse_submission(
        {"prompt": "P", "responses": [{"id": "a", "text": "t"}], "ranking": ["a"], "ratings": IDEALS}
    )
    state = RuleState(dict(submission.ratings), (0.0, 5.0), None, False)
    records = [apply(state, Signals.of(submission), {}, "r") for apply in compile_actions(actions)]
    assert [list(record) for record in records] == [[name] for name in ACTIONS if name in actions]


def test_comments_repeat_without_dedupe(evaluate: Evaluate, rules_text: Rules) -> None:
    result = evaluate(
        rules=rules_text(rule("a", {"add_comment": "same"}), rule("b", {"add_comment": "same"}))
    )
    assert result["comments"] == ["same", "same"]


def test_dedupe_comments_keeps_one_of_identical_comments(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(
        rule("a", {"add_comment": "same"}),
        rule("b", {"add_comment": "other"}),
        rule("c", {"add_comment_template": "sa{{ 'me' }}"}),
        options={"dedupe_comments": True},
    )
    result = evaluate(rules=rules)
    assert result["comments"] == ["same", "other"]
    assert [r["id"] for r in result["fired_rules"]] == ["a", "b", "c"]


def test_stop_after_first_stops_at_the_first_rule_that_fires(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(
        rule("misses", {"set_flag": "m"}, {"min_total_length": 1000}),
        rule("first", {"set_flag": "first", "increment_score": 1}, {"response_contains_any": ["alpha"]}),
        rule("second", {"set_flag": "second", "increment_score": 1}, {"response_contains_any": ["beta"]}),
        options={"stop_after_first": True},
    )
    result = evaluate(rules=rules)
    assert [r["id"] for r in result["fired_rules"]] == ["first"]
    assert result["flags"] == {"first": True}
    assert result["score"] == 1.0


def test_without_stop_after_first_every_matching_rule_fires(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(
        rule("first", {"set_flag": "first"}),
        rule("second", {"set_flag": "second"}),
        options={"stop_after_first": False},
    )
    assert [r["id"] for r in evaluate(rules=rules)["fired_rules"]] == ["first", "second"]


def test_default_label_when_nothing_sets_one(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(
        rule("never", {"assign_label": "x"}, {"min_total_length": 1000}), options={"default_label": "neutral"}
    )
    assert evaluate(rules=rules)["label"] == "neutral"


def test_default_label_with_no_rules_at_all(evaluate: Evaluate) -> None:
    assert evaluate(rules="options:\n  default_label: neutral\n")["label"] == "neutral"


def test_an_assigned_label_beats_the_default(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(rule("r", {"assign_label": "needs_review"}), options={"default_label": "neutral"})
    assert evaluate(rules=rules)["label"] == "needs_review"


# --- ranking rules share the conditions and actions -----------------------------------------------


def test_ranking_rules_fire_with_their_own_type(evaluate: Evaluate) -> None:
    rules = """\
    rating_rules:
      - id: rated
        actions: { increment_score: 1 }
    ranking_rules:
      - id: ranked
        when: { response_contains_any: [beta] }
        actions: { increment_score: 1, set_flag: ranked }
    """
    result = evaluate(rules=rules)
    assert [(r["id"], r["type"]) for r in result["fired_rules"]] == [
        ("rated", "rating"),
        ("ranked", "ranking"),
    ]
    assert result["score"] == 2.0
    assert result["flags"] == {"ranked": True}


def test_a_ranking_rule_reads_its_own_verdict_not_a_rating_rules(evaluate: Evaluate) -> None:
    rules = """\
    rating_rules:
      - id: rated
        actions: { increment_score: 1 }
    ranking_rules:
      - id: never
        when: { response_contains_any: [no such words anywhere] }
        actions: { set_flag: never }
      - id: always
        actions: { set_flag: always }
    """
    result = evaluate(rules=rules)
    assert [r["id"] for r in result["fired_rules"]] == ["rated", "always"]
    assert result["flags"] == {"always": True}
