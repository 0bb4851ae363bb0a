"""The files `evalkit review` writes beside its inputs, named in one place: the decisions journal and the
export. Folder listings skip them (`evalkit.services.inputs.read.TOOL_OUTPUTS`), `evalkit stats` and
`check --journals` read the journals, and the messages name them. Imports nothing: `evalkit review`'s
options name the defaults before anything heavy is loaded."""

from __future__ import annotations

from pathlib import Path

JOURNAL_SUFFIX = ".decisions.jsonl"
EXPORT_SUFFIX = ".reviewed.jsonl"
REVIEW_OUTPUTS = (JOURNAL_SUFFIX, EXPORT_SUFFIX)


def default_path(first_input: str, suffix: str) -> Path:
    """`<input><suffix>` beside the input; for a folder, beside the folder rather than in it."""
    path = Path(first_input)
    if not path.name:
        path = path.resolve()
    return path.with_name(path.name + suffix)
