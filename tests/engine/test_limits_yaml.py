"""The YAML loader's guards (engine/limits.py, engine/yamlsource.py): each hostile input is refused with a
positioned diagnostic, quickly, without building the tree it describes, and no input makes it raise."""

from __future__ import annotations

import time
import tracemalloc

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from evalkit.engine import limits
from evalkit.engine.yamlsource import parse_yaml

BILLION_LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=False)
)


def _refusal(text: str) -> tuple[str, int, int, float]:
    """The one diagnostic refusing `text`, and the CPU seconds it took (wall time is at the mercy of load)."""
    started = time.process_time()
    document, diagnostics = parse_yaml(text, "f.yaml")
    elapsed = time.process_time() - started
    assert document is None and len(diagnostics) == 1
    return diagnostics[0].code, diagnostics[0].line, diagnostics[0].column, elapsed


def test_billion_laughs_is_refused_in_milliseconds_at_the_alias_that_crosses_the_limit() -> None:
    assert len(BILLION_LAUGHS) < 500
    code, line, column, elapsed = _refusal(BILLION_LAUGHS)
    # a=10 nodes, b=91, c=820, d=7381, e=66430: the fourth *e on line 6 passes 200,000
    assert (code, line, column) == ("yaml-too-large", 6, 20)
    assert elapsed < 2.0  # a parser without the limit needs minutes and gigabytes


