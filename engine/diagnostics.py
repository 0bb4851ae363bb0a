"""The one problem type of evalkit: `Diagnostic`, shared by check, eval, the language server and the TUI.

Positions are 1-based lines and columns (the LSP converts to 0-based). A diagnostic may carry a `Fix`:
replacement text for a range, which the language server offers as a quick fix.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from evalkit.engine.text import shown


class Severity(enum.IntEnum):
    ERROR = 1
    WARNING = 2
    INFO = 3

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Span:
    """A range in a file: 1-based, the end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(line, column, line, column)


FILE_START = Span(1, 1, 1, 1)


@dataclass(frozen=True, slots=True)
class Fix:
    """Replace the text at `span` with `text` (an empty span inserts)."""

    title: str
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: str
    span: Span
    severity: Severity
    code: str
    message: str
    fix: Fix | None = None
    related: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.message.isprintable():  # a name quoted from a file may hold a newline: one line each
            object.__setattr__(
                self,
                "message",
                "".join(
                    c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in self.message
                ),
            )

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def format(self) -> str:
        """`path:line:col: severity[code] message`, one line a terminal or a CI log shows as it is, whatever
        the file name or the message quotes (engine/untrusted_text.py)."""
        from evalkit.engine.untrusted_text import shown_as

        return shown_as(
            f"{self.path}:{self.span.line}:{self.span.column}: {self.severity}[{self.code}] {self.message}"
        )

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.severity, self.code)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": shown(self.path),
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "severity": str(self.severity),
            "code": self.code,
            "message": shown(self.message),
        }
        if self.fix is not None:
            out["fix"] = {"title": self.fix.title, "text": self.fix.text}
        return out


CODES: dict[str, str] = {
    "yaml-syntax": "The file is not valid YAML.",
    "duplicate-key": "A mapping names the same key twice; YAML loaders would silently keep one.",
    "yaml-too-deep": "The YAML nests deeper than the safety limit.",
    "yaml-too-large": "The YAML expands (aliases included) to more nodes than the safety limit.",
    "recursive-alias": "A YAML alias inside the node it refers to.",
    "file-too-large": "The file is larger than the safety limit.",
    "not-utf8": "The file is not UTF-8 text.",
    "unreadable": "The file cannot be read (or is a folder, a named pipe or a device).",
    "no-config-dir": "The config folder does not exist.",
    "shadowed-file": "A .yml file is ignored because the .yaml file of the same name takes precedence.",
    "unknown-key": "A key the schema does not define (often a misspelling).",
    "missing-key": "A required key is missing.",
    "wrong-type": "A value of the wrong type.",
    "invalid-value": "A value outside the allowed set.",
    "unknown-dimension": "A rating dimension that does not exist.",
    "unknown-field": "A submission field that does not exist.",
    "schema-minimum": "A number below its minimum.",
    "schema-maximum": "A number above its maximum.",
    "schema-minitems": "A list with too few items.",
    "schema-maxitems": "A list with too many items.",
    "schema-minlength": "A string that is too short (usually empty).",
    "schema-minproperties": "A mapping that must not be empty.",
    "not-finite": "A number that is NaN or infinite.",
    "number-too-large": "An integer beyond the range of a float (about ±1.8e308).",
    "duplicate-rule-id": "Two rules share an id.",
    "bad-placeholder": "A feedback text with a placeholder that cannot be filled.",
    "bad-scale": "A rating scale whose minimum is not below its maximum.",
    "outside-scale": "An ideal or tolerance outside the rating scale.",
    "unreachable-rule": "A rule after an unconditional rule under stop_after_first: it can never run.",
    "no-actions": "A rule without actions: it fires without effect.",
    "evaluation-error": "Evaluating a sample submission failed.",
    "invalid-sample": "A sample submission cannot be read or is invalid.",
    "rule-never-fires": "A rule fires on none of the sample submissions.",
    "rule-discarded": "Reviewers discarded a rule's proposals more often than --max-discard-rate allows.",
    "journal-not-json": "A line of a review journal that is not JSON: skipped.",
    "journal-not-decision": "A review journal entry that is not a decision (a field is missing or has the "
    "wrong type): skipped.",
    "unknown-rule": "A rule test names a rule id the config does not have.",
    "uncovered-rule": "A rule that no rule test fires.",
}
"""Every diagnostic code but those of the conditions' and actions' own checks, with what it means."""


def catalogue() -> dict[str, str]:
    """Every diagnostic code with what it means (SARIF rule descriptions, the README): CODES, and the codes
    of the conditions' and actions' checks, which their records hold (engine/conditions.py, actions.py)."""
    from evalkit.engine.actions import ACTIONS
    from evalkit.engine.conditions import CONDITIONS

    problems = [kind.problems for kind in CONDITIONS.values()] + [kind.problems for kind in ACTIONS.values()]
    return {**CODES, **{code: meaning for codes in problems for code, meaning in codes.items()}}


def describe(code: str) -> str:
    """The one-line meaning of `code` (the code itself for one not catalogued)."""
    return catalogue().get(code, code)


def error(path: str, span: Span, code: str, message: str, fix: Fix | None = None) -> Diagnostic:
    return Diagnostic(path, span, Severity.ERROR, code, message, fix)


def warning(path: str, span: Span, code: str, message: str, fix: Fix | None = None) -> Diagnostic:
    return Diagnostic(path, span, Severity.WARNING, code, message, fix)


def info(path: str, span: Span, code: str, message: str) -> Diagnostic:
    return Diagnostic(path, span, Severity.INFO, code, message)


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


def closest(name: str, choices: list[str] | tuple[str, ...], cutoff: float = 60.0) -> str | None:
    """The valid name closest to a misspelt one, or None when nothing is close."""
    from rapidfuzz import fuzz, process

    found = process.extractOne(name, choices, scorer=fuzz.ratio, score_cutoff=cutoff)
    return found[0] if found else None
