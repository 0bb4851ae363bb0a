"""Code actions: the engine's fix for each diagnostic at the requested range, as a one-key quick fix
(a misspelt key or dimension -> the suggestion; a missing required key -> inserted)."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from evalkit.lsp.convert import Problem


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        b.start.line,
        b.start.character,
    ) <= (a.end.line, a.end.character)


def _extent(problem: Problem) -> tuple[int, int]:
    r = problem.diagnostic.range
    return r.end.line - r.start.line, r.end.character - r.start.character


def quick_fixes(
    uri: str, problems: Sequence[Problem], requested: types.Range, only: Sequence[str] | None = None
) -> list[types.CodeAction]:
    """The fixes of the diagnostics at `requested`; the one for the narrowest diagnostic comes first and
    is preferred (a misspelt key inside a rule beats the rule's "missing key" that it causes)."""
    if only and not any(types.CodeActionKind.QuickFix.startswith(kind) for kind in only):
        return []
    fixable = sorted(
        (p for p in problems if p.fix_edit is not None and _overlaps(p.diagnostic.range, requested)),
        key=_extent,
    )
    return [
        types.CodeAction(
            title=problem.fix_title or "Apply the suggested fix",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[problem.diagnostic],
            is_preferred=rank == 0,
            edit=types.WorkspaceEdit(changes={uri: [problem.fix_edit]}),  # type: ignore[list-item]
        )
        for rank, problem in enumerate(fixable)
    ]
