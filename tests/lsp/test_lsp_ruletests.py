"""Rule test files (`config/tests/*.yaml`) through the real server: diagnostics as they are typed (YAML,
schema, rule ids against the folder's unsaved config, submission files that do not exist), re-checked
when rules.yaml changes; hover and completion from the ruletest schema and the config's rule ids; the
quick fix of a misspelt rule id."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from evalkit import schemas
from evalkit.services.ruletests.load import check_test_text

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

TEST = "tests/dijkstra.yaml"
RULE_IDS = [  # the fixture's rules.yaml, in its order
    "lower_accuracy_if_no_example",
    "efficient_structure",
    "negative_weights_without_alternative",
    "very_short_answers",
    "close_rewrite_with_period",
]
EXPECT = schemas.load("ruletest")["$defs"]["expect"]["properties"]


def summary(diagnostics: list[types.Diagnostic]) -> list[tuple[tuple[int, int, int, int], str, str]]:
    return [(span(d.range), str(d.code), d.message) for d in diagnostics]


def span(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


def labels(items: list[types.CompletionItem]) -> list[str]:
    return [item.label for item in sorted(items, key=lambda item: item.sort_text or item.label)]


# --- diagnostics ---------------------------------------------------------------------------------


async def test_a_valid_rule_test_file_gets_empty_diagnostics(editor: Editor) -> None:
    assert await editor.open(TEST) == []
    assert await editor.diagnostics("rules.yaml") == []


async def test_a_misspelt_rule_id_is_the_engines_error_at_utf16_columns(editor: Editor) -> None:
    await editor.open(TEST)
    found = await editor.replace(TEST, "[very_short_answers]", "[very_short_answer]")
    # the line starts `  - {name: "🚀 short", ...`: the emoji is one code point but two UTF-16 units
    message = "unknown rule id 'very_short_answer'; did you mean 'very_short_answers'?"
    assert summary(found) == [((13, 84, 13, 101), "unknown-rule", message)]
    assert found[0].severity == types.DiagnosticSeverity.Error and found[0].source == "evalkit"
    path = editor.config / TEST
    (engine,) = check_test_text(path, editor.texts[TEST], RULE_IDS).diagnostics
    assert (engine.span.line, engine.span.column, engine.span.end_column) == (14, 84, 101)  # code points


async def test_schema_and_yaml_problems_are_shown_as_they_are_typed(editor: Editor) -> None:
    await editor.open(TEST)
    found = await editor.replace(TEST, "      must_not_fire:", "      must_not_fyre:")
    assert summary(found) == [
        (
            (9, 6, 9, 19),
            "unknown-key",
            "unknown key 'must_not_fyre' in cases[0].expect; did you mean 'must_not_fire'?",
        )
    ]
    found = await editor.replace(TEST, "      must_not_fyre:\n", "      must_not_fyre:\n    - [\n")
    assert [(d.code, d.range.start.line) for d in found] == [("yaml-syntax", 10)]


async def test_a_submission_file_that_does_not_exist_is_an_error_at_the_case(editor: Editor) -> None:
    await editor.open(TEST)
    found = await editor.replace(TEST, "samples/b_short.json", "samples/b_shrt.json")
    missing = editor.root / "samples" / "b_shrt.json"
    assert summary(found) == [
        ((13, 35, 13, 60), "unreadable", f"{missing}: cannot read the file: No such file or directory")
    ]
    found = await editor.replace(TEST, "submission: dijkstra", "submission: dijkstr")
    assert summary(found)[0] == (
        (6, 16, 6, 23),
        "unreadable",
        "'dijkstr' is neither a name in `submissions` nor a submission file; did you mean 'dijkstra'?",
    )


async def test_renaming_a_rule_in_unsaved_rules_yaml_rechecks_the_open_tests(editor: Editor) -> None:
    await editor.open(TEST)
    await editor.open("rules.yaml")
    assert await editor.replace("rules.yaml", "id: efficient_structure", "id: efficient_structures") == []
    found = await editor.diagnostics(TEST)
    assert summary(found) == [
        (
            (8, 48, 8, 67),
            "unknown-rule",
            "unknown rule id 'efficient_structure'; did you mean 'efficient_structures'?",
        )
    ]
    await editor.replace("rules.yaml", "id: efficient_structures", "id: efficient_structure")
    assert await editor.diagnostics(TEST) == []


async def test_while_rules_yaml_does_not_parse_the_tests_keep_its_last_ids(editor: Editor) -> None:
    await editor.open(TEST)
    await editor.open("rules.yaml")
    found = await editor.replace("rules.yaml", "rating_rules:\n", "rating_rules: [\n")
    assert [d.code for d in found] == ["yaml-syntax"]
    assert await editor.diagnostics(TEST) == []


async def test_closing_a_rule_test_file_clears_its_diagnostics(editor: Editor) -> None:
    await editor.open(TEST)
    assert await editor.replace(TEST, ", efficient_structure]", ", efficient]") != []
    assert await editor.close(TEST) == []


async def test_a_yaml_file_in_a_tests_folder_without_config_files_is_not_ours(
    editor: Editor, client: LanguageClient
) -> None:
    other = editor.root / "tests" / "other.yaml"
    other.parent.mkdir()
    other.write_text("cases: 3\n", encoding="utf-8")
    uri = other.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, "cases: 3\n"))
    )
    hover = types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 1))
    assert await client.text_document_hover_async(hover) is None
    await editor.open(TEST)  # a later batch: had the other file been checked, its diagnostics came first
    assert uri not in client.diagnostics


async def test_a_client_that_pulls_gets_the_rule_test_diagnostics(
    pull_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(pull_client)
    text = editor.text(TEST).replace("[very_short_answers]", "[very_short_answer]")
    editor.texts[TEST], editor.versions[TEST] = text, 1
    pull_client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(editor.uri(TEST), "yaml", 1, text))
    )
    report = await pull_client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(editor.uri(TEST)))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert [(span(d.range), d.code) for d in report.items] == [((13, 84, 13, 101), "unknown-rule")]


# --- quick fixes -----------------------------------------------------------------------------------


async def test_a_misspelt_rule_id_is_replaced_by_the_suggestion(editor: Editor) -> None:
    await editor.open(TEST)
    await editor.replace(TEST, "- very_short_answers", "- very_shrt_answers")
    at = types.Position(10, 12)
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(editor.uri(TEST)), types.Range(at, at), types.CodeActionContext([])
        )
    )
    assert actions is not None and len(actions) == 1
    (action,) = actions
    assert isinstance(action, types.CodeAction) and action.edit and action.edit.changes
    assert action.title == "Replace with 'very_short_answers'" and action.is_preferred
    (edit,) = action.edit.changes[editor.uri(TEST)]
    assert (span(edit.range), edit.new_text) == ((10, 10, 10, 27), "very_short_answers")
    assert await editor.change(TEST, edit.range, edit.new_text) == []


# --- hover -----------------------------------------------------------------------------------------


async def hover_text(editor: Editor, line: int, character: int) -> tuple[str, tuple[int, int, int, int]]:
    found = await editor.hover(TEST, line, character)
    assert found is not None and found.range is not None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value, span(found.range)


async def test_hover_on_every_key_shows_the_ruletest_schemas_description(editor: Editor) -> None:
    await editor.open(TEST)
    top = schemas.load("ruletest")
    expected = {
        (1, 3): top["properties"]["submissions"]["description"],
        (5, 5): top["$defs"]["case"]["properties"]["name"]["description"],
        (6, 6): top["$defs"]["submission"]["description"],
        (7, 6): top["$defs"]["expect"]["description"],
        (8, 8): EXPECT["must_fire"]["description"],
        (10, 12): EXPECT["must_not_fire"]["description"],  # a list item: the key that holds it
        (13, 75): EXPECT["must_fire"]["description"],  # inside flow mappings, after the emoji
    }
    for (line, character), description in expected.items():
        markdown, _ = await hover_text(editor, line, character)
        assert description in markdown, (line, character)
    assert await hover_text(editor, 8, 8) == (
        f"**`must_fire`** · list of strings\n\n{EXPECT['must_fire']['description']}\n\n"
        "Example:\n```yaml\nmust_fire: [scoring_positive_signal]\n```",
        (8, 6, 8, 15),
    )


async def test_hover_on_a_dimension_in_corrected_ratings_shows_its_settings(editor: Editor) -> None:
    await editor.open(TEST)
    markdown, where = await hover_text(editor, 11, 27)
    assert markdown.startswith("**dimension `accuracy`** · ideal 4.2, tolerance 1.2")
    assert where == (11, 26, 11, 34)


# --- completion ------------------------------------------------------------------------------------


async def test_an_empty_rule_test_file_offers_the_schemas_top_level_keys(editor: Editor) -> None:
    await editor.open(TEST, "")
    items = await editor.completion(TEST, 0, 0)
    assert labels(items) == ["submissions", "cases", "x-"]
    cases = next(item for item in items if item.label == "cases")
    assert isinstance(cases.text_edit, types.TextEdit) and cases.text_edit.new_text == "cases:\n  - "


async def test_the_keys_of_a_case_and_of_expect_not_yet_used_are_offered(editor: Editor) -> None:
    await editor.open(TEST)
    await editor.replace(TEST, "      corrected_ratings: {accuracy: 4.5}\n", "      \n")
    items = await editor.completion(TEST, 11, 6)
    assert labels(items) == [key for key in EXPECT if key not in ("must_fire", "must_not_fire")]
    await editor.replace(TEST, "    expect:\n", "    \n    expect:\n")
    assert labels(await editor.completion(TEST, 7, 4)) == ["description", "with"]


async def test_rule_ids_of_the_config_are_offered_in_the_id_lists(editor: Editor) -> None:
    await editor.open(TEST)
    await editor.replace(TEST, "        - very_short_answers", "        - ")
    items = await editor.completion(TEST, 10, 10)
    assert labels(items) == RULE_IDS
    assert {item.detail for item in items} == {"rule id used in this config"}
    edit = items[0].text_edit
    assert isinstance(edit, types.TextEdit) and span(edit.range) == (10, 10, 10, 10)
    assert labels(await editor.completion(TEST, 13, 95)) == RULE_IDS  # `[very_short_answers]` in flow


async def test_completion_offers_the_rule_ids_of_the_unsaved_rules_yaml(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "id: close_rewrite_with_period", "id: close_with_period")
    await editor.open(TEST)
    items = await editor.completion(TEST, 8, 18)
    assert labels(items) == [*RULE_IDS[:-1], "close_with_period"]
    assert labels(await editor.completion(TEST, 9, 21)) == []  # the list key's own value takes a list
