"""Rows as `evalkit score` reads them: the scored line keeps the row's bytes, and bad rows say why."""

from __future__ import annotations

import json

import pytest

from evalkit.qydomain.records import RowError, score_json_line

# Compact in places, an escape where the label has the character itself: all of it must survive.
ROW = (
    '{"model_output":"<solution>caf\\u00e9</solution>", '
    '"extra_info": {"label": "café"}, "data_source":"typos"}'
)


def test_the_score_is_spliced_in_and_the_row_keeps_its_own_bytes() -> None:
    scored = score_json_line(ROW.encode() + b"\r\n")
    assert scored.line == ROW.encode()[:-1] + b', "score": 1.0}'
    assert (scored.data_source, scored.score) == ("typos", 1.0)


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
