"""The one problem type of evalkit: `Diagnostic`, shared by check, eval, the language server and the TUI.

Positions are 1-based lines and columns (the LSP converts to 0-based). A diagnostic may carry a `Fix`:
replacement text for a range, which the language server offers as a quick fix.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


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

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def format(self) -> str:
        return f"{self.path}:{self.span.line}:{self.span.column}: {self.severity}[{self.code}] {self.message}"

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.severity, self.code)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "severity": str(self.severity),
            "code": self.code,
            "message": self.message,
        }
        if self.fix is not None:
            out["fix"] = {"title": self.fix.title, "text": self.fix.text}
        return out


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
