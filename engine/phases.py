"""The seed's phases after signals, each a small pure function over the plan and the submission."""

from __future__ import annotations

import re
from typing import Any, Final

from evalkit.engine.context import RuleState, rounded
from evalkit.engine.plan import ConfigPlan, RankingPlan, RewriteRulePlan
from evalkit.engine.result import FiredRule, SkippedRule
from evalkit.engine.submission import Submission

RANKING_DEFAULT: Final = "Ranking processed."
_SPACE_RUNS: Final = re.compile(" {2,}")


PullCache = dict[str, dict[float, tuple[float, str]]]
"""dimension -> rating -> (the corrected rating, its rationale), for one plan."""

PULLS_KEPT: Final = 20_000
"""Ratings a dimension keeps worked out; past that its entries are dropped and worked out again."""


Pulled = tuple[dict[str, float], dict[str, str]]
"""A submission's corrected ratings and their rationales, as pull_dimensions gives them."""


def pull_dimensions(plan: ConfigPlan, ratings: dict[str, float], cache: PullCache) -> Pulled:
    """Phase 2: a rating outside tolerance moves `pull_fraction` of the way to the ideal.

    Ratings take few distinct values (4.0, 4.5, ...), so each (dimension, value) is worked out once per
    plan and looked up in `cache` (the evaluator's, for its plan) after that: by dimension, then by value
    (no key tuple to build and hash for each rating)."""
    corrected, rationale = {}, {}
    for name, value in ratings.items():
        known = cache.get(name)
        if known is None:
            known = cache[name] = {}
        entry = known.get(value)
        if entry is None:
            if len(known) >= PULLS_KEPT:
                known.clear()
            entry = known[value] = _pull_one(plan, name, value)
        corrected[name], rationale[name] = entry
    return corrected, rationale


def _pull_one(plan: ConfigPlan, name: str, value: float) -> tuple[float, str]:
    ideal, tolerance = plan.dimensions[name]
    low, high = plan.scale
    distance = round(abs(value - ideal), 9)
    if distance <= tolerance:
        kept = min(max(value, low), high)
        note = "kept" if kept == value else f"kept, clamped to the scale: {kept:g}"
        return kept, f"within tolerance (|{value:g} - {ideal:g}| = {distance:g} <= {tolerance:g}); {note}"
    pulled = min(max(value + plan.pull_fraction * (ideal - value), low), high)
    pulled = round(pulled, plan.round_digits if plan.round_digits is not None else 10)
    return pulled, (
        f"outside tolerance (|{value:g} - {ideal:g}| = {distance:g} > {tolerance:g}); "
        f"pulled {plan.pull_fraction:g} of the way toward {ideal:g}: {pulled:g}"
    )


def normalize_ranking(
    plan: ConfigPlan, submission: Submission
) -> tuple[list[Any], str, dict[str, list[Any]]]:
    """Phase 4: known ids in order, unknown dropped, duplicates removed (kept under `allow_duplicates`),
    missing appended. The issues name what was found: `duplicates` every repeat, removed or kept."""
    settings = plan.ranking
    known = [r.id for r in submission.responses]
    known_set = set(known)
    ranked = submission.ranking
    if len(ranked) == len(known_set) == len(known) and known_set == set(ranked):
        # the common case, every response ranked once: nothing to correct
        no_issues: dict[str, list[Any]] = {"unknown": [], "duplicates": [], "missing": []}
        return list(ranked), settings.feedback.get("complete", RANKING_DEFAULT), no_issues
    keep_duplicates = settings.allow_duplicates
    ranking, seen, unknown, duplicates = [], set(), [], []
    for rid in ranked:
        if rid not in known_set:
            unknown.append(rid)
            continue
        if rid in seen:
            duplicates.append(rid)
            if not keep_duplicates:
                continue
        ranking.append(rid)
        seen.add(rid)
    missing = [rid for rid in known if rid not in seen]
    if settings.append_missing:
        ranking.extend(missing)
    issues = {"unknown": unknown, "duplicates": duplicates, "missing": missing}
    return ranking, _ranking_feedback(settings, issues), issues


def _ranking_feedback(settings: RankingPlan, issues: dict[str, list[Any]]) -> str:
    """The texts of what was found, as the original words it: `had_duplicates` for a repeat (removed or
    kept), `missing_ids`, else `complete`. Unknown ids dropped are evalkit's `unknown_ids` where a config
    gives that text; the original has none and says `complete` when nothing else was found."""
    templates = settings.feedback
    outcomes = []
    if issues["duplicates"]:
        outcomes.append("had_duplicates")
    if issues["missing"] and settings.require_all_ids:
        outcomes.append("missing_ids")
    if issues["unknown"] and "unknown_ids" in templates:
        outcomes.append("unknown_ids")
    if not outcomes:
        outcomes.append("complete")
    texts = [templates[o] for o in outcomes if o in templates]
    return " ".join(texts) if texts else RANKING_DEFAULT


