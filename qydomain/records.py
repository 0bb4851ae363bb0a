"""Dataset rows as `evalkit score` reads them: one JSON object per line.

A row is `{"data_source": ..., "extra_info": {"label": ...}, "model_output": ...}`; `response` is accepted
for `model_output`, since exporters use both names. A row that cannot be scored raises `RowError` with a
stable code and a message that names the field; the scorers themselves never raise.

The scored line is the row with "score" added, encoded once as a JSON value: the row's members are kept as
they were written (msgspec's `Raw`: their escapes and their order, nothing decoded and re-encoded), the
score goes last (or where the row had a "score" already), and the line is spaced as `json.dumps` spaces
it. A row written by `json.dumps` comes back byte for byte, with `, "score": …}` at its end.

>>> scored = score_json_line(b'{"data_source": "typos", "extra_info": {"label": "hi"}, "response": "hi"}')
>>> scored.line
b'{"data_source": "typos", "extra_info": {"label": "hi"}, "response": "hi", "score": 1.0}'
"""

from __future__ import annotations

import json
import re
import sys
from array import array
from typing import Any, NamedTuple

from msgspec import DecodeError, Raw, ValidationError
from msgspec.json import Decoder, encode, format

from .dispatch import ROW_SCORERS, ScoreFn, UnknownDataSource, scorer_for, strip_think, too_large

_OUTPUT_FIELDS = ("model_output", "response")
_NEEDED = ("data_source", "extra_info", *_OUTPUT_FIELDS)
_BOM = b"\xef\xbb\xbf"  # a byte-order mark some editors write first
_MEMBERS = Decoder(dict[str, Raw])
_VALUE = Decoder()
_STRING = Decoder(str)
_LABEL_START = b'{"label": "'
_LABEL_SKIP = len(_LABEL_START)
_NAMES = {name: encode(name) + b": " for name in ("data_source", "extra_info", *_OUTPUT_FIELDS)}
"""The names of the members every row has, as written in a scored line with what follows them."""
_OPENERS = frozenset(b"{[")
_SPACES = frozenset(
    b" \t\n\r\x0b\x0c"
)  # what bytes.isspace counts as space  # the first bytes of the values json.dumps's spacing may change
_SMALLEST_AS_PYTHON = 1e-4
"""msgspec writes a float as Python's repr does from here up (below it, `0.00005` for `5e-05`)."""
_MAX_DIGITS = sys.get_int_max_str_digits()  # json.loads refuses an integer of more (4,300 by default)
_LONG_DIGITS = re.compile(b"[0-9]{%d}" % (_MAX_DIGITS + 1))
_DIGIT = re.compile(b"[0-9]")


class RowError(ValueError):
    """A row that cannot be scored. `code` is stable (e.g. "invalid-json"); the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ScoredRow(NamedTuple):
    """A scored row: its data source, its score, and the row with "score" added as one UTF-8 JSON line."""

    data_source: str
    score: float
    line: bytes


class ScoredText(NamedTuple):
    """The lines of a text scored (`score_text`): the output lines before the first bad line and after each
    bad line, each run joined (every line ending with b"\n"), the scores of each data source in input order,
    each bad line's position among the lines, code and message, and how many lines there were."""

    runs: list[bytes]  # one more than there are bad lines
    scores: dict[str, array[float]]
    bad: list[tuple[int, str, str]]
    lines: int


def score_text(data: bytes) -> ScoredText:
    """Score the lines of `data` (`data.split(b"\n")`, less the empty piece after a last b"\n"), none longer
    than the limit; blank ones are skipped. What `evalkit score` does with each range of a file (its command
    module's score_lines with those lines, the twin this is held to), with each line a view of `data`
    rather than a copy of it, found with memchr rather than bytes.split's byte-by-byte loop, and read as
    ASCII without looking again when all of `data` is ASCII (what json.dumps writes)."""
    ascii = data.isascii()
    view = memoryview(data)
    output: list[bytes] = []
    runs: list[bytes] = []
    scores: dict[str, array[float]] = {}
    bad: list[tuple[int, str, str]] = []
    size = len(data)
    start = index = 0
    while start < size:
        end = data.find(b"\n", start)
        newline = end != -1  # the line ended with b"\n" in the input
        if not newline:
            end = size
        first = start
        while first < end and data[first] in _SPACES:
            first += 1
        if first < end:  # else blank: skipped
            row: ScoredRow | None = None
            try:
                if ascii:  # no byte-order mark, nothing to check as UTF-8
                    row = _quick(view[start:end], True)
                if row is None:
                    row = score_json_line(data[start:end])
            except RowError as error:
                problem = _with_newline(data[start:end], error) if newline else error
                bad.append((index, problem.code, str(problem)))
                runs.append(_joined(output))
                output = []
            else:
                output.append(row.line)
                kept = scores.get(row.data_source)
                if kept is None:
                    scores[row.data_source] = array("d", (row.score,))
                else:
                    kept.append(row.score)
        start = end + 1
        index += 1
    runs.append(_joined(output))
    return ScoredText(runs, scores, bad, index)


