"""A UTF-8 byte order mark at the start of the editor's text, through the real server.

A client that keeps the mark in its text counts it as a character of line 0 (one UTF-16 unit); the engine
and the server's structure index read the text without it. Every feature that answers with or is asked
at a position on line 0 must count the mark as the client does: hover, completion, diagnostics and their
quick fixes, the outline, the code lenses and go to definition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lsprotocol import types

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

BOM = "\ufeff"
FLOW_RULE = "rating_rules: [{id: flow_rule, when: {dimension_gt: {accuracy: 4.5}}, actions: {set_flag: f}}]\n"


def span(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


def with_bom(editor: Editor, first_line: str = "version: 2") -> str:
    """rules.yaml with its opening comment replaced by a byte order mark and `first_line`."""
    text = editor.text("rules.yaml")
    assert text.startswith("# ") and "\nversion: 2\n" in text
    return BOM + first_line + "\n" + text.split("\nversion: 2\n", 1)[1]


async def test_hover_on_the_first_key_after_a_bom_describes_it(editor: Editor) -> None:
    assert await editor.open("rules.yaml", with_bom(editor)) == []
    found = await editor.hover("rules.yaml", 0, 3)
    assert found is not None and isinstance(found.contents, types.MarkupContent) and found.range
    assert "**`version`** · " in found.contents.value
    assert span(found.range) == (0, 1, 0, 8)


async def test_a_diagnostic_and_its_fix_on_the_first_line_count_the_bom(editor: Editor) -> None:
    intended = with_bom(editor)
    found = await editor.open("rules.yaml", with_bom(editor, "versio: 2"))
    assert [(span(d.range), d.code) for d in found] == [((0, 1, 0, 7), "unknown-key")]
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(editor.uri("rules.yaml")),
            types.Range(types.Position(0, 3), types.Position(0, 3)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions and isinstance(actions[0], types.CodeAction) and actions[0].edit
    (edit,) = (actions[0].edit.changes or {})[editor.uri("rules.yaml")]
    assert await editor.change("rules.yaml", edit.range, edit.new_text) == []
    assert editor.texts["rules.yaml"] == intended


async def test_completion_on_the_first_line_replaces_the_word_after_the_bom(editor: Editor) -> None:
    await editor.open("rules.yaml", with_bom(editor, "vers"))
    items = await editor.completion("rules.yaml", 0, 5)
    version = next(item for item in items if item.label == "version")
    assert isinstance(version.text_edit, types.TextEdit)
    assert span(version.text_edit.range) == (0, 1, 0, 5)


async def test_the_outline_counts_the_bom(editor: Editor) -> None:
    await editor.open("rules.yaml", with_bom(editor))
    symbols = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    first = (symbols or [])[0]
    assert isinstance(first, types.DocumentSymbol)
    assert (first.name, span(first.selection_range), first.range.start.character) == (
        "version",
        (0, 1, 0, 8),
        1,
    )


async def test_a_flow_rule_on_the_first_line_has_its_lens_and_definition_after_the_bom(
    editor: Editor,
) -> None:
    text = BOM + FLOW_RULE
    assert await editor.open("rules.yaml", text) == []
    await editor.lenses_when(lambda found: any("fires on" in title for _, title in found))
    lenses = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    starts = {(lens.range.start.line, lens.range.start.character) for lens in lenses or []}
    assert (0, len(BOM + "rating_rules: [{")) in starts
    on_accuracy = text.index("accuracy")
    found = await editor.client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(editor.uri("rules.yaml")), types.Position(0, on_accuracy + 1)
        )
    )
    assert isinstance(found, types.Location) and found.uri == editor.uri("dimensions.yaml")


async def test_a_rule_test_files_diagnostic_on_the_first_line_counts_the_bom(editor: Editor) -> None:
    text = BOM + "{cases: [{name: a, submission: {prompt: x}, expect: {fired: [nope]}}]}\n"
    found = await editor.open("tests/bom.yaml", text)
    start = len(BOM + "{cases: [{name: a, submission: {prompt: x}, expect: {fired: [")
    assert [(span(d.range), d.code) for d in found if d.code == "unknown-rule"] == [
        ((0, start, 0, start + len("nope")), "unknown-rule")
    ]
