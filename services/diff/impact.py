"""The impact of a config change on a corpus: every submission evaluated under two configs (the base and
the head), compared field by field, and summed up in a `DiffReport`.

`DiffRunner(base, head).compare(source, submission)` gives one submission's `ItemDiff`; `DiffReport.add`
sums them; `DiffReport.to_dict()` is the JSON shape the README documents (renderers for Markdown and the
terminal are in `diffrender`). Evaluation is the engine's own `Evaluator`: nothing here re-implements a
rule. `diff_items` runs a corpus through the batch machinery (`run_items`), in worker processes when asked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from evalkit.engine.config import Config
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.result import Result
from evalkit.engine.submission import Submission
from evalkit.services.config.gitrev import ConfigSource
from evalkit.services.inputs.read import parse_text
from evalkit.services.run.batch import Outcome, RawItem, run_items
from evalkit.services.run.evaluation import EvaluationFailure, evaluate_safely

FIELDS = {
    "label": "label",
    "score": "score",
    "flags": "flags",
    "corrected_ratings": "ratings",
    "corrected_ranking": "ranking",
    "rewrite_final": "rewrite",
    "fired_rules": "fired",
    "ranking_feedback": "ranking_feedback",
    "prompt_feedback": "prompt_feedback",
}
"""The fields a change lists, by the result object's names, in this order: the Snapshot attribute of each."""


class Snapshot(NamedTuple):
    """What a diff compares of one result. (Tuples, not dataclasses: worker processes send one or two per
    submission, and a tuple pickles several times faster.)"""

    label: str | None
    score: float | None
    flags: tuple[str, ...]  # the flags set, sorted
    ratings: tuple[tuple[str, float], ...]  # corrected ratings: (dimension, updated)
    ranking: tuple[Any, ...]
    rewrite: str
    fired: tuple[str, ...]  # rule ids in firing order
    ranking_feedback: str
    prompt_feedback: str

    @classmethod
    def of(cls, result: Result) -> Snapshot:
        return cls(
            result.label,
            result.score,
            tuple(sorted(name for name, on in result.flags.items() if on)),
            tuple((name, rating["updated"]) for name, rating in result.corrected_ratings.items()),
            tuple(result.corrected_ranking),
            result.rewrite_final,
            tuple(rule.id for rule in result.fired_rules),
            result.ranking_feedback,
            result.prompt_feedback,
        )

    def value(self, name: str) -> Any:
        """A field's value as the result object shows it (a FIELDS name)."""
        found = getattr(self, FIELDS[name])
        if name == "corrected_ratings":
            return dict(found)
        return list(found) if isinstance(found, tuple) else found


Side = Snapshot | str
"""One side's outcome: a snapshot, or why the submission could not be evaluated."""


class ItemDiff(NamedTuple):
    source: str
    base: Side
    head: Side

    @property
    def changed(self) -> bool:
        return self.base != self.head

    def fields(self) -> dict[str, Any]:
        """The changed fields, each as [base, head]; corrected ratings by dimension; an evaluation that
        failed on either side as `error`."""
        base, head = self.base, self.head
        if not isinstance(base, Snapshot) or not isinstance(head, Snapshot):
            return {"error": [_error(base), _error(head)]} if base != head else {}
        changed: dict[str, Any] = {}
        for name, attribute in FIELDS.items():
            if getattr(base, attribute) == getattr(head, attribute):
                continue
            before, after = base.value(name), head.value(name)
            if name == "corrected_ratings":
                changed[name] = {
                    dim: [before.get(dim), after.get(dim)]
                    for dim in {**before, **after}
                    if before.get(dim) != after.get(dim)
                }
            else:
                changed[name] = [before, after]
        return changed

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, **self.fields()}


def _error(side: Side) -> str | None:
    return side if isinstance(side, str) else None


class DiffRunner:
    """Both configs' evaluators; runs raw items for `run_items`, or parsed submissions (the editor)."""

    def __init__(self, base: Config, head: Config) -> None:
        self._base, self._head = Evaluator(base), Evaluator(head)

    def run(self, item: RawItem) -> ItemDiff | Unchanged:
        """For `run_items`: a submission evaluated alike by both configs comes back as its fired rules
        alone, which is all the sums need (and most of a corpus, sent between processes)."""
        loaded = parse_text(item.text, item.source, item.suffix)
        if loaded.submission is None:
            return unreadable(item.source, loaded.error or "unreadable")
        found = self.compare(item.source, loaded.submission)
        return (
            Unchanged(found.base.fired) if isinstance(found.base, Snapshot) and not found.changed else found
        )

    def compare(self, source: str, submission: Submission) -> ItemDiff:
        base, head = side_of(self._base, submission), side_of(self._head, submission)
        return ItemDiff(source, base, base if head == base else head)  # one object pickles once


class Unchanged(NamedTuple):
    """A submission both configs evaluated alike: the rules that fired on it."""

    fired: tuple[str, ...]


def unreadable(source: str, error: str) -> ItemDiff:
    return ItemDiff(source, error, error)


def side_of(evaluator: Evaluator, submission: Submission) -> Side:
    result = evaluate_safely(evaluator.evaluate, submission)
    # one side's failure is a difference to report, not the end of the run
    return str(result) if isinstance(result, EvaluationFailure) else Snapshot.of(result)


@dataclass(frozen=True)
class DiffRecipe:
    """How a worker process makes its DiffRunner: both configs loaded again there, from their sources."""

    base: ConfigSource
    head: ConfigSource

    def __call__(self) -> DiffRunner:
        return DiffRunner(self.base.analyze(), self.head.analyze())


