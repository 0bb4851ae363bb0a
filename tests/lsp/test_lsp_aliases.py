"""Rules that a YAML alias brings into a rule list, through the real server: each has its code lens on
the alias, named by its id, with the live impact of an edit to the anchored rule. A rule written in flow
style after an anchor (`- &name {id: ...}`) has its lens at its id."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from lsprotocol import types

if TYPE_CHECKING:
    from conftest import Editor

pytestmark = pytest.mark.asyncio(loop_scope="session")

RULES = """\
version: 2
x-shared:
  - &short
    id: very_short_answers
    when: {max_total_length: 80}
    actions: {set_flag: too_short}
  - &efficient {id: efficient_structure, when: {response_contains_any: [priority]}, actions: {set_flag: e}}
x-rewrites: &rewrites
  - {id: close_rewrite_with_period, when: { ends_without_punct: true }, actions: { append_text: "." }}
rating_rules:
  - *short   # line 10
  - *efficient
  - &anchored {id: anchored_in_place, when: {max_total_length: 80}, actions: {set_flag: too_short}}
rewrite_rules: *rewrites
"""


async def test_a_rule_brought_by_an_alias_has_its_lens_on_the_alias(editor: Editor) -> None:
    (editor.config / "rules.yaml").write_text(RULES, encoding="utf-8")
    assert await editor.open("rules.yaml") == []
    lenses = await editor.lenses_when(lambda found: (10, "very_short_answers: fires on 1/3 samples") in found)
    assert [lens for lens in lenses if lens[0] > 0] == [
        (10, "very_short_answers: fires on 1/3 samples"),
        (11, "efficient_structure: fires on 1/3 samples"),
        (12, "fires on 1/3 samples"),  # an anchored rule in its list: the lens at its id
        (13, "close_rewrite_with_period: fires on 1/3 samples"),
    ]


async def test_an_edit_to_an_anchored_rule_shows_its_impact_on_the_alias(editor: Editor) -> None:
    (editor.config / "rules.yaml").write_text(RULES, encoding="utf-8")
    await editor.open("rules.yaml")
    await editor.lenses_when(lambda found: (0, "vs saved: no change on 3 samples") in found)
    await editor.replace("rules.yaml", "max_total_length: 80", "max_total_length: 100000")
    await editor.lenses_when(lambda found: (10, "very_short_answers: fires on 3/3 samples (+2)") in found)


async def test_hover_on_an_alias_shows_the_dry_run_of_the_rule_it_brings(editor: Editor) -> None:
    (editor.config / "rules.yaml").write_text(RULES, encoding="utf-8")
    await editor.open("rules.yaml")
    await editor.lenses_when(lambda found: (10, "very_short_answers: fires on 1/3 samples") in found)
    found = await editor.hover("rules.yaml", 10, 6)
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.value.startswith(
        "**rule `very_short_answers`** · rating rule (through an alias)\n\n"
        "Dry run: **fires on 1/3 samples**\n- `b_short.json`: set_flag too_short"
    )
