"""Odd documents through the real server, found by a rule author's sweep: a rules.yaml with a second YAML
document (`---`) is one diagnostic at the `---` that says what to do, and nothing in the second document is
explained, completed or counted as if it were the first's; a file only named like a config file (a
Prometheus `rules.yaml` alone in its folder) is left to other tools, saying so once in the log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pytest_lsp import LanguageClient

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


PROMETHEUS = "groups:\n  - name: example\n    rules:\n      - alert: HighLatency\n        expr: up == 0\n"


async def test_a_lone_file_only_named_like_a_config_file_is_left_alone(
    client: LanguageClient, make_editor: Callable[..., Editor], tmp_path: Path
) -> None:
    editor = make_editor(client)
    editor.config = tmp_path / "monitoring"  # a Prometheus rules.yaml: no evalkit file beside it
    editor.config.mkdir()
    assert await editor.open("rules.yaml", PROMETHEUS) == []
    assert await editor.hover("rules.yaml", 0, 2) is None
    assert await editor.completion("rules.yaml", 1, 4) == []
    assert await editor.lenses() == []
    told = [m.message for m in client.log_messages if str(editor.config / "rules.yaml") in m.message]
    assert told == [
        f"evalkit: {editor.config / 'rules.yaml'} is left to other tools: it is named like an evalkit config "
        "file, but no other is beside it and evalkit knows none of its top-level keys (groups)"
    ]


async def test_the_same_text_beside_evalkit_files_is_checked(editor: Editor) -> None:
    diagnostics = await editor.open("rules.yaml", PROMETHEUS)
    assert [(d.range.start.line, d.code) for d in diagnostics] == [(0, "unknown-key")]


async def test_a_new_empty_rules_file_alone_is_still_evalkits(
    client: LanguageClient, make_editor: Callable[..., Editor], tmp_path: Path
) -> None:
    editor = make_editor(client)
    editor.config = tmp_path / "new_config"
    editor.config.mkdir()
    await editor.open("rules.yaml", "")
    labels = [item.label for item in await editor.completion("rules.yaml", 0, 0)]
    assert "rating_rules" in labels


INLINE = (
    "submissions:\n"
    "  inline:\n"
    "    prompt: Name a sorting algorithm.\n"
    "    ratings: {accuracy: 4}\n"
    "    \n"
    "cases:\n"
    "  - name: an inline submission, changed\n"
    "    submission: inline\n"
    "    with:\n"
    "      ratings: {accuracy: 2}\n"
    "      \n"
)


async def test_an_inline_submission_in_a_rule_test_is_explained_and_completed_as_a_submission(
    editor: Editor,
) -> None:
    await editor.open("tests/inline.yaml", INLINE)
    hover = await editor.hover("tests/inline.yaml", 2, 6)
    assert hover is not None
    assert hover.contents.value.startswith("**`prompt`** · string\n\nThe prompt the responses answer.")  # type: ignore[union-attr]
    inside = {item.label for item in await editor.completion("tests/inline.yaml", 4, 4)}
    assert {"responses", "ranking", "rewrite_preferred"} <= inside and "prompt" not in inside
    changes = {item.label for item in await editor.completion("tests/inline.yaml", 10, 6)}
    assert {"prompt", "responses", "evidence"} <= changes and "ratings" not in changes
    named = await editor.hover("tests/inline.yaml", 1, 4)  # the name: the rule test schema's own words
    assert named is not None and "An inline submission (a mapping)" in named.contents.value  # type: ignore[union-attr]
