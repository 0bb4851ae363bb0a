"""Completion through the real server: keys from the schemas at the cursor, enum values, dimension
names, the flags and labels in use, and the new-rule snippet, each item with its documentation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lsprotocol import types

from evalkit import schemas
from evalkit.engine.actions import ACTIONS
from evalkit.engine.conditions import CONDITIONS

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

DIMENSIONS = ["instructions", "accuracy", "optimality", "presentation", "freshness"]


def labels(items: list[types.CompletionItem]) -> list[str]:
    return [item.label for item in sorted(items, key=lambda item: item.sort_text or item.label)]


def edit_of(items: list[types.CompletionItem], label: str) -> tuple[tuple[int, int, int, int], str]:
    item = next(item for item in items if item.label == label)
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    r = edit.range
    return (r.start.line, r.start.character, r.end.line, r.end.character), edit.new_text


async def test_an_empty_file_offers_every_top_level_key_of_the_schema(editor: Editor) -> None:
    await editor.open("rules.yaml", "")
    items = await editor.completion("rules.yaml", 0, 0)
    assert labels(items) == [*schemas.load("rules")["properties"], "x-"]
    assert labels(items) == [
        "version",
        "options",
        "decision",
        "rating_rules",
        "ranking_rules",
        "rewrite_rules",
        "x-",
    ]
    extension = next(item for item in items if item.label == "x-")
    assert extension.detail == "extension key (ignored)"
    assert edit_of(items, "x-") == ((0, 0, 0, 0), "x-")
    assert edit_of(items, "rating_rules") == ((0, 0, 0, 0), "rating_rules:\n  - ")
    assert edit_of(items, "options") == ((0, 0, 0, 0), "options:\n  ")
    assert edit_of(items, "version") == ((0, 0, 0, 0), "version: ")


async def test_inside_when_the_conditions_not_yet_used_are_offered(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "{ accuracy: 4.5 }\n", "{ accuracy: 4.5 }\n      \n")
    items = await editor.completion("rules.yaml", 19, 6)
    used = {"preferred_rewrite_missing_substring", "dimension_gt"}
    assert labels(items) == [name for name in CONDITIONS if name not in used]
    assert edit_of(items, "any_of") == ((19, 6, 19, 6), "any_of:\n        - ")
    assert edit_of(items, "min_total_length") == ((19, 6, 19, 6), "min_total_length: ")


async def test_each_item_is_documented_from_its_schema(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "{ accuracy: 4.5 }\n", "{ accuracy: 4.5 }\n      \n")
    item = next(i for i in await editor.completion("rules.yaml", 19, 6) if i.label == "response_contains_any")
    schema = schemas.load("rules")["$defs"]["conditions"]["properties"]["response_contains_any"]
    assert item.detail == "list of strings"
    assert isinstance(item.documentation, types.MarkupContent)
    assert item.documentation.kind == types.MarkupKind.Markdown
    assert item.documentation.value == (
        f"**`response_contains_any`** · list of strings\n\n{schema['description']}\n\n"
        "Example:\n```yaml\nresponse_contains_any: [heap, priority queue]\n```"
    )


async def test_a_half_typed_key_is_completed_and_replaced_whole(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace(
        "rules.yaml", "      set_flag: low_accuracy\n", "      set_flag: low_accuracy\n      add_c\n"
    )
    assert await editor.diagnostics("rules.yaml") != []  # the document no longer parses
    items = await editor.completion("rules.yaml", 22, 11)
    assert labels(items) == [name for name in ACTIONS if name not in {"adjust_dimension", "set_flag"}]
    assert edit_of(items, "add_comment") == ((22, 6, 22, 11), "add_comment: ")


async def test_after_dimension_the_dimension_names_with_their_ideals(editor: Editor) -> None:
    await editor.open("rules.yaml")
    items = await editor.completion("rules.yaml", 20, 37)
    assert labels(items) == DIMENSIONS
    assert edit_of(items, "optimality") == ((20, 37, 20, 45), "optimality")
    accuracy = next(item for item in items if item.label == "accuracy")
    assert isinstance(accuracy.documentation, types.MarkupContent)
    assert accuracy.documentation.value.startswith("**dimension `accuracy`** · ideal 4.2, tolerance 1.2")


async def test_inside_dimension_gt_the_dimension_names(editor: Editor) -> None:
    await editor.open("rules.yaml")
    items = await editor.completion("rules.yaml", 18, 22)
    assert labels(items) == DIMENSIONS
    assert edit_of(items, "freshness") == ((18, 22, 18, 30), "freshness")


async def test_flags_and_labels_already_in_use(editor: Editor) -> None:
    await editor.open("rules.yaml")
    assert labels(await editor.completion("rules.yaml", 44, 16)) == ["low_accuracy", "too_short"]
    assert labels(await editor.completion("rules.yaml", 45, 20)) == [
        "excellent",
        "good",
        "needs_review",
        "neutral",
        "weak",
    ]


async def test_enum_values_and_booleans(editor: Editor) -> None:
    await editor.open("rewrite.yaml")
    assert labels(await editor.completion("rewrite.yaml", 4, 10)) == ["ensure_period", "trim_spaces"]
    assert labels(await editor.completion("rewrite.yaml", 1, 19)) == ["true", "false"]


async def test_a_new_rule_snippet_under_a_rule_list(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "needs_review\n\nrewrite_rules", "needs_review\n  \nrewrite_rules")
    items = await editor.completion("rules.yaml", 46, 2)
    assert labels(items) == ["new rule"]
    snippets = bool(editor.capabilities.text_document.completion.completion_item.snippet_support)
    expected = (
        "- id: ${1:new_rule_1}\n    description: ${2:What the rule is for}\n    when:\n"
        "      ${3:response_contains_any}: ${4:[heap, priority queue]}\n    actions:\n"
        "      ${5:adjust_dimension}: ${6:{dimension: accuracy, delta: -0.5\\}}"
        if snippets
        else "- id: new_rule_1\n    description: What the rule is for\n    when:\n"
        "      response_contains_any: [heap, priority queue]\n    actions:\n"
        "      adjust_dimension: {dimension: accuracy, delta: -0.5}"
    )
    assert edit_of(items, "new rule") == ((46, 2, 46, 2), expected)
    assert items[0].insert_text_format == (
        types.InsertTextFormat.Snippet if snippets else types.InsertTextFormat.PlainText
    )


async def test_no_completion_inside_a_comment_or_another_file(editor: Editor) -> None:
    await editor.open("rules.yaml")
    assert await editor.completion("rules.yaml", 0, 10) == []
    notes = editor.config / "notes.yaml"
    notes.write_text("")
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(editor.uri("notes.yaml"), "yaml", 1, ""))
    )
    assert await editor.completion("notes.yaml", 0, 0) == []


async def test_a_blank_line_after_a_block_scalar_offers_the_keys_at_its_column(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace(
        "rules.yaml",
        "    description: Mentions of the efficient structure count toward the score.\n    when:",
        "    description: |\n      Mentions of the efficient structure\n      count toward the score.\n"
        "      \n    wh:",
    )
    assert labels(await editor.completion("rules.yaml", 27, 4)) == ["when"]  # typed here, it ends the text
    assert await editor.completion("rules.yaml", 27, 6) == []  # indented past its key: still the text


async def test_a_position_past_the_end_of_the_line_is_the_end_of_the_line(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "dimension_gt: { accuracy: 4.5 }", "dimension_gt: { accuracy: 4.5, ")
    items = await editor.completion("rules.yaml", 18, 60)  # the line is 37 characters long
    assert labels(items) == [name for name in DIMENSIONS if name != "accuracy"]
    assert edit_of(items, "optimality") == ((18, 37, 18, 37), "optimality: ")
