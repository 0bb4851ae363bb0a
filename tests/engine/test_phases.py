"""The seed's phases after the rules: dimensions (point 2), ranking (4), rewrite (5), prompt (6),
justification (7) and decision (8). Expected values are worked out by hand from the issue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

Evaluate = Callable[..., dict[str, Any]]
Rules = Callable[..., str]
Factory = Callable[..., dict[str, Any]]


def updated(result: dict[str, Any], dimension: str) -> float:
    return result["corrected_ratings"][dimension]["updated"]


# === dimensions ====================================================================================


@pytest.mark.parametrize(
    ("dimension", "value"),
    [
        ("instructions", 2.5),
        ("instructions", 4.0),
        ("accuracy", 3.0),
        ("accuracy", 5.0),  # 3.0 against 4.2 +- 1.2: within, in the decimal sense
        ("optimality", 2.4),
        ("optimality", 5.0),
        ("presentation", 2.8),
        ("presentation", 5.0),
        ("freshness", 2.0),
        ("freshness", 5.0),
    ],
)
def test_default_tolerance_keeps_values_within_inclusively(
    evaluate: Evaluate, make_submission: Factory, dimension: str, value: float
) -> None:
    result = evaluate(make_submission(ratings={dimension: value}))
    entry = result["corrected_ratings"][dimension]
    assert entry["original"] == value
    assert entry["updated"] == value
    assert "within" in entry["rationale"].lower()


@pytest.mark.parametrize(
    ("dimension", "value", "expected"),
    [
        # v + 0.4 * (ideal - v) with the built-in defaults
        ("instructions", 2.4, 3.04),  # ideal 4.0, tolerance 1.5
        ("accuracy", 2.9, 3.42),  # ideal 4.2, tolerance 1.2
        ("optimality", 2.3, 2.9),  # ideal 3.8, tolerance 1.4
        ("presentation", 2.7, 3.22),  # ideal 4.0, tolerance 1.2
        ("freshness", 1.9, 2.54),  # ideal 3.5, tolerance 1.5
        ("instructions", 0.0, 1.6),
        ("accuracy", 0.0, 1.68),
        ("optimality", 0.0, 1.52),
        ("presentation", 0.0, 1.6),
        ("freshness", 0.0, 1.4),
    ],
)
def test_default_pull_outside_tolerance(
    evaluate: Evaluate, make_submission: Factory, dimension: str, value: float, expected: float
) -> None:
    entry = evaluate(make_submission(ratings={dimension: value}))["corrected_ratings"][dimension]
    assert entry["original"] == value
    assert entry["updated"] == pytest.approx(expected)
    assert "outside" in entry["rationale"].lower()


def test_dimensions_yaml_overrides_one_dimension_and_keeps_the_defaults_for_the_rest(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    dimensions = "dimensions:\n  accuracy: {ideal: 3.0, tolerance: 0.5}\n"
    result = evaluate(make_submission(ratings={"accuracy": 4.0, "instructions": 2.4}), dimensions=dimensions)
    assert updated(result, "accuracy") == pytest.approx(4.0 + 0.4 * (3.0 - 4.0))  # 3.6
    assert updated(result, "instructions") == pytest.approx(3.04)  # default 4.0 +- 1.5


def test_a_dimension_given_only_a_tolerance_keeps_the_default_ideal(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    result = evaluate(
        make_submission(ratings={"accuracy": 4.0}), dimensions="dimensions:\n  accuracy: {tolerance: 0.1}\n"
    )
    assert updated(result, "accuracy") == pytest.approx(4.08)  # 4.0 + 0.4 * 0.2


def test_custom_pull_fraction(evaluate: Evaluate, make_submission: Factory) -> None:
    result = evaluate(
        make_submission(ratings={"accuracy": 0.0}), dimensions="adjustment:\n  pull_fraction: 0.5\n"
    )
    assert updated(result, "accuracy") == pytest.approx(2.1)


def test_pull_fraction_one_moves_to_the_ideal(evaluate: Evaluate, make_submission: Factory) -> None:
    result = evaluate(
        make_submission(ratings={"freshness": 0.0}), dimensions="adjustment:\n  pull_fraction: 1\n"
    )
    assert updated(result, "freshness") == pytest.approx(3.5)


@pytest.mark.parametrize(("digits", "expected"), [(2, 1.68), (1, 1.7), (0, 2.0)])
def test_round_digits(evaluate: Evaluate, make_submission: Factory, digits: int, expected: float) -> None:
    result = evaluate(
        make_submission(ratings={"accuracy": 0.0}), dimensions=f"adjustment:\n  round: {digits}\n"
    )
    assert updated(result, "accuracy") == expected


def test_without_round_the_value_is_not_rounded_to_two_digits(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    # instructions 0.01 -> 0.01 + 0.4 * 3.99 = 1.606 (round 2 would give 1.61)
    result = evaluate(make_submission(ratings={"instructions": 0.01}))
    assert updated(result, "instructions") == pytest.approx(1.606)


def test_pulled_value_is_clamped_to_the_top_of_the_scale(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    # 7 + 0.4 * (4.0 - 7) = 5.8 -> 5.0
    result = evaluate(make_submission(ratings={"instructions": 7}))
    assert updated(result, "instructions") == 5.0
    assert result["corrected_ratings"]["instructions"]["original"] == 7


def test_pulled_value_is_clamped_to_the_bottom_of_the_scale(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    # -10 + 0.4 * (4.2 + 10) = -4.32 -> 0.0
    result = evaluate(make_submission(ratings={"accuracy": -10}))
    assert updated(result, "accuracy") == 0.0


def test_pulled_value_is_clamped_to_a_configured_scale(evaluate: Evaluate, make_submission: Factory) -> None:
    # 0 + 0.4 * 4.2 = 1.68 -> 2.0 on the scale [2, 5]
    result = evaluate(make_submission(ratings={"accuracy": 0.0}), dimensions="scale: [2, 5]\n")
    assert updated(result, "accuracy") == 2.0


def test_out_of_scale_ratings_within_tolerance_still_end_within_the_scale(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    # 5.4 is within 4.2 +- 1.2 but above the scale [0, 5];
    # out-of-scale ratings are pulled and clamped (the seed; README "Evaluating submissions")
    result = evaluate(make_submission(ratings={"accuracy": 5.4}))
    assert 0.0 <= updated(result, "accuracy") <= 5.0


def test_out_of_scale_ratings_are_reported_in_meta_warnings(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    result = evaluate(make_submission(ratings={"instructions": 7, "accuracy": -1}))
    warnings = " ".join(result["meta"]["warnings"])
    assert "instructions" in warnings
    assert "accuracy" in warnings
    assert evaluate()["meta"]["warnings"] == []


# === ranking =======================================================================================

THREE = [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}, {"id": "c", "text": "gamma"}]
TEMPLATES = """\
feedback_templates:
  complete: COMPLETE
  missing_ids: MISSING
  had_duplicates: DUPLICATES
