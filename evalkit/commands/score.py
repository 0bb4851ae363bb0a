"""`evalkit score INPUT.jsonl`: score a JSONL dataset with the qydomain scorers.

Each line is `{"data_source": ..., "extra_info": {"label": ...}, "model_output": ...}` (`response` is
accepted too). Every line is written back in input order with `"score"` added; a line that cannot be scored
becomes `{"source": "PATH:LINE", "error": {"code": ..., "message": ...}}`, is reported on stderr as
`PATH:LINE: message`, and the run goes on. Blank lines are skipped.

The scored JSONL goes to --out (written atomically) or to stdout; a summary per data source (count, mean,
spread) goes to stdout when --out is given, else to stderr. Exit codes: 0 every line scored, 1 some lines
were bad, 2 nothing could be done (unreadable input, unwritable output, bad usage).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.qydomain.summary import ScoreSummary

CHUNK_LINES = 1000  # lines per unit of work: large enough to amortise pickling, small enough to stream
CHUNKS_IN_FLIGHT_PER_JOB = 2  # keeps every worker busy without reading the whole input into memory
PROGRESS_MIN_BYTES = 1 << 20  # smaller inputs finish before a bar would be worth drawing
PROGRESS_INTERVAL_S = 0.1
ERRORS_SHOWN = 20  # beyond this, bad lines are counted, not each printed
_COLUMNS = ("mean", "std", "min", "p25", "median", "p75", "max")


class Line(NamedTuple):
    number: int
    raw: bytes | None  # None: longer than the limit, never held


class Chunk(NamedTuple):
    lines: list[Line]
    end_offset: int  # bytes of input consumed once this chunk is read, for the progress bar


class Outcome(NamedTuple):
    """One input line's result: its output line, and either (data_source, score) or an error message.

    From a worker process `output` is None when the line is the input line with the score spliced in: the
    parent, which holds the input line, rebuilds it, so only the score crosses back."""

    number: int
    output: bytes | None
    scored: tuple[str, float] | None
    error: str | None


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        'Each line: {"data_source": "typos"|"connections"|"unscrambling", "extra_info": {"label": ...}, '
        '"model_output": ...}. Exit status: 0 all lines scored, 1 some lines were bad, '
        "2 nothing could be done."
    )
    parser.add_argument("input", metavar="INPUT.jsonl", help="the rows to score, one JSON object a line")
    parser.add_argument("--out", metavar="FILE", help="write the scored JSONL here instead of stdout")
    parser.add_argument(
        "--jobs", metavar="N", type=_positive_int, default=1, help="processes to score with (default: 1)"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="summary format (default: text)"
    )
    from evalkit.commands._ray_run import add_option

    add_option(parser)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    if args.ray is not None:
        from evalkit.commands._ray_run import run_score

        return run_score(args)
    from evalkit.qydomain.summary import ScoreSummary
    from evalkit.services.workers import capped_jobs

    args.jobs = capped_jobs(args.jobs, "evalkit score")
    summary = ScoreSummary()
    try:
        bad_lines = _score_file(args, summary)
    except UsageProblem as problem:
        print(problem, file=sys.stderr)
        return 2
    report = _render_summary(args, summary, bad_lines)
    print(report, file=sys.stdout if args.out else sys.stderr)
    return 1 if bad_lines else 0


def _score_file(args: argparse.Namespace, summary: ScoreSummary) -> int:
    """Score every line of args.input into the output; returns the number of bad lines."""
    from evalkit.engine.text import shown

    name = shown(args.input)  # valid UTF-8 in every message and error entry, whatever bytes the name holds
    source = _open_input(args.input, name)
    with source, _output(args.out) as write:
        progress = _Progress(name, os.fstat(source.fileno()).st_size)
        if args.jobs > 1 and stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            return _score_ranges(source, args.input, name, args.jobs, write, summary, progress)
        bad_lines = 0
        for chunk_end, outcomes in _score_chunks(_chunks(source, name), name, args.jobs):
            write(b"".join(outcome.output for outcome in outcomes if outcome.output is not None))
            for outcome in outcomes:
                if outcome.scored is not None:
                    summary.add(*outcome.scored)
                    continue
                bad_lines += 1
                _show_error(progress, bad_lines, f"{name}:{outcome.number}: {outcome.error}")
            progress.update(chunk_end, summary.total + bad_lines)
        progress.clear()
    return bad_lines


RANGE_BYTES = 1 << 20
"""A worker's unit of work with --jobs, in bytes of input (whole lines): about 400 rows of a few KB."""


class Range(NamedTuple):
    start: int
    end: int
    first: int  # the number of its first line


class Scored(NamedTuple):
    """A range scored by a worker: its output lines as they are written, what the summary and stderr need."""

    output: bytes
    scored: list[tuple[str, float]]
    errors: list[str]  # messages of bad lines, each "PATH:LINE: message"
    problem: str | None  # the file could not be read


