"""One record per condition and per action (engine/conditions.py, engine/actions.py), and everything else
that names them held to the same names: the schema's keys in its order (schemas/ is the single source of
truth for file formats), the generated file reference (docs/reference/files.md, docs/generate.py), the
signals the records read and the diagnostic codes their checks report."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalkit import schemas
from evalkit.engine.actions import ACTIONS
from evalkit.engine.conditions import CONDITIONS
from evalkit.engine.context import Signals
from evalkit.engine.diagnostics import CODES, catalogue, describe
from evalkit.engine.submission import parse_submission

ROOT = Path(__file__).resolve().parents[2]
RULES = schemas.load("rules")["$defs"]
PAGE = (ROOT / "docs" / "reference" / "files.md").read_text(encoding="utf-8")
KINDS: list[Any] = [*CONDITIONS.values(), *ACTIONS.values()]


def test_the_records_are_the_schema_s_conditions_and_actions_in_its_order() -> None:
    assert list(CONDITIONS) == list(RULES["conditions"]["properties"])
    assert list(ACTIONS) == list(RULES["actions"]["properties"])
    assert all(name == kind.name for name, kind in [*CONDITIONS.items(), *ACTIONS.items()])


@pytest.mark.parametrize(("key", "registry"), [("when", CONDITIONS), ("actions", ACTIONS)])
def test_the_file_reference_documents_exactly_the_records(key: str, registry: dict[str, Any]) -> None:
    for rules in ("rating_rules", "ranking_rules"):
        documented = re.findall(rf"^### `{rules}\[\]\.{key}\.(\w+)`$", PAGE, re.MULTILINE)
        assert documented == list(registry)


def test_the_file_reference_says_what_each_condition_observed() -> None:
    for name, kind in CONDITIONS.items():
        section = PAGE.split(f"### `rating_rules[].when.{name}`\n", 1)[1].split("\n### ", 1)[0]
        assert section.rstrip().endswith(f"`held`, and {kind.explains}")


def test_the_actions_schema_names_the_order_the_records_apply_in() -> None:
    assert RULES["actions"]["description"].endswith(": " + ", ".join(ACTIONS) + ".")


def test_each_condition_reads_signals_that_exist_and_has_a_known_cost() -> None:
    sample = json.loads((ROOT / "samples" / "sample_submission.json").read_text(encoding="utf-8"))
    signals = Signals.of(parse_submission(sample))
    for kind in CONDITIONS.values():
        assert kind.reads or kind.name == "any_of", f"{kind.name} reads no signal (any_of's blocks read)"
        assert all(not callable(getattr(signals, name)) for name in kind.reads), kind.name
        assert kind.cost in (0, 1, 2, 3), kind.name


def test_a_check_comes_with_its_codes_each_catalogued_once() -> None:
    for kind in KINDS:
        assert (kind.check is None) == (not kind.problems), kind.name
        for code, meaning in kind.problems.items():
            assert code not in CODES, f"{code}: its meaning is its record's, not also in CODES"
            assert describe(code) == meaning == catalogue()[code]


def test_each_code_a_check_reports_is_shown_by_an_invalid_config() -> None:
    expected = [
        entry["code"]
        for path in (ROOT / "tests" / "check" / "configs" / "invalid").glob("*/expected.yaml")
        for entry in yaml.safe_load(path.read_text(encoding="utf-8"))
    ]
    for kind in KINDS:
        assert set(kind.problems) <= set(expected), kind.name
