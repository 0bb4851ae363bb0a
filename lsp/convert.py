"""Engine values -> LSP types.

The engine counts lines and columns from 1, in code points, with the end of a span exclusive; LSP
counts from 0, in the client's position units (UTF-16 unless the client negotiated another). Every
conversion goes through `to_position`, so a line with an emoji or an accent lands where the client
expects it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from evalkit.engine.diagnostics import Diagnostic, Severity, Span

SOURCE = "evalkit"

_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


@dataclass(frozen=True, slots=True)
class Problem:
    """A published diagnostic and, when the engine offers one, its quick fix as an edit."""

    diagnostic: types.Diagnostic
    fix_title: str | None = None
    fix_edit: types.TextEdit | None = None


def to_position(line: int, column: int, lines: Sequence[str], codec: PositionCodec) -> types.Position:
    """0-based line and code-point column -> an LSP position in the client's units."""
    line, column = max(line, 0), max(column, 0)
    if line < len(lines) and column:
        return types.Position(line, codec.client_num_units(lines[line][:column]))
    return types.Position(line, column)


def from_position(position: types.Position, lines: Sequence[str], codec: PositionCodec) -> tuple[int, int]:
    """An LSP position -> 0-based line and code-point column, clamped to the text."""
    if position.line >= len(lines):
        return len(lines), 0
    text = lines[position.line].rstrip("\r\n")
    if position.character >= codec.client_num_units(text):
        # the spec: a character past the end of the line is the end of the line (pygls would answer the
        # last character, as if every line still ended with its newline)
        return position.line, len(text)
    server = codec.position_from_client_units(lines, types.Position(position.line, position.character))
    return server.line, min(server.character, len(text))


def to_range(span: Span, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """The one conversion of an engine span (1-based, end exclusive) to an LSP range."""
    return types.Range(
        to_position(span.line - 1, span.column - 1, lines, codec),
        to_position(span.end_line - 1, span.end_column - 1, lines, codec),
    )


def text_range(line: int, start: int, end: int, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """A range within one line, 0-based code-point columns."""
    return types.Range(to_position(line, start, lines, codec), to_position(line, end, lines, codec))


def to_problem(found: Diagnostic, lines: Sequence[str], codec: PositionCodec) -> Problem:
    diagnostic = types.Diagnostic(
        range=to_range(found.span, lines, codec),
        message=found.message,
        severity=_SEVERITIES[found.severity],
        code=found.code,
        source=SOURCE,
    )
    if found.fix is None:
        return Problem(diagnostic)
    edit = types.TextEdit(to_range(found.fix.span, lines, codec), found.fix.text)
    return Problem(diagnostic, found.fix.title, edit)
