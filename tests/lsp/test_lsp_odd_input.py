"""Odd input a rule author types, through the real server: each problem once, at the text it is about."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lsprotocol import types

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")


def span(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


async def test_a_rules_file_that_is_a_list_is_marked_from_its_first_item_to_its_last(editor: Editor) -> None:
    found = await editor.open("rules.yaml", "# the rules, as a list\n- id: a\n- id: \U0001f600  \n\n# end\n")
    assert [(span(d.range), d.code) for d in found] == [((1, 0, 2, 8), "wrong-type")]
