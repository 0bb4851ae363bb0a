"""Export: the engine's result with the reviewer's decisions applied, plus a `review` block.

A decided target takes the decision's value (accept: the value proposed when the reviewer accepted it;
discard: the original; edit: the typed value); an undecided one keeps the engine's value and is listed in
`review.undecided`, so nothing unreviewed passes for reviewed. The file is written to a temporary name
beside the destination and renamed over it: a reader never sees half an export.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalkit.services.outputs.atomic import atomic_output
from evalkit.tui.decisions import DONE, NOTE_TARGET, STATUS_TARGET, Decision
from evalkit.tui.proposals import FLAG, LABEL, RANKING, RATING, REWRITE, Proposal


def reviewed_record(
    source: str, result: dict[str, Any], proposals: list[Proposal], decisions: Mapping[str, Decision]
) -> dict[str, Any]:
    """One export line: `source`, the result with decided values applied, and `review`."""
    record = {"source": source, **json.loads(json.dumps(result))}  # a deep copy we may change freely
    applied = []
    for proposal in proposals:
        decision = decisions.get(proposal.target)
        if decision is None:
            continue
        _apply(record, proposal, decision.value)
        applied.append(
            {
                "target": proposal.target,
                "action": decision.action,
                "value": decision.value,
                "original": proposal.original,
                "proposed": proposal.proposed,
                "note": decision.note,
            }
        )
    record["review"] = _review_block(proposals, decisions, applied)
    return record


def _review_block(
    proposals: list[Proposal], decisions: Mapping[str, Decision], applied: list[dict[str, Any]]
) -> dict[str, Any]:
    note = decisions.get(NOTE_TARGET)
    status = decisions.get(STATUS_TARGET)
    return {
        "status": "done"
        if status is not None and status.action == DONE
        else "progress"
        if decisions
        else "pending",
        "note": note.note if note is not None else None,
        "decisions": applied,
        "undecided": [p.target for p in proposals if p.target not in decisions],
    }


def _apply(record: dict[str, Any], proposal: Proposal, value: Any) -> None:
    if proposal.kind == RATING:
        record["corrected_ratings"][proposal.name]["updated"] = value
    elif proposal.kind == RANKING:
        record["corrected_ranking"] = value
    elif proposal.kind == REWRITE:
        record["rewrite_final"] = value
    elif proposal.kind == LABEL:
        record["label"] = value
    elif proposal.kind == FLAG and not value:
        record["flags"].pop(proposal.name, None)


def write_jsonl_atomic(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write one JSON object a line to `path` through a temporary file; returns the number of lines."""
    count = 0
    with atomic_output(path) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