def test_billion_laughs_is_refused_before_any_of_it_is_built() -> None:
    # a shallow document takes the fast path (compose, then build while counting); the 200,000 nodes it
    # built before refusing took 55 MB and seconds: the refusal must cost what the text costs
    tracemalloc.start()
    try:
        code, _, _, _ = _refusal(BILLION_LAUGHS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == "yaml-too-large"
    assert peak < 2_000_000


def test_shared_aliases_within_the_limit_still_load() -> None:
    document, diagnostics = parse_yaml("a: &x [1, {b: 2}]\nc: [*x, *x]\nd: *x\n", "f.yaml")
    assert diagnostics == [] and document is not None
    assert document.data == {"a": [1, {"b": 2}], "c": [[1, {"b": 2}], [1, {"b": 2}]], "d": [1, {"b": 2}]}


def test_a_flat_document_with_too_many_nodes_is_refused() -> None:
    code, _, _, _ = _refusal("a: [" + "1," * limits.MAX_YAML_NODES + "1]\n")
    assert code == "yaml-too-large"


def test_a_document_with_too_many_nodes_is_refused_before_they_are_built() -> None:
    # short lines made this one look safe for the fast path, which composed and built 200,000 nodes (130 MB)
    # before it found out
    text = "a:\n" + "- 1\n" * (limits.MAX_YAML_NODES + 1)
    tracemalloc.start()
    try:
        code, _, _, _ = _refusal(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == "yaml-too-large"
    assert peak < 10_000_000


def test_nesting_is_allowed_up_to_the_limit_and_refused_beyond_it() -> None:
    depth = limits.MAX_YAML_DEPTH
    document, diagnostics = parse_yaml("[" * depth + "]" * depth, "f.yaml")
    assert document is not None and diagnostics == []
    code, line, column, _ = _refusal("[" * (depth + 1) + "]" * (depth + 1))
    assert (code, line, column) == ("yaml-too-deep", 1, depth + 1)


def test_absurd_nesting_neither_crashes_nor_takes_long() -> None:
    # the C loader's composer segfaults near 50,000 levels; the event scan stops at the limit first
    for text in ("[" * 100_000, "{a: " * 100_000, "".join("  " * i + "- \n" for i in range(300))):
        code, _, _, elapsed = _refusal(text)
        assert code in ("yaml-too-deep", "file-too-large") and elapsed < 5.0


def test_a_recursive_alias_is_refused_at_the_alias() -> None:
    assert _refusal("rules:\n  - &r\n    id: x\n    nested: [*r]\n")[:3] == ("recursive-alias", 4, 14)


def test_an_alias_to_no_anchor_names_the_alias() -> None:
    document, (problem,) = parse_yaml("a: *nowhere\n", "f.yaml")
    assert document is None and (problem.code, problem.line, problem.column) == ("yaml-syntax", 1, 4)
    assert "*nowhere" in problem.message


def test_a_file_over_the_size_limit_is_refused_before_parsing() -> None:
    code, line, column, elapsed = _refusal("# " + "x" * limits.MAX_YAML_BYTES)
    assert (code, line, column) == ("file-too-large", 1, 1) and elapsed < 1.0


def test_a_duplicate_key_is_reported_at_the_second_one_and_the_first_is_kept() -> None:
    document, (problem,) = parse_yaml("a: 1\nb: 2\na: 3\n", "f.yaml")
    assert document is not None and document.data == {"a": 1, "b": 2}
    assert (problem.code, problem.line, problem.column) == ("duplicate-key", 3, 1)
    assert problem.message == "duplicate key 'a' (first at line 1)"


def test_merge_keys_merge_as_pyyaml_does_with_spans_from_the_merged_mapping() -> None:
    text = "base: &b {x: 1, y: 1}\nmore: &m {x: 2, z: 2}\nuse:\n  <<: [*b, *m]\n  y: 3\n"
    document, diagnostics = parse_yaml(text, "f.yaml")
    assert diagnostics == [] and document is not None
    assert document.data["use"] == {"x": 1, "y": 3, "z": 2}
    assert (document.value_span(("use", "x")).line, document.value_span(("use", "y")).line) == (1, 5)


def test_a_tab_used_for_indentation_says_so() -> None:
    _, (problem,) = parse_yaml("a:\n\tb: 1\n", "f.yaml")
    assert (problem.code, problem.line, problem.column) == ("yaml-syntax", 2, 1)
    assert problem.message.endswith("YAML cannot indent with tabs: use spaces")


def test_a_syntax_error_names_where_the_unclosed_construct_began() -> None:
    _, (problem,) = parse_yaml("a:\n  - b\n  c: d\n", "f.yaml")
    assert (problem.line, problem.column) == (3, 3)
    assert problem.message == (
        "did not find expected '-' indicator (while parsing a block collection that began at line 2:3)"
    )


@pytest.mark.parametrize(
    ("text", "span", "stopped_at"),
    [
        ("a: [1, 2\nb: 3\n", (1, 4, 1, 9), "2:2"),  # the next line's scalar runs on into the collection
        ("rules: [\n", (1, 8, 1, 9), "2:1"),
        ("a: [1,\n\n\n", (1, 4, 1, 7), "4:1"),
        ("a:\n  b: {x: [1, 2,\n      3,  # typing here\n  # a comment\n  c: 4\n", (2, 10, 3, 9), "6:1"),
        ("a:\n  - {x: 1,\n  - y: 2\n", (2, 5, 2, 11), "3:3"),
        ("s: 'x\u2028y\x85'\nt: [1,\nu: 2\n", (2, 4, 2, 7), "4:1"),  # lines as the protocol counts them
        ("a: 'b\nc\n", (1, 4, 1, 6), "3:1"),  # a quote never closed
        ("a: [b, 'c\nd: e\n", (1, 8, 1, 10), "3:1"),  # the later of two: where typing is
        ('a:\n  b: "x\n  c: 1\n  d: "y"\n', (2, 6, 2, 8), "4:7"),  # closed by the next string's opening quote
    ],
)
def test_a_bracket_or_quote_being_typed_is_marked_where_it_began_up_to_what_was_typed(
    text: str, span: tuple[int, int, int, int], stopped_at: str
) -> None:
    # the parser reads on past `[1,` or `'b` to the lines below and fails there, far from where the author
    # types
    _, (problem,) = parse_yaml(text, "f.yaml")
    assert (
        problem.code,
        (problem.span.line, problem.span.column, problem.span.end_line, problem.span.end_column),
    ) == ("yaml-syntax", span)
    assert problem.message.startswith("the ") and problem.message.endswith(f" at line {stopped_at})")
    assert " is not closed (" in problem.message


def test_far_into_a_large_file_only_the_text_near_the_error_is_scanned_for_what_was_left_open() -> None:
    from evalkit.engine.unclosed import SCAN_WINDOW

    keys = "".join(f"k{i}: 'v\u2028'\n" for i in range(SCAN_WINDOW // 8))
    _, (problem,) = parse_yaml(f"{keys}x:\n  y: [1, 'é😀',\n  z: 2\n", "f.yaml")
    line = keys.count("\n") + 2
    assert (problem.span.line, problem.span.column, problem.span.end_line, problem.span.end_column) == (
        line,
        6,
        line,
        15,
    )
    _, (problem,) = parse_yaml(f"x: [1,\n{keys}- z\n", "f.yaml")  # swallowed far more than the window
    assert problem.message.startswith("the flow sequence '[' is not closed")


def test_an_error_inside_a_flow_collection_on_its_own_line_stays_where_the_parser_stopped() -> None:
    _, (problem,) = parse_yaml("a: [1, : ]\nb: 2\n", "f.yaml")
    assert (problem.line, problem.column) == (1, 8)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab:-[]{}&*!|>'\"#\n\t ,?<%@`", "&x ", "*x", "<<: ", "\n  "]), max_size=40))
def test_no_text_makes_the_loader_raise(tokens: list[str]) -> None:
    text = "".join(tokens)
    document, diagnostics = parse_yaml(text, "f.yaml")
    assert document is not None or diagnostics
    assert all(d.line >= 1 and d.column >= 1 for d in diagnostics)


STRUCTURED = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(alphabet="ab: -#*&", max_size=4)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abc", max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)
ANCHORED = "base: &b {x: 1, y: [1, 2]}\nuse:\n  <<: *b\n  y: 3\nlist: [*b, *b]\nseq: &s\n- 1\n- *b\n"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(
            st.sampled_from([*"ab:-[]{}&*!|>'\"#\n\t ,?<%@`", "&x ", "*x", "<<: ", "\n  "]), max_size=40
        ).map("".join),
        st.tuples(STRUCTURED, st.booleans()).map(lambda v: yaml.safe_dump(v[0], default_flow_style=v[1])),
        st.integers(1, 80).map(lambda depth: "[" * depth + "]" * depth),
        st.integers(1, 40).map(
            lambda depth: "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "v"
        ),
        st.integers(0, 3).map(lambda n: ANCHORED + "more: " + "[*b, " * n + "1" + "]" * n + "\n"),
    )
)
def test_the_fast_path_returns_what_the_careful_path_returns(text: str) -> None:
    from evalkit.engine.yamlsource import _parse_careful, _parse_fast, _Unchecked

    try:
        fast = _parse_fast(text, "f.yaml")
    except (_Unchecked, yaml.YAMLError):
        event("careful path")
        return  # the careful path alone answers
    event("fast path")
    assert fast == _parse_careful(text, "f.yaml")


def test_a_control_character_is_named_at_its_line_and_column() -> None:
    document, (problem,) = parse_yaml("version: 1\nrules:\n  - id: a\x00b\n", "f.yaml")
    assert document is None
    assert (problem.code, problem.line, problem.column) == ("yaml-syntax", 3, 10)
    assert (
        problem.message == "the character U+0000 is not allowed in YAML (control characters are not allowed)"
    )


def test_a_message_quoting_a_name_with_a_newline_stays_on_one_line() -> None:
    from evalkit.engine.diagnostics import FILE_START, error

    problem = error("f.yaml", FILE_START, "unknown-key", "unknown key 'a\nb\u2028c'")
    assert problem.message == "unknown key 'a\\nb\\u2028c'"
    assert len(problem.format().splitlines()) == 1


@pytest.mark.parametrize(
    "where",
    [
        "{anchor} [{aliases}]",  # the document itself
        "root: {anchor} [{aliases}]",
        "root:\n- {anchor} [{aliases}]",
        "root: [{anchor} [{aliases}]]",
        "root: {{k: {anchor} [{aliases}]}}",
        "root: [x,{anchor} [{aliases}]]",
        "root: !!seq {anchor} [{aliases}]",
        "{{{anchor} key: [{aliases}]}}",  # a flow mapping's key
        '{{"root":{anchor} [{aliases}]}}',  # a JSON-like key: its value may follow the ':' at once
        '["root":{anchor} [{aliases}]]',  # the same, a single pair in a flow sequence
    ],
)
def test_an_anchor_anywhere_makes_the_fast_path_count_the_expansion(where: str) -> None:
    """The fast path skips counting what aliases expand to when the text has no anchor; an anchor written
    anywhere YAML allows one must be seen, or a billion laughs would be built."""
    from evalkit.engine.yamlsource import _ANCHOR

    levels = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    levels += [f"&l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 9)]
    nested = levels[0]
    for level in levels[1:]:  # each level defined inside the next: `&l1 [*l0, ...]` needs l0 before it
        nested = f"[{nested}, {level}]"
    text = where.format(anchor="&top", aliases=nested)
    try:
        list(yaml.parse(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        pytest.fail(f"not YAML: {text!r}")
    assert text.index("&top") + 1 in {match.end() for match in _ANCHOR.finditer(text)}
    code, _, _, elapsed = _refusal(text)
    assert code == "yaml-too-large" and elapsed < 1.0


VALUES = st.recursive(
    st.one_of(st.integers(), st.text(alphabet="a &*:-[]{},#", max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text("ab", max_size=2), inner)),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)  # a loaded machine took 941 ms over one example (200 ms deadline)
@given(
    st.lists(st.lists(VALUES, min_size=1, max_size=2), min_size=1, max_size=3),
    st.lists(st.sampled_from(["seq", "map", "top"]), min_size=1, max_size=4),
    st.sampled_from([True, False, None]),
    st.booleans(),
)
def test_every_anchor_yaml_reads_is_where_the_anchor_search_looks(
    shared: list[list[object]], places: list[str], flow: bool | None, start: bool
) -> None:
    """Whatever YAML reads as an anchor, `_ANCHOR` finds at that anchor (a false alarm only costs time).
    PyYAML writes an anchor for each collection a document holds twice, in flow and block styles."""
    from evalkit.engine.yamlsource import _ANCHOR

    data: list[object] = []
    for number, value in enumerate(shared * 2):  # each collection twice
        place = places[number % len(places)]
        data.append({"k": value} if place == "map" else [value] if place == "seq" else value)
    text = yaml.safe_dump(data, default_flow_style=flow, explicit_start=start, width=30)
    nodes = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)  # an AliasEvent names one
    anchors = [e.start_mark.index for e in yaml.parse(text) if isinstance(e, nodes) and e.anchor is not None]
    assert anchors, text
    looked_at = {match.end() - 1 for match in _ANCHOR.finditer(text)}
    assert all(text[at] == "&" and at in looked_at for at in anchors), text
