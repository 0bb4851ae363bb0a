"""The outcome of evaluating one submission, with the seed's field names (DESIGN.md, "The result object")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class FiredRule:
    id: str
    type: str
    detail: dict[str, Any]
    actions: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "detail": self.detail, "actions": self.actions}


@dataclass(slots=True)
class SkippedRule:
    """A rule that did not fire: the first condition that failed and what it saw (or why it never ran)."""

    id: str
    type: str
    detail: dict[str, Any]
    failed: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        observed = self.detail.get(self.failed) if self.failed else None
        return {"id": self.id, "type": self.type, "failed": self.failed, "observed": observed,
                "reason": self.reason, "detail": self.detail}


@dataclass(slots=True)
class Result:
    corrected_ratings: dict[str, dict[str, Any]]
    corrected_ranking: list[Any]
    ranking_feedback: str
    rewrite_final: str
    prompt_feedback: str
    global_summary: str
    comments: list[str]
    fired_rules: list[FiredRule]
    score: float | None
    flags: dict[str, bool]
    label: str | None
    meta: dict[str, Any]
    skipped_rules: list[SkippedRule] = field(default_factory=list)
    ranking_issues: dict[str, list[Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "corrected_ratings": self.corrected_ratings,
            "corrected_ranking": self.corrected_ranking,
            "ranking_feedback": self.ranking_feedback,
            "rewrite_final": self.rewrite_final,
            "prompt_feedback": self.prompt_feedback,
            "global_summary": self.global_summary,
            "comments": self.comments,
            "fired_rules": [rule.to_dict() for rule in self.fired_rules],
            "score": self.score,
            "flags": self.flags,
            "label": self.label,
            "meta": self.meta,
        }

    def explain(self) -> dict[str, Any]:
        """The --explain-json view: every rule, fired or not, with what each condition observed."""
        return {
            "fired_rules": [rule.to_dict() for rule in self.fired_rules],
            "not_fired": [rule.to_dict() for rule in self.skipped_rules],
            "score": self.score,
            "flags": self.flags,
            "label": self.label,
            "meta": self.meta,
        }
