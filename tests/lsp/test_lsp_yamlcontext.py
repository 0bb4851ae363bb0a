"""Unit tests of the text-only YAML reader: key paths of positions in whole and half-typed documents,
and the laws it keeps (an index built from a previous version equals one built from scratch; no text
and no position makes it raise)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.lsp.yamlcontext import (
    Cursor,
    StructureIndex,
    WordAt,
    cursor_at,
    line_elements,
    strip_comment,
    target_at,
)

RULES = (
    """\
version: 2  # a comment: with a colon
rating_rules:
- id: first
  description: |
    a block scalar
    - id: not_a_rule
  when:
    any_of:
      - { response_contains_any: [heap] }
      - min_total_length: 3
  actions: { set_flag: x, assign_label: y }
- id: second
  when:
"""
    + "    \n"
)  # a blank line the editor indented: the cursor's path comes from its column


def at(text: str, line: int, column: int) -> Cursor | None:
    return cursor_at(StructureIndex(text.splitlines()), line, column)


def test_keys_get_their_full_paths_and_block_scalars_hide_their_content() -> None:
    index = StructureIndex(RULES.splitlines())
    assert [(k.line, k.path) for k in index.keys] == [
        (0, ("version",)),
        (1, ("rating_rules",)),
        (2, ("rating_rules", 0, "id")),
        (3, ("rating_rules", 0, "description")),
        (6, ("rating_rules", 0, "when")),
        (7, ("rating_rules", 0, "when", "any_of")),
        (8, ("rating_rules", 0, "when", "any_of", 0, "response_contains_any")),
        (9, ("rating_rules", 0, "when", "any_of", 1, "min_total_length")),
        (10, ("rating_rules", 0, "actions")),
        (10, ("rating_rules", 0, "actions", "set_flag")),
        (10, ("rating_rules", 0, "actions", "assign_label")),
        (11, ("rating_rules", 1, "id")),
        (12, ("rating_rules", 1, "when")),
    ]
    assert index.in_block_scalar(5) and not index.in_block_scalar(6)


def test_a_blank_line_takes_its_path_from_the_indentation() -> None:
    assert at(RULES, 13, 4) == Cursor("key", ("rating_rules", 1, "when"), 13, "", 4, 4, frozenset())
    assert at(RULES, 13, 2) == Cursor("key", ("rating_rules", 1), 13, "", 2, 2, frozenset({"id", "when"}))
    assert at(RULES, 13, 0) == Cursor("key", (), 13, "", 0, 0, frozenset({"version", "rating_rules"}))


def test_values_and_flow_collections() -> None:
    assert at(RULES, 0, 9) == Cursor("value", ("version",), 0, "", 9, 10)
    assert at(RULES, 8, 36) == Cursor(
        "value",
        ("rating_rules", 0, "when", "any_of", 0, "response_contains_any", 0),
        8,
        "he",
        34,
        38,
        in_flow=True,
    )
    assert at(RULES, 10, 28) == Cursor(
        "key", ("rating_rules", 0, "actions"), 10, "as", 26, 38, frozenset({"set_flag"}), in_flow=True
    )


def test_a_word_after_an_item_marker() -> None:
    text = "required_fields:\n  - categ\n"
    assert at(text, 1, 9) == Cursor(
        "key", ("required_fields", 0), 1, "categ", 4, 9, frozenset(), after_item=True
    )


def test_no_cursor_in_comments_or_block_scalars() -> None:
    assert at(RULES, 0, 20) is None
    assert at(RULES, 4, 6) is None


def test_children_are_read_to_the_end_of_their_block() -> None:
    index = StructureIndex(RULES.splitlines())
    assert [k.element.name for k in index.children(("rating_rules", 0), 2)] == [
        "id",
        "description",
        "when",
        "actions",
    ]
    assert index._read == 12  # the lines after the first rule's block were not needed


def test_targets_tell_keys_from_values() -> None:
    index = StructureIndex(RULES.splitlines())
    key = target_at(index, 7, 6)
    value = target_at(index, 11, 9)
    assert key is not None and (key.path, key.is_key, key.word) == (
        ("rating_rules", 0, "when", "any_of"),
        True,
        "any_of",
    )
    assert value is not None and (value.path, value.is_key, value.word) == (
        ("rating_rules", 1, "id"),
        False,
        "second",
    )
    assert target_at(index, 13, 2) is None


def test_comments_are_cut_outside_quotes_only() -> None:
    assert strip_comment("a: 'x # y' # z") == "a: 'x # y' "
    assert strip_comment("a: b#c") == "a: b#c"
    assert [e.kind for e in line_elements("- - key: v")] == ["item", "item", "key"]


yaml_like = st.lists(
    st.sampled_from(
        [
            "",
            "a:",
            "  b: 1",
            "  - c",
            "- d: e",
            "    - f: {g: [1, 2",
            "x: |",
            "  text: inside",
            "# note",
            "'q': 1",
            "  - ",
            "when:",
            "      dimension_gt: { accuracy",
            "\t",
            "-",
            "k: v # c: d",
        ]
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(yaml_like, yaml_like, st.integers(0, 40), st.integers(0, 60))
def test_any_text_and_position_is_read_without_raising(
    lines: list[str], more: list[str], line: int, column: int
) -> None:
    index = StructureIndex(lines + more)
    cursor = cursor_at(index, line, column)
    assert cursor is None or isinstance(cursor, Cursor)
    target = target_at(index, line, column)
    assert target is None or isinstance(target, WordAt)


@settings(max_examples=300, deadline=None)
@given(yaml_like, st.integers(0, 30), yaml_like, st.integers(0, 31))
def test_an_index_built_from_a_previous_version_equals_a_fresh_one(
    old: list[str], cut: int, tail: list[str], read: int
) -> None:
    new = old[:cut] + tail
    previous = StructureIndex(old)
    previous.frames_before(read)  # the previous version was read only this far
    incremental = StructureIndex(new, previous)
    fresh = StructureIndex(new)
    assert incremental.keys == fresh.keys
    assert [incremental.frames_before(n) for n in range(len(new) + 1)] == [
        fresh.frames_before(n) for n in range(len(new) + 1)
    ]
    assert [incremental.in_block_scalar(n) for n in range(len(new))] == [
        fresh.in_block_scalar(n) for n in range(len(new))
    ]


FLOW = """\
rating_rules: [
  {id: "a", when: {dimension_gt: {accuracy: 4}},  # a comment: with a colon
   actions: {set_flag: 'x, y'}},
  {id: b}
]
rewrite_rules:
  - {id: c, actions: {append_text: "}"}}
  - id: d
