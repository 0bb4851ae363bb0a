"""Diagnostics through the real server: pushed on open and change, at the engine's exact ranges, for the
edited file and the rest of its folder; pulled by clients that ask."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from evalkit.engine.config import analyze

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

CONFIG_FILES = ["dimensions.yaml", "prompt.yaml", "ranking.yaml", "rewrite.yaml", "rules.yaml"]


def summary(diagnostics: list[types.Diagnostic]) -> list[tuple[int, int, int, int, str, int | None]]:
    return [
        (
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            str(d.code),
            d.severity,
        )
        for d in diagnostics
    ]


async def test_a_valid_folder_gets_empty_diagnostics_for_every_file(editor: Editor) -> None:
    assert await editor.open("rules.yaml") == []
    for name in CONFIG_FILES:
        assert await editor.diagnostics(name) == []


async def test_a_misspelt_key_is_underlined_with_the_suggestion(editor: Editor) -> None:
    await editor.open("rules.yaml")
    found = await editor.replace(
        "rules.yaml",
        "    actions:\n      adjust_dimension: { dimension: accuracy",
        "    actoins:\n      adjust_dimension: { dimension: accuracy",
    )
    assert summary(found) == [
        (14, 4, 23, 2, "missing-key", types.DiagnosticSeverity.Error),
        (19, 4, 19, 11, "unknown-key", types.DiagnosticSeverity.Error),
    ]
    assert found[1].message == "unknown key 'actoins' in rating_rules[0]; did you mean 'actions'?"
    assert found[1].source == "evalkit"


async def test_diagnostics_are_the_engines_at_the_same_ranges(editor: Editor) -> None:
    await editor.open("rules.yaml")
    found = await editor.replace("rules.yaml", "dimension: presentation", "dimension: presentaton")
    path = editor.config / "rules.yaml"
    expected = analyze(editor.config, {str(path): editor.texts["rules.yaml"]}).diagnostics
    assert [
        (
            d.range.start.line + 1,
            d.range.start.character + 1,
            d.range.end.line + 1,
            d.range.end.character + 1,
            d.code,
            d.message,
        )
        for d in found
    ] == [
        (e.span.line, e.span.column, e.span.end_line, e.span.end_column, e.code, e.message) for e in expected
    ]
    assert summary(found) == [(43, 37, 43, 48, "unknown-dimension", types.DiagnosticSeverity.Error)]


async def test_a_half_typed_key_is_one_syntax_error_not_a_cascade(editor: Editor) -> None:
    await editor.open("rules.yaml")
    found = await editor.replace("rules.yaml", "      set_flag: too_short", "      set_fl")
    assert summary(found) == [(45, 6, 45, 6, "yaml-syntax", types.DiagnosticSeverity.Error)]
    assert found[0].message.startswith("could not find expected ':'")
    for name in CONFIG_FILES[:-1]:
        assert await editor.diagnostics(name) == []


async def test_fixing_the_error_clears_it(editor: Editor) -> None:
    await editor.open("rules.yaml")
    assert len(await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length: -80")) == 1
    assert await editor.replace("rules.yaml", "max_total_length: -80", "max_total_length: 80") == []


async def test_editing_one_file_rechecks_the_files_of_its_folder(editor: Editor) -> None:
    rules = editor.config / "rules.yaml"
    rules.write_text(rules.read_text().replace("id: very_short_answers", "id: efficient_structure"))
    assert await editor.open("dimensions.yaml") == []
    on_disk = await editor.diagnostics("rules.yaml")  # not open: checked from disk with its folder
    assert summary(on_disk) == [(39, 8, 39, 27, "duplicate-rule-id", types.DiagnosticSeverity.Error)]
    await editor.replace("dimensions.yaml", "pull_fraction: 0.4", "pull_fraction: 0.5")
    assert summary(await editor.diagnostics("rules.yaml")) == summary(on_disk)  # published again


async def test_closing_an_unsaved_buffer_goes_back_to_the_file_on_disk(editor: Editor) -> None:
    await editor.open("rules.yaml")
    assert len(await editor.replace("rules.yaml", "version: 2", "version: [2")) == 1
    assert await editor.close("rules.yaml") == []


async def test_a_file_that_is_not_a_config_file_is_left_alone(editor: Editor) -> None:
    other = editor.config / "notes.yaml"
    other.write_text("a: [1\n")
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(editor.uri("notes.yaml"), "yaml", 1, other.read_text())
        )
    )
    assert await editor.open("rules.yaml") == []
    assert editor.uri("notes.yaml") not in editor.client.diagnostics


async def test_a_client_that_pulls_gets_the_diagnostics_it_asks_for_and_no_pushes(
    pull_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(pull_client)
    pull_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                editor.uri("rules.yaml"),
                "yaml",
                1,
                editor.text("rules.yaml").replace("max_total_length: 80", "max_total_length: -1"),
            )
        )
    )
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    assert summary(list(report.items)) == [(41, 24, 41, 26, "schema-minimum", types.DiagnosticSeverity.Error)]
    assert sorted(report.related_documents) == [editor.uri(name) for name in CONFIG_FILES[:-1]]
    await editor.hover("rules.yaml", 0, 0)  # one more round trip: a push would have arrived by now
    assert pull_client.diagnostics == {}


async def test_a_file_changed_on_disk_is_checked_again(editor: Editor) -> None:
    assert await editor.open("dimensions.yaml") == []
    rules = editor.config / "rules.yaml"
    rules.write_text(rules.read_text().replace("version: 2", "version: [2"))
    editor.client.diagnostics.pop(editor.uri("rules.yaml"), None)
    editor.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(editor.uri("rules.yaml"), types.FileChangeType.Changed)]
        )
    )
    assert [d.code for d in await editor.diagnostics("rules.yaml")] == ["yaml-syntax"]


async def test_a_config_file_not_yet_saved_is_checked_from_its_buffer(editor: Editor) -> None:
    (editor.config / "ranking.yaml").unlink()  # `:e ranking.yaml` in a folder that has none yet
    uri = editor.uri("ranking.yaml")
    editor.client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, "require_all_ids: maybe\n"))
    )
    found = await editor.eventually(lambda: editor.client.diagnostics.get(uri), "the buffer's diagnostics")
    assert [(d.range.start.line, d.code) for d in found] == [(0, "wrong-type")]


async def test_edits_after_a_line_separator_in_a_string_land_where_the_editor_made_them(
    editor: Editor,
) -> None:
    # U+2028 ends a line for str.splitlines, not for the protocol: the server must count lines as the editor
    text = editor.text("rules.yaml").replace("structure mentioned.", "structure\u2028mentioned.")
    assert await editor.open("rules.yaml", text) == []
    found = await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length: -80")
    assert [d.code for d in found] == ["schema-minimum"]
    assert await editor.replace("rules.yaml", "max_total_length: -80", "max_total_length: 80") == []


@pytest.mark.parametrize(
    "template",
    [
        "{{ " + "(" * 90 + "1" + ")" * 90 + " }}",  # Jinja's parser recursed past Python's limit
        "{{ " + "+".join(["1"] * 300) + " }}",  # Python's compiler: too many nested parentheses
        "{% set a = 'x' %}" + "{% set a = a ~ a %}" * 17,  # 1.9 GB at every dry run
    ],
    ids=["90 parentheses", "300 terms", "set doubling"],
)
async def test_a_hostile_template_is_one_bad_template_diagnostic(editor: Editor, template: str) -> None:
    await editor.open("rules.yaml")
    found = await editor.replace(
        "rules.yaml", "      set_flag: too_short", f'      add_comment_template: "{template}"'
    )
    assert [(d.range.start.line, str(d.code)) for d in found] == [(44, "bad-template")]
