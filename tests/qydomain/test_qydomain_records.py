"""Rows as `evalkit score` reads them: the scored line keeps the row's members as written, and bad rows say
why."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from msgspec import Raw
from msgspec.json import Decoder

from evalkit.qydomain.records import RowError, _checked_score, score_json_line
from tests.budget import examples

# Compact in places, an escape where the label has the character itself: all of it must survive.
ROW = (
    '{"model_output":"<solution>caf\\u00e9</solution>", '
    '"extra_info": {"label": "café"}, "data_source":"typos"}'
)


def test_the_members_keep_their_bytes_and_the_line_is_spaced_as_json_dumps_spaces_it() -> None:
    scored = score_json_line(ROW.encode() + b"\r\n")
    assert (
        scored.line
        == (
            '{"model_output": "<solution>caf\\u00e9</solution>", '
            '"extra_info": {"label": "café"}, "data_source": "typos", "score": 1.0}'
        ).encode()
    )
    assert (scored.data_source, scored.score) == ("typos", 1.0)


def _old_splice(raw: bytes, value: float) -> bytes:
    """What evalkit score wrote before it encoded the line (issue #16): the score spliced in as text."""
    return (
        raw.removeprefix(b"\xef\xbb\xbf").rstrip(b" \t\r\n")[:-1]
        + b', "score": '
        + repr(value).encode()
        + b"}"
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
TOKENS = [
    "a",
    "b",
    " ",
    ",",
    ".",
    "é",
    "\n",
    '"',
    "\\",
    "\u2028",
    "\ud800",
    "\x7f",
    "<solution>",
    "</solution>",
]
text = st.lists(st.sampled_from(TOKENS), max_size=12).map("".join)
# Top-level keys are the one part of a row re-encoded (msgspec keeps values as written, not keys): printable
# ASCII but for '"' and '\\', which is what every exporter writes and what json.dumps writes unescaped.
KEYS = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'), max_size=6)


@settings(deadline=None, max_examples=examples(300))
@given(
    st.sampled_from(["typos", "connections", "unscrambling"]),
    text.filter(str.strip),
    text,
    st.dictionaries(
        KEYS.filter(
            lambda key: key not in ("data_source", "extra_info", "model_output", "response", "score")
        ),
        json_values,
        max_size=3,
    ),
    st.booleans(),
    st.booleans(),
)
def test_a_row_written_by_json_dumps_comes_back_byte_for_byte_with_its_score(
    data_source: str, label: str, output: str, other: dict[str, object], ascii_only: bool, bom: bool
) -> None:
    row = {**other, "data_source": data_source, "extra_info": {"label": label}, "model_output": output}
    written = json.dumps(row, ensure_ascii=ascii_only)
    assume(ascii_only or not any("\ud800" <= character <= "\udfff" for character in written))
    raw = written.encode()
    raw = b"\xef\xbb\xbf" + raw if bom else raw
    scored = score_json_line(raw + b"\n")
    assert 0.0 <= scored.score <= 1.0
    assert scored.line == _old_splice(raw, scored.score)
    assert json.loads(scored.line) == dict(row, score=scored.score)


def test_a_score_below_1e_4_is_written_as_python_writes_it() -> None:
    """msgspec would write 0.00005 where json.dumps writes 5e-05: the line stays what json.dumps gives."""
    plot = ". ".join(f"s{index}" for index in range(20_000)) + "."  # every sentence matches the one given
    row = {"data_source": "unscrambling", "extra_info": {"label": plot}, "model_output": "s0."}
    raw = json.dumps(row).encode()
    scored = score_json_line(raw)
    assert scored.score == 1 / 20_000
    assert scored.line.endswith(b', "score": 5e-05}')
    assert scored.line == _old_splice(raw, scored.score)


def test_a_byte_order_mark_is_dropped() -> None:
    assert score_json_line(b"\xef\xbb\xbf" + ROW.encode()).line.startswith(b'{"model_output"')


def test_an_existing_score_is_replaced_not_repeated() -> None:
    row = {"score": 0.25, "data_source": "typos", "extra_info": {"label": "a"}, "response": "a"}
    line = score_json_line(json.dumps(row).encode()).line
    assert json.loads(line) == dict(row, score=1.0)
    assert line.count(b'"score"') == 1


def test_a_lone_surrogate_is_written_as_an_escape() -> None:
    row = '{"score": 0, "data_source": "typos", "extra_info": {"label": "a"}, "response": "a\\ud800"}'
    assert b'"a\\ud800"' in score_json_line(row.encode()).line


@pytest.mark.parametrize(
    ("line", "code", "message"),
    [
        (b"{", "invalid-json", "invalid JSON: Expecting property name enclosed in double quotes (column 2)"),
        (b"[" * 100_000, "invalid-json", "invalid JSON: nested too deeply"),
        (b'"text"', "not-an-object", "expected a JSON object, found a string"),
        (b'{"x": "\xff"}', "invalid-utf8", "not UTF-8 text (byte 8)"),
        (b"{}", "missing-field", 'missing "data_source"'),
        (b'{"data_source": 1}', "wrong-type", '"data_source" must be a string, found a number'),
        (b'{"data_source": "x"}', "unknown-data-source", "unknown data_source 'x': expected one of"),
        (b'{"data_source": "typos", "extra_info": []}', "wrong-type", '"extra_info" must be an object'),
        (b'{"data_source": "typos", "extra_info": {}}', "missing-field", 'missing "extra_info.label"'),
        (
            b'{"data_source": "typos", "extra_info": {"label": "a"}}',
            "missing-field",
            'missing "model_output" (or "response")',
        ),
        (
            b'{"data_source": "typos", "extra_info": {"label": "a"}, "response": null}',
            "wrong-type",
            '"response" must be a string, found null',
        ),
    ],
)
def test_a_row_that_cannot_be_scored_says_why(line: bytes, code: str, message: str) -> None:
    with pytest.raises(RowError) as raised:
        score_json_line(line)
    assert raised.value.code == code
    assert str(raised.value).startswith(message)


GOOD = b'{"data_source": "typos", "extra_info": {"label": "a"}, "response": "a"'


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (GOOD + b', "meta": {"n": [' + b"9" * 5000 + b"]}}", "number-too-large"),
        (GOOD + b', "n": ' + b"9" * 5000 + b"}", "number-too-large"),
        (GOOD + b', "x": "\xff"}', "invalid-utf8"),
        (GOOD + b', "x": "\xed\xa0\x80"}', "invalid-utf8"),
    ],
)
def test_what_json_loads_refuses_in_a_member_the_scorer_does_not_read_is_still_refused(
    line: bytes, code: str
) -> None:
    with pytest.raises(RowError) as raised:
        score_json_line(line)
    assert raised.value.code == code


