"""Hover, quick fixes, the outline and go to definition through the real server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types

from evalkit import schemas

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

K = types.SymbolKind


def span(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


async def hover_text(
    editor: Editor, line: int, character: int
) -> tuple[str, tuple[int, int, int, int]] | None:
    found = await editor.hover("rules.yaml", line, character)
    if found is None:
        return None
    assert isinstance(found.contents, types.MarkupContent) and found.range is not None
    assert found.contents.kind == types.MarkupKind.Markdown
    return found.contents.value, span(found.range)


async def test_hover_on_a_key_shows_its_schema_description_and_example(editor: Editor) -> None:
    await editor.open("rules.yaml")
    description = schemas.load("rules")["$defs"]["conditions"]["properties"][
        "preferred_rewrite_missing_substring"
    ]["description"]
    assert await hover_text(editor, 17, 10) == (
        f"**`preferred_rewrite_missing_substring`** · list of strings\n\n{description}\n\n"
        "Example:\n```yaml\npreferred_rewrite_missing_substring: [example, ejemplo]\n```",
        (17, 6, 17, 41),
    )


async def test_hover_on_a_value_describes_the_key_that_holds_it(editor: Editor) -> None:
    await editor.open("rules.yaml")
    hovered = await hover_text(editor, 41, 25)
    assert hovered is not None
    assert hovered[0].startswith(
        "**`max_total_length`** · integer\n\nHolds when the responses plus the rewrite"
    )
    assert hovered[1] == (41, 24, 41, 26)


async def test_hover_on_a_dimension_shows_its_ideal_and_tolerance_from_the_config(editor: Editor) -> None:
    await editor.open("dimensions.yaml")
    await editor.replace("dimensions.yaml", "ideal: 4.2", "ideal: 4.4")
    await editor.open("rules.yaml")
    assert await hover_text(editor, 20, 40) == (
        "**dimension `accuracy`** · ideal 4.4, tolerance 1.2\n\n"
        "Factual and technical accuracy. Default ideal 4.2, tolerance 1.2.\n\n"
        "A rating outside 4.4 ± 1.2 is pulled toward 4.4 (dimensions.yaml).",
        (20, 37, 20, 45),
    )
    hovered = await hover_text(editor, 18, 24)  # a dimension as a key of dimension_gt
    assert hovered is not None and hovered[0].startswith("**dimension `accuracy`** · ideal 4.4")


async def test_hover_on_a_rule_id_shows_its_dry_run(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.lenses_when(lambda lenses: any("fires on" in title for _, title in lenses))
    assert await hover_text(editor, 14, 12) == (
        "**rule `lower_accuracy_if_no_example`** · rating rule\n\n"
        "A perfect accuracy rating needs a rewrite with an example.\n\n"
        "Dry run: **fires on 2/3 samples**\n"
        "- `a_dijkstra.json`: adjust_dimension dimension=accuracy, from=5.0, to=4.5, delta=-0.5 · "
        "set_flag low_accuracy\n"
        "- `c_negative.json`: adjust_dimension dimension=accuracy, from=5.0, to=4.5, delta=-0.5 · "
        "set_flag low_accuracy\n\n"
        "Did not fire on:\n"
        "- `b_short.json`: condition 'dimension_gt' did not hold",
        (14, 8, 14, 36),
    )


async def test_no_hover_between_words(editor: Editor) -> None:
    await editor.open("rules.yaml")
    assert await editor.hover("rules.yaml", 2, 0) is None


async def quick_fixes(editor: Editor, line: int, character: int) -> list[tuple[str, bool, Any]]:
    at = types.Position(line, character)
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(editor.uri("rules.yaml")),
            types.Range(at, at),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    out = []
    for action in actions or []:
        assert isinstance(action, types.CodeAction) and action.kind == types.CodeActionKind.QuickFix
        assert action.edit is not None and action.edit.changes is not None
        (edit,) = action.edit.changes[editor.uri("rules.yaml")]
        out.append((action.title, bool(action.is_preferred), (span(edit.range), edit.new_text)))
    return out


async def test_a_misspelt_key_is_fixed_with_the_suggestion(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace(
        "rules.yaml",
        "    actions:\n      adjust_dimension: { dimension: accuracy",
        "    actoins:\n      adjust_dimension: { dimension: accuracy",
    )
    fixes = await quick_fixes(editor, 19, 6)
    assert fixes == [
        ("Replace with 'actions'", True, ((19, 4, 19, 11), "actions")),
        ("Insert 'actions'", False, ((14, 4, 14, 4), "actions: {}\n    ")),
    ]
    where = types.Range(types.Position(19, 4), types.Position(19, 11))
    assert await editor.change("rules.yaml", where, "actions") == []


async def test_a_misspelt_dimension_is_fixed_with_the_suggestion(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "dimension: presentation", "dimension: presentaton")
    assert await quick_fixes(editor, 43, 40) == [
        ("Replace with 'presentation'", True, ((43, 37, 43, 48), "presentation"))
    ]


async def test_a_missing_required_key_is_inserted(editor: Editor) -> None:
    await editor.open("rules.yaml")
    await editor.replace("rules.yaml", "  - id: very_short_answers\n    when:", "  - when:")
    assert await quick_fixes(editor, 39, 5) == [("Insert 'id'", True, ((39, 4, 39, 4), "id: new_rule\n    "))]
    assert await quick_fixes(editor, 5, 5) == []


def outline(symbols: list[types.DocumentSymbol]) -> list[tuple[Any, ...]]:
    return [
        (
            s.name,
            s.kind,
            s.range.start.line,
            s.range.end.line,
            span(s.selection_range),
            outline(list(s.children or [])),
        )
        for s in symbols
    ]


async def test_the_outline_has_the_sections_and_the_rules_by_id(editor: Editor) -> None:
    await editor.open("rules.yaml")
    symbols = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    assert all(isinstance(s, types.DocumentSymbol) for s in symbols or [])
    assert outline(symbols) == [  # type: ignore[arg-type]
        ("version", K.Property, 1, 1, (1, 0, 1, 7), []),
        (
            "options",
            K.Namespace,
            3,
            7,
            (3, 0, 3, 7),
            [
                ("dedupe_comments", K.Property, 4, 4, (4, 2, 4, 17), []),
                ("default_label", K.Property, 5, 5, (5, 2, 5, 15), []),
            ],
        ),
        (
            "decision",
            K.Namespace,
            7,
            13,
            (7, 0, 7, 8),
            [("score_thresholds", K.Object, 8, 13, (8, 2, 8, 18), [])],
        ),
        (
            "rating_rules",
            K.Array,
            13,
            47,
            (13, 0, 13, 12),
            [
                ("lower_accuracy_if_no_example", K.Function, 14, 23, (14, 8, 14, 36), []),
                ("efficient_structure", K.Function, 23, 31, (23, 8, 23, 27), []),
                ("negative_weights_without_alternative", K.Function, 31, 39, (31, 8, 31, 44), []),
                ("very_short_answers", K.Function, 39, 47, (39, 8, 39, 26), []),
            ],
        ),
        (
            "rewrite_rules",
            K.Array,
            47,
            51,
            (47, 0, 47, 13),
            [("close_rewrite_with_period", K.Function, 48, 51, (48, 8, 48, 33), [])],
        ),
    ]
    assert symbols[3].children[1].detail == "Mentions of the efficient structure count toward the score."  # type: ignore[index]


async def test_go_to_definition_from_a_dimension_to_dimensions_yaml(editor: Editor) -> None:
    await editor.open("rules.yaml")
    for line, character in [(20, 40), (18, 24)]:
        found = await editor.client.text_document_definition_async(
            types.DefinitionParams(
                types.TextDocumentIdentifier(editor.uri("rules.yaml")), types.Position(line, character)
            )
        )
        assert isinstance(found, types.Location)
        assert (found.uri, span(found.range)) == (editor.uri("dimensions.yaml"), (6, 2, 6, 10))
    assert (
        await editor.client.text_document_definition_async(
            types.DefinitionParams(
                types.TextDocumentIdentifier(editor.uri("rules.yaml")), types.Position(21, 18)
            )
        )
        is None
    )


async def test_hover_on_a_rule_id_with_emoji_and_dots_shows_the_whole_id(editor: Editor) -> None:
    # a rule id is any string: the hovered word runs over emoji and dots, not only over \w
    rules = editor.config / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace("lower_accuracy_if_no_example", "🔥v2.no_example")
    )
    await editor.open("rules.yaml")
    await editor.lenses_when(lambda lenses: any("fires on" in title for _, title in lenses))
    end = 8 + len("🔥v2.no_example".encode("utf-16-le")) // 2
    for character in (9, 11, end - 1):  # inside the emoji (UTF-16), on the dot, on the last letter
        hovered = await hover_text(editor, 14, character)
        assert hovered is not None
        assert hovered[0].startswith("**rule `🔥v2.no_example`** · rating rule\n\n")
        assert "Dry run: **fires on 2/3 samples**" in hovered[0]
        assert hovered[1] == (14, 8, 14, end)