def diff_items(
    items: Iterable[RawItem | Outcome], base: Config, head: Config, recipe: DiffRecipe, jobs: int = 1
) -> Iterator[ItemDiff | Unchanged]:
    """Every item's ItemDiff (or, evaluated alike on both sides, its Unchanged), in input order; an
    unreadable input is an ItemDiff with the same error on both sides."""
    for done in run_items(items, DiffRunner(base, head), recipe, jobs):
        yield unreadable(done.source, done.error or "unreadable") if isinstance(done, Outcome) else done


def rule_ids(config: Config) -> list[str]:
    """The config's rule ids in file order: rating, ranking, then rewrite rules."""
    plan = config.plan
    if plan is None:
        return []
    rules = [rule.id for rule in [*plan.rating_rules, *plan.ranking_rules]]
    return list(dict.fromkeys([*rules, *(rule.id for rule in plan.rewrite_rules)]))


@dataclass(frozen=True, slots=True)
class SideInfo:
    ref: str  # what the user named: a folder, or a git revision
    config_hash: str

    def to_dict(self, errors: int) -> dict[str, Any]:
        return {"ref": self.ref, "config_hash": self.config_hash, "errors": errors}


@dataclass
class DiffReport:
    """The sums of every ItemDiff added, and the changed ones in input order."""

    base: SideInfo
    head: SideInfo
    base_rules: list[str]
    head_rules: list[str]
    submissions: int = 0
    errors: list[int] = field(default_factory=lambda: [0, 0])
    fired: tuple[Counter[str], Counter[str]] = field(default_factory=lambda: (Counter(), Counter()))
    labels: Counter[tuple[str, str]] = field(default_factory=Counter)
    score_deltas: Counter[float] = field(default_factory=Counter)
    flags: dict[str, list[int]] = field(default_factory=dict)  # flag -> [gained, lost]
    dimensions: dict[str, list[float]] = field(default_factory=dict)  # dimension -> [changed, sum of changes]
    changes: list[ItemDiff] = field(default_factory=list)

    @classmethod
    def between(cls, base: Config, head: Config, base_ref: str, head_ref: str) -> DiffReport:
        return cls(
            SideInfo(base_ref, base.config_hash),
            SideInfo(head_ref, head.config_hash),
            rule_ids(base),
            rule_ids(head),
        )

    def add_all(self, items: Iterable[ItemDiff | Unchanged]) -> DiffReport:
        for item in items:
            self.add(item)
        return self

    def add(self, item: ItemDiff | Unchanged) -> None:
        self.submissions += 1
        if isinstance(item, Unchanged):
            self.fired[0].update(item.fired)
            self.fired[1].update(item.fired)
            return
        for index, side in enumerate((item.base, item.head)):
            if isinstance(side, Snapshot):
                self.fired[index].update(side.fired)
            else:
                self.errors[index] += 1
        if not item.changed:
            return
        self.changes.append(item)
        if isinstance(item.base, Snapshot) and isinstance(item.head, Snapshot):
            self._compare(item.base, item.head)

    def _compare(self, base: Snapshot, head: Snapshot) -> None:
        if base.label != head.label:
            self.labels[(_label(base.label), _label(head.label))] += 1
        if base.score != head.score:  # no score counts as 0
            self.score_deltas[round((head.score or 0.0) - (base.score or 0.0), 6)] += 1
        for flag in set(base.flags) ^ set(head.flags):
            self.flags.setdefault(flag, [0, 0])[flag in base.flags] += 1
        before = dict(base.ratings)
        for dimension, after in head.ratings:
            if dimension in before and before[dimension] != after:
                sums = self.dimensions.setdefault(dimension, [0, 0.0])
                sums[0] += 1
                sums[1] += after - before[dimension]

    @property
    def changed(self) -> int:
        return len(self.changes)

    @property
    def label_changes(self) -> int:
        return sum(self.labels.values())

    def rule_counts(self) -> dict[str, dict[str, Any]]:
        """Every rule of either side: fire counts (None on the side that lacks the rule), head's order
        first, then the rules the head removed."""
        counts: dict[str, dict[str, Any]] = {}
        base_rules, head_rules = set(self.base_rules), set(self.head_rules)
        for rule in [*self.head_rules, *(r for r in self.base_rules if r not in head_rules)]:
            in_base, in_head = rule in base_rules, rule in head_rules
            entry: dict[str, Any] = {
                "base": self.fired[0][rule] if in_base else None,
                "head": self.fired[1][rule] if in_head else None,
            }
            if in_base != in_head:
                entry["status"] = "added" if in_head else "removed"
            counts[rule] = entry
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base.to_dict(self.errors[0]),
            "head": self.head.to_dict(self.errors[1]),
            "submissions": self.submissions,
            "changed": self.changed,
            "labels": {f"{a} -> {b}": n for (a, b), n in self.labels.most_common()},
            "scores": {signed(delta): n for delta, n in sorted(self.score_deltas.items())},
            "flags": {flag: {"gained": g, "lost": lost} for flag, (g, lost) in sorted(self.flags.items())},
            "rules": self.rule_counts(),
            "dimensions": {
                dim: {"changed": int(n), "mean_change": round(total / n, 6)}
                for dim, (n, total) in sorted(self.dimensions.items())
            },
            "changes": [item.to_dict() for item in self.changes],
        }


def _label(label: str | None) -> str:
    return label if label is not None else "(none)"


def signed(number: float) -> str:
    """`+2`, `-0.5`, `0`: a change as people write it."""
    text = f"{number:g}"
    return text if number <= 0 else "+" + text
