"""Submissions: parsed from plain data, strict where it matters and lenient where people are.

`parse_submission` mirrors `schemas/submission.schema.json` with hand-written checks because it runs on
every evaluation (a generic validator costs more than the evaluation itself); a property test keeps the
two in step. Ratings outside the scale, null optional fields, unknown keys and integer ids are accepted.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Final

from evalkit.engine.type_words import found_words

DIMENSIONS: Final = ("instructions", "accuracy", "optimality", "presentation", "freshness")
OPTIONAL_TEXT: Final = ("category", "subcategory", "difficulty", "ranking_rationale", "rewrite_preferred")
SUBMISSION_FIELDS: Final = (
    "prompt",
    "responses",
    "ranking",
    "ratings",
    "justification",
    *OPTIONAL_TEXT,
    "evidence",
    "extra",
)

ResponseId = str | int


class SubmissionError(ValueError):
    """A submission that cannot be evaluated; `where` is the offending field's path, e.g.
    `ratings.accuracy`."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.reason = message


# Response and Submission are plain classes, as the engine's others (engine/plan.py says why), with the
# equality and the repr a dataclass would give them; not frozen (that would cost parse_submission): nothing
# in evalkit changes one after parsing.
class Response:
    def __init__(self, id: ResponseId, text: str, meta: dict[str, Any] | None = None) -> None:
        self.id, self.text, self.meta = id, text, meta

    def _fields(self) -> tuple[Any, ...]:
        return (self.id, self.text, self.meta)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Response) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"Response(id={self.id!r}, text={self.text!r}, meta={self.meta!r})"


