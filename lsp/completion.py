"""Completion from the schemas and the config.

At a key position: the keys the schema allows there (condition names inside `when`, action names
inside `actions`, top-level keys), less the keys already present, and under a rule list a snippet for
a new rule built from the rule schema. At a value position: the schema's enum values (dimension names
after `dimension:`), true/false, the flag and label names the rules already use, and in a rule test's
`fired`, `must_fire` and `must_not_fire` lists the config's rule ids. Every item carries its schema
documentation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from lsprotocol import types

from evalkit.engine.semantic import rule_entries
from evalkit.lsp import schemanav
from evalkit.lsp.docs import DimensionSetting, dimension_markdown, key_markdown
from evalkit.lsp.schemanav import DIMENSION_VOCABULARY, Schema
from evalkit.lsp.yamlcontext import Cursor, KeyPath
from evalkit.services.ruletests.load import ID_LISTS

# Names the user makes up: the schemas cannot list them, the config already uses them.
# A value under one of these keys names a flag or label; so does a key under `score_thresholds`; an item
# of a rule test's id lists names a rule.
VALUE_VOCABULARY = {"set_flag": "flags", "assign_label": "labels", "default_label": "labels"}
KEY_VOCABULARY = {"score_thresholds": "labels"}
ITEM_VOCABULARY = dict.fromkeys(ID_LISTS, "rule ids")


@dataclass(frozen=True, slots=True)
class ClientSupport:
    snippets: bool = False
    markdown: bool = True
    insert_as_is: bool = False  # the client honours insertTextMode asIs (no re-indenting of our text)

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities) -> ClientSupport:
        text = capabilities.text_document
        item = text.completion.completion_item if text and text.completion else None
        if item is None:
            return cls(markdown=False)
        modes = item.insert_text_mode_support.value_set if item.insert_text_mode_support else []
        return cls(
            bool(item.snippet_support),
            types.MarkupKind.Markdown in (item.documentation_format or []),
            types.InsertTextMode.AsIs in modes,
        )


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What the config itself names: flags and labels in use, dimensions, rule ids."""

    # "flags"/"labels" -> sorted names; "rule ids" -> the ids in the rules file's order
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dimensions: dict[str, DimensionSetting] = field(default_factory=dict)
    rule_ids: Callable[[], Iterable[str]] = tuple  # asked only for a new rule (it reads the whole text)

    @classmethod
    def of(
        cls, rules: Any, dimensions: dict[str, DimensionSetting], rule_ids: Callable[[], Iterable[str]]
    ) -> Vocabulary:
        found: dict[str, set[str]] = {"flags": set(), "labels": set()}
        _collect_names(rules, found)
        names = {kind: tuple(sorted(used)) for kind, used in found.items()}
        ids = (rule.get("id") for _, rule in rule_entries(rules))
        names["rule ids"] = tuple(dict.fromkeys(i for i in ids if isinstance(i, str) and i))
        return cls(names, dimensions, rule_ids)


def _collect_names(data: Any, found: dict[str, set[str]]) -> None:
    if isinstance(data, list):
        for item in data:
            _collect_names(item, found)
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        if key in VALUE_VOCABULARY and isinstance(value, str) and value:
            found[VALUE_VOCABULARY[key]].add(value)
        if key in KEY_VOCABULARY and isinstance(value, dict):
            found[KEY_VOCABULARY[key]].update(str(name) for name in value)
        _collect_names(value, found)


@dataclass(frozen=True, slots=True)
class _Request:
    top: Schema
    cursor: Cursor
    line_text: str
    vocabulary: Vocabulary
    support: ClientSupport
    replace: types.Range


def complete(
    schema_name: str,
    cursor: Cursor,
    line_text: str,
    vocabulary: Vocabulary,
    support: ClientSupport,
    replace: types.Range,
) -> list[types.CompletionItem]:
    """The completion items at `cursor` in a config file of kind `schema_name`; `replace` is the range
    of the word being typed, which each item replaces."""
    request = _Request(schemanav.root(schema_name), cursor, line_text, vocabulary, support, replace)
    node = schemanav.node_at(schema_name, cursor.path)
    if cursor.kind == "value":
        return _values(request, node)
    if node is not None and not schemanav.is_mapping(node) and (cursor.after_item or cursor.in_flow):
        return _values(request, node)  # a scalar list item (`- hea|`) takes values, not keys
    return _keys(request, node)


