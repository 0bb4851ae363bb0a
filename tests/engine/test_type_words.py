"""One table of type words (`engine/type_words.py`) for what a submission and a config file hold."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from evalkit.engine.schema_check import describe_value
from evalkit.engine.submission import SubmissionError, parse_submission
from evalkit.engine.type_words import TYPE_WORDS, found_words, json_type

SEED = json.loads((Path(__file__).parents[2] / "samples" / "sample_submission.json").read_text("utf-8"))


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (None, "null"),
        (True, "a boolean"),
        (3, "a number"),
        (2.5, "a number"),
        ("x", "a string"),
        ([1], "a list"),
        ({"a": 1}, "a mapping"),
        ([], "an empty list"),
        ({}, "an empty mapping"),
        (datetime.date(2026, 11, 25), "a date"),
    ],
)
def test_a_value_found_is_named_in_words(value: Any, words: str) -> None:
    assert found_words(value) == words


@pytest.mark.parametrize("value", [None, True, 3, [1], {"a": 1}])
def test_a_submission_and_the_schema_check_say_the_same_words(value: Any) -> None:
    with pytest.raises(SubmissionError) as refused:
        parse_submission({**SEED, "prompt": value})
    assert refused.value.reason == f"expected a string, found {found_words(value)}"
    if isinstance(value, dict | list):
        assert describe_value(value) == found_words(value)


def test_every_json_type_of_a_plain_value_has_its_words() -> None:
    for value in (None, True, 1, "s", [], {}):
        assert json_type(value) in TYPE_WORDS
