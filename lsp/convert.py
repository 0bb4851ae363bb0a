"""Engine values -> LSP types.

The engine counts lines and columns from 1, in code points, with the end of a span exclusive; LSP
counts from 0, in the client's position units (UTF-16 unless the client negotiated another). Every
conversion goes through `to_position`, so a line with an emoji or an accent lands where the client
expects it.

A client may keep a UTF-8 byte order mark at the start of its text, where it counts as a character of
line 0. The engine and the structure index read the text without it, so the conversions count it in
both directions: `lines` are always the client's lines, with the mark when the client has it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from evalkit.engine.diagnostics import Diagnostic, Severity, Span

SOURCE = "evalkit"
BOM = "\ufeff"

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
    if line < len(lines):
        column += _bom_width(line, lines[line])
        if column:
            return types.Position(line, codec.client_num_units(lines[line][:column]))
    return types.Position(line, column)


def from_position(position: types.Position, lines: Sequence[str], codec: PositionCodec) -> tuple[int, int]:
    """An LSP position -> 0-based line and code-point column, clamped to the text."""
    if position.line >= len(lines):
        return len(lines), 0
    text = lines[position.line].rstrip("\r\n")
    bom = _bom_width(position.line, text)
    if position.character >= codec.client_num_units(text):
        # the spec: a character past the end of the line is the end of the line (pygls would answer the
        # last character, as if every line still ended with its newline)
        return position.line, len(text) - bom
    server = codec.position_from_client_units(lines, types.Position(position.line, position.character))
    return server.line, max(min(server.character, len(text)) - bom, 0)


def _bom_width(line: int, text: str) -> int:
    """1 on the first line of a text that starts with a byte order mark: the client counts it, the
    engine and the structure index do not."""
    return 1 if line == 0 and text.startswith(BOM) else 0


def without_bom(lines: Sequence[str]) -> list[str]:
    """The lines as the engine and the structure index read them: without a leading byte order mark."""
    return [lines[0].removeprefix(BOM), *lines[1:]] if lines else []


def with_bom(lines: Sequence[str], bom: bool) -> list[str]:
    """Lines read without the byte order mark, as the client has them when its text starts with one."""
    return [BOM + lines[0], *lines[1:]] if bom and lines else list(lines)


def has_bom(lines: Sequence[str]) -> bool:
    return bool(lines) and lines[0].startswith(BOM)


def before_bom(position: types.Position, lines: Sequence[str]) -> bool:
    """Whether `position` is before the text's byte order mark: no word is there, and an edit there
    would put text before the mark (which then is no mark but a character of the first key)."""
    return position.line == 0 and position.character == 0 and has_bom(lines)


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
