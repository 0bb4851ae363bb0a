"""The reviewer's decisions, with undo and redo, as a log that replays to the same state.

Every change is a `Step`: one or more (source, target) pairs moving from a decision `before` to a decision
`after` (None is "no decision"). A step becomes journal entries, one per change, each carrying the decision
it leads to; so the state after any journal is simply its last entry per (source, target). Undo writes the
inverse step, marked `undoes`, and redo writes the step again, marked `redoes`; replaying those markers
rebuilds the undo and redo stacks, so undo keeps working after a restart.

Targets are a proposal's target (see `proposals`), `note` (the submission's note) and `status` (`done`
when the reviewer has finished the submission).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

ACCEPT = "accept"
DISCARD = "discard"
EDIT = "edit"
NOTE = "note"
DONE = "done"
CLEAR = "clear"  # in the journal only: the target is back to "no decision"
ACTIONS = frozenset({ACCEPT, DISCARD, EDIT, NOTE, DONE, CLEAR})

NOTE_TARGET = "note"
STATUS_TARGET = "status"

Entry = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Decision:
    action: str
    value: Any = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Change:
    source: str
    target: str
    before: Decision | None
    after: Decision | None


@dataclass(frozen=True, slots=True)
class Step:
    id: int
    changes: tuple[Change, ...]

    def inverse(self, new_id: int) -> Step:
        return Step(
            new_id, tuple(Change(c.source, c.target, c.after, c.before) for c in reversed(self.changes))
        )

    @property
    def source(self) -> str:
        return self.changes[0].source


@dataclass
class DecisionBook:
    """Decisions by source and target, and the undo and redo stacks of steps."""

    _decisions: dict[str, dict[str, Decision]] = field(default_factory=dict)
    undo_stack: list[Step] = field(default_factory=list)
    redo_stack: list[Step] = field(default_factory=list)
    next_id: int = 1

    def of(self, source: str) -> Mapping[str, Decision]:
        return self._decisions.get(source, {})

    def get(self, source: str, target: str) -> Decision | None:
        return self._decisions.get(source, {}).get(target)

    def sources(self) -> Iterable[str]:
        return self._decisions.keys()

    def step(self, source: str, afters: Mapping[str, Decision | None]) -> Step | None:
        """The step setting these targets of one source, skipping those already so; None if no change."""
        changes = tuple(
            Change(source, target, self.get(source, target), after)
            for target, after in afters.items()
            if self.get(source, target) != after
        )
        return Step(self.next_id, changes) if changes else None

    def commit(self, step: Step) -> None:
        self._apply(step)
        self.undo_stack.append(step)
        self.redo_stack.clear()

    def undo_step(self) -> Step | None:
        """The step that undoes the last one (not yet applied)."""
        return self.undo_stack[-1].inverse(self.next_id) if self.undo_stack else None

    def commit_undo(self, inverse: Step) -> None:
        self._apply(inverse)
        self.redo_stack.append(self.undo_stack.pop())

    def redo_step(self) -> Step | None:
        """The last undone step again, under a new id (not yet applied)."""
        return Step(self.next_id, self.redo_stack[-1].changes) if self.redo_stack else None

    def commit_redo(self, step: Step) -> None:
        self._apply(step)
        self.undo_stack.append(self.redo_stack.pop())

    def _apply(self, step: Step) -> None:
        for change in step.changes:
            targets = self._decisions.setdefault(change.source, {})
            if change.after is None:
                targets.pop(change.target, None)
            else:
                targets[change.target] = change.after
        self.next_id = max(self.next_id, step.id + 1)

    def replay(self, entries: Iterable[Entry]) -> int:
        """Apply journal entries in order; returns how many were malformed and skipped."""
        skipped = 0
        for marker, group in _groups(entries):
            if not group:
                skipped += 1
                continue
            self._replay_group(marker, group)
        return skipped

    def _replay_group(self, marker: tuple[str, int | None], group: list[Entry]) -> None:
        kind, ref = marker
        step = Step(
            int(group[0]["step"]),
            tuple(
                Change(e["source"], e["target"], self.get(e["source"], e["target"]), decision_of(e))
                for e in group
            ),
        )
        if kind == "undoes" and self.undo_stack and self.undo_stack[-1].id == ref:
            self.commit_undo(step)
        elif kind == "redoes" and self.redo_stack and self.redo_stack[-1].id == ref:
            self.commit_redo(step)
        elif kind == "do":
            self.commit(step)
        else:  # the history no longer matches the stacks (an edited journal): keep state, drop history
            self._apply(step)
            self.undo_stack.clear()
            self.redo_stack.clear()


def decision_of(entry: Entry) -> Decision | None:
    if entry["action"] == CLEAR:
        return None
    return Decision(entry["action"], entry.get("value"), entry.get("note"))


def entries_of(
    step: Step, timestamp: str, undoes: int | None = None, redoes: int | None = None
) -> list[Entry]:
    """The journal entries of a step, one per change, in the journal's field order."""
    out = []
    for change in step.changes:
        after = change.after or Decision(CLEAR)
        entry: Entry = {
            "ts": timestamp,
            "source": change.source,
            "target": change.target,
            "action": after.action,
            "value": after.value,
            "note": after.note,
            "step": step.id,
        }
        if undoes is not None:
            entry["undoes"] = undoes
        if redoes is not None:
            entry["redoes"] = redoes
        out.append(entry)
    return out


# what a decision's value may be, by target prefix: a hand-edited journal must not reach the screen with
# a label that is a number or a rating that is a list (None is always allowed: discard, clear, a note)
_VALUE_TYPES: dict[str, tuple[type, ...]] = {
    "rating": (int, float),
    "ranking": (list,),
    "rewrite": (str,),
    "label": (str,),
    "flag": (bool,),
}


def is_decision_entry(entry: Any) -> bool:
    """Whether a journal entry is one `replay` uses (each other entry is one it skips)."""
    return _is_valid(entry)


def _is_valid(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("source"), str)
        and isinstance(entry.get("target"), str)
        and isinstance(entry.get("action"), str)  # a list or a mapping cannot be looked up in a set
        and entry["action"] in ACTIONS
        and isinstance(entry.get("step"), int)
        and not isinstance(entry.get("step"), bool)
        and isinstance(entry.get("note"), (str, type(None)))
        and _value_fits(entry["target"], entry.get("value"))
    )


def _value_fits(target: str, value: Any) -> bool:
    types = _VALUE_TYPES.get(target.partition(".")[0])
    if value is None or types is None:
        return True
    if isinstance(value, bool):  # a bool is an int to Python, never a rating here
        return bool in types
    if isinstance(value, float) and not math.isfinite(value):  # NaN, Infinity: JSON that no rating is
        return False
    return isinstance(value, types)


def _marker(entry: Entry) -> tuple[str, int | None]:
    for kind in ("undoes", "redoes"):
        if isinstance(entry.get(kind), int):
            return kind, entry[kind]
    return "do", None


def _groups(entries: Iterable[Any]) -> Iterator[tuple[tuple[str, int | None], list[Entry]]]:
    """Consecutive valid entries of one step, with their marker; a malformed entry comes as an empty group."""
    group: list[Entry] = []
    key: tuple[int, tuple[str, int | None]] | None = None
    for entry in entries:
        if not _is_valid(entry):
            yield ("bad", None), []
            continue
        entry_key = (entry["step"], _marker(entry))
        if group and entry_key != key:
            yield _marker(group[0]), group
            group = []
        group.append(entry)
        key = entry_key
    if group:
        yield _marker(group[0]), group