@pytest.mark.parametrize(
    "line",
    [
        GOOD + b', "meta": NaN}',  # json.loads reads NaN, msgspec does not
        GOOD[:-1] + b'\\ud800"}',  # a lone surrogate in the output the scorer reads
        GOOD + b', "big": ' + b"9" * 30 + b"}",  # beyond msgspec's 64-bit integers
        GOOD + b', "meta": "' + b"9" * 5000 + b'"}',  # digits in a string: not a number
    ],
)
def test_what_only_json_loads_reads_is_scored_too(line: bytes) -> None:
    scored = score_json_line(line)
    assert scored.score == 1.0
    assert json.loads(scored.line) == dict(json.loads(line), score=1.0) or b"NaN" in scored.line


@settings(deadline=None, max_examples=examples(300))
@given(
    st.lists(
        st.sampled_from([b"9", b"9" * 100, b"9" * 4200, b"a", b"a" * 3000, b" ", b"7" * 4301]), max_size=8
    ).map(b"".join)
)
def test_a_member_is_searched_for_a_long_number_only_where_one_can_be(digits: bytes) -> None:
    """Only members with a digit at every 4,301st byte are searched for more than 4,300 digits in a row:
    the same answer as searching every member."""
    from evalkit.qydomain.records import _LONG_DIGITS, _MAX_DIGITS, _long_digits

    member = Decoder(dict[str, Raw]).decode(b'{"x": ["' + digits + b'"]}')["x"]
    assert _long_digits(member) == (len(member) > _MAX_DIGITS and bool(_LONG_DIGITS.search(member)))


@pytest.mark.parametrize(
    "row",
    [
        {"extra_info": {"label": "a"}, "model_output": "a"},
        {"data_source": ["typos"], "extra_info": {"label": "a"}, "model_output": "a"},
        {"data_source": "typos", "extra_info": {"label": 1}, "model_output": "a"},
        {"data_source": "typos", "extra_info": {"label": "a"}, "model_output": "a", "response": 1},
        {"data_source": "typos", "extra_info": {"label": "a"}, "model_output": None, "response": "a"},
        {"data_source": "typos", "extra_info": {"label": "a"}, "response": ["a"]},
        {"data_source": "typos", "extra_info": None, "response": "a"},
        {"data_source": "typos", "extra_info": {"label": "a"}, "response": "a"},
        {"data_source": "connections", "extra_info": {"label": " "}, "response": "a"},
    ],
)
def test_rows_are_read_as_each_field_is_checked_in_turn(row: dict[str, object]) -> None:
    """score_json_line reads a well-formed row in one test of its fields: any row gives what checking them
    one by one and calling the data source's reward function gives."""
    from evalkit.qydomain import score

    line = json.dumps(row).encode()
    try:
        scored = score_json_line(line)
    except RowError as error:
        with pytest.raises(RowError) as expected:
            _checked_score(row)
        assert (error.code, str(error)) == (expected.value.code, str(expected.value))
    else:
        output = row.get("model_output", row.get("response"))
        assert scored.score == score(row["data_source"], output, row["extra_info"])  # type: ignore[arg-type]


odd_values = st.one_of(st.none(), st.integers(), st.lists(st.text(max_size=2), max_size=2), st.just({}))
sources = st.sampled_from(["typos", "connections", "unscrambling"])
extra_info = st.fixed_dictionaries({"label": st.sampled_from(["a", "A. B.", "a,b", " ", "é"])})
answers = st.sampled_from(["a", "<solution>a</solution>", "<think>b</think>a", "A. B.", "\\boxed{a,b}", ""])


