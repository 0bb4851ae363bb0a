"""What reviewers did with the engine's proposals (`evalkit stats`): pure, from `Reviews` and an evaluator.

Each reviewed submission is evaluated with the config given, and its proposals (`proposals`) are matched to
each journal's final decisions by target. Then:

- per rule: the proposals it moved on the reviewed submissions, by kind (a proposal moved by two rules
  counts for both), and the decisions on them: accepted, discarded, edited; sorted by how often
  reviewers overruled it (discarded or edited), most first;
- per kind of proposal (rating, ranking, rewrite, label, flag), the same decisions, rules or not;
- per dimension: the mean |final - proposed| and |final - original| of the decided ratings;
- labels: the engine's label against the reviewer's final one (a confusion matrix);
- per journal: decisions and decisions per hour of active time (gaps between entries longer than
  `IDLE_GAP` are breaks and not counted);
- with two or more journals: Krippendorff's alpha of the final ratings (interval) and labels (nominal).

A decision whose proposal the config no longer makes (the rules changed since, or the submission was not
found) counts in `unmatched`, and in the agreement, which needs only the journals' values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import pairwise
from typing import Any

from evalkit.services.review.decisions import ACCEPT, DISCARD, Decision
from evalkit.services.review.proposals import FLAG, LABEL, RANKING, RATING, REWRITE, Proposal, proposals_of
from evalkit.services.review.reviews import Activity, Reviews
from evalkit.services.run.evaluation import Evaluate, EvaluationFailure, evaluate_safely
from evalkit.services.stats.agreement import Alpha, alpha

IDLE_GAP = timedelta(minutes=10)
MIN_DECISIONS = 10
"""A rule's discard rate says something about it only from this many decisions on its proposals."""
NO_LABEL = "(none)"
KINDS = (RATING, RANKING, REWRITE, LABEL, FLAG)


@dataclass(slots=True)
class Tally:
    accepted: int = 0
    discarded: int = 0
    edited: int = 0

    def add(self, action: str) -> None:
        if action == ACCEPT:
            self.accepted += 1
        elif action == DISCARD:
            self.discarded += 1
        else:
            self.edited += 1

    @property
    def decided(self) -> int:
        return self.accepted + self.discarded + self.edited

    def rate(self, count: int) -> float | None:
        return count / self.decided if self.decided else None

    @property
    def overruled(self) -> float | None:
        """The share of decisions that did not take the proposal as it was."""
        return self.rate(self.discarded + self.edited)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decided": self.decided,
            "accepted": self.accepted,
            "discarded": self.discarded,
            "edited": self.edited,
            "accepted_rate": self.rate(self.accepted),
            "discarded_rate": self.rate(self.discarded),
            "edited_rate": self.rate(self.edited),
        }


@dataclass(slots=True)
class RuleStats:
    rule: str
    moved: dict[str, int] = field(default_factory=dict)  # proposals by kind
    tally: Tally = field(default_factory=Tally)

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "moved": dict(self.moved), **self.tally.to_dict()}


@dataclass(slots=True)
class Drift:
    """How far the reviewers' final ratings of one dimension landed from the proposed and original ones."""

    dimension: str
    decided: int = 0
    from_proposed: float = 0.0  # sums; the means are below
    from_original: float = 0.0

    def mean_from_proposed(self) -> float | None:
        return _mean(self.from_proposed, self.decided)

    def mean_from_original(self) -> float | None:
        return _mean(self.from_original, self.decided)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "decided": self.decided,
            "mean_abs_final_minus_proposed": self.mean_from_proposed(),
            "mean_abs_final_minus_original": self.mean_from_original(),
        }


def _mean(total: float, count: int) -> float | None:
    """None without decisions, or when the sum overflowed (ratings near the largest float): no mean to
    give, where `inf` would reach the JSON as `Infinity` and the page as width='nan'."""
    mean = total / count if count else None
    return mean if mean is not None and math.isfinite(mean) else None


@dataclass(frozen=True, slots=True)
class Throughput:
    journal: str
    decisions: int
    sources: int
    active_hours: float
    first: str | None
    last: str | None
    skipped: int

    @property
    def per_hour(self) -> float | None:
        """None below a minute of activity: a rate from seconds would say nothing (thousands an hour)."""
        return self.decisions / self.active_hours if self.active_hours >= 1 / 60 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "journal": self.journal,
            "decisions": self.decisions,
            "submissions": self.sources,
            "active_hours": self.active_hours,
            "decisions_per_hour": self.per_hour,
            "first": self.first,
            "last": self.last,
            "skipped_entries": self.skipped,
        }


@dataclass(slots=True)
class ReviewStats:
    submissions: int = 0  # reviewed sources, in any journal
    missing: list[str] = field(default_factory=list)
    unmatched: int = 0
    rules: list[RuleStats] = field(default_factory=list)
    kinds: dict[str, Tally] = field(default_factory=lambda: {kind: Tally() for kind in KINDS})
    dimensions: list[Drift] = field(default_factory=list)
    labels: dict[tuple[str, str], int] = field(default_factory=dict)  # (engine, final) -> count
    journals: list[Throughput] = field(default_factory=list)
    agreement: list[Alpha] = field(default_factory=list)  # empty with fewer than two journals

    def rule(self, rule_id: str) -> RuleStats | None:
        return next((rule for rule in self.rules if rule.rule == rule_id), None)

    @property
    def label_agreement(self) -> tuple[int, int]:
        """(engine and reviewer chose the same label, label decisions)."""
        same = sum(count for (engine, final), count in self.labels.items() if engine == final)
        return same, sum(self.labels.values())

    def to_dict(self) -> dict[str, Any]:
        same, total = self.label_agreement
        return {
            "submissions": self.submissions,
            "missing_submissions": list(self.missing),
            "unmatched_decisions": self.unmatched,
            "rules": [rule.to_dict() for rule in self.rules],
            "kinds": {kind: tally.to_dict() for kind, tally in self.kinds.items()},
            "dimensions": [drift.to_dict() for drift in self.dimensions],
            "labels": {
                "agreement": same / total if total else None,
                "decided": total,
                "matrix": [
                    {"engine": engine, "final": final, "count": count}
                    for (engine, final), count in sorted(self.labels.items())
                ],
            },
            "journals": [journal.to_dict() for journal in self.journals],
            "agreement": {alpha_.level: alpha_.to_dict() for alpha_ in self.agreement},
        }


