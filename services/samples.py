"""The sample dry run, for `evalkit check --samples` and the language server: find a config's sample
submissions, read them, and evaluate each without raising, one outcome per sample at its file and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from evalkit.engine.diagnostics import FILE_START, Span
from evalkit.engine.result import Result
from evalkit.services.evaluation import Evaluate, EvaluationFailure, evaluate_safely
from evalkit.services.inputs import LoadedSubmission, read_inputs


@dataclass(frozen=True, slots=True)
class SampleOutcome:
    """One sample's result; or its failure; or, for a sample that could not be read, the reader's
    message (`unreadable`)."""

    source: str  # as the reader names it: the file, or `file:LINE` for a line of a .jsonl
    result: Result | None = None
    failure: EvaluationFailure | None = None
    unreadable: str | None = None

    @property
    def problem(self) -> str | None:
        """Why there is no result, in one line; None when there is one."""
        return self.unreadable if self.failure is None else str(self.failure)

    @property
    def position(self) -> tuple[str, Span]:
        return sample_position(self.source)


def find_samples_dir(folder: Path, workspace_root: Path | None, option: str | None) -> Path | None:
    """The `samples` option (relative to the workspace root), else `samples/` beside the config folder,
    else `samples/` at the workspace root."""
    if option:
        chosen = Path(option).expanduser()
        if not chosen.is_absolute() and workspace_root is not None:
            chosen = workspace_root / chosen
        return chosen if chosen.exists() else None
    candidates = [folder.parent / "samples"]
    if workspace_root is not None:
        candidates.append(workspace_root / "samples")
    return next((c for c in candidates if c.is_dir()), None)


def read_samples(samples_dir: Path, limit: int | None = None) -> list[LoadedSubmission]:
    """The folder's submissions (.json, .yaml, .yml, each line of a .jsonl), at most `limit` of them."""
    return list(islice(read_inputs([samples_dir]), limit))


def sample_position(source: str) -> tuple[str, Span]:
    """A sample's file and line: `path:LINE` for a line of a .jsonl, else the file's start."""
    path, _, line = source.rpartition(":")
    if path.endswith(".jsonl") and line.isdigit():
        return path, Span.point(int(line), 1)
    return source, FILE_START


def dry_run(evaluate: Evaluate, samples: Iterable[LoadedSubmission]) -> Iterator[SampleOutcome]:
    """Every sample's outcome, in order, evaluated as it is asked for (so a caller can stop between
    samples); a sample that could not be read is an outcome too."""
    for sample in samples:
        if sample.submission is None:
            yield SampleOutcome(sample.source, unreadable=sample.error or "unreadable")
            continue
        evaluated = evaluate_safely(evaluate, sample.submission)
        if isinstance(evaluated, EvaluationFailure):
            yield SampleOutcome(sample.source, failure=evaluated)
        else:
            yield SampleOutcome(sample.source, result=evaluated)
