"""The JSON Schemas as a map for the editor: the schema node at a key path, the keys and values it
allows, what it is called in words, and its example.

Completion, hover and the rule snippet read only from here, so what the editor says is what
`schemas/*.schema.json` says: a new condition added to the schema shows up in completion without a
change in this package.
"""

from __future__ import annotations

from typing import Any

from evalkit import schemas
from evalkit.engine.type_words import TYPE_WORDS
from evalkit.engine.validator import follow_ref, matching
from evalkit.lsp.yamlcontext import KeyPath

Schema = dict[str, Any]
_MAX_REF_DEPTH = 16  # the shipped schemas nest two deep; a cycle must not hang the server

DIMENSION_VOCABULARY = "unknown-dimension"  # the x-code the schemas give the dimension-name enum
# dimensions.yaml names the dimensions as the keys of `dimensions` (schema `properties`, no enum to mark)
_DIMENSION_TABLES = {("dimensions", ("dimensions",))}

# the type words of the messages, without their article: a hover says `list of strings`
_TYPE_WORDS = {name: words.removeprefix("an ").removeprefix("a ") for name, words in TYPE_WORDS.items()}
_PLURALS = {"mapping": "mappings", "string": "strings", "number": "numbers", "integer": "integers"}


def root(name: str) -> Schema:
    return schemas.load(name)


def resolve(top: Schema, node: Any) -> Schema:
    """`node` with its `$ref` followed; the referring node's own keywords (description, examples) win."""
    for _ in range(_MAX_REF_DEPTH):
        if not isinstance(node, dict) or "$ref" not in node:
            break
        target = _pointer(top, node["$ref"])
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node if isinstance(node, dict) else {}


def _pointer(top: Schema, ref: Any) -> Schema:
    """The schema `ref` points at; nothing (any value allowed) when it points nowhere."""
    try:
        node = follow_ref(top, str(ref))
    except (KeyError, TypeError):
        return {}
    return node if isinstance(node, dict) else {}


def child(top: Schema, node: Schema, segment: str | int) -> Schema | None:
    """The schema of `node`'s entry `segment` (a key, or a list index), or None if it allows none."""
    if isinstance(segment, int):
        items = node.get("items")
        return resolve(top, items) if isinstance(items, dict) else None
    properties = node.get("properties", {})
    if segment in properties:
        return resolve(top, properties[segment])
    patterns = node.get("patternProperties", {})
    matched = matching(patterns, segment)
    if matched:
        return resolve(top, patterns[matched[0]])
    extra = node.get("additionalProperties")
    return resolve(top, extra) if isinstance(extra, dict) else None


def node_at(name: str, path: KeyPath) -> Schema | None:
    """The schema node for `path` in the config file `name`, or None when the schema has no such place."""
    top = root(name)
    node: Schema | None = top
    for depth, segment in enumerate(path, start=1):
        if node is None:
            return None
        node = child(top, node, segment)
        if node is not None and name == "ruletest" and _holds_submission(path[:depth]):
            node = {**node, "properties": root("submission")["properties"]}
    return node


def _holds_submission(path: KeyPath) -> bool:
    """Whether a rule test file's `path` holds a submission, inline or as changes (`with`): its keys are
    the submission schema's (which has no `$ref` to resolve against the rule test schema)."""
    return (len(path) == 2 and path[0] == "submissions") or (
        len(path) == 3 and path[0] == "cases" and path[2] in ("submission", "with")
    )


def key_choices(top: Schema, node: Schema) -> list[tuple[str, Schema]]:
    """The keys a mapping allows, in schema order, each with its value's schema."""
    choices = [(key, resolve(top, sub)) for key, sub in node.get("properties", {}).items()]
    names = resolve(top, node.get("propertyNames", {}))
    extra = node.get("additionalProperties")
    value_schema = resolve(top, extra) if isinstance(extra, dict) else {}
    for key in names.get("enum", []):
        choices.append((str(key), {**value_schema, **_vocabulary_marks(names)}))
    return choices


def pattern_choices(top: Schema, node: Schema) -> list[tuple[str, Schema]]:
    """The key prefixes a mapping's `patternProperties` allow (`^x-`: `x-`), each with its schema."""
    patterns = node.get("patternProperties", {})
    return [(pattern.removeprefix("^"), resolve(top, sub)) for pattern, sub in patterns.items()]


def _vocabulary_marks(names: Schema) -> Schema:
    """Carry `x-code` from `propertyNames` to the key's entry, so a dimension key is known as one."""
    return {"x-code": names["x-code"]} if "x-code" in names else {}


def value_choices(node: Schema) -> list[Any]:
    """The values a scalar allows: its enum, or true and false."""
    if "enum" in node:
        return list(node["enum"])
    if node.get("type") == "boolean":
        return [True, False]
    return []


def is_mapping(node: Schema) -> bool:
    return node.get("type") == "object" or "properties" in node or "propertyNames" in node


def is_list_of_mappings(top: Schema, node: Schema) -> bool:
    items = node.get("items")
    return node.get("type") == "array" and isinstance(items, dict) and is_mapping(resolve(top, items))


def type_words(top: Schema, node: Schema) -> str:
    """What the node holds, in words: `list of string`, `mapping`, `one of: a, b`; a key's own title
    (`extension key (ignored)`) when the schema gives it one."""
    if isinstance(node.get("title"), str) and node is not top:
        return str(node["title"])
    if "enum" in node:
        return "one of: " + ", ".join(str(v) for v in node["enum"])
    kinds = node.get("type")
    if kinds is None and is_mapping(node):
        kinds = "object"
    names = [kinds] if isinstance(kinds, str) else list(kinds or [])
    words = " or ".join(_TYPE_WORDS.get(n, n) for n in names)
    items = node.get("items")
    if names == ["array"] and isinstance(items, dict):
        item_words = type_words(top, resolve(top, items))
        words += " of " + _PLURALS.get(item_words, item_words)
    return words or "any value"


def vocabulary(node: Schema) -> str | None:
    """The schema's name for the vocabulary a value or key belongs to (`unknown-dimension`), if any."""
    code = node.get("x-code")
    return code if isinstance(code, str) else None


def first_example(node: Schema) -> tuple[bool, Any]:
    examples = node.get("examples")
    if isinstance(examples, list) and examples:
        return True, examples[0]
    return False, None


def names_dimension(schema_name: str, path: KeyPath, is_key: bool) -> bool:
    """Whether the key (`is_key`) or the value at `path` in a config file is a dimension name."""
    if not is_key:
        node = node_at(schema_name, path)
        return node is not None and vocabulary(node) == DIMENSION_VOCABULARY
    if not path:
        return False
    if (schema_name, path[:-1]) in _DIMENSION_TABLES:
        return True
    parent = node_at(schema_name, path[:-1])
    names = resolve(root(schema_name), parent.get("propertyNames", {})) if parent else {}
    return vocabulary(names) == DIMENSION_VOCABULARY
