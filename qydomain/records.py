"""Dataset rows as `evalkit score` reads them: one JSON object per line.

A row is `{"data_source": ..., "extra_info": {"label": ...}, "model_output": ...}`; `response` is accepted
for `model_output`, since exporters use both names. A row that cannot be scored raises `RowError` with a
stable code and a message that names the field; the scorers themselves never raise.

>>> scored = score_json_line(b'{"data_source": "typos", "extra_info": {"label": "hi"}, "response": "hi"}')
>>> scored.line
b'{"data_source": "typos", "extra_info": {"label": "hi"}, "response": "hi", "score": 1.0}'
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from .dispatch import ScoreFn, UnknownDataSource, scorer_for, too_large

_OUTPUT_FIELDS = ("model_output", "response")
_BOM = b"\xef\xbb\xbf"  # a byte-order mark some editors write first
_JSON_SPACE = b" \t\r\n"


class RowError(ValueError):
    """A row that cannot be scored. `code` is stable (e.g. "invalid-json"); the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class ScoredRow:
    """A scored row: its data source, its score, and the row with "score" added as one UTF-8 JSON line."""

    data_source: str
    score: float
    line: bytes
    spliced: bool = True
    """`line` is `splice_score(raw, score)`: whoever holds the raw line can rebuild it from the score."""


def score_json_line(raw: bytes) -> ScoredRow:
    """Parse, validate and score one line; raises RowError for a row that cannot be scored."""
    row = _parse(raw)
    scorer = _scorer(row)
    extra_info = _required(row, "extra_info", dict, 'an object with a "label"')
    _required(extra_info, "label", str, "a string", where="extra_info.")
    output_field = next((name for name in _OUTPUT_FIELDS if name in row), _OUTPUT_FIELDS[0])
    output = _required(row, output_field, str, "a string")
    value = scorer(output, extra_info)
    if value == 0.0 and (why := too_large(row["data_source"], output, extra_info)):  # bounded: refused, not 0
        raise RowError("too-large", why)
    return ScoredRow(row["data_source"], value, _with_score(raw, row, value), "score" not in row)


def _with_score(raw: bytes, row: dict[str, Any], value: float) -> bytes:
    """The line with "score" added: spliced in (`splice_score`), or, for a row that has a "score" already,
    re-encoded with the new value."""
    if "score" in row:
        row["score"] = value
        return _dump(row)
    return splice_score(raw, value)


def splice_score(raw: bytes, value: float) -> bytes:
    """`raw` (a JSON object without "score") with `"score": value` added before the closing brace.

    The row's own bytes (key order, escapes, spacing) stay as they were, and nothing is re-encoded, which
    was most of the command's time; worker processes send back only the score and the parent splices it."""
    return raw.removeprefix(_BOM).rstrip(_JSON_SPACE)[:-1] + b', "score": ' + repr(value).encode() + b"}"


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        row = json.loads(raw.decode("utf-8-sig"))  # -sig: skips a byte-order mark
    except UnicodeDecodeError as error:
        raise RowError("invalid-utf8", f"not UTF-8 text (byte {error.start + 1})") from None
    except json.JSONDecodeError as error:
        raise RowError("invalid-json", f"invalid JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:
        raise RowError("invalid-json", "invalid JSON: nested too deeply") from None
    except ValueError:  # an integer of more digits than Python converts (4,300: int_max_str_digits)
        raise RowError(
            "number-too-large",
            f"a number of more than {sys.get_int_max_str_digits():,} digits "
            "(the limit of Python's integer conversion)",
        ) from None
    if not isinstance(row, dict):
        raise RowError("not-an-object", f"expected a JSON object, found {_json_type(row)}")
    return row


def _scorer(row: dict[str, Any]) -> ScoreFn:
    try:
        return scorer_for(_required(row, "data_source", str, "a string"))
    except UnknownDataSource as error:
        raise RowError("unknown-data-source", str(error)) from None


def _required(row: dict[str, Any], field: str, kind: type, expected: str, where: str = "") -> Any:
    if field not in row:
        also = ' (or "response")' if field == "model_output" else ""
        raise RowError("missing-field", f'missing "{where}{field}"{also}')
    value = row[field]
    if not isinstance(value, kind):
        raise RowError("wrong-type", f'"{where}{field}" must be {expected}, found {_json_type(value)}')
    return value


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _dump(row: dict[str, Any]) -> bytes:
    try:
        return json.dumps(row, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a "\ud800" escape: keep the row as valid UTF-8
        return json.dumps(row).encode("ascii")
