"""Laws that hold for every submission (hypothesis), with `jsonschema` as the oracle for what is valid:

- any schema-valid submission evaluates without an exception, its ratings end within the scale, the
  result is plain JSON (no NaN or Infinity), and evaluating a dict or its parsed Submission agrees;
- `parse_submission` accepts exactly what schemas/submission.schema.json accepts;
- the ranking is corrected as the seed's phase 4 says, and its feedback is the original's, whatever ids and
  repeats it holds (the shortcut for a ranking of every id once included);
- `rounded` is `round` for every float and number of digits.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from evalkit import schemas
from evalkit.engine import DIMENSIONS, Evaluator, SubmissionError, load_config, parse_submission
from evalkit.engine.plan import ConfigPlan
from evalkit.engine.submission import _checked, _well_typed
from tests.budget import examples

SCHEMA = jsonschema.Draft202012Validator(schemas.load("submission"))
SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

BUSY_RULES = """\
version: busy
options: { dedupe_comments: true, default_label: neutral }
decision:
  score_thresholds: { high: 3, mid: 0, low: -3 }
rating_rules:
  - id: contains
    when: { response_contains_any: [a, "1"], not_contains_any: [zz] }
    actions:
      adjust_dimension: { dimension: accuracy, delta: 2.5 }
      add_comment_template: "{{ signals.length_total }} {{ corrected.accuracy }} {{ detail }}"
      increment_score: 2
  - id: rewrite
    when:
      preferred_rewrite_missing_substring: [example]
      rewrite_regex_any: ['(a+)+$', '\\d']
    actions: { adjust_dimension: { dimension: freshness, delta: -4 }, set_flag: rx, increment_score: -1 }
  - id: either
    when:
      any_of:
        - { min_total_length: 3, max_total_length: 40 }
        - { dimension_gt: { instructions: 2 } }
        - { dimension_lt: { optimality: 2 } }
    actions: { adjust_dimension: { dimension: presentation, delta: -9 }, add_comment: seen, assign_label: x }
ranking_rules:
  - id: ranked
    actions: { adjust_dimension: { dimension: optimality, delta: 0.7 }, increment_score: 0.5 }
rewrite_rules:
  - id: close
    when: { ends_without_punct: true, shorter_than_min: true }
    actions: { append_text: ".", append_note: true }
"""
BUSY_OTHER = {
    "dimensions.yaml": "scale: [1, 4]\ndimensions:\n  accuracy: {ideal: 3, tolerance: 0.5}\n"
    "adjustment: {pull_fraction: 0.3, round: 1}\n"
    "validation: {require_justification_if_delta_ge: 0.5}\n",
    "ranking.yaml": "allow_duplicates: false\ncorrections: {append_missing: false}\n",
    "prompt.yaml": "required_fields: [prompt, category]\nlabel_checks: {difficulty_allow: [easy]}\n",
    "rewrite.yaml": "min_length: 20\npostprocessors: [{type: trim_spaces}, {type: ensure_period}]\n",
}


@pytest.fixture(scope="module")
def evaluators(tmp_path_factory: pytest.TempPathFactory) -> list[Evaluator]:
    folder: Path = tmp_path_factory.mktemp("busy")
    (folder / "rules.yaml").write_text(BUSY_RULES, encoding="utf-8")
    for name, text in BUSY_OTHER.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [Evaluator(load_config()), Evaluator(load_config(folder))]


@pytest.fixture(scope="module")
def default_plan() -> ConfigPlan:
    """The default config's plan, loaded once: the functions under test read it and change nothing in it."""
    plan = load_config().plan
    assert plan is not None
    return plan


# --- strategies --------------------------------------------------------------------------------------

texts = st.text(max_size=20)
ids = st.one_of(st.text(max_size=4), st.integers(-3, 3), st.integers())
numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False), st.integers(-10, 10), st.integers(), st.floats(-1, 6)
)
optional_text = st.one_of(st.none(), texts)
# edge values where JSON Schema and Python disagree most easily: integer-valued floats are JSON Schema
# integers, booleans are not numbers, and a JSON integer may be too large for a float
EDGES = st.sampled_from([0.0, 1.0, -2.0, 0.5, True, False, "", "1", 10**400, -(10**400)])
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=5),
        EDGES,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
responses = st.fixed_dictionaries(
    {"id": ids, "text": texts},
    optional={
        "meta": st.one_of(st.none(), st.dictionaries(st.text(max_size=5), json_values, max_size=2)),
        "model": json_values,
    },
)