def _score_ranges(
    source: BinaryIO,
    path: str,
    name: str,
    jobs: int,
    write: Callable[[bytes], None],
    summary: ScoreSummary,
    progress: _Progress,
) -> int:
    """--jobs on a regular file: the parent finds where ranges of whole lines start and end, and counts
    their lines (C: bytes.count), then only writes what workers send back. Each worker reads its range
    itself, scores it and renders its output lines (the parent read, pickled and spliced every line before,
    and, at two workers, was the bottleneck)."""
    from evalkit.services.workers import WorkerDied, result_of, worker_pool

    bad_lines = 0
    try:
        with worker_pool(jobs) as pool:
            pending: deque[tuple[Range, Future[Scored]]] = deque()

            def take() -> None:
                nonlocal bad_lines
                done, future = pending.popleft()
                scored = result_of(future, pool)
                if scored.problem is not None:
                    raise UsageProblem(f"{name}: cannot read: {scored.problem}")
                write(scored.output)
                for data_source, value in scored.scored:
                    summary.add(data_source, value)
                for message in scored.errors:
                    bad_lines += 1
                    _show_error(progress, bad_lines, message)
                progress.update(done.end, summary.total + bad_lines)

            for part in _ranges(source, name):
                pending.append((part, pool.submit(score_range, path, name, part)))
                if len(pending) >= jobs * CHUNKS_IN_FLIGHT_PER_JOB:
                    take()
            while pending:
                take()
    except WorkerDied as died:
        raise UsageProblem(f"{name}: {died}") from None
    progress.clear()
    return bad_lines


def _ranges(source: BinaryIO, name: str) -> Iterator[Range]:
    from evalkit.services.inputs import line_ranges

    try:
        yield from (Range(*part) for part in line_ranges(source, RANGE_BYTES))
    except OSError as error:
        raise UsageProblem(f"{name}: cannot read: {error.strerror}") from None


def score_range(path: str, name: str, part: Range) -> Scored:
    """Score the lines of `path` between part.start and part.end (a worker's unit with --jobs)."""
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES
    from evalkit.engine.text import capped_lines

    lines: list[Line] = []
    try:
        with open(path, "rb") as handle:
            handle.seek(part.start)
            offset = part.start
            read = capped_lines(handle, MAX_SUBMISSION_BYTES)
            for number, (consumed, raw) in enumerate(read, start=part.first):
                if raw is None or raw.strip():
                    lines.append(Line(number, raw))
                offset += consumed
                if offset >= part.end:
                    break
    except OSError as error:
        return Scored(b"", [], [], error.strerror or str(error))
    outcomes = score_chunk(name, lines)
    return Scored(
        b"".join([outcome.output for outcome in outcomes if outcome.output is not None]),
        [outcome.scored for outcome in outcomes if outcome.scored is not None],
        [f"{name}:{outcome.number}: {outcome.error}" for outcome in outcomes if outcome.scored is None],
        None,
    )


def _open_input(path: str, name: str) -> BinaryIO:
    if os.path.isdir(path):
        raise UsageProblem(f"{name}: cannot read: it is a folder, expected a .jsonl file")
    try:
        return open(path, "rb")
    except OSError as error:
        raise UsageProblem(f"{name}: cannot read: {error.strerror}") from None


def _chunks(source: BinaryIO, path: str) -> Iterator[Chunk]:
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES
    from evalkit.engine.text import capped_lines

    lines: list[Line] = []
    offset = 0
    try:
        for number, (consumed, raw) in enumerate(capped_lines(source, MAX_SUBMISSION_BYTES), start=1):
            offset += consumed
            if raw is None or raw.strip():
                lines.append(Line(number, raw))
            if len(lines) == CHUNK_LINES:
                yield Chunk(lines, offset)
                lines = []
    except OSError as error:
        raise UsageProblem(f"{path}: cannot read: {error.strerror}") from None
    if lines:
        yield Chunk(lines, offset)


def score_chunk(path: str, lines: list[Line], in_worker: bool = False) -> list[Outcome]:
    """Score a chunk of lines; runs in a worker process when --jobs is above 1."""
    from evalkit.qydomain.records import RowError, score_json_line

    outcomes = []
    for number, raw in lines:
        if raw is None:
            outcomes.append(_error_outcome(path, number, "line-too-long", _too_long()))
            continue
        try:
            row = score_json_line(raw)
        except RowError as error:
            outcomes.append(_error_outcome(path, number, error.code, str(error)))
        else:
            output = None if in_worker and row.spliced else row.line + b"\n"
            outcomes.append(Outcome(number, output, (row.data_source, row.score), None))
    return outcomes


def _too_long() -> str:
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES

    return f"the line is longer than {MAX_SUBMISSION_BYTES:,} bytes"


def _rebuilt(lines: list[Line], outcomes: list[Outcome]) -> list[Outcome]:
    """A worker's outcomes with the spliced lines rebuilt from the input lines the parent kept."""
    from evalkit.qydomain.records import splice_score

    return [
        outcome
        if outcome.output is not None or outcome.scored is None or line.raw is None
        else outcome._replace(output=splice_score(line.raw, outcome.scored[1]) + b"\n")
        for line, outcome in zip(lines, outcomes, strict=False)
    ]


