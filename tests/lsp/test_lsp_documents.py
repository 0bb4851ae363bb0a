"""Odd documents through the real server, found by a rule author's sweep: a rules.yaml with a second YAML
document (`---`) is one diagnostic at the `---` that says what to do, and nothing in the second document is
explained, completed or counted as if it were the first's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from evalkit.engine.yamlsource import SECOND_DOCUMENT

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

SECOND = "\n---\nversion: 3\nrating_rules:\n  - id: second_document_rule\n    \n"


async def test_a_second_document_is_said_at_its_marker_and_not_taken_for_the_first(editor: Editor) -> None:
    text = editor.text("rules.yaml")
    marker = len(text.split("\n"))  # the `---` line, 0-based
    diagnostics = await editor.open("rules.yaml", text + SECOND)
    assert [(d.range.start.line, d.range.start.character, d.code, d.message) for d in diagnostics] == [
        (marker, 0, "yaml-syntax", SECOND_DOCUMENT)
    ]
    rule_line = marker + 3
    assert await editor.hover("rules.yaml", rule_line, 12) is None  # not the first rule's description
    assert await editor.completion("rules.yaml", rule_line + 1, 4) == []
    assert all(line < marker for line, _ in await editor.lenses())
    first_rule = text.split("\n").index("  - id: lower_accuracy_if_no_example")
    hover = await editor.hover("rules.yaml", first_rule, 12)  # the first document is served as ever
    assert hover is not None and "lower_accuracy_if_no_example" in hover.contents.value  # type: ignore[union-attr]
