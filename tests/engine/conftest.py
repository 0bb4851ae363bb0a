"""Shared fixtures for the engine tests: config folders written from YAML strings, and submissions.

The minimal submission is chosen so that every hand computation stays simple:
text_space = "alpha\\nbeta\\nrewrite" (18 code points, 2 responses) and every rating sits exactly on its
built-in ideal, so the dimension phase keeps all of them.
"""

from __future__ import annotations

import copy
import itertools
import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalkit.engine import Config, Evaluator, load_config

IDEALS = {"instructions": 4.0, "accuracy": 4.2, "optimality": 3.8, "presentation": 4.0, "freshness": 3.5}

BASE_SUBMISSION: dict[str, Any] = {
    "prompt": "P",
    "category": "algorithms",
    "subcategory": "graphs",
    "difficulty": "easy",
    "responses": [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}],
    "ranking": ["a", "b"],
    "ratings": {**IDEALS, "justification": ""},
    "rewrite_preferred": "rewrite",
}

ConfigWriter = Callable[..., Path]
SubmissionFactory = Callable[..., dict[str, Any]]


@pytest.fixture
def write_config(tmp_path: Path) -> ConfigWriter:
    """`write_config(rules="...", dimensions="...")` writes a fresh config folder and returns its path.

    A keyword names the file (`rules` -> rules.yaml); a name with a suffix is used as is
    (`**{"rules.yml": ...}`). The YAML text is dedented.
    """
    counter = itertools.count(1)

    def write(**files: str) -> Path:
        folder = tmp_path / f"config{next(counter)}"
        folder.mkdir()
        for name, text in files.items():
            filename = name if name.endswith((".yaml", ".yml")) else f"{name}.yaml"
            (folder / filename).write_text(textwrap.dedent(text), encoding="utf-8")
        return folder

    return write


@pytest.fixture
def make_submission() -> SubmissionFactory:
    """A minimal valid submission; keyword arguments replace top-level fields, a `ratings` mapping merges."""

    def make(**changes: Any) -> dict[str, Any]:
        data = copy.deepcopy(BASE_SUBMISSION)
        if isinstance(changes.get("ratings"), dict):
            data["ratings"].update(changes.pop("ratings"))
        data.update(changes)
        return data

    return make


@pytest.fixture
def load(write_config: ConfigWriter) -> Callable[..., Config]:
    """Write a config folder from YAML strings and load it strictly."""

    def build(**files: str) -> Config:
        return load_config(write_config(**files))

    return build


@pytest.fixture
def evaluate(
    load: Callable[..., Config], make_submission: SubmissionFactory
) -> Callable[..., dict[str, Any]]:
    """`evaluate(submission=None, **config_files)`: the result object (`Result.to_dict()`)."""

    def run(submission: dict[str, Any] | None = None, **files: str) -> dict[str, Any]:
        evaluator = Evaluator(load(**files))
        return evaluator.evaluate(submission if submission is not None else make_submission()).to_dict()

    return run


@pytest.fixture
def explain(load: Callable[..., Config], make_submission: SubmissionFactory) -> Callable[..., dict[str, Any]]:
    """`explain(submission=None, **config_files)`: the --explain-json view (`Result.explain()`)."""

    def run(submission: dict[str, Any] | None = None, **files: str) -> dict[str, Any]:
        evaluator = Evaluator(load(**files))
        return evaluator.evaluate(submission if submission is not None else make_submission()).explain()

    return run


@pytest.fixture
def fired_ids() -> Callable[[dict[str, Any]], list[str]]:
    def ids(result: dict[str, Any]) -> list[str]:
        return [rule["id"] for rule in result["fired_rules"]]

    return ids


def rules_json(*rules: dict[str, Any], **top: Any) -> str:
    """rules.yaml text (JSON is YAML) for the given rules, as rating rules, plus top-level sections."""
    return json.dumps({**top, "rating_rules": list(rules)})


@pytest.fixture
def rules_text() -> Callable[..., str]:
    return rules_json


@pytest.fixture
def fires(evaluate: Callable[..., dict[str, Any]]) -> Callable[..., bool]:
    """`fires(when, submission=None, **other_files)`: whether a rule with this `when` fires."""

    def check(when: dict[str, Any], submission: dict[str, Any] | None = None, **files: str) -> bool:
        rule = {"id": "probe", "when": when, "actions": {"set_flag": "hit"}}
        result = evaluate(submission, rules=rules_json(rule), **files)
        fired = [r["id"] for r in result["fired_rules"]]
        assert fired in ([], ["probe"])
        assert result["flags"].get("hit", False) == (fired == ["probe"])
        return fired == ["probe"]

    return check