"""


def ranked(
    evaluate: Evaluate,
    make_submission: Factory,
    ranking: list[Any],
    ranking_yaml: str = TEMPLATES,
    responses: list[dict[str, Any]] = THREE,
) -> tuple[list[Any], str]:
    result = evaluate(make_submission(responses=responses, ranking=ranking), ranking=ranking_yaml)
    return result["corrected_ranking"], result["ranking_feedback"]


def test_complete_ranking_is_kept(evaluate: Evaluate, make_submission: Factory) -> None:
    assert ranked(evaluate, make_submission, ["c", "a", "b"]) == (["c", "a", "b"], "COMPLETE")


def test_unknown_dropped_duplicates_removed_missing_appended_in_response_order(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    ranking, _ = ranked(evaluate, make_submission, ["c", "x", "c", "zz"])
    assert ranking == ["c", "a", "b"]


def test_allow_duplicates_keeps_repeated_ids(evaluate: Evaluate, make_submission: Factory) -> None:
    ranking, feedback = ranked(
        evaluate, make_submission, ["c", "x", "c", "a"], "allow_duplicates: true\n" + TEMPLATES
    )
    assert ranking == ["c", "c", "a", "b"]
    assert feedback == "DUPLICATES MISSING"


# What the original says (issue 24, point 2): unknown ids are dropped without a word of their own, and a
# repeat is `had_duplicates` whether it is removed or kept.


def test_unknown_ids_dropped_with_nothing_missing_are_complete(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    assert ranked(evaluate, make_submission, ["c", "x", "a", "zz", "b"]) == (["c", "a", "b"], "COMPLETE")


def test_unknown_ids_get_their_own_text_only_where_the_config_gives_one(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    ranking_yaml = TEMPLATES + "  unknown_ids: UNKNOWN\n"
    expected = (["c", "a", "b"], "UNKNOWN")
    assert ranked(evaluate, make_submission, ["c", "x", "a", "b"], ranking_yaml) == expected
    assert ranked(evaluate, make_submission, ["c", "x"], ranking_yaml)[1] == "MISSING UNKNOWN"


def test_duplicates_kept_under_allow_duplicates_are_had_duplicates(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    ranking_yaml = "allow_duplicates: true\n" + TEMPLATES
    assert ranked(evaluate, make_submission, ["c", "a", "c", "b"], ranking_yaml) == (
        ["c", "a", "c", "b"],
        "DUPLICATES",
    )


def test_append_missing_false_leaves_missing_ids_out(evaluate: Evaluate, make_submission: Factory) -> None:
    ranking_yaml = "corrections:\n  append_missing: false\n" + TEMPLATES
    assert ranked(evaluate, make_submission, ["c", "a"], ranking_yaml) == (["c", "a"], "MISSING")


def test_missing_ids_feedback_when_appended(evaluate: Evaluate, make_submission: Factory) -> None:
    assert ranked(evaluate, make_submission, ["b"]) == (["b", "a", "c"], "MISSING")


def test_had_duplicates_feedback(evaluate: Evaluate, make_submission: Factory) -> None:
    assert ranked(evaluate, make_submission, ["a", "b", "a", "c"]) == (["a", "b", "c"], "DUPLICATES")


def test_duplicates_and_missing_both_reported(evaluate: Evaluate, make_submission: Factory) -> None:
    ranking, feedback = ranked(evaluate, make_submission, ["a", "a"])
    assert ranking == ["a", "b", "c"]
    assert "DUPLICATES" in feedback and "MISSING" in feedback and "COMPLETE" not in feedback


def test_default_feedback_without_templates(evaluate: Evaluate, make_submission: Factory) -> None:
    for ranking in (["a", "b", "c"], ["a"], ["a", "a", "b", "c"]):
        assert (
            ranked(evaluate, make_submission, ranking, "allow_duplicates: false\n")[1] == "Ranking processed."
        )


def test_default_feedback_when_the_outcome_has_no_template(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    only_complete = "feedback_templates:\n  complete: COMPLETE\n"
    assert ranked(evaluate, make_submission, ["a"], only_complete)[1] == "Ranking processed."


def test_default_ranking_settings_without_ranking_yaml(evaluate: Evaluate, make_submission: Factory) -> None:
    result = evaluate(make_submission(responses=THREE, ranking=["c", "c"]))
    assert result["corrected_ranking"] == ["c", "a", "b"]
    assert result["ranking_feedback"] == "Ranking processed."


def test_integer_ids_match_by_equality(evaluate: Evaluate, make_submission: Factory) -> None:
    responses = [{"id": 1, "text": "one"}, {"id": 2, "text": "two"}]
    ranking, feedback = ranked(evaluate, make_submission, [2, "1"], responses=responses)
    assert ranking == [2, 1]
    assert feedback == "MISSING"


def test_empty_ranking_gets_every_id_appended(evaluate: Evaluate, make_submission: Factory) -> None:
    assert ranked(evaluate, make_submission, []) == (["a", "b", "c"], "MISSING")


# === rewrite =======================================================================================


def rewrite_of(evaluate: Evaluate, make_submission: Factory, text: str | None, **files: str) -> str:
    return evaluate(make_submission(rewrite_preferred=text), **files)["rewrite_final"]


def test_rewrite_is_stripped(evaluate: Evaluate, make_submission: Factory) -> None:
    assert rewrite_of(evaluate, make_submission, "  \n Some text here \t\n") == "Some text here"


def test_null_rewrite_is_empty(evaluate: Evaluate, make_submission: Factory) -> None:
    assert rewrite_of(evaluate, make_submission, None) == ""


def test_short_rewrite_gets_the_default_note(evaluate: Evaluate, make_submission: Factory) -> None:
    assert (
        rewrite_of(evaluate, make_submission, "short", rewrite="min_length: 10\n")
        == "short\n\nExpand content."
    )


def test_short_rewrite_gets_the_configured_note(evaluate: Evaluate, make_submission: Factory) -> None:
    rewrite = 'min_length: 10\nnote_text: "Add details."\n'
    assert rewrite_of(evaluate, make_submission, "short", rewrite=rewrite) == "short\n\nAdd details."


def test_length_is_measured_after_stripping(evaluate: Evaluate, make_submission: Factory) -> None:
    assert (
        rewrite_of(evaluate, make_submission, "   abc   ", rewrite="min_length: 4\n")
        == "abc\n\nExpand content."
    )


def test_rewrite_of_exactly_min_length_is_not_short(evaluate: Evaluate, make_submission: Factory) -> None:
    assert rewrite_of(evaluate, make_submission, "abcd", rewrite="min_length: 4\n") == "abcd"


def test_add_note_if_short_false(evaluate: Evaluate, make_submission: Factory) -> None:
    rewrite = "min_length: 10\nadd_note_if_short: false\n"
    assert rewrite_of(evaluate, make_submission, "short", rewrite=rewrite) == "short"


def test_no_note_without_min_length(evaluate: Evaluate, make_submission: Factory) -> None:
    assert rewrite_of(evaluate, make_submission, "x", rewrite="note_text: N\n") == "x"


REWRITE_RULES = """\
rewrite_rules:
  - id: {id}
    when: {when}
    actions: {actions}
