"""Compile a validated config once into a ConfigPlan: settings with their defaults filled in, and the
rules as RulePlans (compiled conditions and actions). Evaluation reads only the plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evalkit.engine.actions import Apply, compile_actions
from evalkit.engine.conditions import Block, compile_verdicts, compile_when
from evalkit.engine.context import Signals
from evalkit.engine.templates import compile_template

REWRITE_NOTE_DEFAULT = "Expand content."
PROMPT_DEFAULTS = {
    "ok": "Prompt valid.",
    "missing_field": "Missing fields: {missing}",
    "invalid_label": "Invalid label {field}={value}",
}
DEFAULT_DIMENSIONS: dict[str, tuple[float, float]] = {
    "instructions": (4.0, 1.5),
    "accuracy": (4.2, 1.2),
    "optimality": (3.8, 1.4),
    "presentation": (4.0, 1.2),
    "freshness": (3.5, 1.5),
}


# The plans are plain classes, not dataclasses: `evalkit eval` builds every class of the engine at its start,
# and `dataclasses` writes each one's methods with exec (and imports `inspect`), a fifth of a cold start.
# Nothing changes a plan once compiled.


class RulePlan:
    def __init__(
        self,
        id: str,
        type: str,
        when: Block,
        actions: list[Apply],
        description: str = "",
        reads_detail: bool = False,
    ) -> None:
        self.id, self.type, self.when, self.actions = id, type, when, actions
        self.description = description
        self.reads_detail = reads_detail
        """An action (a comment template) reads what the conditions observed, so it is worked out at once."""


class RewriteRulePlan:
    def __init__(
        self,
        id: str,
        ends_without_punct: bool | None,
        shorter_than_min: bool | None,
        append_text: str,
        append_note: bool,
    ) -> None:
        self.id, self.append_text, self.append_note = id, append_text, append_note
        self.ends_without_punct, self.shorter_than_min = ends_without_punct, shorter_than_min


class RankingPlan:
    def __init__(
        self,
        allow_duplicates: bool = False,
        append_missing: bool = True,
        require_all_ids: bool = True,
        feedback: dict[str, str] | None = None,
    ) -> None:
        self.allow_duplicates, self.append_missing = allow_duplicates, append_missing
        self.require_all_ids = require_all_ids
        self.feedback: dict[str, str] = {} if feedback is None else feedback
        """Texts by outcome (complete, missing_ids, had_duplicates, unknown_ids)."""


class RewritePlan:
    def __init__(
        self,
        min_length: int = 0,
        add_note_if_short: bool = True,
        note: str = "\n\n" + REWRITE_NOTE_DEFAULT,
        postprocessors: tuple[str, ...] = (),
    ) -> None:
        self.min_length, self.add_note_if_short = min_length, add_note_if_short
        self.note = note
        """What a short rewrite gets, and what `append_note` appends: two newlines and `note_text`."""
        self.postprocessors = postprocessors


class PromptPlan:
    def __init__(
        self,
        texts: dict[str, str] | None = None,
        required_fields: tuple[str, ...] = (),
        label_checks: tuple[tuple[str, list[Any]], ...] = (),
    ) -> None:
        self.texts: dict[str, str] = dict(PROMPT_DEFAULTS) if texts is None else texts
        """The feedback texts by outcome (ok, missing_field, invalid_label), defaults filled in."""
        self.required_fields = required_fields
        self.label_checks = label_checks
        """(field, allowed values), from keys that are a field name or `<field>_allow`."""


def _no_verdicts(signals: Signals) -> tuple[bool, ...]:
    return ()


class ConfigPlan:
    def __init__(
        self,
        scale: tuple[float, float] = (0.0, 5.0),
        dimensions: dict[str, tuple[float, float]] | None = None,
        pull_fraction: float = 0.4,
        round_digits: int | None = None,
        justification_delta: float | None = None,
        ranking: RankingPlan | None = None,
        prompt: PromptPlan | None = None,
        rewrite: RewritePlan | None = None,
        rating_rules: list[RulePlan] | None = None,
        ranking_rules: list[RulePlan] | None = None,
        rewrite_rules: list[RewriteRulePlan] | None = None,
        dedupe_comments: bool = False,
        stop_after_first: bool = False,
        default_label: str | None = None,
        score_thresholds: list[tuple[str, float]] | None = None,
        rule_version: Any = None,
        verdicts: Callable[[Signals], tuple[bool, ...]] = _no_verdicts,
    ) -> None:
        self.scale, self.pull_fraction, self.round_digits = scale, pull_fraction, round_digits
        self.dimensions = dict(DEFAULT_DIMENSIONS) if dimensions is None else dimensions
        self.justification_delta = justification_delta
        self.ranking = RankingPlan() if ranking is None else ranking
        self.prompt = PromptPlan() if prompt is None else prompt
        self.rewrite = RewritePlan() if rewrite is None else rewrite
        self.rating_rules: list[RulePlan] = [] if rating_rules is None else rating_rules
        self.ranking_rules: list[RulePlan] = [] if ranking_rules is None else ranking_rules
        self.rewrite_rules: list[RewriteRulePlan] = [] if rewrite_rules is None else rewrite_rules
        self.dedupe_comments, self.stop_after_first = dedupe_comments, stop_after_first
        self.default_label = default_label
        self.score_thresholds: list[tuple[str, float]] = score_thresholds or []
        self.rule_version = rule_version
        self.verdicts = verdicts
        """Whether each rating rule, then each ranking rule, holds on a submission's signals."""