"""


def test_flow_keys_get_their_paths_over_several_lines() -> None:
    index = StructureIndex(FLOW.splitlines())
    assert [(k.line, k.element.column, k.path, k.element.value) for k in index.keys] == [
        (0, 0, ("rating_rules",), "["),
        (1, 3, ("rating_rules", 0, "id"), '"a"'),
        (1, 12, ("rating_rules", 0, "when"), ""),
        (1, 19, ("rating_rules", 0, "when", "dimension_gt"), ""),
        (1, 34, ("rating_rules", 0, "when", "dimension_gt", "accuracy"), "4"),
        (2, 3, ("rating_rules", 0, "actions"), ""),
        (2, 13, ("rating_rules", 0, "actions", "set_flag"), "'x, y'"),
        (3, 3, ("rating_rules", 1, "id"), "b"),
        (5, 0, ("rewrite_rules",), ""),
        (6, 5, ("rewrite_rules", 0, "id"), "c"),
        (6, 12, ("rewrite_rules", 0, "actions"), ""),
        (6, 22, ("rewrite_rules", 0, "actions", "append_text"), '"}"'),
        (7, 4, ("rewrite_rules", 1, "id"), "d"),
    ]
    assert target_at(index, 2, 24) == WordAt(
        ("rating_rules", 0, "actions", "set_flag"), False, "x", 2, 24, 25
    )
    assert target_at(index, 3, 7) == WordAt(("rating_rules", 1, "id"), False, "b", 3, 7, 8)


def test_a_flow_collection_left_open_ends_where_the_block_goes_on() -> None:
    half_typed = "rating_rules:\n  - id: a\n    when: [\n  - id: b\nrewrite_rules:\n  - id: c\n"
    index = StructureIndex(half_typed.splitlines())
    assert [k.path for k in index.keys if k.element.name == "id"] == [
        ("rating_rules", 0, "id"),
        ("rating_rules", 1, "id"),
        ("rewrite_rules", 0, "id"),
    ]


def test_a_line_inside_a_flow_opened_above_takes_its_path_from_the_flow() -> None:
    text = "rating_rules: [\n  {id: a, when: {max_total_length: 80},\n   actions: {set_flag: x}},\n"
    text += "  {id: b, }\n]\n"
    assert at(text, 3, 10) == Cursor(
        "key", ("rating_rules", 1), 3, "", 10, 10, frozenset({"id"}), in_flow=True
    )
    assert at(text, 2, 4) == Cursor(
        "key", ("rating_rules", 0), 2, "a", 3, 10, frozenset({"id", "when"}), in_flow=True
    )
    assert at(text, 1, 36) == Cursor(
        "value", ("rating_rules", 0, "when", "max_total_length"), 1, "8", 35, 37, in_flow=True
    )
