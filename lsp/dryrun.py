"""The live dry run: a config folder's rules evaluated on sample submissions.

The config is compiled once (by `analyze`); the samples are then evaluated by the sample dry run that
`evalkit check --samples` runs too (`services.check.samples`), which stops between samples when a newer
edit makes it stale. What is the editor's is here: the report feeds the code lenses (`fires on K/N
samples`), the hover on a rule id, and the `evalkit.dryRun` command.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import takewhile
from pathlib import Path
from typing import Any

from evalkit.engine.config import Config
from evalkit.engine.result import Result, SkippedRule
from evalkit.services.check.samples import SampleOutcome, dry_run, sample_position
from evalkit.services.diff.impact import Snapshot
from evalkit.services.inputs.read import LoadedSubmission
from evalkit.services.run.evaluation import Evaluate

RuleKey = tuple[str, str]  # (rule type, rule id): ids are unique only within their list
SHOWN_SAMPLES = 8  # a hover lists at most this many samples per outcome; the rest are counted
MISSING = {  # why a sample has no result, as the summary counts it, in the order it lists them
    "unreadable": "unreadable",  # the file or line cannot be read as JSON or YAML
    "invalid": "invalid",  # read, but not a submission: a field missing or of the wrong type
    "failed": "failed to evaluate",  # a submission the evaluation raised on
}


@dataclass(frozen=True, slots=True)
class SampleView:
    """One sample's outcome as the editor shows it: its result, or why there is none."""

    source: str
    label: str | None = None
    score: float | None = None
    flags: dict[str, bool] = field(default_factory=dict)
    fired: dict[RuleKey, list[dict[str, Any]]] = field(default_factory=dict)  # rule -> its actions
    result: Result | None = None  # kept for the rules that did not fire, explained only when asked
    error: str | None = None
    missing: str | None = None  # with `error`, why there is no result: one of MISSING's keys
    at: tuple[int, int] | None = None  # with `error`: the problem's line and column, when known
    snapshot: Snapshot | None = None  # what the live impact compares with the base

    def skipped(self, rule: RuleKey) -> SkippedRule | None:
        """The rule as it did not fire here (worked out on first asking: a hover), or None."""
        if self.result is None or rule in self.fired:
            return None
        return next((r for r in self.result.skipped_rules if (r.type, r.id) == rule), None)

    def to_json(self) -> dict[str, Any]:
        if self.error is not None:
            at = {"line": self.at[0], "column": self.at[1]} if self.at else {}
            return {"source": self.source, "error": self.error, "problem": self.missing, **at}
        fired = [
            {"id": rule_id, "type": kind, "actions": actions}
            for (kind, rule_id), actions in self.fired.items()
        ]
        return {
            "source": self.source,
            "label": self.label,
            "score": self.score,
            "flags": self.flags,
            "fired_rules": fired,
        }


@dataclass(frozen=True, slots=True)
class DryRunReport:
    meaning: str  # what the results depend on (`meaning_of`): a report serves every config with it
    samples_dir: Path
    outcomes: list[SampleView]
    rules: frozenset[RuleKey]  # the rules of the config that was run
    fired_counts: Counter[RuleKey]

    @classmethod
    def of(cls, config: Config, samples_dir: Path, outcomes: list[SampleView]) -> DryRunReport:
        counts: Counter[RuleKey] = Counter(key for outcome in outcomes for key in outcome.fired)
        return cls(meaning_of(config), samples_dir, outcomes, rule_keys(config), counts)

    @property
    def evaluated(self) -> int:
        return sum(1 for outcome in self.outcomes if outcome.error is None)

    def lens_title(self, rule: RuleKey) -> str:
        return f"fires on {self.fired_counts[rule]}/{self.evaluated} samples"

    def summary_title(self) -> str:
        labels = Counter(o.label or "no label" for o in self.outcomes if o.error is None)
        parts = [f"dry run: {self.evaluated} sample{'s' if self.evaluated != 1 else ''}"]
        parts += [f"{label} {count}" for label, count in sorted(labels.items())]
        missing = Counter(o.missing for o in self.outcomes if o.error is not None)
        parts += [f"{missing[kind]} {words}" for kind, words in MISSING.items() if missing[kind]]
        return " · ".join(parts)

    def missing_markdown(self) -> str | None:
        """The samples without a result, each with why (the hover on the summary lens), or None."""
        missing = [o for o in self.outcomes if o.error is not None]
        if not missing:
            return None
        lines = [f"**{self.summary_title()}**", "", "No result for:"]
        lines += _listed(missing, lambda o: f"{MISSING[o.missing or 'unreadable']}: {o.error}", _located)
        return "\n".join(lines)

    def to_json(self, folder: Path) -> dict[str, Any]:
        return {
            "config": str(folder),
            "samples": str(self.samples_dir),
            "evaluated": self.evaluated,
            "results": [outcome.to_json() for outcome in self.outcomes],
        }

    def rule_markdown(self, rule: RuleKey) -> str:
        fired = [o for o in self.outcomes if rule in o.fired]
        lines = [f"Dry run: **{self.lens_title(rule)}**"]
        lines += _listed(fired, lambda o: _actions_text(o.fired[rule]))
        missed = [o for o in self.outcomes if o.skipped(rule) is not None]
        if missed:
            lines.append("\nDid not fire on:")
            lines += _listed(missed, lambda o: o.skipped(rule).reason)
        return "\n".join(lines)


