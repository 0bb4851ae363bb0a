"""Every position of a hostile rules.yaml (a byte order mark, CRLF, emoji ids, U+2028, combining marks,
flow-style rules, aliases, tabs) and of the shipped one, asked for hover and completion, with the outline
and the lenses: every answer holds the protocol's laws. Each range lies inside the document with its
start before its end; a completion's edit is on the cursor's line and contains the cursor; a hover's
range contains the hovered position."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import pytest
from lsprotocol import types

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

HOSTILE = (
    "\ufeffversion: 2\r\n"
    "rating_rules:\r\n"
    "  - id: \U0001f525v2.no_example  # emoji\r\n"
    "    when: {dimension_gt: {accuracy: 4.5}}\r\n"
    "    actions: &acts\r\n"
    "      set_flag: cafe\u0301\r\n"
    "  - {id: flow_rule, when: {always: true}, actions: *acts}\r\n"
    "  - id: sep\u2028arated\r\n"
    "    when:\t{response_contains_any: ['x']}\r\n"
    "    actions: *acts\r\n"
    "ranking_rules: [{id: r1, when: {}, actions: {}}]\r\n"
)
SHIPPED = files("evalkit.config_samples").joinpath("rules.yaml").read_text(encoding="utf-8")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def lines_of(text: str) -> list[str]:
    return _LINE_BREAK.split(text)


def units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Laws:
    """The protocol's laws for one document's answers."""

    def __init__(self, text: str) -> None:
        self.widths = [units(line) for line in lines_of(text)]

    def inside(self, where: types.Range, what: str) -> None:
        start, end = where.start, where.end
        assert (start.line, start.character) <= (end.line, end.character), f"{what}: start after end"
        for position in (start, end):
            assert position.line < len(self.widths), f"{what}: line {position.line} past the end"
            assert position.character <= self.widths[position.line], f"{what}: past its line's end"

    def completion(self, answer: Any, at: types.Position) -> None:
        items = answer.items if isinstance(answer, types.CompletionList) else answer or []
        for item in items:
            edit = item.text_edit
            ranges = [edit.range] if isinstance(edit, types.TextEdit) else []
            if isinstance(edit, types.InsertReplaceEdit):
                ranges = [edit.insert, edit.replace]
            for where in ranges:
                what = f"completion {item.label!r} at {at.line}:{at.character}"
                self.inside(where, what)
                assert where.start.line == where.end.line == at.line, f"{what}: not on the cursor's line"
                cursor = min(at.character, self.widths[at.line])  # the spec: past the end is the end
                assert where.start.character <= cursor <= where.end.character, f"{what}: misses the cursor"

    def hover(self, answer: types.Hover | None, at: types.Position) -> None:
        if answer is None or answer.range is None:
            return
        what = f"hover at {at.line}:{at.character}"
        self.inside(answer.range, what)
        start, end = answer.range.start, answer.range.end
        character = min(at.character, self.widths[at.line])  # the spec: past the end is the end
        assert (start.line, start.character) <= (at.line, character) <= (end.line, end.character), what


def positions(text: str, step: int = 1) -> Iterator[types.Position]:
    for line, content in enumerate(lines_of(text)):
        for character in range(0, units(content) + 2, step):  # one past the end too
            yield types.Position(line, character)


async def sweep(editor: Editor, text: str, step: int) -> int:
    await editor.open("rules.yaml", text)
    laws, document, client = Laws(text), types.TextDocumentIdentifier(editor.uri("rules.yaml")), editor.client
    asked = 0
    every = list(positions(text, step))
    for batch in range(0, len(every), 50):
        at_batch = every[batch : batch + 50]
        hovers = [client.text_document_hover_async(types.HoverParams(document, at)) for at in at_batch]
        completions = [
            client.text_document_completion_async(types.CompletionParams(document, at)) for at in at_batch
        ]
        answers = await asyncio.gather(*hovers, *completions)
        for at, hovered, completed in zip(
            at_batch, answers[: len(at_batch)], answers[len(at_batch) :], strict=True
        ):
            laws.hover(hovered, at)
            laws.completion(completed, at)
        asked += 2 * len(at_batch)
    for symbol in (
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(document)) or []
    ):
        check_symbol(laws, symbol)
    for lens in await client.text_document_code_lens_async(types.CodeLensParams(document)) or []:
        laws.inside(lens.range, f"lens {lens.command.title if lens.command else ''}")
    return asked


def check_symbol(laws: Laws, symbol: Any) -> None:
    if isinstance(symbol, types.DocumentSymbol):
        laws.inside(symbol.range, f"symbol {symbol.name}")
        laws.inside(symbol.selection_range, f"symbol {symbol.name}'s selection")
        for child in symbol.children or []:
            check_symbol(laws, child)


async def test_every_position_of_a_hostile_rules_file_answers_within_the_laws(editor: Editor) -> None:
    assert await sweep(editor, HOSTILE, 1) > 600


async def test_every_third_position_of_the_shipped_rules_answers_within_the_laws(editor: Editor) -> None:
    assert await sweep(editor, SHIPPED, 3) > 1_500


async def test_a_completion_at_the_very_start_of_a_file_with_a_bom_is_not_after_the_cursor(
    editor: Editor,
) -> None:
    await editor.open("rules.yaml", "\ufeff\nrating_rules: []\n")
    at = types.Position(0, 0)
    answer = await editor.client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(editor.uri("rules.yaml")), at)
    )
    Laws("\ufeff\nrating_rules: []\n").completion(answer, at)
