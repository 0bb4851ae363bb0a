"""The outcome of evaluating one submission, with the seed's field names.

The result object's contract: README, "Evaluating submissions".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalkit.engine.conditions import Block
    from evalkit.engine.context import Signals
    from evalkit.engine.plan import RulePlan


class FiredRule:
    """A rule that fired, with the records of its actions. What its conditions observed (`detail`) is
    worked out on first access unless an action needed it already (a comment template reads it)."""

    __slots__ = ("id", "type", "actions", "_detail", "_block", "_signals")

    def __init__(self, rule_id: str, rule_type: str, detail: dict[str, Any] | None, actions: list[dict[str, Any]],
                 block: Block | None = None, signals: Signals | None = None) -> None:
        self.id, self.type, self.actions = rule_id, rule_type, actions
        self._detail, self._block, self._signals = detail, block, signals

    @property
    def detail(self) -> dict[str, Any]:
        if self._detail is None:
            ready = self._block is not None and self._signals is not None
            self._detail = self._block.explain(self._signals) if ready else {}  # type: ignore[union-attr,arg-type]
        return self._detail

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "detail": self.detail, "actions": self.actions}


class SkippedRule:
    """A rule that did not fire. What its conditions observed is worked out only when asked for
    (the explain view, the TUI), so the common case of a rule that does not fire stays cheap."""

    __slots__ = ("id", "type", "_block", "_signals", "_stopped_by", "_detail")

    def __init__(self, rule_id: str, rule_type: str, block: Block | None, signals: Signals | None,
                 stopped_by: str | None = None, detail: dict[str, Any] | None = None) -> None:
        self.id, self.type = rule_id, rule_type
        self._block, self._signals, self._stopped_by = block, signals, stopped_by
        self._detail = detail  # known already (rewrite rules), else worked out when asked for

    @property
    def detail(self) -> dict[str, Any]:
        if self._detail is None:
            ready = self._block is not None and self._signals is not None and self._stopped_by is None
            self._detail = self._block.explain(self._signals, exhaustive=True) if ready else {}  # type: ignore[union-attr,arg-type]
        return self._detail

    @property
    def failed(self) -> str | None:
        return next((name for name, seen in self.detail.items() if not seen["held"]), None)

    @property
    def reason(self) -> str:
        if self._stopped_by is not None:
            return f"not run: '{self._stopped_by}' fired first and stop_after_first is set"
        return f"condition '{self.failed}' did not hold"

    def to_dict(self) -> dict[str, Any]:
        failed = self.failed
        return {"id": self.id, "type": self.type, "failed": failed,
                "observed": self.detail.get(failed) if failed else None, "reason": self.reason,
                "detail": self.detail}


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
    not_fired: list[SkippedRule | RulePlan] = field(default_factory=list)
    """The rules that did not fire, in order. One whose conditions failed stays its plan until
    `skipped_rules` is read (the explain view, the TUI, dry runs): most results are never asked."""
    signals: Signals | None = None
    ranking_issues: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def skipped_rules(self) -> list[SkippedRule]:
        entries = self.not_fired
        for index, entry in enumerate(entries):
            if not isinstance(entry, SkippedRule):
                entries[index] = SkippedRule(entry.id, entry.type, entry.when, self.signals)
        return entries  # type: ignore[return-value]  # every entry is a SkippedRule now

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