@st.composite
def row_fields(draw: st.DrawFn) -> dict[str, object]:
    """Rows mostly well formed, each field sometimes missing or of another type, "response" beside or
    instead of "model_output", members the scorer does not read."""
    row: dict[str, object] = {}
    for field, good in (("data_source", sources), ("extra_info", extra_info), ("model_output", answers)):
        kind = draw(st.sampled_from(["good", "good", "good", "good", "odd", "missing"]))
        if kind != "missing":
            row[field] = draw(good if kind == "good" else odd_values)
    for field, value in (("response", st.one_of(answers, odd_values)), ("other", st.integers())):
        if draw(st.booleans()):
            row[field] = draw(value)
    return row


@settings(deadline=None, max_examples=examples(500))
@given(row_fields(), st.booleans(), st.booleans())
def test_the_quick_read_of_a_well_formed_row_gives_what_the_careful_read_gives(
    row: dict[str, object], ascii_only: bool, compact: bool
) -> None:
    """score_json_line reads a row in a few calls when it is well formed, and field by field otherwise: on
    any row the quick read either passes it on or gives the careful read's score and line."""
    from evalkit.qydomain.records import _read_carefully, _well_formed

    separators = (",", ":") if compact else (", ", ": ")
    raw = json.dumps(row, ensure_ascii=ascii_only, separators=separators).encode("utf-8", "surrogatepass")
    quick = _well_formed(raw)
    try:
        careful = _read_carefully(raw)
    except RowError:
        assert quick is None
    else:
        assert quick is None or quick == careful


@st.composite
def spaced(draw: st.DrawFn, value: object) -> str:
    """`value` as JSON with any spacing around its separators and brackets (strings as json.dumps writes
    them, with or without escapes for what is not ASCII)."""
    gap = st.sampled_from(["", " ", "  ", "\t", "\n"])
    if isinstance(value, dict):
        members = [
            f"{draw(gap)}{json.dumps(key)}{draw(gap)}:{draw(gap)}{draw(spaced(item))}{draw(gap)}"
            for key, item in value.items()
        ]
        return "{" + ",".join(members) + "}" if members else "{" + draw(gap) + "}"
    if isinstance(value, list):
        return "[" + ",".join(f"{draw(gap)}{draw(spaced(item))}{draw(gap)}" for item in value) + "]"
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


EXTRA_INFO_FORMS = [
    '{"label": %s}',
    '{"label":%s}',
    '{ "label": %s}',
    '{"label": %s }',
    '{"label": %s,"label": "z"}',
    '{"label": %s, "label": "z"}',
    '{"label": "z", "label": %s}',
    '{"label": %s, "other": [1 ,{"a":2}]}',
    '{"label": %s, "other": null}',
    '{"label": [%s]}',
]


@settings(deadline=None, max_examples=examples(500))
@given(
    sources,
    text.filter(str.strip),
    text,
    st.sampled_from(EXTRA_INFO_FORMS),
    st.dictionaries(
        st.sampled_from(["other", "x", "score", "data_source", "response"]), json_values, max_size=3
    ),
    st.sampled_from(["model_output", "response"]),
    st.data(),
)
def test_a_row_however_it_is_spaced_gets_the_line_the_careful_read_gives(
    data_source: str,
    label: str,
    output: str,
    extra_info_form: str,
    others: dict[str, object],
    output_field: str,
    data: st.DataObject,
) -> None:
    """The quick read joins the scored line from the members as written, respacing only the objects and
    arrays json.dumps would space otherwise (an extra_info `{"label": "…"}` spaced as json.dumps spaces it
    is taken as it is): on rows spaced any way, with an extra_info of any form, members of any value before
    and after, a "score" already there or a member named twice, it gives what _encoded gives the whole row."""
    from evalkit.qydomain.records import _read_carefully, _well_formed

    gap = st.sampled_from(["", " ", "  ", "\t"])
    label_written = json.dumps(label, ensure_ascii=data.draw(st.booleans()))
    members = [(json.dumps(key), data.draw(spaced(value))) for key, value in others.items()] + [
        ('"data_source"', json.dumps(data_source)),
        ('"extra_info"', extra_info_form % label_written),
        (f'"{output_field}"', json.dumps(output, ensure_ascii=data.draw(st.booleans()))),
    ]
    order = data.draw(st.permutations(members))
    written = [f"{data.draw(gap)}{key}{data.draw(gap)}:{data.draw(gap)}{value}" for key, value in order]
    raw = ("{" + ",".join(written) + data.draw(gap) + "}").encode("utf-8", "surrogatepass")
    quick = _well_formed(raw)
    try:
        careful = _read_carefully(raw)
    except RowError:
        assert quick is None
    else:
        assert quick is None or quick == careful
        if extra_info_form.startswith('{"label": %s') and "label" not in extra_info_form[12:]:
            assert quick is not None or "\\ud" in raw.decode("utf-8", "surrogatepass")  # read quickly
