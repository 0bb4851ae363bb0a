"""Rules written in flow style (`- {id: a, ...}`, `rules: [{id: a}, {id: b}]`, a `{` over several lines)
get every per-rule feature block style gets, through the real server: the dry run's lenses, hover on a
rule id, the outline, go to definition and quick fixes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lsprotocol import types

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

FLOW_RULES = """\
# The fixture's rules in flow style: each shape a rule author writes.
version: 2
options: {dedupe_comments: true, default_label: neutral}
decision: {score_thresholds: {excellent: 5, good: 3, weak: -1}}

rating_rules:
  - {id: lower_accuracy_if_no_example, description: A perfect accuracy rating needs an example., \
when: {preferred_rewrite_missing_substring: ["ejemplo", "example"], dimension_gt: {accuracy: 4.5}}, \
actions: {adjust_dimension: {dimension: accuracy, delta: -0.5}, set_flag: low_accuracy}}
  - {id: efficient_structure, when: {response_contains_any: ["cola de prioridad", "priority queue"]}, \
actions: {increment_score: 2, add_comment: "Efficient structure mentioned."}}
  - {
      id: negative_weights_without_alternative,  # a comment: with a colon
      when: {response_contains_any: ["negative weight"], not_contains_any: ["Bellman-Ford"]},
      actions: {set_flag: low_accuracy, assign_label: needs_review}
    }
  - {id: "very_short_answers", when: {max_total_length: 80}, actions: {adjust_dimension: \
{dimension: presentation, delta: -0.5}, set_flag: too_short, assign_label: needs_review}}

rewrite_rules: [{id: close_rewrite_with_period, when: {ends_without_punct: true}, actions: \
{append_text: "."}}, {id: pad_short, description: Pads a short rewrite., when: {shorter_than_min: true}, \
actions: {append_text: "!"}}]
"""
REWRITE_LINE = FLOW_RULES.splitlines()[-1]
SECOND = REWRITE_LINE.index("id: pad_short")


def span(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


def ran(lenses: list[tuple[int, str]]) -> bool:
    return any("fires on" in title for _, title in lenses)


async def flow_editor(editor: Editor) -> Editor:
    (editor.config / "rules.yaml").write_text(FLOW_RULES, encoding="utf-8")
    assert await editor.open("rules.yaml") == []
    return editor


async def test_every_flow_rule_gets_its_lens_at_its_id(editor: Editor) -> None:
    await flow_editor(editor)
    lenses = await editor.lenses_when(ran)
    assert [(line, title) for line, title in lenses if line > 0] == [
        (6, "fires on 2/3 samples"),
        (7, "fires on 2/3 samples"),
        (9, "fires on 1/3 samples"),
        (13, "fires on 1/3 samples"),
        (15, "fires on 1/3 samples"),
        # the short rewrite has its length note when pad_short runs, as in the original (issue #24)
        (15, "fires on 0/3 samples"),
    ]
    found = await editor.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    assert [span(lens.range)[:2] for lens in found or [] if lens.range.start.line > 0] == [
        (6, 5),
        (7, 5),
        (9, 6),
        (13, 5),
        (15, 17),
        (15, SECOND),
    ]


async def hover_text(editor: Editor, line: int, character: int) -> str | None:
    found = await editor.hover("rules.yaml", line, character)
    if found is None:
        return None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def test_hover_on_a_flow_rule_id_shows_that_rules_dry_run(editor: Editor) -> None:
    await flow_editor(editor)
    await editor.lenses_when(ran)
    first = await hover_text(editor, 6, 12)
    assert first is not None and first.startswith(
        "**rule `lower_accuracy_if_no_example`** · rating rule\n\n"
        "A perfect accuracy rating needs an example.\n\nDry run: **fires on 2/3 samples**"
    )
    multi_line = await hover_text(editor, 9, 12)
    assert multi_line is not None
    assert multi_line.startswith("**rule `negative_weights_without_alternative`** · rating rule\n\n")
    assert "Dry run: **fires on 1/3 samples**" in multi_line
    second_on_its_line = await hover_text(editor, 15, SECOND + 5)
    assert second_on_its_line is not None and second_on_its_line.startswith(
        "**rule `pad_short`** · rewrite rule\n\nPads a short rewrite.\n\nDry run: **fires on 0/3 samples**"
    )


async def test_hover_on_a_key_inside_a_multi_line_flow_rule(editor: Editor) -> None:
    await flow_editor(editor)
    key = await hover_text(editor, 10, 15)  # response_contains_any
    assert key is not None and key.startswith("**`response_contains_any`**")
    assert await hover_text(editor, 9, 4) is None  # the indentation before the id, inside the braces


async def test_the_outline_lists_flow_rules_by_id(editor: Editor) -> None:
    await flow_editor(editor)
    symbols = await editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")))
    )
    rules = {
        symbol.name: [(child.name, span(child.selection_range)) for child in symbol.children or []]
        for symbol in symbols or []
        if isinstance(symbol, types.DocumentSymbol) and symbol.name.endswith("_rules")
    }
    assert rules == {
        "rating_rules": [
            ("lower_accuracy_if_no_example", (6, 9, 6, 37)),
            ("efficient_structure", (7, 9, 7, 28)),
            ("negative_weights_without_alternative", (9, 10, 9, 46)),
            ("very_short_answers", (13, 9, 13, 29)),
        ],
        "rewrite_rules": [
            ("close_rewrite_with_period", (15, 21, 15, 46)),
            ("pad_short", (15, SECOND + 4, 15, SECOND + 13)),
        ],
    }


async def test_go_to_definition_from_a_dimension_in_a_flow_rule(editor: Editor) -> None:
    await flow_editor(editor)
    line = FLOW_RULES.splitlines()[6]
    for column in (line.index("accuracy: 4.5") + 2, line.index("dimension: accuracy") + 13):
        found = await editor.client.text_document_definition_async(
            types.DefinitionParams(
                types.TextDocumentIdentifier(editor.uri("rules.yaml")), types.Position(6, column)
            )
        )
        assert isinstance(found, types.Location)
        assert (found.uri, span(found.range)) == (editor.uri("dimensions.yaml"), (6, 2, 6, 10))


async def test_a_misspelt_key_in_a_multi_line_flow_rule_is_fixed(editor: Editor) -> None:
    await flow_editor(editor)
    diagnostics = await editor.replace("rules.yaml", "      actions: {set_flag", "      actoins: {set_flag")
    assert ("unknown-key", (11, 6, 11, 13)) in [(d.code, span(d.range)) for d in diagnostics]
    at = types.Position(11, 8)
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(editor.uri("rules.yaml")),
            types.Range(at, at),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [action.title for action in actions or [] if isinstance(action, types.CodeAction)]
    assert titles[0] == "Replace with 'actions'"


async def test_a_flow_rules_lens_shows_the_impact_of_an_edit(editor: Editor) -> None:
    await flow_editor(editor)
    await editor.lenses_when(ran)
    await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length: 100000")
    after = await editor.lenses_when(lambda lenses: (13, "fires on 3/3 samples (+2)") in lenses)
    assert (6, "fires on 2/3 samples") in after
