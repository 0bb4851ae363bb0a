"""JSON Schema validation that speaks to people: each error at the offending node, in plain words.

An unknown key gets the closest valid key as a suggestion (and a fix), a wrong type says what was
expected, an enum lists the allowed values. Schema keyword `x-code` names the diagnostic code for an
enum that stands for a vocabulary (dimension names, submission fields).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from evalkit.engine.diagnostics import Diagnostic, Fix, Span, closest, error
from evalkit.engine.positions import line_end
from evalkit.engine.type_words import TYPE_WORDS, found_words
from evalkit.engine.validator import SchemaError, Validator, matching
from evalkit.engine.yamlsource import JsonPath, YamlDocument


@cache
def validator(schema_name: str) -> Validator:
    from evalkit import schemas

    return Validator(schemas.load(schema_name))


def schema_diagnostics(document: YamlDocument, schema_name: str) -> list[Diagnostic]:
    """Every schema violation in `document`, positioned and worded for people. A node that aliases bring to
    several places (an anchored mapping two rules merge) is one problem, reported once, where it is."""
    out: list[Diagnostic] = []
    seen: set[tuple[Span, str, str]] = set()
    checker = validator(schema_name)
    for err in checker.iter_errors(document.data):
        for found in _translate(err, document, checker):
            key = (found.span, found.code, _PATH_WORDS.sub("", found.message))
            if key not in seen:
                seen.add(key)
                out.append(found)
    return out


_PATH_WORDS = re.compile(r" (?:in [^\s,;:]+|at the top level)")
"""Where a message says the node is (`_where`): the same node reached through two aliases differs there
only."""


def describe_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return found_words(value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string '{shown}'"
    return f"the number {value}" if isinstance(value, (int, float)) else f"{found_words(value)} ({value})"


def _where(path: JsonPath) -> str:
    if not path:
        return "at the top level"
    parts = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return f"in {parts.lstrip('.')}"


def _types(expected: str | list[str]) -> str:
    names = [expected] if isinstance(expected, str) else expected
    return " or ".join(TYPE_WORDS.get(n, n) for n in names)


def _translate(err: SchemaError, document: YamlDocument, checker: Validator) -> Iterator[Diagnostic]:
    path: JsonPath = err.absolute_path
    kind = err.validator
    if kind == "additionalProperties":
        yield from _unknown_keys(err, document, path)
    elif kind == "required":
        yield _missing_key(err, document, path, checker)
    elif err.in_property_name:
        yield _not_allowed(err, document, document.key_span((*path, err.instance)))
    elif kind == "type":
        yield error(
            document.path,
            document.value_span(path),
            "wrong-type",
            f"expected {_types(err.validator_value)} {_where(path)}, found {describe_value(err.instance)}",
        )
    elif kind == "enum":
        yield _not_allowed(err, document, document.value_span(path))
    else:
        yield error(
            document.path,
            document.value_span(path),
            f"schema-{kind.lower()}",
            f"{_where(path)}: {_plain_message(err)}",
        )


def _plain_message(err: SchemaError) -> str:
    kind, limit = err.validator, err.validator_value
    words = {
        "minimum": f"must be at least {limit}",
        "maximum": f"must be at most {limit}",
        "minItems": f"needs at least {limit} item{'s' if limit != 1 else ''}",
        "maxItems": f"takes at most {limit} item{'s' if limit != 1 else ''}",
        "minLength": "must not be empty" if limit == 1 else f"needs at least {limit} characters",
        "minProperties": "must not be empty",
    }
    return f"{words.get(kind, f'fails {kind} {limit}')}, found {describe_value(err.instance)}"


def _allowed_keys(schema: dict[str, Any]) -> list[str]:
    return list(schema.get("properties", {}))


def _extension_words(schema: dict[str, Any]) -> str:
    """How the keys of `patternProperties` (`^x-`) read in a list of valid keys: `, or x-NAME (...)`."""
    prefixes = [pattern.removeprefix("^") for pattern in schema.get("patternProperties", {})]
    return "".join(f", or {prefix}NAME (an extension key, ignored)" for prefix in prefixes)


def _unknown_keys(err: SchemaError, document: YamlDocument, path: JsonPath) -> Iterator[Diagnostic]:
    allowed = _allowed_keys(err.schema)
    patterns = err.schema.get("patternProperties", {})
    for key in err.instance:
        if key in allowed or matching(patterns, key):
            continue
        key_span = document.key_span((*path, key))
        suggestion = closest(key, allowed)
        message = f"unknown key '{key}' {_where(path)}"
        fix = None
        if suggestion:
            message += f"; did you mean '{suggestion}'?"
            fix = Fix(f"Replace with '{suggestion}'", key_span, suggestion)
        else:
            message += f"; valid keys: {', '.join(allowed)}{_extension_words(err.schema)}"
        yield error(document.path, key_span, "unknown-key", message, fix)


def _missing_key(err: SchemaError, document: YamlDocument, path: JsonPath, checker: Validator) -> Diagnostic:
    missing = err.validator_value if isinstance(err.validator_value, list) else []
    name = next((m for m in missing if m not in err.instance), "?")
    span = document.value_span(path)
    entry = f"{name}: {_placeholder(err.schema.get('properties', {}).get(name, {}), checker)}"
    lines = document.lines()
    line_text = lines[span.line - 1] if span.line <= len(lines) else ""
    if line_text[span.column - 1 : span.column] == "{":  # a flow mapping: the key goes inside the braces
        at = Span.point(span.line, span.column + 1)
        fix = Fix(f"Insert '{name}'", at, entry + (", " if err.instance else ""))
    else:
        at = Span.point(span.line, span.column)
        fix = Fix(f"Insert '{name}'", at, f"{entry}{line_end(document.text)}{' ' * (span.column - 1)}")
    return error(
        document.path,
        document.key_span(path) if not path or isinstance(path[-1], str) else span,
        "missing-key",
        f"missing required key '{name}' {_where(path)}",
        fix,
    )


def _placeholder(schema: dict[str, Any], checker: Validator) -> str:
    """A value for an inserted key that fits its schema: the first example, else a value of its type."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        schema = {**checker.resolve(ref), **schema}
    if schema.get("$ref") == "#/$defs/rule_id":
        return "new_rule"  # an example id would repeat a rule's
    for values in (schema.get("examples"), schema.get("enum")):
        if isinstance(values, list) and values:
            return json.dumps(values[0], ensure_ascii=False)  # JSON is flow YAML
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    return {"string": '""', "number": "0", "integer": "0", "boolean": "false", "array": "[]"}.get(
        str(kind), "{}"
    )


def _not_allowed(err: SchemaError, document: YamlDocument, span: Span) -> Diagnostic:
    """A key or value outside its vocabulary (an enum), with the closest allowed one suggested."""
    allowed = [str(v) for v in err.schema.get("enum", [])]
    code = err.schema.get("x-code", "invalid-value")
    value = err.instance
    if code.startswith("unknown-"):
        message = f"unknown {code.removeprefix('unknown-')} '{value}' {_where(err.absolute_path)}"
    else:
        message = f"{describe_value(value)} is not allowed {_where(err.absolute_path)}"
    suggestion = closest(str(value), allowed) if isinstance(value, str) else None
    choices = f"expected one of: {', '.join(allowed)}"
    if suggestion:
        return error(
            document.path,
            span,
            code,
            f"{message}; did you mean '{suggestion}'? ({choices})",
            Fix(f"Replace with '{suggestion}'", span, suggestion),
        )
    return error(document.path, span, code, f"{message}; {choices}")