"""


def rewrite_rule(rule_id: str, when: str, actions: str) -> str:
    return REWRITE_RULES.format(id=rule_id, when=when, actions=actions)


def test_ends_without_punct_rule_appends_text(evaluate: Evaluate, make_submission: Factory) -> None:
    rules = rewrite_rule("close", "{ends_without_punct: true}", '{append_text: "."}')
    result = evaluate(make_submission(rewrite_preferred="no period "), rules=rules)
    assert result["rewrite_final"] == "no period."
    assert result["fired_rules"] == [
        {
            "id": "close",
            "type": "rewrite",
            "detail": result["fired_rules"][0]["detail"],
            "actions": [{"append_text": "."}],
        }
    ]


@pytest.mark.parametrize("ending", [".", "!", "?"])
def test_ends_without_punct_rule_does_not_fire_after_punctuation(
    evaluate: Evaluate, make_submission: Factory, ending: str
) -> None:
    rules = rewrite_rule("close", "{ends_without_punct: true}", '{append_text: " END"}')
    result = evaluate(make_submission(rewrite_preferred="done" + ending), rules=rules)
    assert result["rewrite_final"] == "done" + ending
    assert result["fired_rules"] == []


def test_ends_without_punct_false_fires_after_punctuation(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    rules = rewrite_rule("more", "{ends_without_punct: false}", '{append_text: " More?"}')
    assert rewrite_of(evaluate, make_submission, "Why?", rules=rules) == "Why? More?"
    assert rewrite_of(evaluate, make_submission, "Why", rules=rules) == "Why"


def test_rewrite_rules_see_the_text_after_the_note(evaluate: Evaluate, make_submission: Factory) -> None:
    # the default note ends with ".", so the rule does not fire on a short rewrite
    rules = rewrite_rule("close", "{ends_without_punct: true}", '{append_text: "!"}')
    assert (
        rewrite_of(evaluate, make_submission, "abc", rewrite="min_length: 10\n", rules=rules)
        == "abc\n\nExpand content."
    )


def test_shorter_than_min_rule_appends_the_note(evaluate: Evaluate, make_submission: Factory) -> None:
    rules = rewrite_rule("note", "{shorter_than_min: true}", "{append_note: true}")
    rewrite = "min_length: 10\nadd_note_if_short: false\nnote_text: Expand.\n"
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite, rules=rules) == "abc\n\nExpand."
    assert (
        rewrite_of(evaluate, make_submission, "long enough text", rewrite=rewrite, rules=rules)
        == "long enough text"
    )


# `shorter_than_min` reads the text as it stands when its rule runs (issue 24, point 3), as the original does.


def test_shorter_than_min_reads_the_text_after_the_length_note(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    # "abc" is short, so the note is added: 3 + 2 + 26 characters, which is no longer short
    rules = rewrite_rule("pad", "{shorter_than_min: true}", '{append_text: " [short]"}')
    rewrite = "min_length: 20\nnote_text: Add more detail, please.\n"
    assert (
        rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite, rules=rules)
        == "abc\n\nAdd more detail, please."
    )
    rules = rewrite_rule("pad", "{shorter_than_min: false}", '{append_text: " [ok]"}')
    assert (
        rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite, rules=rules)
        == "abc\n\nAdd more detail, please. [ok]"
    )


def test_shorter_than_min_reads_what_earlier_rewrite_rules_appended(
    evaluate: Evaluate, explain: Callable[..., dict[str, Any]], make_submission: Factory
) -> None:
    rules = """\
    rewrite_rules:
      - id: lengthen
        when: { ends_without_punct: true }
        actions: { append_text: " and a good deal more." }
      - id: still_short
        when: { shorter_than_min: true }
        actions: { append_text: " [short]" }
    """
    rewrite = "min_length: 10\nadd_note_if_short: false\n"
    submission = make_submission(rewrite_preferred="abc")
    assert evaluate(submission, rewrite=rewrite, rules=rules)["rewrite_final"] == "abc and a good deal more."
    (missed,) = explain(submission, rewrite=rewrite, rules=rules)["not_fired"]
    assert missed["detail"]["shorter_than_min"] == {"held": False, "length": 25}


def test_shorter_than_min_false(evaluate: Evaluate, make_submission: Factory) -> None:
    rules = rewrite_rule("tail", "{shorter_than_min: false}", '{append_text: " [ok]"}')
    rewrite = "min_length: 5\nadd_note_if_short: false\n"
    assert (
        rewrite_of(evaluate, make_submission, "long enough", rewrite=rewrite, rules=rules)
        == "long enough [ok]"
    )
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite, rules=rules) == "abc"


def test_rewrite_rule_conditions_must_all_hold(evaluate: Evaluate, make_submission: Factory) -> None:
    rules = rewrite_rule("both", "{shorter_than_min: true, ends_without_punct: true}", '{append_text: "."}')
    rewrite = "min_length: 5\nadd_note_if_short: false\n"
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite, rules=rules) == "abc."
    assert rewrite_of(evaluate, make_submission, "ab?", rewrite=rewrite, rules=rules) == "ab?"
    assert rewrite_of(evaluate, make_submission, "abcdefg", rewrite=rewrite, rules=rules) == "abcdefg"


def test_rewrite_rules_apply_in_file_order(evaluate: Evaluate, make_submission: Factory) -> None:
    rules = """\
    rewrite_rules:
      - id: one
        when: { ends_without_punct: true }
        actions: { append_text: "." }
      - id: two
        when: { ends_without_punct: true }
        actions: { append_text: "!" }
    """
    result = evaluate(make_submission(rewrite_preferred="abc"), rules=rules)
    assert result["rewrite_final"] == "abc."
    assert [r["id"] for r in result["fired_rules"]] == ["one"]


def test_ensure_period_postprocessor(evaluate: Evaluate, make_submission: Factory) -> None:
    rewrite = "postprocessors:\n  - type: ensure_period\n"
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite) == "abc."
    for done in ("abc.", "abc!", "abc?"):
        assert rewrite_of(evaluate, make_submission, done, rewrite=rewrite) == done


def test_trim_spaces_postprocessor(evaluate: Evaluate, make_submission: Factory) -> None:
    rewrite = "postprocessors:\n  - type: trim_spaces\n"
    assert rewrite_of(evaluate, make_submission, "a   b  c d", rewrite=rewrite) == "a b c d"


def test_trim_spaces_strips_what_the_note_leaves(evaluate: Evaluate, make_submission: Factory) -> None:
    rewrite = 'min_length: 10\nnote_text: "Expand  it.   "\npostprocessors:\n  - type: trim_spaces\n'
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite) == "abc\n\nExpand it."


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (["ensure_period", "trim_spaces"], "abc\n\nsee docs ."),
        (["trim_spaces", "ensure_period"], "abc\n\nsee docs."),
    ],
)
def test_postprocessors_run_in_order_after_the_note(
    evaluate: Evaluate, make_submission: Factory, order: list[str], expected: str
) -> None:
    steps = "".join(f"  - type: {step}\n" for step in order)
    rewrite = f'min_length: 10\nnote_text: "see  docs  "\npostprocessors:\n{steps}'
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite) == expected


def test_postprocessors_run_after_the_rewrite_rules(evaluate: Evaluate, make_submission: Factory) -> None:
    rules = rewrite_rule("tail", "{ends_without_punct: true}", '{append_text: "  tail"}')
    rewrite = "postprocessors:\n  - type: trim_spaces\n  - type: ensure_period\n"
    assert rewrite_of(evaluate, make_submission, "abc", rewrite=rewrite, rules=rules) == "abc tail."


# === prompt ========================================================================================


def test_prompt_ok_default(evaluate: Evaluate) -> None:
    assert evaluate(prompt="required_fields: [prompt, category]\n")["prompt_feedback"] == "Prompt valid."


def test_prompt_ok_without_prompt_yaml(evaluate: Evaluate) -> None:
    assert evaluate()["prompt_feedback"] == "Prompt valid."


def test_prompt_ok_configured(evaluate: Evaluate) -> None:
    prompt = "required_fields: [prompt]\nfeedback:\n  ok: All good.\n"
    assert evaluate(prompt=prompt)["prompt_feedback"] == "All good."


def test_missing_fields_default_message_comma_joined(evaluate: Evaluate, make_submission: Factory) -> None:
    submission = make_submission(difficulty=None)
    del submission["category"]
    prompt = "required_fields: [prompt, category, subcategory, difficulty]\n"
    assert evaluate(submission, prompt=prompt)["prompt_feedback"] == "Missing fields: category, difficulty"


def test_empty_string_counts_as_missing(evaluate: Evaluate, make_submission: Factory) -> None:
    prompt = "required_fields: [subcategory]\n"
    assert (
        evaluate(make_submission(subcategory=""), prompt=prompt)["prompt_feedback"]
        == "Missing fields: subcategory"
    )


def test_missing_fields_configured_message(evaluate: Evaluate, make_submission: Factory) -> None:
    prompt = (
        'required_fields: [category, ranking_rationale]\nfeedback:\n  missing_field: "Faltan: {missing}."\n'
    )
    result = evaluate(make_submission(category=None), prompt=prompt)
    assert result["prompt_feedback"] == "Faltan: category, ranking_rationale."


def test_invalid_label_with_allow_key_default_message(evaluate: Evaluate, make_submission: Factory) -> None:
    prompt = "label_checks:\n  category_allow: [data, infra]\n"
    assert evaluate(prompt=prompt)["prompt_feedback"] == "Invalid label category=algorithms"


def test_invalid_label_with_plain_field_key(evaluate: Evaluate, make_submission: Factory) -> None:
    prompt = (
        'label_checks:\n  difficulty: [medium, hard]\nfeedback:\n  invalid_label: "Bad {field}: {value}."\n'
    )
    assert evaluate(prompt=prompt)["prompt_feedback"] == "Bad difficulty: easy."


def test_allowed_labels_pass(evaluate: Evaluate) -> None:
    prompt = "label_checks:\n  category_allow: [algorithms, data]\n  difficulty: [easy]\n"
    assert evaluate(prompt=prompt)["prompt_feedback"] == "Prompt valid."


def test_labels_are_compared_exactly(evaluate: Evaluate, make_submission: Factory) -> None:
    prompt = "label_checks:\n  category_allow: [algorithms]\n"
    result = evaluate(make_submission(category="Algorithms"), prompt=prompt)
    assert result["prompt_feedback"] == "Invalid label category=Algorithms"


# The original reports the first failing check alone (issue 24, point 1); the explain output keeps them all.
PROMPT_CHECKS = "required_fields: [prompt, subcategory]\nlabel_checks:\n  category_allow: [data, infra]\n" \
    "  difficulty_allow: [easy, hard]\n"  # fmt: skip


def test_only_the_first_failing_check_is_reported_missing_fields_first(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    submission = make_submission(subcategory=None, category="web", difficulty="medium")
    assert evaluate(submission, prompt=PROMPT_CHECKS)["prompt_feedback"] == "Missing fields: subcategory"


def test_only_the_first_label_outside_its_catalogue_is_reported_in_file_order(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    submission = make_submission(category="web", difficulty="medium")
    assert evaluate(submission, prompt=PROMPT_CHECKS)["prompt_feedback"] == "Invalid label category=web"
    submission = make_submission(category="infra", difficulty="medium")
    assert evaluate(submission, prompt=PROMPT_CHECKS)["prompt_feedback"] == "Invalid label difficulty=medium"


def test_an_empty_required_field_is_missing_and_not_an_invalid_label_too(
    evaluate: Evaluate, explain: Callable[..., dict[str, Any]], make_submission: Factory
) -> None:
    prompt = "required_fields: [category]\nlabel_checks:\n  category_allow: [data]\n"
    submission = make_submission(category="")
    assert evaluate(submission, prompt=prompt)["prompt_feedback"] == "Missing fields: category"
    assert explain(submission, prompt=prompt)["prompt_checks"] == [
        {"check": "missing_field", "fields": ["category"], "feedback": "Missing fields: category"}
    ]


def test_the_explain_output_lists_every_failing_check(
    explain: Callable[..., dict[str, Any]], make_submission: Factory
) -> None:
    submission = make_submission(subcategory="", category="web", difficulty="medium")
    assert explain(submission, prompt=PROMPT_CHECKS)["prompt_checks"] == [
        {"check": "missing_field", "fields": ["subcategory"], "feedback": "Missing fields: subcategory"},
        {"check": "invalid_label", "field": "category", "feedback": "Invalid label category=web"},
        {"check": "invalid_label", "field": "difficulty", "feedback": "Invalid label difficulty=medium"},
    ]
    assert explain(make_submission(category="data"), prompt=PROMPT_CHECKS)["prompt_checks"] == []


# === justification =================================================================================

VALIDATION = "adjustment:\n  round: 2\nvalidation:\n  require_justification_if_delta_ge: {threshold}\n"


def justified(
    evaluate: Evaluate, make_submission: Factory, threshold: float, justification: Any, **ratings: float
) -> dict[str, Any]:
    submission = make_submission(ratings={"justification": justification, **ratings})
    return evaluate(submission, dimensions=VALIDATION.format(threshold=threshold))


def test_large_move_without_justification_sets_flag_and_comment(
    evaluate: Evaluate, make_submission: Factory
) -> None:
    # accuracy 0.0 -> 1.68: moved 1.68 >= 1.0
    result = justified(evaluate, make_submission, 1.0, "", accuracy=0.0)
    assert result["flags"] == {"justification_required": True}
    assert len(result["comments"]) == 1
    assert result["comments"][0] in result["global_summary"]


def test_a_move_of_exactly_the_threshold_counts(evaluate: Evaluate, make_submission: Factory) -> None:
    assert justified(evaluate, make_submission, 1.68, "", accuracy=0.0)["flags"] == {
        "justification_required": True
    }


def test_a_smaller_move_does_not_count(evaluate: Evaluate, make_submission: Factory) -> None:
    result = justified(evaluate, make_submission, 1.69, "", accuracy=0.0)
    assert result["flags"] == {}
    assert result["comments"] == []


def test_null_justification_is_empty(evaluate: Evaluate, make_submission: Factory) -> None:
    assert justified(evaluate, make_submission, 1.0, None, accuracy=0.0)["flags"] == {
        "justification_required": True
    }


def test_a_justification_satisfies_the_check(evaluate: Evaluate, make_submission: Factory) -> None:
    result = justified(evaluate, make_submission, 1.0, "Checked against the rubric.", accuracy=0.0)
    assert result["flags"] == {}
    assert result["comments"] == []


def test_no_check_without_the_setting(evaluate: Evaluate, make_submission: Factory) -> None:
    result = evaluate(make_submission(ratings={"accuracy": 0.0}))
    assert result["flags"] == {}


def test_a_move_made_by_a_rule_counts(
    evaluate: Evaluate, make_submission: Factory, rules_text: Rules
) -> None:
    rules = rules_text(
        {"id": "down", "actions": {"adjust_dimension": {"dimension": "optimality", "delta": -1}}}
    )
    dimensions = VALIDATION.format(threshold=1.0)
    result = evaluate(make_submission(), dimensions=dimensions, rules=rules)
    assert result["flags"] == {"justification_required": True}


# === decision ======================================================================================

THRESHOLDS = {"excellent": 5, "good": 3, "neutral": 0, "weak": -1}


def decided(
    evaluate: Evaluate,
    rules_text: Rules,
    score: float | None,
    thresholds: dict[str, float] | None,
    label: str | None = None,
    default: str | None = None,
) -> Any:
    actions: dict[str, Any] = {}
    if score is not None:
        actions["increment_score"] = score
    if label is not None:
        actions["assign_label"] = label
    top: dict[str, Any] = {}
    if thresholds is not None:
        top["decision"] = {"score_thresholds": thresholds}
    if default is not None:
        top["options"] = {"default_label": default}
    rules = [{"id": "r", "actions": actions}] if actions else []
    return evaluate(rules=rules_text(*rules, **top))["label"]


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (5, "excellent"),
        (7.5, "excellent"),
        (4.99, "good"),
        (3, "good"),
        (2, "neutral"),
        (0, "neutral"),
        (-0.5, "weak"),
        (-1, "weak"),
    ],
)
def test_highest_threshold_at_or_below_the_score(
    evaluate: Evaluate, rules_text: Rules, score: float, expected: str
) -> None:
    assert decided(evaluate, rules_text, score, THRESHOLDS, label="assigned", default="fallback") == expected


def test_threshold_order_in_the_file_does_not_matter(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, 4, {"low": 0, "high": 3, "mid": 1}) == "high"


def test_ties_go_to_the_first_in_the_file(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, 2, {"first": 2, "second": 2, "low": 0}) == "first"
    assert decided(evaluate, rules_text, 2, {"second": 2, "first": 2}) == "second"


def test_score_below_every_threshold_keeps_the_assigned_label(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, -2, THRESHOLDS, label="assigned", default="fallback") == "assigned"


def test_score_below_every_threshold_falls_back_to_the_default(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, -2, THRESHOLDS, default="fallback") == "fallback"


def test_null_score_keeps_the_assigned_label(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, None, THRESHOLDS, label="assigned", default="fallback") == "assigned"


def test_null_score_without_label_gives_the_default(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, None, THRESHOLDS, default="fallback") == "fallback"


def test_null_score_without_label_or_default_is_null(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, None, THRESHOLDS) is None


def test_score_without_thresholds_keeps_the_assigned_label(evaluate: Evaluate, rules_text: Rules) -> None:
    assert decided(evaluate, rules_text, 10, None, label="assigned", default="fallback") == "assigned"
    assert decided(evaluate, rules_text, 10, None, default="fallback") == "fallback"


def test_a_score_of_zero_still_uses_the_thresholds(evaluate: Evaluate, rules_text: Rules) -> None:
    rules = rules_text(
        {"id": "up", "actions": {"increment_score": 1}},
        {"id": "down", "actions": {"increment_score": -1, "assign_label": "assigned"}},
        decision={"score_thresholds": THRESHOLDS},
    )
    assert evaluate(rules=rules)["label"] == "neutral"
