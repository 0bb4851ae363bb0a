"""The engine's proposals for one submission: the changes a reviewer accepts, discards or edits.

A proposal is one value the engine would change, named by a target: `rating.<dimension>` for each
corrected rating that differs from the original, `ranking` when the corrected ranking differs, `rewrite`
when the final rewrite differs, `label` (always: the reviewer owns the final label) and `flag.<name>` for
each flag set. Discarding keeps the original: the submission's value, or no label, or the flag unset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.engine.result import Result
from evalkit.engine.submission import Submission

RATING = "rating"
RANKING = "ranking"
REWRITE = "rewrite"
LABEL = "label"
FLAG = "flag"


@dataclass(frozen=True, slots=True)
class Proposal:
    target: str
    kind: str
    original: Any
    proposed: Any
    why: str
    rules: tuple[str, ...] = ()

    @property
    def editable(self) -> bool:
        """Flags are on or off: accepting or discarding says everything."""
        return self.kind != FLAG

    @property
    def name(self) -> str:
        """The dimension or flag name, or the kind itself."""
        return self.target.partition(".")[2] or self.kind


def proposals_of(submission: Submission, result: Result) -> list[Proposal]:
    """Every proposal in a fixed order: ratings, ranking, rewrite, label, flags."""
    found = _rating_proposals(result)
    original_ranking = list(submission.ranking)
    if result.corrected_ranking != original_ranking:
        found.append(
            Proposal(
                RANKING, RANKING, original_ranking, list(result.corrected_ranking), result.ranking_feedback
            )
        )
    if result.rewrite_final != submission.rewrite_preferred:
        rules = _rules_of_type(result, "rewrite")
        found.append(
            Proposal(
                REWRITE,
                REWRITE,
                submission.rewrite_preferred,
                result.rewrite_final,
                _rewrite_why(result),
                rules,
            )
        )
    found.append(_label_proposal(result))
    found.extend(_flag_proposal(result, name) for name, on in result.flags.items() if on)
    return found


def _rating_proposals(result: Result) -> list[Proposal]:
    return [
        Proposal(
            f"{RATING}.{name}",
            RATING,
            entry["original"],
            entry["updated"],
            entry["rationale"],
            tuple(entry.get("adjusted_by") or ()),
        )
        for name, entry in result.corrected_ratings.items()
        if entry["updated"] != entry["original"]
    ]


def _rules_of_type(result: Result, kind: str) -> tuple[str, ...]:
    return tuple(rule.id for rule in result.fired_rules if rule.type == kind)


def _rules_with_action(result: Result, action: str, value: Any = None) -> tuple[str, ...]:
    return tuple(
        rule.id
        for rule in result.fired_rules
        if any(action in step and (value is None or step[action] == value) for step in rule.actions)
    )


def _rewrite_why(result: Result) -> str:
    steps = [
        f"{rule.id}: {', '.join(_action_words(step) for step in rule.actions)}"
        for rule in result.fired_rules
        if rule.type == "rewrite"
    ]
    return "; ".join(steps) or "postprocessed (trimmed, closed or noted)"


def _action_words(step: dict[str, Any]) -> str:
    return ", ".join(f"{name} {value!r}" for name, value in step.items())


def _label_proposal(result: Result) -> Proposal:
    assigned = _rules_with_action(result, "assign_label")
    score = "no score" if result.score is None else f"score {result.score:g}"
    why = (
        f"{score}; assigned by {', '.join(assigned)}"
        if assigned
        else f"{score}; from the score thresholds or the default"
    )
    return Proposal(LABEL, LABEL, None, result.label, why, assigned)


def _flag_proposal(result: Result, name: str) -> Proposal:
    rules = _rules_with_action(result, "set_flag", name)
    why = f"set by {', '.join(rules)}" if rules else "set by the engine's checks"
    return Proposal(f"{FLAG}.{name}", FLAG, False, True, why, rules)


def format_value(kind: str, value: Any) -> str:
    """A proposal's value as one short line of plain text."""
    if value is None:
        return "—"
    if kind == RATING and isinstance(value, (int, float)):
        return f"{value:g}"
    if kind == RANKING and isinstance(value, list):
        return " > ".join(str(item) for item in value)
    if kind == FLAG:
        return "set" if value else "unset"
    if kind == REWRITE:
        return f"{len(str(value))} chars"  # the text itself is in the rewrite tab, as a diff
    return str(value)