def review_stats(reviews: Reviews, evaluate: Evaluate) -> ReviewStats:
    missing = [reviews.shown[key] for key in reviews.missing]
    stats = ReviewStats(submissions=len(reviews.decided()), missing=missing)
    proposals = _proposals(reviews, evaluate)
    rules = _rules_moving(proposals)
    drifts: dict[str, Drift] = {}
    for journal in reviews.journals:
        for key, decided in journal.decisions.items():
            for target, decision in decided.items():
                made = proposals.get(key, {}).get(target)
                if made is None:
                    stats.unmatched += 1
                else:
                    _count(stats, rules, drifts, made, decision)
    stats.rules = sorted(rules.values(), key=_most_overruled)
    stats.dimensions = sorted(drifts.values(), key=lambda drift: drift.dimension)
    stats.journals = [_throughput(j.path, j.activity, len(j.decisions), j.skipped) for j in reviews.journals]
    if len(reviews.journals) >= 2:
        stats.agreement = _agreement(reviews)
    return stats


def _proposals(reviews: Reviews, evaluate: Evaluate) -> dict[str, dict[str, Proposal]]:
    """Every reviewed submission's proposals by target; one the engine fails on has none."""
    found: dict[str, dict[str, Proposal]] = {}
    for key, submission in reviews.submissions.items():
        result = evaluate_safely(evaluate, submission)
        if isinstance(result, EvaluationFailure):  # its decisions stay unmatched; the run goes on
            continue
        found[key] = {proposal.target: proposal for proposal in proposals_of(submission, result)}
    return found


def _rules_moving(proposals: dict[str, dict[str, Proposal]]) -> dict[str, RuleStats]:
    """Every rule that made a proposal on a reviewed submission, with its proposals counted by kind."""
    rules: dict[str, RuleStats] = {}
    for found in proposals.values():
        for proposal in found.values():
            for rule_id in proposal.rules:
                moved = rules.setdefault(rule_id, RuleStats(rule_id)).moved
                moved[proposal.kind] = moved.get(proposal.kind, 0) + 1
    return rules


def _count(
    stats: ReviewStats,
    rules: dict[str, RuleStats],
    drifts: dict[str, Drift],
    proposal: Proposal,
    decision: Decision,
) -> None:
    stats.kinds[proposal.kind].add(decision.action)
    for rule_id in proposal.rules:
        rules[rule_id].tally.add(decision.action)
    if proposal.kind == RATING and _is_number(decision.value):
        drift = drifts.setdefault(proposal.name, Drift(proposal.name))
        drift.decided += 1
        drift.from_proposed += abs(decision.value - proposal.proposed)
        drift.from_original += abs(decision.value - proposal.original)
    elif proposal.kind == LABEL:
        cell = (proposal.proposed or NO_LABEL, decision.value or NO_LABEL)
        stats.labels[cell] = stats.labels.get(cell, 0) + 1


def _is_number(value: Any) -> bool:
    """A rating a reviewer can have given: a finite number (a journal's JSON may hold `NaN`, `Infinity`,
    or an integer beyond a float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _most_overruled(rule: RuleStats) -> tuple[float, int, str]:
    overruled = rule.tally.overruled
    return (-(overruled if overruled is not None else -1.0), -rule.tally.decided, rule.rule)


def _throughput(path: str, activity: Activity, sources: int, skipped: int) -> Throughput:
    times = sorted(activity.times)
    active = sum((gap for gap in (b - a for a, b in pairwise(times)) if gap <= IDLE_GAP), timedelta())
    return Throughput(
        path,
        activity.decisions,
        sources,
        active.total_seconds() / 3600,
        times[0].isoformat() if times else None,
        times[-1].isoformat() if times else None,
        skipped,
    )


def _agreement(reviews: Reviews) -> list[Alpha]:
    ratings: list[dict[Any, Any]] = []
    labels: list[dict[Any, Any]] = []
    for journal in reviews.journals:
        ratings.append(
            {
                (key, target): d.value
                for key, decided in journal.decisions.items()
                for target, d in decided.items()
                if target.startswith(f"{RATING}.") and _is_number(d.value)
            }
        )
        labels.append(
            {
                key: decided[LABEL].value or NO_LABEL
                for key, decided in journal.decisions.items()
                if LABEL in decided
            }
        )
    return [alpha("interval", ratings), alpha("nominal", labels)]


def discarded_too_often(stats: ReviewStats, max_rate: float) -> dict[str, str]:
    """The rules whose proposals reviewers discarded more often than `max_rate` (of at least
    `MIN_DECISIONS` decisions), each with the sentence that says so."""
    found = {}
    for rule in stats.rules:
        tally = rule.tally
        rate = tally.rate(tally.discarded)
        if tally.decided >= MIN_DECISIONS and rate is not None and rate > max_rate:
            found[rule.rule] = (
                f"reviewers discarded {tally.discarded} of {tally.decided} decisions on the "
                f"proposals of rule '{rule.rule}' ({rate:.0%}, more than --max-discard-rate "
                f"{max_rate:.0%}); accepted {tally.accepted}, edited {tally.edited}"
            )
    return found