def meaning_of(config: Config) -> str:
    """The config's files as data: an edit to a comment, the spacing or the quoting leaves it, and the
    results on the samples, as they were."""
    documents = {name: document.data for name, document in sorted(config.documents.items())}
    return json.dumps(documents, ensure_ascii=False, default=repr)


def rule_keys(config: Config) -> frozenset[RuleKey]:
    plan = config.plan
    if plan is None:
        return frozenset()
    rules = [*plan.rating_rules, *plan.ranking_rules]
    return frozenset({*((r.type, r.id) for r in rules), *(("rewrite", r.id) for r in plan.rewrite_rules)})


def _listed(
    outcomes: Sequence[SampleView], describe: Any, name: Callable[[SampleView], str] = lambda o: o.source
) -> list[str]:
    lines = [f"- `{name(o)}`: {describe(o)}" for o in outcomes[:SHOWN_SAMPLES]]
    if len(outcomes) > SHOWN_SAMPLES:
        lines.append(f"- … and {len(outcomes) - SHOWN_SAMPLES} more")
    return lines


def _located(outcome: SampleView) -> str:
    """`file.json:3:17` (also for a line of a .jsonl), or the source alone when there is no position."""
    if outcome.at is None:
        return outcome.source
    path, _ = sample_position(outcome.source)
    return f"{path}:{outcome.at[0]}:{outcome.at[1]}"


def _actions_text(actions: list[dict[str, Any]]) -> str:
    words = [f"{name} {_shown(value)}" for action in actions for name, value in action.items()]
    return " · ".join(words) or "no actions"


def _shown(value: Any) -> str:
    """An action's record in one short line: `dimension=accuracy, from=5.0, ...` or the text itself."""
    if isinstance(value, dict):
        text = ", ".join(f"{key}={_shown(item)}" for key, item in value.items())
    else:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"


def evaluate_samples(
    evaluate: Evaluate, samples: Sequence[LoadedSubmission], samples_dir: Path, stop: threading.Event
) -> list[SampleView]:
    """The shared sample dry run until `stop` is set, each outcome named relative to `samples_dir`."""
    until_stopped = takewhile(lambda _: not stop.is_set(), samples)
    return [_view(outcome, samples_dir) for outcome in dry_run(evaluate, until_stopped)]


def _view(outcome: SampleOutcome, samples_dir: Path) -> SampleView:
    source = _display_name(outcome.source, samples_dir)
    result = outcome.result
    if result is None:
        missing = "failed" if outcome.failure is not None else "invalid" if outcome.invalid else "unreadable"
        return SampleView(source, error=outcome.problem, missing=missing, at=_at(outcome))
    fired = {(rule.type, rule.id): rule.actions for rule in result.fired_rules}
    return SampleView(
        source, result.label, result.score, dict(result.flags), fired, result, snapshot=Snapshot.of(result)
    )


def _at(outcome: SampleOutcome) -> tuple[int, int] | None:
    return None if outcome.at is None else (outcome.at.line, outcome.at.column)


def _display_name(source: str, samples_dir: Path) -> str:
    try:
        return os.path.relpath(source, samples_dir)
    except ValueError:  # another drive on Windows
        return source
