"""Review journals and the submissions they decided on, read for `evalkit stats`, `check --journals` and
the language server: each journal replayed to its final decisions, each source matched to its submission.

A journal names a submission by the source `evalkit review` gave it: its path as typed (relative to where
the reviewer ran the command) or `path:line` in a JSONL file. A source is known by its key, the resolved
path (and line): tried from the current folder, then from the journal's folder. Two reviewers who ran
`evalkit review` from different folders still decide on the same keys. Without explicit inputs, the
submissions are read from the files the journals name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from evalkit.engine.submission import Submission
from evalkit.services.review.decisions import (
    ACCEPT,
    DISCARD,
    EDIT,
    NOTE_TARGET,
    STATUS_TARGET,
    Decision,
    DecisionBook,
    Step,
    is_decision_entry,
)
from evalkit.services.review.files import JOURNAL_SUFFIX
from evalkit.services.review.journal import JournalLine

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic, Severity

DECIDING = frozenset({ACCEPT, DISCARD, EDIT})
"""The actions that decide a proposal (notes and `done` do not)."""


class ReviewsError(Exception):
    """Nothing to read: a journal that is missing or unreadable; the message names the file."""


@dataclass(frozen=True, slots=True)
class Activity:
    """When a reviewer decided: the timestamps of their decisions, in journal order."""

    decisions: int
    times: tuple[datetime, ...]


class SkippedLine(NamedTuple):
    """A journal line the replay could not use: where (1-based), the diagnostic code, and why."""

    line: int
    column: int
    code: str
    why: str


@dataclass(slots=True)
class ReviewedJournal:
    path: str
    decisions: dict[str, dict[str, Decision]]  # source key -> proposal target -> final decision
    activity: Activity
    skipped: int = 0  # lines that are not JSON, or entries that are not decisions
    problems: list[SkippedLine] = field(default_factory=list)  # the first PROBLEMS_KEPT skipped lines
    shown: dict[str, str] = field(default_factory=dict)  # source key -> the source as the journal wrote it


@dataclass(slots=True)
class Reviews:
    journals: list[ReviewedJournal]
    submissions: dict[str, Submission] = field(default_factory=dict)  # by source key
    shown: dict[str, str] = field(default_factory=dict)  # source key -> the source as a journal wrote it
    missing: list[str] = field(default_factory=list)  # sources decided on but not found or not valid

    def decided(self) -> list[str]:
        """Every source decided on in any journal, each once, in first-seen order."""
        return list(dict.fromkeys(key for journal in self.journals for key in journal.decisions))


def candidates(source: str, bases: Sequence[Path]) -> list[str]:
    """The keys a source may have: its resolved path (`path:line` keeps its line) from each base."""
    path, _, line = source.rpartition(":")
    if not (path.endswith(".jsonl") and line.isdigit()):
        path, line = source, ""
    resolved = [str((base / path).resolve()) for base in bases]
    return [f"{name}:{line}" if line else name for name in resolved]


def read_reviews(journal_paths: Sequence[str], inputs: Sequence[str] | None = None) -> Reviews:
    """The journals replayed (a file named twice counts once), and the submissions they decided on (from
    `inputs`, else from the files the journals name); raises ReviewsError for a journal that cannot be
    read."""
    unique: dict[Path, str] = {}
    for path in journal_paths:
        unique.setdefault(Path(path).resolve(), path)
    replayed = [(path, _replayed(Path(path))) for path in unique.values()]
    pairs = [(path, parts[:3]) for path, parts in replayed]
    given = _given(inputs, pairs) if inputs is not None else None
    reviews = Reviews([_journal(path, *parts, given) for path, parts in pairs])
    for journal, (_, parts) in zip(reviews.journals, replayed, strict=True):
        journal.problems = parts[3]
    for journal in reviews.journals:
        for key in journal.decisions:
            reviews.shown.setdefault(key, journal.shown[key])
    _attach_submissions(reviews, given)
    return reviews


def _given(
    inputs: Sequence[str], pairs: list[tuple[str, tuple[DecisionBook, Activity, int]]]
) -> dict[str, Submission | None]:
    """The submissions among `inputs` that a journal may name (by any key its sources may have)."""
    from evalkit.services.inputs.read import read_inputs

    wanted = {
        key
        for path, (book, _, _) in pairs
        for source in book.sources()
        for key in candidates(source, _bases(path))
    }
    found: dict[str, Submission | None] = {}
    for item in read_inputs(inputs):
        key = candidates(item.source, [Path.cwd()])[0]
        if key in wanted:
            found[key] = item.submission
    return found


def _bases(journal: str) -> list[Path]:
    """Where a journal's relative sources are looked up: its folder (`evalkit review` writes it beside its
    input), then the current folder."""
    return [Path(journal).parent, Path.cwd()]


def _replayed(path: Path) -> tuple[DecisionBook, Activity, int, list[SkippedLine]]:
    """The journal's final decisions, when they were made, how many of its lines could not be used, and
    why each could not (line, why: the first PROBLEMS_KEPT). One pass over the file, a line at a time."""
    from evalkit.services.review.journal import JournalError, journal_lines

    if path.is_dir():
        raise ReviewsError(f"{path}: a folder, not a journal (name the {JOURNAL_SUFFIX} files in it)")
    if not path.is_file():
        raise ReviewsError(f"{path}: no such journal")
    reading = _Reading()
    book = _FinalDecisions()
    try:
        skipped = book.replay(reading.entries(journal_lines(path)))
    except JournalError as exc:
        raise ReviewsError(str(exc)) from None
    return book, reading.activity(), skipped + reading.not_json, reading.problems


PROBLEMS_KEPT = 1000
"""The skipped lines of a journal said one by one; the rest are counted (`ReviewedJournal.skipped`)."""


class _FinalDecisions(DecisionBook):
    """A DecisionBook that keeps no undo history: replaying gives the same decisions (each entry carries the
    decision it leads to), without holding every step of a long journal."""

    def commit(self, step: Step) -> None:
        self._apply(step)


class _Reading:
    """What one pass over a journal's lines finds besides its entries: the lines it skips (the first
    PROBLEMS_KEPT, in line order) and the decisions made and when."""

    def __init__(self) -> None:
        self.problems: list[SkippedLine] = []
        self.not_json = 0
        self.decisions = 0
        self.times: list[datetime] = []

    def entries(self, lines: Iterable[JournalLine]) -> Iterator[Any]:
        for line in lines:
            if line.torn:
                continue
            if line.problem is not None:
                self.not_json += 1
                self._skip(SkippedLine(line.number, line.column, "journal-not-json", line.problem))
                continue
            if not is_decision_entry(line.entry):
                self._skip(SkippedLine(line.number, 1, "journal-not-decision", NOT_A_DECISION))
            else:
                self._count(line.entry)
            yield line.entry

    def _skip(self, problem: SkippedLine) -> None:
        if len(self.problems) < PROBLEMS_KEPT:
            self.problems.append(problem)

    def _count(self, entry: dict[str, Any]) -> None:
        """Decisions made (undo and redo are not new decisions) and the time of every decision entry (one
        the replay skips sets no time)."""
        moment = _timestamp(entry.get("ts"))
        if moment is not None:
            self.times.append(moment)
        if (
            entry.get("action") in DECIDING
            and entry.get("target") not in (NOTE_TARGET, STATUS_TARGET)
            and "undoes" not in entry
            and "redoes" not in entry
        ):
            self.decisions += 1

    def activity(self) -> Activity:
        return Activity(self.decisions, tuple(self.times))


NOT_A_DECISION = "not a decision entry (a field is missing or has the wrong type)"


def skipped_lines(journal: ReviewedJournal, severity: Severity) -> list[Diagnostic]:
    """The journal's skipped lines said (the first PROBLEMS_KEPT): `path:line:col: severity[code] why;
    skipped`, the diagnostics' format."""
    from evalkit.engine.diagnostics import Diagnostic, Span

    return [
        Diagnostic(
            journal.path,
            Span.point(skipped.line, skipped.column),
            severity,
            skipped.code,
            skipped.why + "; skipped",
        )
        for skipped in journal.problems
    ]


def _journal(
    path: str,
    book: DecisionBook,
    activity: Activity,
    skipped: int,
    given: dict[str, Submission | None] | None,
) -> ReviewedJournal:
    """A journal's decisions by source key, from the first base (`_bases`) where the source exists; with
    inputs, the key an input has wins."""
    bases = _bases(path)
    journal = ReviewedJournal(path, {}, activity, skipped)
    for source in book.sources():
        decided = {t: d for t, d in book.of(source).items() if _is_proposal_decision(t, d)}
        if decided:
            keys = candidates(source, bases)
            known = [key for key in keys if (key in given if given is not None else _exists(key))]
            key = known[0] if known else keys[-1]
            journal.decisions.setdefault(key, {}).update(decided)
            journal.shown.setdefault(key, source)
    return journal


def _exists(key: str) -> bool:
    return Path(key.rpartition(":")[0] if _is_line_key(key) else key).is_file()


def _is_proposal_decision(target: str, decision: Decision) -> bool:
    return target not in (NOTE_TARGET, STATUS_TARGET) and decision.action in DECIDING


def _timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
        # the app writes UTC with `Z`; a hand-written time without an offset is taken as UTC too (naive and
        # aware times cannot be compared, and one of each in a journal would end the report); every time
        # in UTC, so that a report's from and to are in one offset
        return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # OverflowError: year 1 or 9999 moved out of range by its offset
        return None


def _attach_submissions(reviews: Reviews, given: dict[str, Submission | None] | None) -> None:
    from evalkit.services.inputs.read import read_file

    wanted = set(reviews.decided())
    if given is None:
        files = dict.fromkeys(key.rpartition(":")[0] if _is_line_key(key) else key for key in wanted)
        given = {
            candidates(item.source, [Path.cwd()])[0]: item.submission
            for name in files
            if Path(name).is_file()
            for item in read_file(Path(name))
        }
    for key, submission in given.items():
        if key in wanted and submission is not None:
            reviews.submissions[key] = submission
    reviews.missing = [key for key in reviews.decided() if key not in reviews.submissions]


def _is_line_key(key: str) -> bool:
    path, _, line = key.rpartition(":")
    return path.endswith(".jsonl") and line.isdigit()
