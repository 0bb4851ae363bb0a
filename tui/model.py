"""The review session: the queue, the engine's results, the reviewer's decisions. No Textual here.

Submissions arrive in batches (`add`) while a file is still being read, and are evaluated lazily: the one
on screen at once (`result`), the rest by a background loop (`evaluate_pending`) that fills the queue's
label, score and flags. A config change bumps `generation`, and every summary of an older generation is
evaluated again. Decisions go to the journal sink first and change the state only once it returned, so a
decision the reviewer saw is a decision on disk.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, NamedTuple

from evalkit.engine.config import Config
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.result import Result
from evalkit.services.inputs.read import LoadedSubmission
from evalkit.services.run.evaluation import EvaluationFailure, evaluate_safely
from evalkit.tui import filters
from evalkit.tui.decisions import (
    ACCEPT,
    DISCARD,
    DONE,
    EDIT,
    NOTE,
    NOTE_TARGET,
    STATUS_TARGET,
    Decision,
    DecisionBook,
    Entry,
    entries_of,
)
from evalkit.tui.export import reviewed_record
from evalkit.tui.proposals import FLAG, LABEL, Proposal, proposals_of

RESULT_CACHE_SIZE = 64  # results kept for the detail view; the queue needs only summaries

Sink = Callable[[list[Entry]], None]


class ReviewError(Exception):
    """A decision that cannot be made (no such proposal, nothing to evaluate with); the message says why."""


def utc_timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Summary:
    """What the queue shows of an evaluated submission, and the config generation it came from."""

    generation: int
    label: str | None = None
    score: float | None = None
    flags: frozenset[str] = frozenset()
    error: str | None = None


@dataclass
class QueueItem:
    index: int
    loaded: LoadedSubmission
    summary: Summary | None = None

    @property
    def source(self) -> str:
        return self.loaded.source

    @cached_property
    def haystack(self) -> str:
        """The lower-cased source and prompt the filter's words are looked for in (lower-cased once: the
        filter reads every item at each keystroke)."""
        prompt = self.loaded.submission.prompt if self.loaded.submission is not None else ""
        return f"{self.source}\n{prompt}".lower()


class ReviewProgress(NamedTuple):
    done: int
    total: int
    errors: int
    evaluated: int


class Engine(NamedTuple):
    generation: int
    evaluator: Evaluator | None


@dataclass
class ReviewSession:
    config: Config
    book: DecisionBook = field(default_factory=DecisionBook)
    sink: Sink = lambda entries: None
    clock: Callable[[], str] = utc_timestamp
    items: list[QueueItem] = field(default_factory=list)
    view: list[int] = field(default_factory=list)
    query: filters.Query = field(default_factory=filters.Query)
    sort: str = "input"
    resume_source: str | None = None

    def __post_init__(self) -> None:
        self.engine = Engine(0, Evaluator(self.config) if self.config.ok else None)
        self._index: dict[str, int] = {}
        self._results: OrderedDict[int, tuple[int, Result | str]] = OrderedDict()
        self._lock = threading.Lock()
        self._cursor = 0  # items before it have a summary of the current generation

    # Loading and evaluating

    def add(self, batch: Iterable[LoadedSubmission]) -> list[int]:
        """Append submissions as they are read; returns their indices."""
        added = []
        for loaded in batch:
            index = len(self.items)
            self.items.append(QueueItem(index, loaded))
            self._index.setdefault(loaded.source, index)
            added.append(index)
        return added

    def index_of(self, source: str) -> int | None:
        return self._index.get(source)

    def set_config(self, config: Config) -> bool:
        """Use a new config; a broken one keeps the last good evaluator. True when the results change."""
        self.config = config
        if not config.ok:
            return False
        with self._lock:
            self.engine = Engine(self.engine.generation + 1, Evaluator(config))
            self._cursor = 0
        return True

    def result(self, index: int) -> Result | str | None:
        """The engine's result, or an error message, or None without a usable config."""
        engine = self.engine
        cached = self._results.get(index)
        if cached is not None and cached[0] == engine.generation:
            self._results.move_to_end(index)
            return cached[1]
        outcome = self._evaluate(index, engine)
        if outcome is None:
            return None
        self._results[index] = (engine.generation, outcome)
        if len(self._results) > RESULT_CACHE_SIZE:
            self._results.popitem(last=False)
        self.items[index].summary = _summary(engine.generation, outcome)
        return outcome

    def _evaluate(self, index: int, engine: Engine) -> Result | str | None:
        loaded = self.items[index].loaded
        if loaded.error is not None or loaded.submission is None:
            return loaded.error or "unreadable submission"
        if engine.evaluator is None:
            return None
        result = evaluate_safely(engine.evaluator.evaluate, loaded.submission)
        if isinstance(result, EvaluationFailure):  # one submission's failure must not end the session
            return f"the engine failed on this submission: {result}"
        return result

    def evaluate_pending(self, budget: int) -> int:
        """Summarize up to `budget` submissions lacking a current summary (from a worker thread); returns
        how many submissions it went past, so 0 means there is nothing left to do for now."""
        with self._lock:
            start, engine = self._cursor, self.engine
        position, done = start, 0
        while position < len(self.items) and done < budget:
            item = self.items[position]
            if item.summary is None or item.summary.generation != engine.generation:
                outcome = self._evaluate(position, engine)
                if outcome is not None:
                    item.summary = _summary(engine.generation, outcome)
                done += 1
            position += 1
        with self._lock:
            if self.engine is engine:
                self._cursor = position
        return position - start

    @property
    def evaluation_finished(self) -> bool:
        return self.engine.evaluator is None or self._cursor >= len(self.items)

    # Proposals and status

    def proposals(self, index: int) -> list[Proposal]:
        outcome = self.result(index)
        submission = self.items[index].loaded.submission
        if not isinstance(outcome, Result) or submission is None:
            return []
        return proposals_of(submission, outcome)

    def decisions(self, index: int) -> dict[str, Decision]:
        return dict(self.book.of(self.items[index].source))

    def status(self, index: int) -> str:
        item = self.items[index]
        if item.loaded.error is not None or (item.summary is not None and item.summary.error is not None):
            return filters.ERROR
        decisions = self.book.of(item.source)
        done = decisions.get(STATUS_TARGET)
        if done is not None and done.action == DONE:
            return filters.DONE
        return filters.PROGRESS if decisions else filters.PENDING

    def final_label(self, index: int) -> str | None:
        decision = self.book.get(self.items[index].source, LABEL)
        if decision is not None:
            return decision.value
        summary = self.items[index].summary
        return summary.label if summary is not None else None

    def final_flags(self, index: int) -> frozenset[str]:
        summary = self.items[index].summary
        if summary is None:
            return frozenset()
        decisions = self.book.of(self.items[index].source)
        return frozenset(
            name for name in summary.flags if (d := decisions.get(f"{FLAG}.{name}")) is None or d.value
        )

    # Decisions

    def decide(
        self, index: int, target: str, action: str, value: Any = None, note: str | None = None
    ) -> bool:
        """Accept, discard or edit one proposal; returns False when it was already so."""
        proposal = self._proposal(index, target)
        if action == ACCEPT:
            value = proposal.proposed
        elif action == DISCARD:
            value = proposal.original
        elif action == EDIT and not proposal.editable:
            raise ReviewError(f"{target} can be accepted or discarded, not edited")
        elif action not in (ACCEPT, DISCARD, EDIT):
            raise ReviewError(f"unknown action {action!r}")
        afters: dict[str, Decision | None] = {target: Decision(action, value, note)}
        return self._commit(index, self._with_done(index, afters))

    def accept_remaining(self, index: int) -> bool:
        """Accept every undecided proposal and mark the submission done."""
        decided = self.book.of(self.items[index].source)
        afters: dict[str, Decision | None] = {
            p.target: Decision(ACCEPT, p.proposed)
            for p in self._proposals_or_fail(index)
            if p.target not in decided
        }
        afters[STATUS_TARGET] = Decision(DONE)
        return self._commit(index, afters)

    def toggle_done(self, index: int) -> bool:
        self._reviewable(index)
        done = self.status(index) == filters.DONE
        return self._commit(index, {STATUS_TARGET: None if done else Decision(DONE)})

    def set_note(self, index: int, text: str) -> bool:
        self._reviewable(index)
        return self._commit(
            index, {NOTE_TARGET: Decision(NOTE, None, text.strip()) if text.strip() else None}
        )

    def note(self, index: int) -> str:
        decision = self.book.get(self.items[index].source, NOTE_TARGET)
        return decision.note or "" if decision is not None else ""

    def undo(self) -> str | None:
        """Undo the last step anywhere in the queue; returns the source it touched."""
        inverse = self.book.undo_step()
        if inverse is None:
            return None
        self.sink(entries_of(inverse, self.clock(), undoes=self.book.undo_stack[-1].id))
        self.book.commit_undo(inverse)
        return inverse.source

    def redo(self) -> str | None:
        step = self.book.redo_step()
        if step is None:
            return None
        self.sink(entries_of(step, self.clock(), redoes=self.book.redo_stack[-1].id))
        self.book.commit_redo(step)
        return step.source

    def _reviewable(self, index: int) -> None:
        if self.status(index) == filters.ERROR:
            raise ReviewError("this submission could not be read or evaluated; there is nothing to review")

    def _proposals_or_fail(self, index: int) -> list[Proposal]:
        self._reviewable(index)
        if self.engine.evaluator is None:
            raise ReviewError("the config has errors: no proposals until it is fixed")
        return self.proposals(index)

    def _proposal(self, index: int, target: str) -> Proposal:
        for proposal in self._proposals_or_fail(index):
            if proposal.target == target:
                return proposal
        raise ReviewError(f"the engine proposes nothing for {target}")

    def _with_done(self, index: int, afters: dict[str, Decision | None]) -> dict[str, Decision | None]:
        """Deciding the last undecided proposal finishes the submission, in the same undoable step."""
        decided = set(self.book.of(self.items[index].source)) | set(afters)
        if self.status(index) != filters.DONE and all(p.target in decided for p in self.proposals(index)):
            return {**afters, STATUS_TARGET: Decision(DONE)}
        return afters

    def _commit(self, index: int, afters: dict[str, Decision | None]) -> bool:
        step = self.book.step(self.items[index].source, afters)
        if step is None:
            return False
        self.sink(entries_of(step, self.clock()))  # raises if the journal cannot be written: nothing changes
        self.book.commit(step)
        return True

    # Resuming

    def replay(self, entries: list[Any]) -> int:
        """Rebuild the decisions from a journal; returns the number of malformed entries skipped."""
        skipped = self.book.replay(entries)
        sources = [e["source"] for e in entries if isinstance(e, dict) and isinstance(e.get("source"), str)]
        self.resume_source = sources[-1] if sources else None
        return skipped

    def resume_index(self) -> int | None:
        """Where the reviewer stopped: the last submission decided on, or the next unfinished one after it."""
        index = self.index_of(self.resume_source) if self.resume_source is not None else None
        if index is None or self.status(index) != filters.DONE:
            return index
        following = (
            i
            for i in range(index + 1, len(self.items))
            if self.status(i) in (filters.PENDING, filters.PROGRESS)
        )
        return next(following, index)

    def orphan_sources(self) -> list[str]:
        """Sources the journal has decisions for that are not in this queue."""
        return [
            source for source in self.book.sources() if source not in self._index and self.book.of(source)
        ]

    # The queue view

    def row(self, index: int) -> filters.Row:
        item = self.items[index]
        return filters.Row(
            index,
            self.status(index),
            self.final_label(index),
            item.summary.score if item.summary else None,
            self.final_flags(index),
            item.haystack,
            item.summary is not None,
        )

    def refresh_view(self) -> list[int]:
        self.view = filters.select([self.row(i) for i in range(len(self.items))], self.query, self.sort)
        return self.view

    def progress(self) -> ReviewProgress:
        done = sum(
            1
            for source in self.book.sources()
            if source in self._index
            and (d := self.book.get(source, STATUS_TARGET)) is not None
            and d.action == DONE
        )
        errors = sum(
            1
            for item in self.items
            if item.loaded.error is not None or (item.summary is not None and item.summary.error is not None)
        )
        evaluated = len(self.items) if self.evaluation_finished else self._cursor
        return ReviewProgress(done, len(self.items), errors, evaluated)

    def known_labels(self) -> list[str]:
        """Labels the config can produce: score thresholds, the default, and rules' assign_label."""
        evaluator = self.engine.evaluator
        if evaluator is None:
            return []
        names = {label for label, _ in evaluator.plan.score_thresholds}
        names.update(label for label in (evaluator.plan.default_label,) if label)
        rules = evaluator.config.data("rules")
        for key in ("rating_rules", "ranking_rules"):
            for rule in rules.get(key) or []:
                label = (rule.get("actions") or {}).get("assign_label") if isinstance(rule, dict) else None
                if isinstance(label, str):
                    names.add(label)
        return sorted(names)

    # Export

    def export_records(self) -> Iterator[dict[str, Any]]:
        """Every submission in input order: its reviewed result, or its error entry."""
        engine = self.engine
        if engine.evaluator is None:
            raise ReviewError("the config has errors: fix it before exporting")
        for item in self.items:
            outcome = self._evaluate(item.index, engine)
            if not isinstance(outcome, Result) or item.loaded.submission is None:
                yield {"source": item.source, "error": {"message": outcome}}
                continue
            yield reviewed_record(
                item.source,
                outcome.to_dict(),
                proposals_of(item.loaded.submission, outcome),
                self.book.of(item.source),
            )


def _summary(generation: int, outcome: Result | str) -> Summary:
    if isinstance(outcome, str):
        return Summary(generation, error=outcome)
    return Summary(
        generation, outcome.label, outcome.score, frozenset(n for n, on in outcome.flags.items() if on)
    )