def _joined(lines: list[bytes]) -> bytes:
    """Output lines, each ending with b"\n"."""
    if not lines:
        return b""
    lines.append(b"")
    return b"\n".join(lines)


def _with_newline(raw: bytes, error: RowError) -> RowError:
    """The error of a line as it was in the input, with its b"\n" (where JSON that ends early ends)."""
    try:
        score_json_line(raw + b"\n")
    except RowError as problem:
        return problem
    return error  # pragma: no cover  # a line that scores with its b"\n" but not without it


def score_json_line(raw: bytes) -> ScoredRow:
    """Parse, validate and score one line; raises RowError for a row that cannot be scored."""
    scored = _well_formed(raw)
    return scored if scored is not None else _read_carefully(raw)


def _read_carefully(raw: bytes) -> ScoredRow:
    """score_json_line field by field: what it gives any line, and the only way for a row that is not
    well-formed (RowError says what is wrong with it)."""
    read = _members(raw)
    if read is None:  # what msgspec does not read as json.loads does: json.loads reads it, or says why not
        row = _parse(raw)
        value, data_source = _score(row)
        return ScoredRow(data_source, value, _dump(dict(row, score=value)))
    members, needed = read
    value, data_source = _score(needed)
    return ScoredRow(data_source, value, _encoded(members, value))


def _well_formed(raw: bytes) -> ScoredRow | None:
    """What _read_carefully gives a well-formed row (most are) that msgspec reads as json.loads does, in a few
    calls instead of a few dozen (they were a third of a row's time without its scorer); None for any other
    row, which _read_carefully then reads field by field."""
    raw = raw.removeprefix(_BOM)
    return _quick(raw, raw.isascii())


def _quick(raw: bytes | memoryview, ascii: bool) -> ScoredRow | None:
    """_well_formed of a line without a byte-order mark, `ascii` if every byte of it is."""
    try:
        members = _MEMBERS.decode(raw)
        data_source = _VALUE.decode(members["data_source"])
        extra_member = members["extra_info"]
        label: Any = _plain_label(extra_member)
        plain = label is not None
        if not plain:  # an extra_info of other members, or written otherwise: decoded, and checked below
            extra_info = _VALUE.decode(extra_member)
            label = extra_info.get("label") if type(extra_info) is dict else None
        output_field = "model_output" if "model_output" in members else "response"  # KeyError: neither
        output = _VALUE.decode(members[output_field])
        if output_field == "model_output" and "response" in members:  # read as the rest reads it: a value
            _VALUE.decode(members["response"])  # msgspec refuses goes there
    except (KeyError, DecodeError, ValidationError, UnicodeDecodeError, RecursionError):
        return None
    row_scorer = ROW_SCORERS.get(data_source) if type(data_source) is str else None
    if (
        row_scorer is None
        or type(label) is not str
        or type(output) is not str
        or not _read_alike(raw, members, ascii)
    ):
        return None
    scored = row_scorer(label, strip_think(output))
    if isinstance(scored, str):  # bounded: refused, not 0
        raise RowError("too-large", scored)
    value = float(scored)
    if "score" in members:  # the score goes where the row had one: the whole row encoded
        return ScoredRow(data_source, value, _encoded(members, value))
    return ScoredRow(data_source, value, _line(members, value, output_field, plain))


def _plain_label(extra_info: Raw) -> str | None:
    """The label of an extra_info written `{"label": "…"}` as json.dumps writes it (its only member, spaced
    so), read straight from the string; None for any other."""
    written = memoryview(extra_info)
    if written[:_LABEL_SKIP] != _LABEL_START or written[-2:] != b'"}':
        return None
    try:  # one string from the quote after "label": to the one before the brace, or not
        return _STRING.decode(written[_LABEL_SKIP - 1 : -1])
    except (DecodeError, ValidationError):  # e.g. {"label": "a","label": "b"}
        return None


def _line(members: dict[str, Raw], value: float, output_field: str, plain_extra_info: bool) -> bytes:
    """What _encoded gives a row without a "score" member, joined from the members as written rather than
    encoded and respaced whole: json.dumps's spacing changes nothing in a string (the data source, the
    output), a number, true, false or null, or an extra_info _plain_label reads (`plain_extra_info`); only
    another object or array is respaced (alone)."""
    parts: list[Any] = [b"{"]
    for name, member in members.items():
        if len(parts) > 1:
            parts.append(b", ")
        parts.append(_NAMES.get(name) or encode(name) + b": ")
        plain = name in ("data_source", output_field) or (name == "extra_info" and plain_extra_info)
        if plain or memoryview(member)[0] not in _OPENERS:
            parts.append(member)
        else:
            parts.append(format(member, indent=0))
    parts.append(b', "score": ')
    parts.append(
        encode(value) if value == 0.0 or value >= _SMALLEST_AS_PYTHON else json.dumps(value).encode()
    )
    parts.append(b"}")
    return b"".join(parts)


