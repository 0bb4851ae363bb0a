"""Rule verdicts kept across edits, for the live dry run.

A rule's conditions read only the submission, never what other rules did (engine/conditions.py), so
whether a rule holds on a sample depends on its `when` alone. After an edit, only the rules whose `when`
is new are tested on the samples; the evaluator is given every rule's verdict
(`Evaluator.evaluate(submission, verdicts)`) and only runs the actions. With 250 rules, testing them is
about half of a dry run's time.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from evalkit.engine import Evaluator
from evalkit.engine.conditions import Block, compile_verdicts
from evalkit.engine.config import Config
from evalkit.engine.context import Signals
from evalkit.engine.result import Result
from evalkit.engine.submission import Submission
from evalkit.services.run.evaluation import Evaluate

Column = tuple[bool, ...]  # one rule's verdict on each sample, in order
KEPT_CONFIGS = 2  # the columns of this many recent configs are kept: an edit undone finds its rules tested


class VerdictCache:
    """One config folder's verdict columns on one set of samples, by each rule's `when` (as JSON)."""

    def __init__(self) -> None:
        self._samples_key: Any = None
        self._columns: dict[str, Column] = {}
        self._recent: list[list[str]] = []

    def evaluator(
        self, config: Config, samples: Sequence[Submission], samples_key: Any, stop: threading.Event
    ) -> Evaluate:
        """`Evaluator(config).evaluate` for `samples`, with their verdicts tested only for the rules whose
        `when` is new (stops testing when `stop` is set: the dry run is stale). Any other submission is
        evaluated as usual."""
        evaluator = Evaluator(config)
        rules = _tested_rules(config)
        if rules is None:
            return evaluator.evaluate
        if samples_key != self._samples_key:
            self._samples_key, self._columns, self._recent = samples_key, {}, []
        keys = [key for key, _ in rules]
        self._test({key: block for key, block in rules if key not in self._columns}, samples, stop)
        if stop.is_set():
            return evaluator.evaluate
        self._keep(keys)
        rows = list(zip(*(self._columns[key] for key in keys), strict=True)) if keys else []
        by_sample = {id(sample): row for sample, row in zip(samples, rows, strict=False)}

        def evaluate(submission: Any) -> Result:
            return evaluator.evaluate(submission, by_sample.get(id(submission)))

        return evaluate

    def _test(self, blocks: dict[str, Block], samples: Sequence[Submission], stop: threading.Event) -> None:
        if not blocks:
            return
        test = compile_verdicts(list(blocks.values()))
        rows = []
        for sample in samples:
            if stop.is_set():
                return
            rows.append(test(Signals.of(sample)))
        columns: Iterable[Column] = zip(*rows, strict=True) if rows else ((),) * len(blocks)
        self._columns.update(zip(blocks, columns, strict=True))

    def _keep(self, keys: list[str]) -> None:
        """Forget the columns of rules no recent config has."""
        self._recent = [*self._recent[-(KEPT_CONFIGS - 1) :], keys]
        kept = {key for recent in self._recent for key in recent}
        for key in [key for key in self._columns if key not in kept]:
            del self._columns[key]


def _tested_rules(config: Config) -> list[tuple[str, Block]] | None:
    """Each tested rule's `when` (as JSON) and compiled block, in the order of the plan's verdicts (its
    rating rules, then its ranking rules); None when the plan and the rules file do not line up."""
    plan = config.plan
    if plan is None:
        return None
    data = config.data("rules")
    raw = [*(data.get("rating_rules") or []), *(data.get("ranking_rules") or [])]
    compiled = [*plan.rating_rules, *plan.ranking_rules]
    if len(raw) != len(compiled) or any(r.get("id") != c.id for r, c in zip(raw, compiled, strict=True)):
        return None
    return [
        (json.dumps(r.get("when"), sort_keys=True, default=repr), c.when)
        for r, c in zip(raw, compiled, strict=True)
    ]