answer_lists = st.lists(responses, min_size=1, max_size=4)
labels = st.one_of(optional_text, st.sampled_from(["algorithms", "easy", "  padded  "]))
evidence = st.one_of(
    st.none(),
    texts,
    st.lists(texts, max_size=2),
    st.dictionaries(st.text(max_size=3), texts, max_size=2),
)
extra_keys = st.sampled_from(["exporter", "x-extra", "notes"])
# (built once, here: a strategy built inside a composite is built again for each example it draws)


@st.composite
def valid_submissions(draw: st.DrawFn) -> dict[str, Any]:
    answers = draw(answer_lists)
    known = [r["id"] for r in answers]
    ranking = draw(st.lists(st.one_of(st.sampled_from(known), ids), max_size=6))
    ratings: dict[str, Any] = {name: draw(numbers) for name in DIMENSIONS}
    if draw(st.booleans()):
        ratings["justification"] = draw(optional_text)
    data: dict[str, Any] = {
        "prompt": draw(texts),
        "responses": answers,
        "ranking": ranking,
        "ratings": ratings,
    }
    for key in ("category", "subcategory", "difficulty", "ranking_rationale", "rewrite_preferred"):
        if draw(st.booleans()):
            data[key] = draw(labels)
    if draw(st.booleans()):
        data["evidence"] = draw(evidence)
    if draw(st.booleans()):
        data[draw(extra_keys)] = draw(json_values)
    return data


def paths_in(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the root included)."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths_in(item, (*at, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths_in(item, (*at, index)))
    return found


def mutate(data: Any, path: tuple[Any, ...], replacement: Any, delete: bool) -> Any:
    if not path:
        return replacement
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return data


@st.composite
def near_valid_submissions(draw: st.DrawFn) -> Any:
    """A valid submission with up to three random deletions or replacements anywhere in it."""
    data: Any = draw(valid_submissions())
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(paths_in(data)))
        data = mutate(data, path, draw(json_values), delete=bool(path) and draw(st.booleans()))
    return data


# --- properties ----------------------------------------------------------------------------------------


@SETTINGS
@given(valid_submissions())
def test_schema_valid_submissions_evaluate_within_scale(
    evaluators: list[Evaluator], data: dict[str, Any]
) -> None:
    assert SCHEMA.is_valid(data)
    for evaluator in evaluators:
        result = evaluator.evaluate(data).to_dict()
        low, high = evaluator.plan.scale
        for name, entry in result["corrected_ratings"].items():
            assert low <= entry["updated"] <= high, (name, entry)
        assert result["score"] is None or math.isfinite(result["score"])
        json.dumps(result, allow_nan=False)
        assert evaluator.evaluate(parse_submission(data)).to_dict() == result


@SETTINGS
@given(near_valid_submissions())
def test_parse_submission_accepts_exactly_what_the_schema_accepts(data: Any) -> None:
    expected = SCHEMA.is_valid(data)
    try:
        parse_submission(data)
    except SubmissionError:
        accepted = False
    else:
        accepted = True
    assert accepted == expected, list(SCHEMA.iter_errors(data))[:1]


SLOTS = [
    ("prompt",),
    ("responses",),
    ("responses", 0),
    ("responses", 0, "id"),
    ("responses", 0, "text"),
    ("responses", 0, "meta"),
    ("ranking",),
    ("ranking", 0),
    ("ratings",),
    ("ratings", "accuracy"),
    ("ratings", "freshness"),
    ("ratings", "justification"),
    ("category",),
    ("difficulty",),
    ("ranking_rationale",),
    ("rewrite_preferred",),
    ("evidence",),
]


@SETTINGS
@given(st.sampled_from(SLOTS), st.one_of(EDGES, json_values))
def test_every_field_accepts_exactly_the_values_the_schema_accepts(slot: tuple[Any, ...], value: Any) -> None:
    data = mutate(
        {
            "prompt": "P",
            "responses": [{"id": "a", "text": "t"}],
            "ranking": ["a"],
            "ratings": dict.fromkeys(DIMENSIONS, 3),
        },
        slot,
        value,
        delete=False,
    )
    expected = SCHEMA.is_valid(data)
    try:
        parse_submission(data)
    except SubmissionError:
        accepted = False
    else:
        accepted = True
    assert accepted == expected, (slot, value)