def _read_alike(raw: bytes | memoryview, members: dict[str, Raw], ascii: bool) -> bool:
    """Whether json.loads reads the line msgspec has read into `members` alike: valid UTF-8 in the members
    kept as written too, and no integer of more digits than json.loads converts. `ascii`: every byte of
    `raw` is (no UTF-8 to check)."""
    if not ascii:
        try:
            bytes(raw).decode("utf-8")  # msgspec checks the strings it decodes, not those it keeps as written
        except UnicodeDecodeError:
            return False
    return len(raw) <= _MAX_DIGITS or not any(map(_long_digits, members.values()))


def _members(raw: bytes) -> tuple[dict[str, Raw], dict[str, Any]] | None:
    """The row's members as written, and those the scorer reads decoded; None where msgspec would not read
    the line as json.loads does (malformed JSON, NaN, a lone surrogate, bytes that are not UTF-8, a number
    out of msgspec's range or an integer json.loads refuses): those lines go to json.loads."""
    raw = raw.removeprefix(_BOM)
    try:
        members = _MEMBERS.decode(raw)
        needed = {name: _VALUE.decode(members[name]) for name in _NEEDED if name in members}
    except (DecodeError, ValidationError, UnicodeDecodeError, RecursionError):
        return None
    return (members, needed) if _read_alike(raw, members, raw.isascii()) else None


def _long_digits(member: Raw) -> bool:
    """Whether `member` holds a run of more than _MAX_DIGITS digits. Such a run holds a byte at every
    (_MAX_DIGITS + 1)th position: only a member with a digit there is searched (one in a thousand, say)."""
    return len(member) > _MAX_DIGITS and bool(
        _DIGIT.search(bytes(memoryview(member)[:: _MAX_DIGITS + 1])) and _LONG_DIGITS.search(member)
    )


def _score(row: dict[str, Any]) -> tuple[float, str]:
    data_source: Any = row.get("data_source")
    extra_info: Any = row.get("extra_info")
    output: Any = row.get("model_output", row.get("response"))
    if (
        type(data_source) is str
        and (row_scorer := ROW_SCORERS.get(data_source)) is not None
        and type(extra_info) is dict
        and type(label := extra_info.get("label")) is str
        and type(output) is str
    ):  # a well-formed row (most are): what _checked_score checks and calls, with fewer calls
        scored = row_scorer(label, strip_think(output))
        if isinstance(scored, str):  # bounded: refused, not 0
            raise RowError("too-large", scored)
        return float(scored), data_source
    value = _checked_score(row)
    if value == 0.0 and (why := too_large(data_source, output, extra_info)):  # bounded: refused, not 0
        raise RowError("too-large", why)
    return value, data_source


def _checked_score(row: dict[str, Any]) -> float:
    """The score of a row read field by field, raising RowError for the first field that is not right."""
    scorer = _scorer(row)
    extra_info = _required(row, "extra_info", dict, 'an object with a "label"')
    _required(extra_info, "label", str, "a string", where="extra_info.")
    output_field = next((name for name in _OUTPUT_FIELDS if name in row), _OUTPUT_FIELDS[0])
    output = _required(row, output_field, str, "a string")
    return scorer(output, extra_info)


def _encoded(members: dict[str, Raw], value: float) -> bytes:
    """The row with "score": `value`, encoded once and spaced as json.dumps spaces it."""
    score = value if value == 0.0 or value >= _SMALLEST_AS_PYTHON else Raw(json.dumps(value).encode())
    return format(encode({**members, "score": score}), indent=0)


def _without_line_end(text: str, error: json.JSONDecodeError) -> json.JSONDecodeError:
    """The error of `text` read without its line end, where `error` is at that end: a row that ends inside
    a string is an unterminated string, not a string holding a newline (an invalid control character).
    services/inputs/read.py reads an eval line the same way; the scorers import nothing of the services."""
    body = text.rstrip("\r\n")
    if body == text or error.pos < len(body):
        return error
    try:
        json.loads(body)
    except json.JSONDecodeError as bare:
        return bare
    return error


def _reason(message: str) -> str:
    """json's message without the position it ends on (`Invalid control character at`): the column follows."""
    return message.removesuffix(" at").removesuffix(" starting")


def _parse(raw: bytes) -> dict[str, Any]:
    text = ""
    try:
        text = raw.decode("utf-8-sig")  # -sig: skips a byte-order mark
        row = json.loads(text)
    except UnicodeDecodeError as error:
        raise RowError("invalid-utf8", f"not UTF-8 text (byte {error.start + 1})") from None
    except json.JSONDecodeError as error:
        error = _without_line_end(text, error)
        raise RowError("invalid-json", f"invalid JSON: {_reason(error.msg)} (column {error.colno})") from None
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