class Submission:
    """One submission, as `parse_submission` builds it from plain data (checked and converted). Built by
    hand, its fields must have the declared types (tuples, float ratings): compiled, they are checked."""

    def __init__(
        self,
        prompt: str,
        responses: tuple[Response, ...],
        ranking: tuple[ResponseId, ...],
        ratings: dict[str, float],
        justification: str = "",
        category: str | None = None,
        subcategory: str | None = None,
        difficulty: str | None = None,
        ranking_rationale: str | None = None,
        rewrite_preferred: str = "",
        evidence: Any = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.prompt, self.responses, self.ranking, self.ratings = prompt, responses, ranking, ratings
        self.justification, self.category, self.subcategory = justification, category, subcategory
        self.difficulty, self.ranking_rationale = difficulty, ranking_rationale
        self.rewrite_preferred, self.evidence = rewrite_preferred, evidence
        self.extra: dict[str, Any] = {} if extra is None else extra

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in SUBMISSION_FIELDS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Submission) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return f"Submission({', '.join(f'{k}={v!r}' for k, v in self._fields().items())})"

    def field_value(self, name: str) -> Any:
        """A top-level field by name, as prompt.yaml's checks see it."""
        if name in self.extra:
            return self.extra[name]
        return getattr(self, name, None)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _response_id(value: Any, where: str) -> ResponseId:
    """A string or an integer; an integer-valued float (`1.0`) is a JSON Schema integer and becomes `1`."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    _expect(value, (str, int), where, "a response id (string or integer)")
    return value


def _finite(value: int | float, where: str) -> float:
    """A rating as a finite float: JSON allows integers beyond float range and Python reads 1e400 as inf;
    both become the largest float of their sign, which the pull phase then brings into the scale."""
    try:
        number = float(value)
    except OverflowError:
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        raise SubmissionError("expected a number, found NaN", where)
    return max(-sys.float_info.max, min(number, sys.float_info.max))


def _expect(value: Any, kind: type | tuple[type, ...], where: str, words: str) -> None:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise SubmissionError(f"expected {words}, found {found_words(value)}", where)


def _responses(raw: Any) -> tuple[Response, ...]:
    _expect(raw, list, "responses", "a list of responses")
    if not raw:
        raise SubmissionError("expected at least one response", "responses")
    out = []
    for index, item in enumerate(raw):
        where = f"responses[{index}]"
        _expect(item, dict, where, "a mapping with 'id' and 'text'")
        for key in ("id", "text"):
            if key not in item:
                raise SubmissionError(f"missing required key '{key}'", where)
        rid = _response_id(item["id"], f"{where}.id")
        _expect(item["text"], str, f"{where}.text", "a string")
        meta = item.get("meta")
        if meta is not None:
            _expect(meta, dict, f"{where}.meta", "a mapping")
        out.append(Response(rid, item["text"], meta))
    return tuple(out)


def _ratings(raw: Any) -> tuple[dict[str, float], str]:
    _expect(raw, dict, "ratings", "a mapping of dimension ratings")
    ratings: dict[str, float] = {}
    for name in DIMENSIONS:
        if name not in raw:
            raise SubmissionError(f"missing required key '{name}'", "ratings")
        value = raw[name]
        if not _is_number(value):
            raise SubmissionError(f"expected a number, found {found_words(value)}", f"ratings.{name}")
        ratings[name] = _finite(value, f"ratings.{name}")
    justification = raw.get("justification")
    if justification is not None:
        _expect(justification, str, "ratings.justification", "a string")
    return ratings, justification or ""


def _ranking(raw: Any) -> tuple[ResponseId, ...]:
    _expect(raw, list, "ranking", "a list of response ids")
    return tuple(_response_id(item, f"ranking[{index}]") for index, item in enumerate(raw))


_KNOWN: Final = frozenset({"prompt", "responses", "ranking", "ratings", "evidence", *OPTIONAL_TEXT})


_FLOAT_MAX: Final = sys.float_info.max
_FLOAT_MAX_INT: Final = int(_FLOAT_MAX)
"""Compiled, an int compared with a float is converted to one: ints are compared with this."""


def _well_typed(data: Any) -> Submission | None:
    """The common case in one pass: every field of the expected type, string ids, finite ratings. None
    sends anything else (an error to report, an integer id, a huge rating) through the careful path."""
    if type(data) is not dict:
        return None
    prompt, raw_responses = data.get("prompt"), data.get("responses")
    ranking, raw_ratings = data.get("ranking"), data.get("ratings")
    if (
        type(prompt) is not str
        or type(raw_responses) is not list
        or not raw_responses
        or type(ranking) is not list
        or type(raw_ratings) is not dict
    ):
        return None
    responses = []
    for item in raw_responses:
        if type(item) is not dict:
            return None
        rid, text, meta = item.get("id"), item.get("text"), item.get("meta")
        if type(rid) is not str or type(text) is not str or (meta is not None and type(meta) is not dict):
            return None
        responses.append(Response(rid, text, meta))
    for rid in ranking:
        if type(rid) is not str:
            return None
    ratings = {}
    for name in DIMENSIONS:
        value = raw_ratings.get(name)
        if type(value) is int and -_FLOAT_MAX_INT <= value <= _FLOAT_MAX_INT:
            value = float(value)
        elif type(value) is not float or not -_FLOAT_MAX <= value <= _FLOAT_MAX:  # also NaN and inf
            return None
        ratings[name] = value
    justification = raw_ratings.get("justification")
    optional = [data.get(key) for key in OPTIONAL_TEXT]
    for value in optional:
        if value is not None and type(value) is not str:
            return None
    evidence = data.get("evidence")
    if (justification is not None and type(justification) is not str) or (
        evidence is not None and type(evidence) not in (str, list, dict)
    ):
        return None
    category, subcategory, difficulty, ranking_rationale, rewrite = optional
    return Submission(
        prompt,
        tuple(responses),
        tuple(ranking),
        ratings,
        justification or "",
        category,
        subcategory,
        difficulty,
        ranking_rationale,
        rewrite or "",
        evidence,
        {k: v for k, v in data.items() if k not in _KNOWN},
    )


def parse_submission(data: Any) -> Submission:
    """Check and convert one submission; raises SubmissionError naming the offending field."""
    return _well_typed(data) or _checked(data)


def _checked(data: Any) -> Submission:
    """Every check in schema order, so that the error names the first offending field."""
    _expect(data, dict, "", "a mapping (a JSON object)")
    for key in ("prompt", "responses", "ranking", "ratings"):
        if key not in data:
            raise SubmissionError(f"missing required key '{key}'")
    _expect(data["prompt"], str, "prompt", "a string")
    optional: dict[str, Any] = {}
    for key in OPTIONAL_TEXT:
        value = data.get(key)
        if value is not None:
            _expect(value, str, key, "a string")
            optional[key] = value
    evidence = data.get("evidence")
    if evidence is not None:
        _expect(evidence, (str, list, dict), "evidence", "a string, a list or a mapping")
    ratings, justification = _ratings(data["ratings"])
    return Submission(
        prompt=data["prompt"],
        responses=_responses(data["responses"]),
        ranking=_ranking(data["ranking"]),
        ratings=ratings,
        justification=justification,
        evidence=evidence,
        extra={k: v for k, v in data.items() if k not in _KNOWN},
        **optional,
    )