@SETTINGS
@given(
    st.one_of(
        valid_submissions(),
        near_valid_submissions(),
        st.sampled_from(SLOTS).flatmap(
            lambda slot: st.one_of(EDGES, json_values).map(
                lambda value: mutate(
                    {
                        "prompt": "P",
                        "responses": [{"id": "a", "text": "t"}],
                        "ranking": ["a"],
                        "ratings": dict.fromkeys(DIMENSIONS, 3),
                    },
                    slot,
                    value,
                    delete=False,
                )
            )
        ),
    )
)
def test_the_fast_path_builds_what_the_careful_path_builds(data: Any) -> None:
    fast = _well_typed(data)
    event("careful path" if fast is None else "fast path")
    if fast is None:
        return  # the careful path decides alone
    assert fast == _checked(data)
    assert SCHEMA.is_valid(data)


def _ranking_as_the_seed_says(
    ids: list[str], ranking: list[str], allow_duplicates: bool, append_missing: bool
) -> list[str]:
    """Phase 4 written plainly: known ids in order, unknown dropped, repeats dropped, missing appended."""
    kept: list[str] = []
    for rid in ranking:
        if rid in ids and (allow_duplicates or rid not in kept):
            kept.append(rid)
    missing = [rid for rid in ids if rid not in kept]
    return kept + missing if append_missing else kept


def _feedback_as_the_original_says(
    ids: list[str], ranking: list[str], require_all_ids: bool, templates: dict[str, str]
) -> str:
    """The original's texts written plainly: a repeat (removed or kept) is `had_duplicates`, a missing id
    `missing_ids`, an unknown id says nothing but evalkit's `unknown_ids` where given; else `complete`."""
    repeated = any(rid in ids and rid in ranking[:index] for index, rid in enumerate(ranking))
    missing = any(rid not in ranking for rid in ids) and require_all_ids
    unknown = any(rid not in ids for rid in ranking) and "unknown_ids" in templates
    found = [name for name, held in (("had_duplicates", repeated), ("missing_ids", missing)) if held]
    outcomes = found + (["unknown_ids"] if unknown else []) or ["complete"]
    return " ".join(templates[name] for name in outcomes if name in templates) or "Ranking processed."


@SETTINGS
@given(
    st.lists(st.sampled_from("abc"), min_size=1, max_size=4),
    st.lists(st.sampled_from("abcd"), max_size=5),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.dictionaries(st.sampled_from(["complete", "missing_ids", "had_duplicates", "unknown_ids"]),
                    st.sampled_from(["C", "M", "D", "U"])),
)  # fmt: skip
@example(["a", "b"], ["b", "a"], False, True, True, {"complete": "C"})  # complete: each id once, none unknown
def test_the_ranking_is_corrected_as_the_seed_says(
    ids: list[str],
    ranking: list[str],
    allow_duplicates: bool,
    append_missing: bool,
    require_all_ids: bool,
    templates: dict[str, str],
) -> None:
    from evalkit.engine.phases import normalize_ranking
    from evalkit.engine.plan import ConfigPlan, RankingPlan

    plan = ConfigPlan(
        ranking=RankingPlan(
            allow_duplicates, append_missing, require_all_ids=require_all_ids, feedback=templates
        )
    )
    submission = parse_submission(
        {
            "prompt": "P",
            "responses": [{"id": i, "text": "t"} for i in ids],
            "ranking": ranking,
            "ratings": dict.fromkeys(DIMENSIONS, 3.0),
        }
    )
    corrected, feedback, issues = normalize_ranking(plan, submission)
    assert corrected == _ranking_as_the_seed_says(ids, ranking, allow_duplicates, append_missing)
    assert feedback == _feedback_as_the_original_says(ids, ranking, require_all_ids, templates)
    assert issues["unknown"] == [rid for rid in ranking if rid not in ids]
    assert set(issues["missing"]) == set(ids) - set(ranking)


@SETTINGS
@given(
    st.one_of(
        st.floats(allow_nan=False),
        st.integers(-40, 40).map(lambda n: n / 8),
        st.integers(-(10**6), 10**6).map(lambda n: n / 1000),
    ),
    st.integers(0, 10),
)
def test_rounded_is_round(value: float, digits: int) -> None:
    from evalkit.engine.context import rounded

    assert rounded(value, digits) == round(value, digits)
    assert math.copysign(1, rounded(value, digits)) == math.copysign(1, round(value, digits))