def _keys(request: _Request, node: Schema | None) -> list[types.CompletionItem]:
    if node is None:
        return []
    if schemanav.is_list_of_mappings(request.top, node):
        return _rule_snippet(request, node)
    choices = schemanav.key_choices(request.top, node)
    vocabulary = KEY_VOCABULARY.get(str(request.cursor.path[-1])) if request.cursor.path else None
    if vocabulary is not None:
        value_schema = schemanav.child(request.top, node, "") or {}
        choices += [(name, value_schema) for name in request.vocabulary.names.get(vocabulary, ())]
    fresh = [(name, sub) for name, sub in choices if name not in request.cursor.existing]
    items = [_key_item(request, name, sub, rank) for rank, (name, sub) in enumerate(fresh)]
    prefixes = schemanav.pattern_choices(request.top, node)
    return items + [_prefix_item(request, *choice, len(items) + rank) for rank, choice in enumerate(prefixes)]


def _key_item(
    request: _Request, name: str, node: Schema, rank: int, text: str | None = None
) -> types.CompletionItem:
    """A key to complete: `text` is what it inserts (by default the key and what its value starts with)."""
    text = _key_text(request, name, node) if text is None else text
    return types.CompletionItem(
        label=name,
        kind=types.CompletionItemKind.Property,
        detail=schemanav.type_words(request.top, node),
        documentation=_documentation(request, _key_docs(request, name, node)),
        sort_text=f"{rank:04d}",
        text_edit=types.TextEdit(request.replace, text),
        insert_text_format=types.InsertTextFormat.PlainText,
        insert_text_mode=_mode(request, text),
    )


def _key_docs(request: _Request, name: str, node: Schema) -> str:
    if schemanav.vocabulary(node) == DIMENSION_VOCABULARY:
        return dimension_markdown(name, request.vocabulary.dimensions.get(name))
    return key_markdown(request.top, name, node)


def _prefix_item(request: _Request, prefix: str, node: Schema, rank: int) -> types.CompletionItem:
    """A key of the user's own naming that the schema allows by its prefix (`x-`): the prefix alone."""
    return _key_item(request, prefix, node, rank, text=prefix)


def _key_text(request: _Request, name: str, node: Schema) -> str:
    """The key, and what a value of its kind starts with: a new indented line for a mapping or a list
    of mappings, a space otherwise."""
    cursor = request.cursor
    if request.line_text[cursor.word_end :].lstrip().startswith(":"):
        return name
    if cursor.in_flow:
        return f"{name}: "
    indent = " " * (cursor.word_start + 2)
    if schemanav.is_list_of_mappings(request.top, node):
        return f"{name}:\n{indent}- "
    if schemanav.is_mapping(node):
        return f"{name}:\n{indent}"
    return f"{name}: "


def _values(request: _Request, node: Schema | None) -> list[types.CompletionItem]:
    vocabulary = _vocabulary_at(request.cursor.path)
    if vocabulary is not None:
        names = request.vocabulary.names.get(vocabulary, ())
        return [
            _value_item(request, name, f"{vocabulary[:-1]} used in this config", rank)
            for rank, name in enumerate(names)
        ]
    if node is None:
        return []
    dimension = schemanav.vocabulary(node) == DIMENSION_VOCABULARY
    items = []
    for rank, value in enumerate(schemanav.value_choices(node)):
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        docs = dimension_markdown(text, request.vocabulary.dimensions.get(text)) if dimension else None
        items.append(_value_item(request, text, schemanav.type_words(request.top, node), rank, docs))
    return items


def _vocabulary_at(path: KeyPath) -> str | None:
    """The names the user made up that a value at `path` takes, if it takes such names."""
    if len(path) > 1 and isinstance(path[-1], int):
        return ITEM_VOCABULARY.get(str(path[-2]))
    key = next((s for s in reversed(path) if isinstance(s, str)), "")
    return VALUE_VOCABULARY.get(key)


