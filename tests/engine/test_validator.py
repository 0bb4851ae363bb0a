"""The hand-written validator (engine/validator.py) agrees with the `jsonschema` package on every schema in
schemas/: the same errors (where, and which keyword) on hypothesis-generated instances, both near-valid
and arbitrary, and on every shipped and fixture YAML file; and it implements every keyword the schemas use."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit import schemas
from evalkit.engine.validator import Validator, follow_ref, unsupported_keywords
from evalkit.engine.yamlsource import parse_yaml

REPO = Path(__file__).parents[2]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(-10, 10) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = {**follow_ref(root, schema["$ref"]), **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def instances(schema: dict[str, Any], root: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly what `schema` describes (so that deep keywords are reached), sometimes anything at all."""
    if depth > 3:
        return JSON
    return (
        st.one_of(_conforming(_resolve(schema, root), root, depth), JSON)
        if depth
        else _conforming(_resolve(schema, root), root, depth)
    )


def _conforming(schema: dict[str, Any], root: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(schema["enum"]) | st.text(max_size=12)
    kinds = schema.get("type", ["object", "array", "string", "number"])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return st.one_of([_of_type(kind, schema, root, depth) for kind in kinds])


def _of_type(kind: str, schema: dict[str, Any], root: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if kind == "object":
        return _objects(schema, root, depth)
    if kind == "array":
        return st.lists(instances(schema.get("items", {}), root, depth + 1), max_size=3)
    scalars: dict[str, st.SearchStrategy[Any]] = {
        "string": st.text(max_size=3),
        "boolean": st.booleans(),
        "null": st.none(),
        "integer": st.integers(-3, 12) | st.just(2.0),
        "number": st.integers(-3, 12) | st.floats(-3, 12) | st.booleans(),
    }
    return scalars[kind]


def _objects(schema: dict[str, Any], root: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    known = {name: instances(sub, root, depth + 1) for name, sub in schema.get("properties", {}).items()}
    extra = schema.get("additionalProperties", True)
    names = _resolve(schema.get("propertyNames", {}), root)
    extra_keys = (
        st.sampled_from(names["enum"]) | st.text(max_size=6) if "enum" in names else st.text(max_size=8)
    )
    if schema.get("patternProperties"):  # keys that match a pattern, and keys that only contain it
        extra_keys = extra_keys | st.sampled_from(["x-a", "x-", "ax-", "X-a"])
    extra_values = instances(extra, root, depth + 1) if isinstance(extra, dict) else JSON
    return st.builds(
        lambda fixed, more: {**more, **fixed},
        st.fixed_dictionaries({}, optional=known),
        st.dictionaries(extra_keys, extra_values, max_size=2),
    )


@cache
def _validators(name: str) -> tuple[Validator, jsonschema.Draft202012Validator]:
    schema = schemas.load(name)
    return Validator(schema), jsonschema.Draft202012Validator(schema)


def _errors(name: str, instance: Any) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """(ours, theirs): each error as (path, keyword).

    One deliberate difference: after a wrong type, evalkit says nothing more about that node (`-1.5` for an
    integer with a minimum of 0 is "expected an integer", not also "must be at least 0"), so jsonschema's
    other errors at a node with a type error are left out of the comparison."""
    ours, theirs = _validators(name)
    mine = {(error.absolute_path, error.validator) for error in ours.iter_errors(instance)}
    found = {(tuple(error.absolute_path), str(error.validator)) for error in theirs.iter_errors(instance)}
    mistyped = {path for path, keyword in found if keyword == "type"}
    return mine, {(path, keyword) for path, keyword in found if path not in mistyped or keyword == "type"}


@pytest.mark.parametrize("name", schemas.NAMES)
def test_the_validator_implements_every_keyword_the_schema_uses(name: str) -> None:
    assert unsupported_keywords(schemas.load(name)) == []


def test_the_keyword_check_finds_a_keyword_the_validator_lacks() -> None:
    assert unsupported_keywords({"properties": {"a": {"oneOf": [], "type": "string"}}}) == [
        "#/properties/a/oneOf"
    ]


@pytest.mark.parametrize("name", schemas.NAMES)
def test_the_schema_is_valid_draft_2020_12(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(schemas.load(name))


@pytest.mark.parametrize("name", schemas.NAMES)
def test_both_validators_find_the_same_errors_on_generated_instances(name: str) -> None:
    schema = schemas.load(name)

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(instances(schema, schema))
    def agree(instance: Any) -> None:
        ours, theirs = _errors(name, instance)
        assert ours == theirs

    agree()


def _yaml_files() -> list[tuple[str, Path, Any]]:
    """(schema name, file, data) for every shipped and fixture file the loader can parse."""
    found = [(path.stem, path) for path in (REPO / "config_samples").glob("*.yaml")]
    found += [("ruletest", path) for path in (REPO / "config_samples" / "tests").glob("*.yaml")]
    for folder in ("tests/check/configs", "tests/ruletests/fixtures"):
        for path in sorted((REPO / folder).rglob("*.y*ml")):
            kind = "ruletest" if path.parent.name == "tests" else path.stem
            found += [(kind, path)] if kind in schemas.NAMES else []
    return [(kind, path, data) for kind, path in found for data in _parsed(path)]


def _parsed(path: Path) -> list[Any]:
    try:
        document, diagnostics = parse_yaml(path.read_text(encoding="utf-8"), str(path))
    except UnicodeDecodeError:
        return []
    return [document.data] if document is not None and not diagnostics else []


FILES = _yaml_files()


def test_the_files_compared_include_the_shipped_config_and_both_fixture_sets() -> None:
    names = {str(path.relative_to(REPO)) for _, path, _ in FILES}
    assert {
        "config_samples/rules.yaml",
        "tests/check/configs/invalid/unknown_keys/rules.yaml",
        "tests/ruletests/fixtures/broken_tests/tests/schema_errors.yaml",
    } <= names


@pytest.mark.parametrize(("name", "path", "data"), FILES, ids=[str(p.relative_to(REPO)) for _, p, _ in FILES])
def test_both_validators_agree_on_the_shipped_and_fixture_files(name: str, path: Path, data: Any) -> None:
    ours, theirs = _errors(name, data)
    assert ours == theirs


def test_a_ref_points_into_the_schema_or_raises() -> None:
    root = {"$defs": {"id": {"type": "string"}, "ids": [{"type": "integer"}]}}
    assert follow_ref(root, "#/$defs/id") == {"type": "string"}
    with pytest.raises(KeyError):
        follow_ref(root, "#/$defs/nowhere")
    with pytest.raises(TypeError):
        follow_ref(root, "#/$defs/ids/first")
