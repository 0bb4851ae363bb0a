"""Live impact: what the rules being typed change on the samples, against the saved config (or the one
at git HEAD, by the `impactBase` option). The engine's diff (`evalkit diff`) does the comparing; this
module keeps the base and its results cached and words the report for lenses and hover.

The base's results are worked out once per base and set of samples, and not at all when the base is the
config the dry run just ran (on opening, after a save); after an edit only the head is evaluated (by the
dry run, whose results are reused), so the comparison costs a pass over the samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.engine.config import Config, config_files
from evalkit.engine.evaluator import Evaluator
from evalkit.lsp.dryrun import SHOWN_SAMPLES, DryRunReport, SampleView, meaning_of
from evalkit.services.config.gitrev import ConfigSource, NotInRepository, RevisionError, config_at
from evalkit.services.diff.impact import DiffReport, ItemDiff, Side, side_of
from evalkit.services.diff.render import field_lines
from evalkit.services.inputs.fingerprints import fingerprint
from evalkit.services.inputs.read import LoadedSubmission

SHOWN_LABELS = 3  # label transitions named in the lens; the rest are `…`


@dataclass(frozen=True, slots=True)
class Impact:
    """The head's difference from the base on the samples, or why there is none to show."""

    base_name: str  # `saved` or `HEAD`
    report: DiffReport | None = None
    problem: str | None = None
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # the report's rule counts, by id

    def summary_title(self) -> str:
        prefix = f"vs {self.base_name}"
        report = self.report
        if report is None:
            return f"{prefix}: {self.problem}"
        if not report.changed:
            return f"{prefix}: no change on {report.submissions} samples"
        if not report.label_changes:
            return f"{prefix}: no label changes; {report.changed}/{report.submissions} samples change"
        moves = [f"{a}→{b} {n}" for (a, b), n in report.labels.most_common(SHOWN_LABELS)]
        more = ", …" if len(report.labels) > SHOWN_LABELS else ""
        return (
            f"{prefix}: {report.label_changes}/{report.submissions} labels change ({', '.join(moves)}{more})"
        )

    def rule_suffix(self, rule_id: str) -> str:
        """` (+3)`, ` (-1)`, ` (new)`, or `` when the rule fires as often as in the base."""
        entry = self.rules.get(rule_id)
        if entry is None or entry["head"] is None:
            return ""
        if entry["base"] is None:
            return " (new)"
        delta = entry["head"] - entry["base"]
        return f" ({delta:+d})" if delta else ""

    def markdown(self) -> str:
        """The lens's text, then each changed sample with what changed."""
        lines = [f"**{self.summary_title()}**"]
        changes = self.report.changes if self.report is not None else []
        for item in changes[:SHOWN_SAMPLES]:
            moved = "; ".join(f"{name} {change}" for name, change in field_lines(item, "→"))
            lines.append(f"- `{item.source}`: {moved}")
        if len(changes) > SHOWN_SAMPLES:
            lines.append(
                f"- … and {len(changes) - SHOWN_SAMPLES} more (command `evalkit.diff` lists them all)"
            )
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class BaseRun:
    """A base config and its results on one set of samples."""

    key: tuple[Any, ...]
    config: Config | None
    problem: str | None
    sides: tuple[Side, ...] = ()


def base_source(folder: Path, base_name: str) -> tuple[tuple[Any, ...], ConfigSource | str]:
    """A key that changes when the base does, and the base's source (or why it cannot be read)."""
    if base_name == "HEAD":
        try:
            source = config_at("HEAD", folder)
        except NotInRepository:
            return ("HEAD", "no repository"), "not in a git repository"
        except RevisionError as exc:
            return ("HEAD", str(exc)), str(exc)
        return ("HEAD", tuple(sorted(source.texts.items()))), source
    return ("saved", fingerprint(config_files(folder).values())), ConfigSource(str(folder))


def run_base(
    folder: Path,
    base_name: str,
    samples: Sequence[LoadedSubmission],
    samples_key: Any,
    previous: BaseRun | None,
    head: DryRunReport | None = None,
) -> BaseRun:
    """The base's results on the samples, reused from `previous` when neither has changed, and taken from
    the dry run `head` when it ran the same config (the buffers as saved: on opening, after a save)."""
    key, source = base_source(folder, base_name)
    key = (*key, samples_key)
    if previous is not None and previous.key == key:
        return previous
    if isinstance(source, str):
        return BaseRun(key, None, source)
    config = source.analyze()
    if config.plan is None:
        return BaseRun(key, None, f"the {base_name} config has errors")
    if head is not None and head.meaning == meaning_of(config) and len(head.outcomes) == len(samples):
        return BaseRun(key, config, None, tuple(_head_side(outcome) for outcome in head.outcomes))
    evaluator = Evaluator(config)
    sides = tuple(
        side_of(evaluator, s.submission) if s.submission is not None else s.error or "unreadable"
        for s in samples
    )
    return BaseRun(key, config, None, sides)


def impact_of(base_name: str, base: BaseRun, head: Config, report: DryRunReport) -> Impact:
    """The head's dry-run results compared with the base's."""
    if base.config is None:
        return Impact(base_name, problem=base.problem)
    diff = DiffReport.between(base.config, head, base_name, str(head.folder))
    diff.add_all(  # every sample, also one neither side could read: counted as `evalkit diff` counts it
        ItemDiff(outcome.source, before, _head_side(outcome))
        for before, outcome in zip(base.sides, report.outcomes, strict=False)
    )
    return Impact(base_name, diff, rules=diff.rule_counts())


def _head_side(outcome: SampleView) -> Side:
    return outcome.snapshot if outcome.snapshot is not None else outcome.error or "unreadable"
