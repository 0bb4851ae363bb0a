"""A small, fast validator for the JSON Schema (draft 2020-12) subset that evalkit's schemas use.

Why not `jsonschema`: importing it costs about 75 ms, half of `evalkit check`'s whole budget on every
pre-commit run, and its errors need reshaping anyway. This validator yields errors with the same fields
(`validator`, `validator_value`, `instance`, `absolute_path`, `schema`) for the keywords in SUPPORTED;
tests/engine/test_validator.py proves it agrees with `jsonschema` on every schema and refuses a schema
that uses any other keyword, so the two cannot drift apart silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

SUPPORTED = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$defs",
        "title",
        "description",
        "examples",
        "x-code",
        "type",
        "enum",
        "properties",
        "patternProperties",
        "additionalProperties",
        "required",
        "propertyNames",
        "minProperties",
        "items",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "minLength",
    }
)

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class SchemaError:
    validator: str
    validator_value: Any
    instance: Any
    absolute_path: Path
    schema: dict[str, Any]
    in_property_name: bool = False


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


def follow_ref(root: dict[str, Any], ref: str) -> Any:
    """What a local `$ref` (`#/$defs/name`) points at in the schema `root`, for every reader of the schemas
    (this validator, the editor's schema map); raises KeyError when it points nowhere, TypeError when it
    goes through a value that is no mapping."""
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


class Validator:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        yield from self._check(instance, self.root, ())

    def is_valid(self, instance: Any) -> bool:
        return next(self.iter_errors(instance), None) is None

    def resolve(self, ref: str) -> dict[str, Any]:
        """The schema a local `$ref` (`#/$defs/name`) points at."""
        schema: dict[str, Any] = follow_ref(self.root, ref)
        return schema

    def _check(
        self, value: Any, schema: dict[str, Any], path: Path, name: bool = False
    ) -> Iterator[SchemaError]:
        if "$ref" in schema:
            yield from self._check(value, self.resolve(schema["$ref"]), path, name)
        expected = schema.get("type")
        if expected is not None and not _has_type(value, expected):
            yield SchemaError("type", expected, value, path, schema, name)
            return
        if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
            yield SchemaError("enum", schema["enum"], value, path, schema, name)
        if isinstance(value, dict):
            yield from self._object(value, schema, path)
        elif isinstance(value, list):
            yield from self._array(value, schema, path)
        elif isinstance(value, str):
            if len(value) < schema.get("minLength", 0):
                yield SchemaError("minLength", schema["minLength"], value, path, schema, name)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield from _bounds(value, schema, path)

    def _object(self, value: dict[str, Any], schema: dict[str, Any], path: Path) -> Iterator[SchemaError]:
        missing = [key for key in schema.get("required", ()) if key not in value]
        if missing:
            yield SchemaError("required", schema["required"], value, path, schema)
        if len(value) < schema.get("minProperties", 0):
            yield SchemaError("minProperties", schema["minProperties"], value, path, schema)
        properties = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        extra = schema.get("additionalProperties", True)
        names = schema.get("propertyNames")
        if extra is False and any(key not in properties and not matching(patterns, key) for key in value):
            yield SchemaError("additionalProperties", False, value, path, schema)
        for key, item in value.items():
            if names is not None:
                yield from self._check(key, names, path, name=True)
            matched = matching(patterns, key)
            if key in properties:
                yield from self._check(item, properties[key], (*path, key))
            elif isinstance(extra, dict) and not matched:
                yield from self._check(item, extra, (*path, key))
            for pattern in matched:
                yield from self._check(item, patterns[pattern], (*path, key))

    def _array(self, value: list[Any], schema: dict[str, Any], path: Path) -> Iterator[SchemaError]:
        if len(value) < schema.get("minItems", 0):
            yield SchemaError("minItems", schema["minItems"], value, path, schema)
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            yield SchemaError("maxItems", schema["maxItems"], value, path, schema)
        items = schema.get("items")
        if items is not None:
            for index, item in enumerate(value):
                yield from self._check(item, items, (*path, index))


def matching(patterns: dict[str, Any], key: str) -> list[str]:
    """The `patternProperties` patterns that the key `key` matches (anywhere in it, as JSON Schema's
    patterns do)."""
    return [pattern for pattern in patterns if re.search(pattern, key)] if patterns else []


def _has_type(value: Any, expected: str | list[str]) -> bool:
    if isinstance(expected, str):
        return _TYPE_CHECKS[expected](value)
    return any(_TYPE_CHECKS[name](value) for name in expected)


def _same(value: Any, choice: Any) -> bool:
    return value == choice and isinstance(value, bool) == isinstance(choice, bool)


def _bounds(value: float, schema: dict[str, Any], path: Path) -> Iterator[SchemaError]:
    if "minimum" in schema and value < schema["minimum"]:
        yield SchemaError("minimum", schema["minimum"], value, path, schema)
    if "maximum" in schema and value > schema["maximum"]:
        yield SchemaError("maximum", schema["maximum"], value, path, schema)


def unsupported_keywords(schema: Any, at: str = "#") -> list[str]:
    """Keywords in `schema` this validator does not implement (where they are), for the drift test."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key not in SUPPORTED:
                found.append(f"{at}/{key}")
            if key in ("properties", "patternProperties", "$defs"):
                for name, sub in value.items():
                    found += unsupported_keywords(sub, f"{at}/{key}/{name}")
            elif key in ("items", "additionalProperties", "propertyNames") and isinstance(value, dict):
                found += unsupported_keywords(value, f"{at}/{key}")
    return found
