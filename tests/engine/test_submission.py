"""Submissions (README, "Evaluating submissions"): strict where it matters (missing required fields, wrong
types), lenient where
people are (out-of-scale ratings, nulls in optional fields, unknown keys, integer ids)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from evalkit.engine import DIMENSIONS, Evaluator, Submission, SubmissionError, load_config, parse_submission

Factory = Callable[..., dict[str, Any]]


def test_parses_the_minimal_submission(make_submission: Factory) -> None:
    parsed = parse_submission(make_submission())
    assert isinstance(parsed, Submission)
    assert parsed.prompt == "P"
    assert [(r.id, r.text) for r in parsed.responses] == [("a", "alpha"), ("b", "beta")]
    assert list(parsed.ranking) == ["a", "b"]
    assert parsed.ratings == {
        "instructions": 4.0,
        "accuracy": 4.2,
        "optimality": 3.8,
        "presentation": 4.0,
        "freshness": 3.5,
    }
    assert parsed.justification == ""
    assert parsed.rewrite_preferred == "rewrite"
    assert parsed.category == "algorithms"


@pytest.mark.parametrize("key", ["prompt", "responses", "ranking", "ratings"])
def test_missing_required_key_is_named(make_submission: Factory, key: str) -> None:
    data = make_submission()
    del data[key]
    with pytest.raises(SubmissionError, match=key):
        parse_submission(data)


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_missing_rating_is_named(make_submission: Factory, dimension: str) -> None:
    data = make_submission()
    del data["ratings"][dimension]
    with pytest.raises(SubmissionError, match=dimension):
        parse_submission(data)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"ratings": {"accuracy": "5"}}, "ratings.accuracy"),
        ({"ratings": {"accuracy": None}}, "ratings.accuracy"),
        ({"ratings": {"freshness": True}}, "ratings.freshness"),
        ({"ratings": {"justification": 3}}, "ratings.justification"),
        ({"prompt": None}, "prompt"),
        ({"prompt": 7}, "prompt"),
        ({"responses": [{"id": "a", "text": None}]}, "responses[0].text"),
        ({"responses": [{"id": "a"}]}, "responses[0]"),
        ({"responses": [{"text": "x"}]}, "responses[0]"),
        ({"responses": [{"id": "a", "text": "x"}, {"id": 1.5, "text": "y"}]}, "responses[1].id"),
        ({"responses": [{"id": True, "text": "x"}]}, "responses[0].id"),
        ({"responses": [{"id": "a", "text": "x", "meta": "m"}]}, "responses[0].meta"),
        ({"responses": ["a"]}, "responses[0]"),
        ({"responses": []}, "responses"),
        ({"responses": {"a": "x"}}, "responses"),
        ({"ranking": "a,b"}, "ranking"),
        ({"ranking": ["a", None]}, "ranking[1]"),
        ({"ranking": [["a"]]}, "ranking[0]"),
        ({"ratings": [4, 4, 4, 4, 4]}, "ratings"),
        ({"category": 3}, "category"),
        ({"rewrite_preferred": ["x"]}, "rewrite_preferred"),
        ({"evidence": 3}, "evidence"),
    ],
)
def test_wrong_types_are_errors_naming_the_field(
    make_submission: Factory, change: dict[str, Any], where: str
) -> None:
    with pytest.raises(SubmissionError) as caught:
        parse_submission(make_submission(**change))
    assert caught.value.where == where
    assert str(caught.value).startswith(where)


@pytest.mark.parametrize("data", [None, [], "submission", 3])
def test_a_submission_must_be_a_mapping(data: Any) -> None:
    with pytest.raises(SubmissionError):
        parse_submission(data)
    with pytest.raises(SubmissionError, match="expected a mapping"):  # not a TypeError, compiled or not
        Evaluator(load_config()).evaluate(data)


def test_out_of_scale_ratings_are_accepted(make_submission: Factory) -> None:
    parsed = parse_submission(make_submission(ratings={"instructions": 7, "accuracy": -1.5}))
    assert parsed.ratings["instructions"] == 7
    assert parsed.ratings["accuracy"] == -1.5


def test_null_optional_fields_are_as_if_absent(make_submission: Factory) -> None:
    parsed = parse_submission(
        make_submission(
            category=None,
            subcategory=None,
            difficulty=None,
            ranking_rationale=None,
            rewrite_preferred=None,
            evidence=None,
            ratings={"justification": None},
        )
    )
    assert (parsed.category, parsed.subcategory, parsed.difficulty, parsed.ranking_rationale) == (None,) * 4
    assert parsed.rewrite_preferred == ""
    assert parsed.justification == ""
    assert parsed.evidence is None
    absent = make_submission()
    for key in ("category", "subcategory", "difficulty", "rewrite_preferred"):
        del absent[key]
    del absent["ratings"]["justification"]
    assert parse_submission(absent) == parsed


def test_unknown_top_level_keys_are_kept_out_of_the_way(make_submission: Factory) -> None:
    exporter = {"name": "acme", "version": "3.2"}
    parsed = parse_submission(make_submission(exporter=exporter, rating_notes=None))
    assert parsed.extra == {"exporter": exporter, "rating_notes": None}
    assert parsed.prompt == "P"


def test_unknown_keys_in_ratings_and_responses_are_accepted(make_submission: Factory) -> None:
    data = make_submission(
        responses=[{"id": "a", "text": "x", "model": "m-1", "meta": {"k": 1}}],
        ranking=["a"],
        ratings={"confidence": "high"},
    )
    parsed = parse_submission(data)
    assert parsed.responses[0].meta == {"k": 1}
    assert set(parsed.ratings) == set(DIMENSIONS)


def test_integer_ids_are_kept_as_given(make_submission: Factory) -> None:
    parsed = parse_submission(
        make_submission(responses=[{"id": 1, "text": "one"}, {"id": "2", "text": "two"}], ranking=[1, "2"])
    )
    assert [r.id for r in parsed.responses] == [1, "2"]
    assert list(parsed.ranking) == [1, "2"]


def test_integer_ratings_become_numbers(make_submission: Factory) -> None:
    parsed = parse_submission(make_submission(ratings={"accuracy": 4}))
    assert parsed.ratings["accuracy"] == 4.0


def test_evaluate_takes_a_dict_or_a_parsed_submission(make_submission: Factory) -> None:
    evaluator = Evaluator(load_config())
    data = make_submission()
    assert evaluator.evaluate(data).to_dict() == evaluator.evaluate(parse_submission(data)).to_dict()


def test_evaluate_raises_submission_error_for_a_bad_dict(make_submission: Factory) -> None:
    with pytest.raises(SubmissionError, match=r"ratings\.accuracy"):
        Evaluator(load_config()).evaluate(make_submission(ratings={"accuracy": "high"}))


def test_submission_error_is_a_value_error() -> None:
    assert issubclass(SubmissionError, ValueError)


# --- numbers where JSON, JSON Schema and Python floats part ways ------------------------------------


def test_integer_valued_float_ids_are_accepted_as_the_schema_accepts_them(make_submission: Factory) -> None:
    # JSON Schema: "integer" includes 1.0 (a number with a zero fractional part); `1.0` is how some
    # exporters write integer ids
    data = make_submission(responses=[{"id": 1.0, "text": "one"}, {"id": 2, "text": "two"}], ranking=[2.0, 1])
    parsed = parse_submission(data)
    assert [r.id for r in parsed.responses] == [1, 2]
    assert list(parsed.ranking) == [2, 1]


def test_a_json_integer_too_large_for_a_float_is_still_a_number(make_submission: Factory) -> None:
    data = json.loads(json.dumps(make_submission()).replace('"accuracy": 4.2', '"accuracy": 1' + "0" * 400))
    assert data["ratings"]["accuracy"] == 10**400
    result = Evaluator(load_config()).evaluate(data).to_dict()
    assert 0.0 <= result["corrected_ratings"]["accuracy"]["updated"] <= 5.0


def test_a_json_number_beyond_float_range_ends_within_the_scale(make_submission: Factory) -> None:
    # Python reads the valid JSON number 1e400 as inf; the corrected rating must still be a number in scale
    data = json.loads(json.dumps(make_submission()).replace('"accuracy": 4.2', '"accuracy": 1e400'))
    result = Evaluator(load_config()).evaluate(data).to_dict()
    assert 0.0 <= result["corrected_ratings"]["accuracy"]["updated"] <= 5.0
    json.dumps(result["corrected_ratings"], allow_nan=False)
