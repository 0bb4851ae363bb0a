"""Top-level `x-` keys through the real server: no diagnostic, hover says what they are, completion
offers the prefix (the schemas' patternProperties, as `evalkit check` reads them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lsprotocol import types

from evalkit import schemas

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

RULES = """\
version: 2
x-needs-review: &needs_review {set_flag: looked_at, assign_label: needs_review}
rating_rules:
  - id: anchored
    when: {max_total_length: 80}
    actions:
      <<: *needs_review
"""


async def test_an_x_key_is_no_problem_and_its_hover_says_it_is_ignored(editor: Editor) -> None:
    assert await editor.open("rules.yaml", RULES) == []
    hovered = await editor.hover("rules.yaml", 1, 4)
    assert hovered is not None and isinstance(hovered.contents, types.MarkupContent)
    description = schemas.load("rules")["patternProperties"]["^x-"]["description"]
    assert hovered.contents.value == f"**`x-needs-review`** · extension key (ignored)\n\n{description}"


async def test_a_key_that_is_no_x_key_is_still_refused(editor: Editor) -> None:
    diagnostics = await editor.open("rules.yaml", RULES.replace("x-needs-review", "needs-review"))
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("unknown-key", 1)]
    assert diagnostics[0].message.endswith("or x-NAME (an extension key, ignored)")


async def test_completion_offers_the_x_prefix_in_every_config_file(editor: Editor) -> None:
    for name in ("rules.yaml", "dimensions.yaml"):
        await editor.open(name, "")
        items = await editor.completion(name, 0, 0)
        extension = [item for item in items if item.label == "x-"]
        assert [item.detail for item in extension] == ["extension key (ignored)"]
