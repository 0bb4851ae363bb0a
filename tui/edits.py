"""Turning what the reviewer typed into a proposal's value, or saying plainly why it cannot be one."""

from __future__ import annotations

import re
from typing import Any

from evalkit.engine.submission import Submission
from evalkit.tui.proposals import LABEL, RANKING, RATING, REWRITE, Proposal, format_value


class EditError(ValueError):
    """The typed text is not a valid value; the message says what is expected."""


def edit_text(proposal: Proposal, value: Any) -> str:
    """The text an editor starts from for `value`."""
    if value is None:
        return ""
    if proposal.kind == RANKING:
        return ", ".join(str(item) for item in value)
    if proposal.kind == REWRITE:
        return str(value)
    return format_value(proposal.kind, value)


def parse_edit(proposal: Proposal, text: str, submission: Submission, scale: tuple[float, float]) -> Any:
    if proposal.kind == RATING:
        return _rating(text, scale)
    if proposal.kind == RANKING:
        return _ranking(text, submission)
    if proposal.kind == REWRITE:
        return text
    if proposal.kind == LABEL:
        label = text.strip()
        if not label:
            raise EditError("type a label, e.g. good or needs_review")
        return label
    raise EditError(f"{proposal.target} is accepted or discarded, not edited")


def _rating(text: str, scale: tuple[float, float]) -> float:
    low, high = scale
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        raise EditError(f"expected a number from {low:g} to {high:g}, got {text.strip()!r}") from None
    if not low <= value <= high:
        raise EditError(f"{value:g} is outside the scale [{low:g}, {high:g}]")
    return value


def _ranking(text: str, submission: Submission) -> list[Any]:
    by_name = {str(response.id): response.id for response in submission.responses}
    names = [name for name in re.split(r"[\s,>]+", text) if name]
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise EditError(f"unknown response id {unknown[0]!r}; the ids are {', '.join(by_name)}")
    if len(set(names)) != len(names):
        raise EditError("each response id may appear only once")
    missing = [name for name in by_name if name not in names]
    if missing:
        raise EditError(f"the ranking must name every response; missing {', '.join(missing)}")
    return [by_name[name] for name in names]