def _optional(kind: Callable[[Any], Any], value: Any) -> Any:
    return None if value is None else kind(value)


def _dimensions(data: dict[str, Any]) -> dict[str, Any]:
    dims = dict(DEFAULT_DIMENSIONS)
    for name, entry in (data.get("dimensions") or {}).items():
        ideal, tolerance = dims[name]
        dims[name] = (float(entry.get("ideal", ideal)), float(entry.get("tolerance", tolerance)))
    adjustment = data.get("adjustment") or {}
    low, high = data.get("scale") or (0, 5)
    return {
        "scale": (float(low), float(high)),
        "dimensions": dims,
        "pull_fraction": float(adjustment.get("pull_fraction", 0.4)),
        "round_digits": _optional(int, adjustment.get("round")),  # a JSON Schema integer may be written 2.0
        "justification_delta": _optional(
            float, (data.get("validation") or {}).get("require_justification_if_delta_ge")
        ),
    }


def _ranking(data: dict[str, Any]) -> RankingPlan:
    return RankingPlan(
        bool(data.get("allow_duplicates", False)),
        bool((data.get("corrections") or {}).get("append_missing", True)),
        bool(data.get("require_all_ids", True)),
        dict(data.get("feedback_templates") or {}),
    )


def _rewrite(data: dict[str, Any]) -> RewritePlan:
    return RewritePlan(
        int(data.get("min_length", 0)),
        bool(data.get("add_note_if_short", True)),
        "\n\n" + data.get("note_text", REWRITE_NOTE_DEFAULT),
        tuple(step["type"] for step in data.get("postprocessors") or []),
    )


def _prompt(data: dict[str, Any]) -> PromptPlan:
    texts = {**PROMPT_DEFAULTS, **(data.get("feedback") or {})}
    checks = (data.get("label_checks") or {}).items()
    return PromptPlan(
        texts,
        tuple(data.get("required_fields") or ()),
        tuple((key.removesuffix("_allow"), allowed) for key, allowed in checks),
    )


def _rule(raw: dict[str, Any], kind: str) -> RulePlan:
    actions = raw.get("actions") or {}
    template = actions.get("add_comment_template")
    reads_detail = template is not None and "detail" in compile_template(template).names
    return RulePlan(
        raw["id"],
        kind,
        compile_when(raw.get("when")),
        compile_actions(actions),
        raw.get("description", ""),
        reads_detail=reads_detail,
    )


def _rewrite_rule(raw: dict[str, Any]) -> RewriteRulePlan:
    when, actions = raw.get("when") or {}, raw.get("actions") or {}
    return RewriteRulePlan(
        raw["id"],
        when.get("ends_without_punct"),
        when.get("shorter_than_min"),
        actions.get("append_text", ""),
        bool(actions.get("append_note", False)),
    )


def _rules(data: dict[str, Any]) -> dict[str, Any]:
    options = data.get("options") or {}
    thresholds = (data.get("decision") or {}).get("score_thresholds") or {}
    return {
        "rating_rules": [_rule(r, "rating") for r in data.get("rating_rules") or []],
        "ranking_rules": [_rule(r, "ranking") for r in data.get("ranking_rules") or []],
        "rewrite_rules": [_rewrite_rule(r) for r in data.get("rewrite_rules") or []],
        "dedupe_comments": bool(options.get("dedupe_comments", False)),
        "stop_after_first": bool(options.get("stop_after_first", False)),
        "default_label": options.get("default_label"),
        "score_thresholds": [(label, float(v)) for label, v in thresholds.items()],
        "rule_version": data.get("version"),
    }


def compile_plan(data: dict[str, dict[str, Any]]) -> ConfigPlan:
    """`data` maps each config name to its validated content ({} for an absent file)."""
    rules = _rules(data.get("rules") or {})
    tested = [rule.when for rule in (*rules["rating_rules"], *rules["ranking_rules"])]
    return ConfigPlan(
        **_dimensions(data.get("dimensions") or {}),
        ranking=_ranking(data.get("ranking") or {}),
        prompt=_prompt(data.get("prompt") or {}),
        rewrite=_rewrite(data.get("rewrite") or {}),
        **rules,
        verdicts=compile_verdicts(tested),
    )