def _error_outcome(path: str, number: int, code: str, message: str) -> Outcome:
    entry = {"source": f"{path}:{number}", "error": {"code": code, "message": message}}
    return Outcome(number, json.dumps(entry).encode("ascii") + b"\n", None, message)


def _score_chunks(chunks: Iterable[Chunk], path: str, jobs: int) -> Iterator[tuple[int, list[Outcome]]]:
    """(end offset, outcomes) per chunk, in input order."""
    if jobs == 1:
        for chunk in chunks:
            yield chunk.end_offset, score_chunk(path, chunk.lines)
        return
    from evalkit.services.workers import WorkerDied, result_of, worker_pool

    try:
        with worker_pool(jobs) as pool:
            pending: deque[tuple[Chunk, Future[list[Outcome]]]] = deque()
            for chunk in chunks:
                pending.append((chunk, pool.submit(score_chunk, path, chunk.lines, True)))
                if len(pending) >= jobs * CHUNKS_IN_FLIGHT_PER_JOB:
                    done, future = pending.popleft()
                    yield done.end_offset, _rebuilt(done.lines, result_of(future, pool))
            for done, future in pending:
                yield done.end_offset, _rebuilt(done.lines, result_of(future, pool))
    except WorkerDied as died:
        raise UsageProblem(f"{path}: {died}") from None


def _show_error(progress: _Progress, count: int, message: str) -> None:
    if count > ERRORS_SHOWN:
        return
    progress.clear()
    if count == ERRORS_SHOWN:
        message += "\n(further bad lines are not shown; the output has an error entry for each)"
    print(message, file=sys.stderr)


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[Callable[[bytes], None]]:
    """Where the scored JSONL goes: stdout, or --out through a temporary file that replaces it only when
    the whole input was read (services/atomic.py)."""
    if path is None:

        def write_stdout(data: bytes) -> None:
            with _write_errors_stop(None):
                sys.stdout.buffer.write(data)

        yield write_stdout
        with _write_errors_stop(None):
            sys.stdout.flush()
        return
    from evalkit.services.atomic import atomic_output

    with _write_errors_stop(path), atomic_output(path, binary=True) as handle:

        def write_file(data: bytes) -> None:
            with _write_errors_stop(path):
                handle.write(data)

        yield write_file


@contextlib.contextmanager
def _write_errors_stop(path: str | None) -> Iterator[None]:
    """Turn a failed write (a full disk, say) into exit 2 rather than half a dataset and a traceback."""
    try:
        yield
    except BrokenPipeError:  # the reader went away (`| head`): the dispatcher ends quietly
        raise
    except OSError as error:
        raise UsageProblem(f"{path or 'stdout'}: cannot write: {error.strerror}") from None


class _Progress:
    """A one-line progress bar on stderr, drawn only on a terminal and for inputs worth waiting for."""

    WIDTH = 30

    def __init__(self, path: str, total_bytes: int) -> None:
        self._path = path
        self._total = total_bytes
        self._enabled = total_bytes >= PROGRESS_MIN_BYTES and sys.stderr.isatty()
        self._drawn_at = 0.0
        self._drawn = False

    def update(self, done_bytes: int, rows: int) -> None:
        now = time.monotonic()
        if not self._enabled or now - self._drawn_at < PROGRESS_INTERVAL_S:
            return
        filled = self.WIDTH * done_bytes // self._total
        percent = 100 * done_bytes // self._total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        sys.stderr.write(f"\r{self._path} [{bar}] {percent:3d}% {rows} rows")
        sys.stderr.flush()
        self._drawn_at, self._drawn = now, True

    def clear(self) -> None:
        if self._drawn:
            sys.stderr.write("\r\033[K")  # erase the bar's line so the next output starts clean
            sys.stderr.flush()
            self._drawn = False


def _render_summary(args: argparse.Namespace, summary: ScoreSummary, bad_lines: int) -> str:
    from evalkit.engine.text import shown

    stats = summary.stats()
    if args.format == "json":
        return json.dumps(
            {
                "input": shown(args.input),
                "scored": summary.total,
                "bad_lines": bad_lines,
                "data_sources": {name: source.to_dict() for name, source in stats.items()},
            }
        )
    plural = "" if bad_lines == 1 else "s"
    lines = [f"{shown(args.input)}: {summary.total} rows scored, {bad_lines} bad line{plural}"]
    if stats:
        lines.append(f"{'data_source':<14}{'count':>8}" + "".join(f"{name:>8}" for name in _COLUMNS))
        for name, source in stats.items():
            values = "".join(f"{getattr(source, column):>8.3f}" for column in _COLUMNS)
            lines.append(f"{name:<14}{source.count:>8}{values}")
    return "\n".join(lines)
