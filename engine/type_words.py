"""JSON types in plain words, for every message that says what was expected or found: `expected a
string, found a mapping` (a submission the engine refuses; a config the schema check refuses)."""

from __future__ import annotations

from typing import Any

TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}
"""A JSON Schema type, as what is expected."""


def json_type(value: Any) -> str:
    """The JSON type of a plain value (an integer is a number), or its Python type's name (a YAML date)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def found_words(value: Any) -> str:
    """What a value is, in words, as what was found: `a mapping`, `a boolean`, `a date` (YAML reads an
    unquoted 2024-01-01 as one)."""
    kind = json_type(value)
    if kind in ("array", "object") and not value:  # `needs at least 1 item, found an empty list`
        return f"an empty {TYPE_WORDS[kind].removeprefix('a ')}"
    if kind == "boolean":
        return "a boolean"
    return TYPE_WORDS.get(kind) or _YAML_ONLY_WORDS.get(kind, f"a {kind}")


_YAML_ONLY_WORDS = {"bytes": "binary data", "datetime": "a date and time"}
"""What YAML's own types (`!!binary`, a timestamp) are, in words; a date is `a date`."""
