"""The docs site: its generated references match the schemas and the parsers, every example in the file
reference is valid and the engine runs each condition's and action's, and the site builds with warnings
as errors (mkdocs.yml: strict)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from evalkit import schemas
from evalkit.engine import Evaluator, load_config
from evalkit.lsp import schemanav

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = yaml.safe_load((ROOT / "samples" / "sample_submission.json").read_text())

_spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
assert _spec is not None and _spec.loader is not None
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)

EXAMPLES = [
    (name, path, node)
    for name in schemas.NAMES
    for path, _, node in generate.schema_keys(name)
    if schemanav.first_example(node)[0]
]


def test_the_generated_references_are_up_to_date() -> None:
    for path, text in generate.pages().items():
        assert path.read_text() == text, f"{path.name} is out of date: run python3 docs/generate.py"


def test_every_key_of_every_schema_is_in_the_file_reference() -> None:
    page = generate.PAGES["files"].read_text()
    for name in schemas.NAMES:
        for path, _, _ in generate.schema_keys(name):
            assert f"### `{'.'.join(path)}`" in page
    rules = schemas.load("rules")["$defs"]
    for kind in ("conditions", "actions"):
        for key in rules[kind]["properties"]:
            assert f"`rating_rules[].{'when' if kind == 'conditions' else 'actions'}.{key}`" in page


@pytest.mark.parametrize(
    ("name", "path", "node"), EXAMPLES, ids=[f"{n}:{'.'.join(p)}" for n, p, _ in EXAMPLES]
)
def test_each_example_is_valid_for_its_key(name: str, path: tuple[str, ...], node: dict[str, Any]) -> None:
    top = schemas.load(name)
    example = schemanav.first_example(node)[1]
    schema = {**node, "$defs": top.get("$defs", {})}
    jsonschema.Draft202012Validator(schema).validate(example)


def _rule_examples(kind: str) -> list[tuple[str, Any]]:
    top = schemas.load("rules")
    properties = top["$defs"][kind]["properties"]
    return [
        (key, schemanav.first_example(schemanav.resolve(top, node))[1]) for key, node in properties.items()
    ]


@pytest.mark.parametrize(("key", "example"), _rule_examples("conditions") + _rule_examples("actions"))
def test_each_condition_and_action_example_runs_in_a_rule(key: str, example: Any, tmp_path: Path) -> None:
    conditions = {name for name, _ in _rule_examples("conditions")}
    when = {key: example} if key in conditions else {"min_total_length": 0}
    actions = {"set_flag": "seen"} if key in conditions else {key: example}
    rule = {"id": "example", "when": when, "actions": actions}
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"rating_rules": [rule]}))
    result = Evaluator(load_config(tmp_path)).evaluate(SAMPLE).to_dict()
    if key not in conditions:
        assert [fired["id"] for fired in result["fired_rules"]] == ["example"]


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "reference" / "files" / "index.html").is_file()