def _ends_with_punct(text: str) -> bool:
    return text.endswith((".", "!", "?"))


def finalize_rewrite(
    plan: ConfigPlan, submission: Submission
) -> tuple[str, list[FiredRule], list[SkippedRule]]:
    """Phase 5: strip, note if short, rewrite rules, postprocessors. Returns the text and the rewrite rules
    that fired and that did not. Each rule reads the text as it stands when it runs, after the note and the
    rules before it, as the original does (`shorter_than_min` too)."""
    settings = plan.rewrite
    note, min_length = settings.note, settings.min_length
    text = submission.rewrite_preferred.strip()
    if len(text) < min_length and settings.add_note_if_short:
        text += note
    fired, skipped = [], []
    for rule in plan.rewrite_rules:
        detail = _rewrite_rule_detail(rule, text, min_length)
        if all(seen["held"] for seen in detail.values()):
            text, actions = _apply_rewrite_actions(rule, text, note)
            fired.append(FiredRule(rule.id, "rewrite", detail, actions))
        else:
            skipped.append(SkippedRule(rule.id, "rewrite", None, None, detail=detail))
    for step in settings.postprocessors:
        text = _postprocess(step, text)
    return text, fired, skipped


def _rewrite_rule_detail(rule: RewriteRulePlan, text: str, min_length: int) -> dict[str, Any]:
    detail: dict[str, Any] = {}
    if rule.ends_without_punct is not None:
        ends_without = not _ends_with_punct(text)
        detail["ends_without_punct"] = {
            "held": rule.ends_without_punct == ends_without,
            "last_char": text[-1:],
        }
    if rule.shorter_than_min is not None:
        short = len(text) < min_length
        detail["shorter_than_min"] = {"held": rule.shorter_than_min == short, "length": len(text)}
    return detail


def _apply_rewrite_actions(rule: RewriteRulePlan, text: str, note: str) -> tuple[str, list[dict[str, Any]]]:
    actions: list[dict[str, Any]] = []
    if rule.append_text:
        text += rule.append_text
        actions.append({"append_text": rule.append_text})
    if rule.append_note:
        text += note
        actions.append({"append_note": True})
    return text, actions


def _postprocess(kind: str, text: str) -> str:
    if kind == "ensure_period":
        return text if not text or _ends_with_punct(text) else text + "."
    return (
        _SPACE_RUNS.sub(" ", text) if "  " in text else text
    ).strip()  # most texts have no double space: skip the regex


class _KeepUnknown(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def check_prompt(plan: ConfigPlan, submission: Submission) -> tuple[str, list[dict[str, Any]]]:
    """Phase 6: required fields, then each label catalogue in order, else ok.

    The feedback is the first failing check's text alone, as the original gives it; every failure is
    returned beside it (for the explain output). A required field that is empty fails as missing only,
    not as a label outside its catalogue too."""
    settings = plan.prompt
    texts = settings.texts
    failures: list[dict[str, Any]] = []
    missing = [f for f in settings.required_fields if not submission.field_value(f)]
    if missing:
        text = texts["missing_field"].format_map(_KeepUnknown(missing=", ".join(missing)))
        failures.append({"check": "missing_field", "fields": missing, "feedback": text})
    for name, allowed in settings.label_checks:
        value = submission.field_value(name)
        if value is not None and value not in allowed and name not in missing:
            text = texts["invalid_label"].format_map(_KeepUnknown(field=name, value=value))
            failures.append({"check": "invalid_label", "field": name, "feedback": text})
    return (failures[0]["feedback"] if failures else texts["ok"]), failures


def require_justification(plan: ConfigPlan, submission: Submission, state: RuleState) -> None:
    """Phase 7: a large move with no justification sets a flag and a comment."""
    threshold = plan.justification_delta
    if threshold is None or submission.justification.strip():
        return
    moved = [
        name
        for name, original in submission.ratings.items()
        if rounded(abs(state.corrected[name] - original), 9) >= threshold
    ]
    if moved:
        state.flags["justification_required"] = True
        state.add_comment(f"Justification required: {', '.join(moved)} moved by at least {threshold:g}.")


def decide_label(plan: ConfigPlan, state: RuleState) -> str | None:
    """Phase 8: the highest score threshold at or below the score, else the assigned label, else the
    default."""
    if state.score is not None and plan.score_thresholds:
        best: tuple[str, float] | None = None
        for label, minimum in plan.score_thresholds:
            if minimum <= state.score and (best is None or minimum > best[1]):
                best = (label, minimum)
        if best is not None:
            return best[0]
    return state.label if state.label is not None else plan.default_label
