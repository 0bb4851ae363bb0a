"""Filtering and sorting the queue: a one-line query and a choice of order.

The query is words and `key:value` terms, all of which must hold:

    label:good        the engine's (or the reviewer's) label is `good`
    flag:low_accuracy the flag is set
    status:pending    pending, progress, done or error
    -flag:too_short   a leading `-` negates a term
    dijkstra heap     every word appears in the source or the prompt (case-insensitive)

Values compare case-insensitively; `label:none` matches a submission without a label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

PENDING = "pending"
PROGRESS = "progress"
DONE = "done"
ERROR = "error"
STATUSES = (PENDING, PROGRESS, DONE, ERROR)
KEYS = ("label", "flag", "status")
SORTS = ("input", "score", "label", "status")


class Row(NamedTuple):
    """What the queue filters and sorts on for one submission; `evaluated` is False until it has a summary."""

    item: int  # the submission's index in the queue
    status: str
    label: str | None
    score: float | None
    flags: frozenset[str]
    haystack: str  # lower-cased source and prompt
    evaluated: bool


@dataclass(frozen=True, slots=True)
class Term:
    key: str
    value: str
    negate: bool


@dataclass(frozen=True, slots=True)
class Query:
    terms: tuple[Term, ...] = ()
    words: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()  # `key:value` tokens with a key we do not know, shown to the reviewer

    @property
    def empty(self) -> bool:
        return not self.terms and not self.words


def parse_query(text: str) -> Query:
    terms: list[Term] = []
    words: list[str] = []
    unknown: list[str] = []
    for token in text.split():
        negate = token.startswith("-") and ":" in token
        key, colon, value = token.removeprefix("-").partition(":") if negate else token.partition(":")
        if colon and key.lower() in KEYS and value:
            terms.append(Term(key.lower(), value.lower(), negate))
        elif colon and value and key.isalpha():
            unknown.append(token)
        else:
            words.append(token.lower())
    return Query(tuple(terms), tuple(words), tuple(unknown))


def _term_holds(term: Term, row: Row) -> bool:
    if term.key == "status":
        held = row.status.startswith(term.value)
    elif term.key == "label":
        held = (row.label or "none").lower() == term.value
    else:
        held = any(flag.lower() == term.value for flag in row.flags)
    return held != term.negate


def matches(query: Query, row: Row) -> bool:
    if any(word not in row.haystack for word in query.words):
        return False
    return all(_term_holds(term, row) for term in query.terms)


_STATUS_ORDER = {status: rank for rank, status in enumerate(STATUSES)}


def sort_key(sort: str) -> Callable[[Row], tuple]:
    """Not yet evaluated submissions sort last, in input order, whatever the sort."""
    if sort == "score":
        return lambda row: (not row.evaluated, row.score is None, -(row.score or 0.0), row.item)
    if sort == "label":
        return lambda row: (not row.evaluated, row.label is None, (row.label or "").lower(), row.item)
    if sort == "status":
        return lambda row: (_STATUS_ORDER[row.status], row.item)
    return lambda row: (row.item,)


def select(rows: list[Row], query: Query, sort: str) -> list[int]:
    """The indices of the rows that match, in the chosen order."""
    kept = [row for row in rows if matches(query, row)] if not query.empty else rows
    if sort != "input":
        kept = sorted(kept, key=sort_key(sort))
    return [row.item for row in kept]
