"""Every condition of a rule's `when` (issue point 3), on the minimal submission of conftest.py:
responses "alpha" and "beta", rewrite "rewrite", so text_space = "alpha\\nbeta\\nrewrite" (18 code points)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

Fires = Callable[..., bool]
Factory = Callable[..., dict[str, Any]]


# --- signals (point 1) ---------------------------------------------------------------------------


def test_length_total_counts_code_points_of_responses_newline_rewrite(
    evaluate: Callable[..., dict[str, Any]], make_submission: Factory
) -> None:
    submission = make_submission(
        responses=[{"id": "a", "text": "ñ😀"}, {"id": "b", "text": "日本"}],
        ranking=["a", "b"],
        rewrite_preferred="é",
    )
    # "ñ😀" + "\n" + "日本" + "\n" + "é": 2 + 1 + 2 + 1 + 1 code points (not bytes, not UTF-16 units)
    assert evaluate(submission)["meta"]["signals"] == {"length_total": 7, "response_count": 2}


def test_length_total_of_the_minimal_submission(evaluate: Callable[..., dict[str, Any]]) -> None:
    assert evaluate()["meta"]["signals"] == {"length_total": 18, "response_count": 2}


def test_text_space_joins_responses_with_newlines_then_the_rewrite(fires: Fires) -> None:
    assert fires({"response_contains_any": ["alpha\nbeta\nrewrite"]})
    assert not fires({"response_contains_any": ["alpha beta"]})
    assert not fires({"response_contains_any": ["rewrite\nalpha"]})


def test_empty_rewrite_still_adds_the_separator(
    evaluate: Callable[..., dict[str, Any]], make_submission: Factory
) -> None:
    # "alpha\nbeta\n" + "" = 11
    assert evaluate(make_submission(rewrite_preferred=""))["meta"]["signals"]["length_total"] == 11


# --- response_contains_any -----------------------------------------------------------------------


@pytest.mark.parametrize("needle", ["alpha", "ALPHA", "Beta", "REWRITE", "pha\nbe"])
def test_contains_any_holds_case_insensitively_in_responses_and_rewrite(fires: Fires, needle: str) -> None:
    assert fires({"response_contains_any": ["absent", needle]})


def test_contains_any_fails_when_no_needle_occurs(fires: Fires) -> None:
    assert not fires({"response_contains_any": ["gamma", "delta"]})


def test_contains_any_matches_non_ascii_case_insensitively(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(rewrite_preferred="Usa una COLA DE PRIORIDAD y ÉXITO")
    assert fires({"response_contains_any": ["cola de prioridad"]}, submission)
    assert fires({"response_contains_any": ["éxito"]}, submission)


def test_contains_any_detail_lists_the_needles_found(
    evaluate: Callable[..., dict[str, Any]], rules_text: Callable[..., str]
) -> None:
    rule = {
        "id": "r",
        "when": {"response_contains_any": ["gamma", "Alpha", "beta"]},
        "actions": {"set_flag": "f"},
    }
    detail = evaluate(rules=rules_text(rule))["fired_rules"][0]["detail"]
    assert detail["response_contains_any"]["held"] is True
    assert detail["response_contains_any"]["found"] == ["Alpha", "beta"]


# --- not_contains_any ----------------------------------------------------------------------------


def test_not_contains_any_holds_when_no_needle_occurs(fires: Fires) -> None:
    assert fires({"not_contains_any": ["gamma", "delta"]})


@pytest.mark.parametrize("needle", ["ALPHA", "beta", "Rewrite"])
def test_not_contains_any_fails_when_any_needle_occurs_anywhere(fires: Fires, needle: str) -> None:
    assert not fires({"not_contains_any": ["gamma", needle]})


def test_contains_and_not_contains_together(fires: Fires, make_submission: Factory) -> None:
    negative = make_submission(
        responses=[{"id": "a", "text": "Dijkstra with negative weight edges"}],
        ranking=["a"],
        rewrite_preferred="x",
    )
    with_alternative = make_submission(
        responses=[{"id": "a", "text": "negative weight: use bellman-ford"}],
        ranking=["a"],
        rewrite_preferred="x",
    )
    when = {"response_contains_any": ["negative weight"], "not_contains_any": ["Bellman-Ford"]}
    assert fires(when, negative)
    assert not fires(when, with_alternative)


# --- preferred_rewrite_missing_substring (the original never lets it fail) -----------------------


def test_rewrite_missing_holds_when_every_substring_is_absent_from_the_rewrite(fires: Fires) -> None:
    assert fires({"preferred_rewrite_missing_substring": ["example", "ejemplo"]})


@pytest.mark.parametrize("rewrite", ["An Example follows", "un EJEMPLO", "for example"])
def test_rewrite_missing_fails_when_any_substring_is_present_case_insensitive(
    fires: Fires, make_submission: Factory, rewrite: str
) -> None:
    submission = make_submission(rewrite_preferred=rewrite)
    assert not fires({"preferred_rewrite_missing_substring": ["example", "ejemplo"]}, submission)


def test_rewrite_missing_looks_only_at_the_rewrite_not_the_responses(
    fires: Fires, make_submission: Factory
) -> None:
    submission = make_submission(
        responses=[{"id": "a", "text": "for example this"}], ranking=["a"], rewrite_preferred="no sample here"
    )
    assert fires({"preferred_rewrite_missing_substring": ["example"]}, submission)


def test_rewrite_missing_with_a_null_rewrite_holds(fires: Fires, make_submission: Factory) -> None:
    assert fires(
        {"preferred_rewrite_missing_substring": ["example"]}, make_submission(rewrite_preferred=None)
    )


# --- rewrite_regex_any ---------------------------------------------------------------------------


def test_regex_any_searches_anywhere_in_the_rewrite(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(rewrite_preferred="cost is O(E log V) overall")
    assert fires({"rewrite_regex_any": [r"O\([^)]*log[^)]*\)"]}, submission)


def test_regex_any_holds_when_any_pattern_matches(fires: Fires) -> None:
    assert fires({"rewrite_regex_any": ["zzz", "wri"]})
    assert not fires({"rewrite_regex_any": ["zzz", "^wri"]})


def test_regex_any_sees_the_raw_rewrite_not_the_stripped_one(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(rewrite_preferred="  padded  ")
    assert fires({"rewrite_regex_any": ["^  padded  $"]}, submission)
    assert not fires({"rewrite_regex_any": ["^padded$"]}, submission)


def test_regex_any_does_not_look_at_the_responses(fires: Fires) -> None:
    assert not fires({"rewrite_regex_any": ["alpha"]})


def test_regex_any_is_case_sensitive_unless_the_pattern_says_otherwise(fires: Fires) -> None:
    assert not fires({"rewrite_regex_any": ["REWRITE"]})
    assert fires({"rewrite_regex_any": ["(?i)REWRITE"]})


# --- min_total_length / max_total_length (inclusive) ---------------------------------------------


@pytest.mark.parametrize(("minimum", "expected"), [(0, True), (17, True), (18, True), (19, False)])
def test_min_total_length_is_inclusive(fires: Fires, minimum: int, expected: bool) -> None:
    assert fires({"min_total_length": minimum}) is expected


@pytest.mark.parametrize(("maximum", "expected"), [(17, False), (18, True), (19, True)])
def test_max_total_length_is_inclusive(fires: Fires, maximum: int, expected: bool) -> None:
    assert fires({"max_total_length": maximum}) is expected


def test_a_length_bound_beyond_a_float_s_precision_is_kept_exactly(
    explain: Callable[..., dict[str, Any]], rules_text: Callable[..., str]
) -> None:
    bound = 2**53 + 1  # no float has this value
    rule = {"id": "probe", "when": {"max_total_length": bound}, "actions": {"set_flag": "hit"}}
    fired = explain(rules=rules_text(rule))["fired_rules"]
    assert fired[0]["detail"]["max_total_length"] == {"held": True, "length_total": 18, "max": bound}


def test_length_bounds_together_form_a_closed_range(fires: Fires) -> None:
    assert fires({"min_total_length": 18, "max_total_length": 18})
    assert not fires({"min_total_length": 19, "max_total_length": 30})


def test_length_counts_code_points(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(
        responses=[{"id": "a", "text": "😀😀"}], ranking=["a"], rewrite_preferred="😀"
    )
    # "😀😀\n😀" = 4 code points (8 UTF-16 units, 13 bytes)
    assert fires({"min_total_length": 4, "max_total_length": 4}, submission)


# --- any_of --------------------------------------------------------------------------------------


def test_any_of_holds_when_one_block_holds(fires: Fires) -> None:
    assert fires({"any_of": [{"response_contains_any": ["gamma"]}, {"response_contains_any": ["beta"]}]})


def test_any_of_fails_when_no_block_holds(fires: Fires) -> None:
    assert not fires({"any_of": [{"response_contains_any": ["gamma"]}, {"min_total_length": 19}]})


def test_any_of_block_needs_all_its_conditions(fires: Fires) -> None:
    assert not fires({"any_of": [{"response_contains_any": ["alpha"], "min_total_length": 19}]})
    assert fires({"any_of": [{"response_contains_any": ["alpha"], "min_total_length": 18}]})


def test_any_of_combines_with_the_other_conditions_of_the_rule(fires: Fires) -> None:
    any_of = [{"response_contains_any": ["heap"]}, {"response_contains_any": ["alpha"]}]
    assert fires({"any_of": any_of, "min_total_length": 18})
    assert not fires({"any_of": any_of, "min_total_length": 120})


def test_any_of_evaluates_every_block_and_every_condition_for_the_explanation(
    evaluate: Callable[..., dict[str, Any]], rules_text: Callable[..., str]
) -> None:
    rule = {
        "id": "r",
        "when": {
            "any_of": [
                {"response_contains_any": ["alpha"]},
                {"min_total_length": 100, "response_contains_any": ["beta"]},
                {"not_contains_any": ["alpha"]},
            ]
        },
        "actions": {"set_flag": "f"},
    }
    detail = evaluate(rules=rules_text(rule))["fired_rules"][0]["detail"]["any_of"]
    assert detail["held"] is True
    blocks = detail["blocks"]
    assert len(blocks) == 3
    assert blocks[0]["response_contains_any"]["held"] is True
    assert blocks[1]["min_total_length"]["held"] is False
    assert blocks[1]["min_total_length"]["length_total"] == 18
    assert blocks[1]["response_contains_any"] == {"held": True, "found": ["beta"]}
    assert blocks[2]["not_contains_any"]["held"] is False


def test_nested_any_of(fires: Fires) -> None:
    inner = {"any_of": [{"response_contains_any": ["zzz"]}, {"response_contains_any": ["beta"]}]}
    assert fires({"any_of": [{"min_total_length": 100}, inner]})


# --- dimension_gt / dimension_lt (strict, original ratings) --------------------------------------


@pytest.mark.parametrize(("accuracy", "expected"), [(4.5, False), (4.51, True), (5.0, True), (4.0, False)])
def test_dimension_gt_is_strict(
    fires: Fires, make_submission: Factory, accuracy: float, expected: bool
) -> None:
    assert (
        fires({"dimension_gt": {"accuracy": 4.5}}, make_submission(ratings={"accuracy": accuracy}))
        is expected
    )


@pytest.mark.parametrize(("optimality", "expected"), [(2.5, False), (2.49, True), (1.0, True), (3.0, False)])
def test_dimension_lt_is_strict(
    fires: Fires, make_submission: Factory, optimality: float, expected: bool
) -> None:
    submission = make_submission(ratings={"optimality": optimality})
    assert fires({"dimension_lt": {"optimality": 2.5}}, submission) is expected


def test_dimension_compare_needs_every_named_dimension(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(ratings={"accuracy": 5.0, "presentation": 3.0})
    assert fires({"dimension_gt": {"accuracy": 4.5, "presentation": 2.0}}, submission)
    assert not fires({"dimension_gt": {"accuracy": 4.5, "presentation": 3.0}}, submission)


def test_dimension_lt_reads_the_original_rating_not_the_pulled_one(
    fires: Fires, make_submission: Factory
) -> None:
    # accuracy 0.0 is outside 4.2 +- 1.2 and is pulled to 0 + 0.4 * 4.2 = 1.68; the condition sees 0.0
    submission = make_submission(ratings={"accuracy": 0.0})
    assert fires({"dimension_lt": {"accuracy": 1.0}}, submission)
    assert not fires({"dimension_gt": {"accuracy": 1.0}}, submission)


def test_dimension_gt_ignores_adjustments_made_by_earlier_rules(
    evaluate: Callable[..., dict[str, Any]],
    rules_text: Callable[..., str],
    fired_ids: Callable[..., list[str]],
) -> None:
    raise_it = {"id": "raise", "actions": {"adjust_dimension": {"dimension": "accuracy", "delta": 0.8}}}
    check = {"id": "check", "when": {"dimension_gt": {"accuracy": 4.5}}, "actions": {"set_flag": "f"}}
    result = evaluate(rules=rules_text(raise_it, check))
    assert result["corrected_ratings"]["accuracy"]["updated"] == pytest.approx(5.0)
    assert fired_ids(result) == ["raise"]


def test_dimension_compare_on_out_of_scale_originals(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(ratings={"instructions": 7})
    assert fires({"dimension_gt": {"instructions": 5}}, submission)


# --- combination -----------------------------------------------------------------------------------


def test_no_when_always_fires(
    evaluate: Callable[..., dict[str, Any]], rules_text: Callable[..., str]
) -> None:
    result = evaluate(rules=rules_text({"id": "always", "actions": {"set_flag": "f"}}))
    assert [r["id"] for r in result["fired_rules"]] == ["always"]
    assert result["flags"] == {"f": True}


def test_every_condition_must_hold(fires: Fires, make_submission: Factory) -> None:
    submission = make_submission(ratings={"accuracy": 5.0}, rewrite_preferred="O(n log n)")
    when = {
        "response_contains_any": ["alpha"],
        "not_contains_any": ["zzz"],
        "preferred_rewrite_missing_substring": ["example"],
        "rewrite_regex_any": ["log"],
        "min_total_length": 10,
        "max_total_length": 100,
        "dimension_gt": {"accuracy": 4.5},
        "dimension_lt": {"optimality": 4.0},
    }
    assert fires(when, submission)
    for name, spoiled in [
        ("response_contains_any", ["zzz"]),
        ("not_contains_any", ["alpha"]),
        ("preferred_rewrite_missing_substring", ["log"]),
        ("rewrite_regex_any", ["^zzz"]),
        ("min_total_length", 30),
        ("max_total_length", 20),
        ("dimension_gt", {"accuracy": 5.0}),
        ("dimension_lt", {"optimality": 3.8}),
    ]:
        assert not fires({**when, name: spoiled}, submission), name
