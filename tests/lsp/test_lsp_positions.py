"""Positions after a U+2028, U+0085 or U+2029 in a YAML string, through the real server: the protocol ends
lines at LF, CRLF and CR only, while PyYAML's marks and `str.splitlines` also end them at these. Every
feature must answer for the line the editor means; a quick fix must edit the line it names.
The outline and the marking of a flow collection being typed are here too."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from evalkit import schemas

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

DESCRIPTION = "description: A perfect accuracy rating needs a rewrite with an example."
SEPARATED = 'description: "A perfect\u2028accuracy\u0085rating\u2029needs a rewrite with an example."'


def span(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


async def open_separated(editor: Editor) -> str:
    """rules.yaml with the three separators in the description on line 15 (0-based), and no problem."""
    text = editor.text("rules.yaml").replace(DESCRIPTION, SEPARATED)
    assert await editor.open("rules.yaml", text) == []
    return text


async def test_a_diagnostic_after_the_separators_is_on_its_own_line(editor: Editor) -> None:
    await open_separated(editor)
    found = await editor.replace("rules.yaml", "      set_flag: too_short", "      set_flg: too_short")
    assert [(span(d.range), d.code) for d in found] == [((44, 6, 44, 13), "unknown-key")]


async def test_the_quick_fix_after_the_separators_gives_the_intended_file(editor: Editor) -> None:
    intended = await open_separated(editor)
    await editor.replace("rules.yaml", "      set_flag: too_short", "      set_flg: too_short")
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(editor.uri("rules.yaml")),
            types.Range(types.Position(44, 8), types.Position(44, 8)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    assert (
        actions and isinstance(actions[0], types.CodeAction) and actions[0].edit and actions[0].edit.changes
    )
    (edit,) = actions[0].edit.changes[editor.uri("rules.yaml")]
    assert await editor.change("rules.yaml", edit.range, edit.new_text) == []
    assert editor.texts["rules.yaml"] == intended


async def test_hover_after_the_separators_describes_the_key_under_the_cursor(editor: Editor) -> None:
    await open_separated(editor)
    found = await editor.hover("rules.yaml", 41, 10)
    assert found is not None and found.range is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.value.startswith("**`max_total_length`** · integer")
    assert span(found.range) == (41, 6, 41, 22)


async def test_completion_after_the_separators_offers_the_keys_of_that_line(editor: Editor) -> None:
    await open_separated(editor)
    await editor.replace("rules.yaml", "{ accuracy: 4.5 }\n", "{ accuracy: 4.5 }\n      \n")
    items = await editor.completion("rules.yaml", 19, 6)
    conditions = schemas.load("rules")["$defs"]["conditions"]["properties"]
    used = {"preferred_rewrite_missing_substring", "dimension_gt"}
    assert sorted(item.label for item in items) == sorted(name for name in conditions if name not in used)


async def test_the_lenses_after_the_separators_stand_above_their_rules(editor: Editor) -> None:
    await open_separated(editor)
    lenses = await editor.lenses_when(lambda lenses: any("fires on" in title for _, title in lenses))
    assert [line for line, _ in lenses] == [
        0,
        0,
        14,
        23,
        31,
        39,
        48,
    ]  # the first line: the run and its impact


async def outline(editor: Editor) -> list[tuple[str, tuple[int, int, int, int]]]:
    symbols = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    flat = []
    for symbol in symbols or []:
        assert isinstance(symbol, types.DocumentSymbol)
        flat += [(s.name, span(s.selection_range)) for s in [symbol, *(symbol.children or [])]]
    return flat


RULES_OUTLINE = [
    ("lower_accuracy_if_no_example", (14, 8, 14, 36)),
    ("efficient_structure", (23, 8, 23, 27)),
    ("negative_weights_without_alternative", (31, 8, 31, 44)),
    ("very_short_answers", (39, 8, 39, 26)),
    ("rewrite_rules", (47, 0, 47, 13)),
    ("close_rewrite_with_period", (48, 8, 48, 33)),
]


async def test_the_outline_after_the_separators_names_the_lines_of_the_rules(editor: Editor) -> None:
    await open_separated(editor)
    assert (await outline(editor))[-6:] == RULES_OUTLINE


async def test_a_flow_collection_being_typed_is_marked_where_typing_is_and_the_outline_stays(
    editor: Editor,
) -> None:
    await open_separated(editor)
    found = await editor.replace("rules.yaml", '["ejemplo", "example"]', '["ejemplo",')
    assert [(span(d.range), d.code) for d in found] == [((17, 43, 17, 54), "yaml-syntax")]
    assert (
        found[0].message
        == "the flow sequence '[' is not closed (did not find expected ',' or ']' at line 20:5)"
    )
    assert (await outline(editor))[-6:] == RULES_OUTLINE  # the last outline of the file that parsed


async def test_a_key_inserted_into_a_crlf_file_keeps_its_line_ends(editor: Editor) -> None:
    text = editor.text("rules.yaml").replace("\n", "\r\n")
    assert await editor.open("rules.yaml", text) == []
    await editor.replace("rules.yaml", "  - id: very_short_answers\r\n    when:", "  - when:")
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(editor.uri("rules.yaml")),
            types.Range(types.Position(39, 5), types.Position(39, 5)),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    assert (
        actions and isinstance(actions[0], types.CodeAction) and actions[0].edit and actions[0].edit.changes
    )
    (edit,) = actions[0].edit.changes[editor.uri("rules.yaml")]
    assert (span(edit.range), edit.new_text) == ((39, 4, 39, 4), "id: new_rule\r\n    ")
    assert await editor.change("rules.yaml", edit.range, edit.new_text) == []
    assert "\n" not in editor.texts["rules.yaml"].replace("\r\n", "")


async def test_columns_after_a_separator_on_the_same_line_are_in_the_client_s_units(editor: Editor) -> None:
    await editor.open("rules.yaml")
    found = await editor.replace("rules.yaml", "{ accuracy: 4.5 }", '{ accuracy: "😀\u2028x", é: 1 }')
    # 😀 takes two UTF-16 units; YAML's own column restarts after the U+2028
    assert [(span(d.range), d.code) for d in found] == [
        ((18, 32, 18, 38), "wrong-type"),
        ((18, 40, 18, 41), "unknown-dimension"),
    ]


async def test_a_string_being_typed_is_marked_where_its_quote_opens(editor: Editor) -> None:
    await open_separated(editor)
    found = await editor.replace("rules.yaml", '"Efficient structure mentioned."', '"Efficient str')
    # the quote runs on to the next string's opening quote, lines below, where the parser fails
    assert [(span(d.range), d.code) for d in found] == [((29, 19, 29, 33), "yaml-syntax")]
    assert found[0].message.startswith("the quoted string is not closed (")


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "evalkit", "lsp"]), scope="session"
)
async def utf8_client(lsp_client: LanguageClient, workspace_root: Path) -> Any:
    """VS Code's capabilities, with positions in UTF-8 bytes preferred (the server accepts it)."""
    capabilities = client_capabilities("visual-studio-code")
    capabilities.general = types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf8]
    )

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lenses_refreshed(params: None) -> None:
        pass

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def registered(params: types.RegistrationParams) -> None:
        pass

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=from_fs_path(str(workspace_root)),
            initialization_options={"diagnosticsDelayMs": 0, "dryRunDelayMs": 0},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_columns_are_in_utf8_bytes_when_the_client_negotiates_them(
    utf8_client: LanguageClient, make_editor: Callable[..., Editor]
) -> None:
    editor = make_editor(utf8_client)
    assert await editor.open("rules.yaml") == []
    where = types.Range(types.Position(18, 20), types.Position(18, 37))  # `{ accuracy: 4.5 }`: ASCII alike
    found = await editor.change("rules.yaml", where, '{ accuracy: "😀\u2028x", é: 1 }')
    # 😀 takes four bytes, U+2028 three, é two
    assert [(span(d.range), d.code) for d in found] == [
        ((18, 32, 18, 42), "wrong-type"),
        ((18, 44, 18, 46), "unknown-dimension"),
    ]
