"""The result object (README, "Evaluating submissions"): its fields, the fired_rules and action shapes,
meta and the summary;
the explain view; and the seed's sample evaluated against the shipped config, worked out by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evalkit
from evalkit.engine import Evaluator, load_config

Evaluate = Callable[..., dict[str, Any]]
Rules = Callable[..., str]
Factory = Callable[..., dict[str, Any]]
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "sample_submission.json"
FIELDS = {
    "corrected_ratings",
    "corrected_ranking",
    "ranking_feedback",
    "rewrite_final",
    "prompt_feedback",
    "global_summary",
    "fired_rules",
    "score",
    "flags",
    "label",
    "meta",
}
ACTION_KEYS = {
    "adjust_dimension",
    "add_comment",
    "add_comment_template",
    "set_flag",
    "increment_score",
    "assign_label",
    "append_text",
    "append_note",
}

EVERYTHING = {
    "id": "everything",
    "when": {"min_total_length": 1},
    "actions": {
        "adjust_dimension": {"dimension": "accuracy", "delta": -0.5},
        "add_comment": "c",
        "add_comment_template": "t{{ signals.response_count }}",
        "set_flag": "f",
        "increment_score": 1,
        "assign_label": "l",
    },
}


def test_result_has_the_seed_fields(evaluate: Evaluate) -> None:
    result = evaluate()
    assert set(result) >= FIELDS
    assert json.loads(json.dumps(result)) == result


def test_corrected_ratings_shape(evaluate: Evaluate) -> None:
    ratings = evaluate()["corrected_ratings"]
    assert set(ratings) == {"instructions", "accuracy", "optimality", "presentation", "freshness"}
    for entry in ratings.values():
        assert {"original", "updated", "rationale"} <= set(entry)
        assert isinstance(entry["rationale"], str) and entry["rationale"]


def test_fired_rules_and_action_shapes(evaluate: Evaluate, rules_text: Rules) -> None:
    (fired,) = evaluate(rules=rules_text(EVERYTHING))["fired_rules"]
    assert set(fired) == {"id", "type", "detail", "actions"}
    assert (fired["id"], fired["type"]) == ("everything", "rating")
    assert fired["detail"]["min_total_length"]["held"] is True
    assert fired["actions"] == [
        {"adjust_dimension": {"dimension": "accuracy", "from": 4.2, "to": pytest.approx(3.7), "delta": -0.5}},
        {"add_comment": "c"},
        {"add_comment_template": "t2"},
        {"set_flag": "f"},
        {"increment_score": 1},
        {"assign_label": "l"},
    ]


def test_fired_rules_hold_only_fired_rules_in_firing_order(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(
        {"id": "z_first", "actions": {"set_flag": "a"}},
        {"id": "never", "when": {"min_total_length": 999}, "actions": {"set_flag": "b"}},
        {"id": "a_third", "actions": {"set_flag": "c"}},
    )
    assert [r["id"] for r in evaluate(rules=rules)["fired_rules"]] == ["z_first", "a_third"]


def test_meta(evaluate: Evaluate, write_config: Callable[..., Path], make_submission: Factory) -> None:
    config = load_config(write_config(rules="version: 5\n"))
    meta = Evaluator(config).evaluate(make_submission()).to_dict()["meta"]
    assert meta["rule_version"] == 5
    assert meta["config_hash"] == config.config_hash
    assert meta["signals"] == {"length_total": 18, "response_count": 2}
    assert meta["evalkit_version"] == evalkit.__version__


def test_rule_version_is_null_without_one(evaluate: Evaluate) -> None:
    assert evaluate()["meta"]["rule_version"] is None


def test_global_summary_has_the_mean_absolute_adjustment_and_the_comments(
    evaluate: Evaluate, rules_text: Rules, make_submission: Factory
) -> None:
    # freshness 0.0 is pulled to 1.4 (|1.4|); the rule lowers presentation 4.0 -> 3.0 (|1.0|);
    # mean (1.4 + 1.0) / 5 = 0.48
    rules = rules_text(
        {
            "id": "r",
            "actions": {
                "adjust_dimension": {"dimension": "presentation", "delta": -1},
                "add_comment": "First comment.",
            },
        },
        {"id": "s", "actions": {"add_comment": "Second comment."}},
    )
    result = evaluate(make_submission(ratings={"freshness": 0.0}), rules=rules)
    summary = result["global_summary"]
    assert "0.48" in summary
    assert summary.index("First comment.") < summary.index("Second comment.")


def test_global_summary_with_nothing_adjusted(evaluate: Evaluate) -> None:
    assert "0.00" in evaluate()["global_summary"]


def test_explain_lists_every_rule_fired_or_not(
    explain: Callable[..., dict[str, Any]], rules_text: Rules
) -> None:
    rules = rules_text(
        {"id": "fires", "actions": {"set_flag": "f"}},
        {"id": "misses", "when": {"response_contains_any": ["gamma"]}, "actions": {"set_flag": "g"}},
    )
    view = explain(rules=rules)
    assert [r["id"] for r in view["fired_rules"]] == ["fires"]
    (missed,) = view["not_fired"]
    assert missed["id"] == "misses"
    assert missed["failed"] == "response_contains_any"
    assert missed["observed"] == {"held": False, "found": []}
    assert {"score", "flags", "label", "meta"} <= set(view)


def test_explain_shows_every_condition_of_a_rule_that_did_not_fire(
    explain: Callable[..., dict[str, Any]], rules_text: Rules
) -> None:
    # the issue: --explain-json has "each rule, fired or not, with every condition's observed values"
    when = {"min_total_length": 100, "response_contains_any": ["beta"], "dimension_gt": {"accuracy": 4.0}}
    (missed,) = explain(rules=rules_text({"id": "misses", "when": when, "actions": {"set_flag": "g"}}))[
        "not_fired"
    ]
    assert missed["failed"] == "min_total_length"
    assert missed["detail"]["min_total_length"] == {"held": False, "length_total": 18, "min": 100}
    assert set(missed["detail"]) == {"min_total_length", "response_contains_any", "dimension_gt"}
    assert missed["detail"]["response_contains_any"]["held"] is True
    assert missed["detail"]["dimension_gt"]["held"] is True


def test_explain_says_why_rules_after_stop_after_first_did_not_run(
    explain: Callable[..., dict[str, Any]], rules_text: Rules
) -> None:
    rules = rules_text(
        {"id": "first", "actions": {"set_flag": "f"}},
        {"id": "second", "actions": {"set_flag": "g"}},
        options={"stop_after_first": True},
    )
    view = explain(rules=rules)
    assert [r["id"] for r in view["fired_rules"]] == ["first"]
    assert [r["id"] for r in view["not_fired"]] == ["second"]
    assert "first" in view["not_fired"][0]["reason"]


# --- the seed's sample against the shipped config, by hand ----------------------------------------


@pytest.fixture(scope="module")
def seed_result() -> dict[str, Any]:
    return Evaluator(load_config()).evaluate(json.loads(SAMPLE.read_text(encoding="utf-8"))).to_dict()


def test_seed_sample_ratings(seed_result: dict[str, Any]) -> None:
    ratings = {name: (e["original"], e["updated"]) for name, e in seed_result["corrected_ratings"].items()}
    assert ratings == {
        "instructions": (4.0, 4.0),  # |4.0 - 4.0| <= 1.5
        "accuracy": (5.0, 4.5),  # within 4.2 +- 1.2; lower_accuracy_if_no_example: -0.5
        "optimality": (4.0, 4.0),  # |4.0 - 3.8| <= 1.4
        "presentation": (3.5, 3.5),  # |3.5 - 4.0| <= 1.2
        "freshness": (1.0, 2.0),  # |1.0 - 3.5| > 1.5: 1.0 + 0.4 * 2.5 = 2.0
    }


def test_seed_sample_rules_score_flags_label(seed_result: dict[str, Any]) -> None:
    assert [r["id"] for r in seed_result["fired_rules"]] == [
        "lower_accuracy_if_no_example",
        "scoring_positive_signal",
        "optimality_or_accuracy_guard",
        "complexity_in_rewrite",
        "close_rewrite_with_period",
    ]
    assert seed_result["fired_rules"][0]["actions"][0] == {
        "adjust_dimension": {"dimension": "accuracy", "from": 5.0, "to": 4.5, "delta": -0.5}
    }
    assert seed_result["score"] == 3.0  # +2 (scoring_positive_signal) +1 (complexity)
    assert seed_result["label"] == "good"  # 3 >= good: 3, < excellent: 5
    # freshness moved 1.0 >= 0.75 and the justification is empty
    assert seed_result["flags"] == {"low_accuracy": True, "justification_required": True}


def test_seed_sample_text_outputs(seed_result: dict[str, Any]) -> None:
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    length = len("\n".join(r["text"] for r in sample["responses"]) + "\n" + sample["rewrite_preferred"])
    assert seed_result["corrected_ranking"] == ["resp_b", "resp_a"]
    assert seed_result["ranking_feedback"] == "Ranking incluye todas las respuestas sin duplicados."
    assert seed_result["rewrite_final"] == sample["rewrite_preferred"] + "."
    assert seed_result["prompt_feedback"] == "Prompt con etiquetas claras."
    assert seed_result["meta"]["signals"] == {"length_total": length, "response_count": 2}
    assert f"Signal eficiencia detectada (length_total={length})." in seed_result["comments"]
    assert seed_result["comments"][:3] == [
        "El rewrite no incluye un ejemplo concreto; se reduce accuracy.",
        f"Signal eficiencia detectada (length_total={length}).",
        "Se reconoce mención de estructura eficiente o complejidad explícita (regla OR).",
    ]
    assert len(seed_result["comments"]) == 4  # plus the justification comment
    assert "0.30" in seed_result["global_summary"]  # (0 + 0.5 + 0 + 0 + 1.0) / 5


def test_explain_lists_rewrite_rules_that_did_not_fire_with_what_they_saw(
    explain: Callable[..., dict[str, Any]], make_submission: Callable[..., dict[str, Any]]
) -> None:
    rules = """\
        rewrite_rules:
          - id: close_it
            when: { ends_without_punct: true }
            actions: { append_text: "." }
        """
    view = explain(make_submission(rewrite_preferred="Ends well."), rules=rules)
    (missed,) = [r for r in view["not_fired"] if r["type"] == "rewrite"]
    assert missed["id"] == "close_it"
    assert missed["failed"] == "ends_without_punct"
    assert missed["observed"] == {"held": False, "last_char": "."}
    assert "close_it" not in [r["id"] for r in view["fired_rules"]]
