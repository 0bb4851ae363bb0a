"""The sample dry run, for `evalkit check --samples` and the language server: find a config's sample
submissions, read them, and evaluate each without raising, one outcome per sample at its file and line
(for a sample that cannot be read or is invalid, at the line and column of its problem).
"""

from __future__ import annotations

import codecs
import json
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from evalkit.engine.diagnostics import FILE_START, Severity, Span
from evalkit.engine.positions import LineMap
from evalkit.engine.result import Result
from evalkit.engine.submission import SubmissionError, parse_submission
from evalkit.engine.text import NotText
from evalkit.engine.yamlsource import JsonPath, parse_yaml
from evalkit.services.inputs.read import LoadedSubmission, parse_json, read_inputs, read_text
from evalkit.services.run.evaluation import Evaluate, EvaluationFailure, evaluate_safely


@dataclass(frozen=True, slots=True)
class SampleOutcome:
    """One sample's result; or its failure; or, for a sample that could not be read, the reader's
    message (`unreadable`)."""

    source: str  # as the reader names it: the file, or `file:LINE` for a line of a .jsonl
    result: Result | None = None
    failure: EvaluationFailure | None = None
    unreadable: str | None = None
    invalid: bool = False  # unreadable, as a submission: it was read, but a field is missing or wrong
    at: Span | None = None  # where the unreadable sample's problem is (None: the sample's start)

    @property
    def problem(self) -> str | None:
        """Why there is no result, in one line; None when there is one."""
        return self.unreadable if self.failure is None else str(self.failure)

    @property
    def position(self) -> tuple[str, Span]:
        path, start = sample_position(self.source)
        return path, self.at or start


def find_samples_dir(folder: Path, workspace_root: Path | None, option: str | None) -> Path | None:
    """The `samples` option (relative to the workspace root), else `samples/` beside the config folder,
    else `samples/` at the workspace root."""
    if option:
        chosen = samples_option_path(option, workspace_root)
        return chosen if chosen.is_dir() else None
    candidates = [folder.parent / "samples"]
    if workspace_root is not None:
        candidates.append(workspace_root / "samples")
    return next((c for c in candidates if c.is_dir()), None)


def samples_option_path(option: str, workspace_root: Path | None) -> Path:
    """The path the `samples` option names: `~` expanded, a relative one under the workspace root."""
    chosen = Path(option).expanduser()
    if not chosen.is_absolute() and workspace_root is not None:
        chosen = workspace_root / chosen
    return chosen


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
            _, at = problem_position(sample)
            problem = sample.error or "unreadable"
            yield SampleOutcome(sample.source, unreadable=problem, invalid=sample.data is not None, at=at)
            continue
        evaluated = evaluate_safely(evaluate, sample.submission)
        if isinstance(evaluated, EvaluationFailure):
            yield SampleOutcome(sample.source, failure=evaluated)
        else:
            yield SampleOutcome(sample.source, result=evaluated)


def problem_position(sample: LoadedSubmission) -> tuple[str, Span]:
    """Where the problem of a sample that could not be read or is invalid is: the line and column of a
    syntax error, of bytes that are not UTF-8, or of the field the submission's check names (found again in
    the sample's text); the sample's start when there is no telling."""
    path, start = sample_position(sample.source)
    line_of_jsonl = path != sample.source
    if path.endswith(".jsonl") and not line_of_jsonl:
        return path, start  # the whole file could not be read: no line to point at
    try:
        text = _sample_text(Path(path), start.line if line_of_jsonl else None)
    except NotText as exc:
        return path, Span.point(exc.line, exc.column)
    except (OSError, ValueError):
        return path, start
    found = _syntax_error_at(text, Path(path).suffix) if sample.data is None else _field_at(text, sample.data)
    if found is None:
        return path, start
    line, column = found
    return path, Span.point(start.line + line - 1, column)


def _sample_text(path: Path, jsonl_line: int | None) -> str:
    """A sample's text: the file's, or that line's of a .jsonl; raises OSError or ValueError, also for a named
    pipe or a device (the read refused it unopened: opening it again here could block)."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise ValueError(f"{path}: not a regular file")
    if jsonl_line is None:
        return read_text(path)
    with open(path, "rb") as handle:
        raw = next(islice(handle, jsonl_line - 1, None), b"")
    return raw.removeprefix(codecs.BOM_UTF8).decode("utf-8")


def _syntax_error_at(text: str, suffix: str) -> tuple[int, int] | None:
    if not text.strip():
        return None  # empty: the problem is the whole file
    if suffix in (".yaml", ".yml"):
        _, problems = parse_yaml(text, "")
        first = next((p for p in problems if p.severity is Severity.ERROR), None)
        return (first.line, first.column) if first is not None else None
    try:
        parse_json(text)
    except json.JSONDecodeError as exc:
        return LineMap(text).position(exc.pos)
    return None


def _field_at(text: str, data: object) -> tuple[int, int] | None:
    """Where the field the submission's check refuses is written (YAML reads JSON's positions too)."""
    try:
        parse_submission(data)
    except SubmissionError as exc:
        document, _ = parse_yaml(text, "")
        if document is None:
            return None
        span = document.value_span(field_path(exc.where))
        return span.line, span.column
    return None


_PATH_STEP = re.compile(r"\[(\d+)\]|([^.\[]+)")


def field_path(where: str) -> JsonPath:
    """`responses[0].text` as a path: ("responses", 0, "text")."""
    return tuple(int(index) if index else name for index, name in _PATH_STEP.findall(where))