def _value_item(
    request: _Request, text: str, detail: str, rank: int, docs: str | None = None
) -> types.CompletionItem:
    return types.CompletionItem(
        label=text,
        kind=types.CompletionItemKind.EnumMember,
        detail=detail,
        documentation=_documentation(request, docs) if docs else None,
        sort_text=f"{rank:04d}",
        text_edit=types.TextEdit(request.replace, text),
        insert_text_format=types.InsertTextFormat.PlainText,
    )


def _documentation(request: _Request, markdown: str) -> types.MarkupContent:
    kind = types.MarkupKind.Markdown if request.support.markdown else types.MarkupKind.PlainText
    return types.MarkupContent(kind, markdown)


def _mode(request: _Request, text: str) -> types.InsertTextMode | None:
    return types.InsertTextMode.AsIs if "\n" in text and request.support.insert_as_is else None


def _rule_snippet(request: _Request, list_node: Schema) -> list[types.CompletionItem]:
    """A new list entry with every key of the item schema, placeholders filled from its examples."""
    item = schemanav.resolve(request.top, list_node.get("items"))
    if "id" not in item.get("properties", {}):
        return []
    snippet = _Snippet()
    _fill_rule(snippet, request, item)
    indent = "\n" + " " * request.cursor.word_start
    body = snippet.render(request.support.snippets).replace("\n", indent)
    plain = snippet.render(False).replace("\n", indent)
    return [
        types.CompletionItem(
            label="new rule",
            kind=types.CompletionItemKind.Snippet,
            detail="a rule with " + ", ".join(item["properties"]),
            documentation=_documentation(request, f"Insert a new rule:\n```yaml\n{plain}\n```"),
            filter_text="new rule",
            text_edit=types.TextEdit(request.replace, body),
            insert_text_format=types.InsertTextFormat.Snippet
            if request.support.snippets
            else types.InsertTextFormat.PlainText,
            insert_text_mode=_mode(request, body),
        )
    ]


def _fill_rule(snippet: _Snippet, request: _Request, item: Schema) -> None:
    for rank, (key, sub) in enumerate(item["properties"].items()):
        node = schemanav.resolve(request.top, sub)
        snippet.text(("- " if rank == 0 else "\n  ") + f"{key}:")
        if key == "id":
            snippet.text(" ")
            snippet.field(_fresh_id(frozenset(request.vocabulary.rule_ids())))
        elif schemanav.is_mapping(node):
            _fill_first_entry(snippet, request, node)
        else:
            snippet.text(" ")
            snippet.field(_placeholder(node))


def _fill_first_entry(snippet: _Snippet, request: _Request, node: Schema) -> None:
    """`when:` / `actions:` get their first schema key with its example value."""
    choices = schemanav.key_choices(request.top, node)
    if not choices:
        return
    name, sub = choices[0]
    snippet.text("\n    ")
    snippet.field(name)
    snippet.text(": ")
    snippet.field(_placeholder(sub))


def _placeholder(node: Schema) -> str:
    found, example = schemanav.first_example(node)
    if found:
        return _flow(example)
    description = str(node.get("description", ""))
    return description.split(";")[0].split(".")[0].strip()


def _flow(value: Any) -> str:
    """A value as one line of YAML: flow style for lists and mappings, JSON quoting for strings."""
    if isinstance(value, (list, dict)):
        return yaml.safe_dump(
            value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=float("inf")
        ).strip()
    return json.dumps(value, ensure_ascii=False)


def _fresh_id(taken: frozenset[str]) -> str:
    number = 1
    while f"new_rule_{number}" in taken:
        number += 1
    return f"new_rule_{number}"


class _Snippet:
    """Text with numbered placeholders, rendered as an LSP snippet or as the plain default text."""

    def __init__(self) -> None:
        self._parts: list[tuple[bool, str]] = []

    def text(self, literal: str) -> None:
        self._parts.append((False, literal))

    def field(self, default: str) -> None:
        self._parts.append((True, default))

    def render(self, as_snippet: bool) -> str:
        if not as_snippet:
            return "".join(text for _, text in self._parts)
        out, number = [], 0
        for is_field, text in self._parts:
            if is_field:
                number += 1
                out.append(f"${{{number}:{_escape(text)}}}")
            else:
                out.append(_escape(text))
        return "".join(out)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")
