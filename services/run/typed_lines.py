"""A JSONL line decoded straight into typed msgspec Structs, for `evalkit eval`'s hot loop: msgspec checks
every field's type in C as it reads the line and builds no dict for it, which costs less than decoding a dict
and checking it (`parse_submission`'s `_well_typed`). Only the common submission decodes so: string ids,
numbers for ratings, nothing beyond the known keys. Any other line raises, and is decoded
as a dict and parsed as before (services/run/batch.py); `evalkit.engine.submission.from_typed` builds the
Submission. tests/services/test_typed_lines.py holds the two ways together.

(No `from __future__ import annotations` here: msgspec reads the fields' types as they are, not as
strings to evaluate when the decoder is made.)"""

from collections.abc import Callable
from typing import Any

from msgspec import Struct
from msgspec.json import Decoder


class TypedResponse(Struct, forbid_unknown_fields=True):
    id: str
    text: str
    meta: dict[str, Any] | None = None


class TypedRatings(Struct, forbid_unknown_fields=True):
    instructions: float
    accuracy: float
    optimality: float
    presentation: float
    freshness: float
    justification: str | None = None


class TypedLine(Struct, forbid_unknown_fields=True):
    """A submission's known keys (engine/submission.py's _KNOWN): any other key belongs in `extra`, which
    the dict's path keeps, so a line with one is refused here. So is a key the response's or the ratings'
    Struct does not know: msgspec skips such a value unread, where the dict's path reads it and may refuse
    it (a number of more digits than Python converts)."""

    prompt: str
    responses: list[TypedResponse]
    ranking: list[str]
    ratings: TypedRatings
    category: str | None = None
    subcategory: str | None = None
    difficulty: str | None = None
    ranking_rationale: str | None = None
    rewrite_preferred: str | None = None
    evidence: str | list[Any] | dict[str, Any] | None = None


def typed_decoder() -> Callable[[str | memoryview], Any]:
    """Decodes a line into a TypedLine; raises (msgspec's errors) for any other line."""
    return Decoder(TypedLine).decode
