"""The batch engine of `evalkit score INPUT.jsonl` (evalkit/commands/score.py parses and prints): every line
of a JSONL dataset scored with the qydomain scorers, in input order, by this process or by `--jobs` workers
(services/run/pool.py), written to stdout or atomically to a file.

Each line is written back with `"score"` added; a line that cannot be scored becomes
`{"source": "PATH:LINE", "error": {"code": ..., "message": ...}}`, is reported on stderr as
`PATH:LINE: message`, and the run goes on. Blank lines are skipped. What stops the run (an unreadable input,
an unwritable output, a worker killed) is raised as UsageProblem.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, BinaryIO, NamedTuple

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from array import array

    from evalkit.qydomain.records import RowError
    from evalkit.qydomain.summary import ScoreSummary
    from evalkit.services.run.pool import Spooled
    from evalkit.services.run.progress import Progress
    from evalkit.services.run.workers import Held

CHUNK_LINES = 1000  # lines per unit of work: large enough to amortise pickling, small enough to stream
PROGRESS_MIN_BYTES = 1 << 20  # smaller inputs finish before a bar would be worth drawing
ERRORS_SHOWN = 20  # beyond this, bad lines are counted, not each printed


class Chunk(NamedTuple):
    lines: list[bytes | None]  # every line, blank ones too, without its b"\n"; None: longer than the limit
    terminated: bool  # the last line ended with b"\n"
    end_offset: int  # bytes of input consumed once this chunk is read, for the progress bar


def score_file(path: str, out: str | None, jobs: int, prog: str, summary: ScoreSummary) -> int:
    """Score every line of the file `path` into `out` (None: stdout), the scores summed into `summary`;
    returns the number of bad lines. Raises UsageProblem."""
    from evalkit.engine.text import shown

    name = shown(path)  # valid UTF-8 in every message and error entry, whatever bytes the name holds
    source = _open_input(path, name)
    with source, _output(out, prog) as write:
        tally = _Tally(name, summary, os.fstat(source.fileno()).st_size)
        if stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            # --out's temporary file, or stdout redirected to a file: the workers write their chunks into it
            from evalkit.services.run.pool import stdout_is_a_file

            hold = out is not None or stdout_is_a_file()
            _score_ranges(source, path, name, jobs, write, tally, hold)
        else:
            for scored in _score_chunks(_chunks(source, name), name, jobs):
                _take(scored, name, write, tally)
        tally.progress.clear()
    return tally.bad_lines


class _Tally:
    """The parent's running counts: scores (the summary), bad lines (each shown on stderr, up to
    ERRORS_SHOWN), and the progress bar that shows them, for inputs worth waiting for, filled by bytes
    read: `NAME [#####.........................]  16% 1200 rows`."""

    def __init__(self, name: str, summary: ScoreSummary, total_bytes: int) -> None:
        from evalkit.engine.untrusted_text import shown_as
        from evalkit.services.run.progress import Progress

        self.summary, self.bad_lines = summary, 0
        self.lines = 0  # lines taken so far: the number of the next one, less one
        self.progress = Progress(
            total_bytes, self._caption, label=shown_as(name), enabled=total_bytes >= PROGRESS_MIN_BYTES
        )

    def bad_line(self, message: str) -> None:
        self.bad_lines += 1
        show_error(self.progress, self.bad_lines, message)

    def _caption(self, done: int, total: int) -> str:
        return f"{100 * done // total:3d}% {self.summary.total + self.bad_lines} rows"


RANGE_BYTES = 1 << 20
"""A worker's unit of work with --jobs, in bytes of input (whole lines): about 400 rows of a few KB."""


class Scored(NamedTuple):
    """Lines scored by a worker (or in this process): their output as it is written, what the summary and
    stderr need. Workers do not know where in the file their lines are: they count them, and the parent
    numbers bad lines and writes their error entries."""

    output: (
        bytes | Spooled | Held
    )  # the output lines before the first bad line (all of them when none is bad)
    scores: dict[str, array[float]]  # the scores of each data source, in input order
    lines: int  # lines read, blank ones too
    bad: list[BadLine]
    problem: str | None  # the file could not be read
    end: int  # where the lines end: bytes of input done, for the progress bar


class BadLine(NamedTuple):
    position: int  # of the line among those scored together, from 0
    code: str
    message: str
    after: bytes  # the output lines after it, up to the next bad line


class ByteRange(NamedTuple):
    """Bytes `start` to `end` of a regular file, whole lines: a worker reads them itself."""

    path: str
    start: int
    end: int


def _score_ranges(
    source: BinaryIO,
    path: str,
    name: str,
    jobs: int,
    write: Callable[[bytes | Spooled | Held], None],
    tally: _Tally,
    hold: bool,
) -> None:
    """A regular file: the parent finds where ranges of whole lines end (a newline after every RANGE_BYTES,
    found by seeking there: it reads next to nothing of the file), then only writes what workers send
    back. Each worker reads its range itself, scores it and renders its output lines. With one job the
    ranges are scored here, the same way. `hold`: the output is a regular file of our own (--out's
    temporary file), which the workers write their chunks into themselves (pool.py's spool_folder)."""
    from evalkit.services.run.pool import ordered_map, spool_folder
    from evalkit.services.run.workers import WorkerDied

    try:
        with spool_folder(jobs, hold) as spool:
            # closed here, however the loop ends: the workers have ended before stdout is cut (_output)
            parts = ordered_map(_ranges(source, path, name), ScoreRanges(spool), jobs)
            with contextlib.closing(parts) as scored:
                for part in scored:
                    _take(part, name, write, tally)
    except WorkerDied as died:
        raise UsageProblem(f"{name}: {died}") from None


def _take(scored: Scored, name: str, write: Callable[[bytes | Spooled | Held], None], tally: _Tally) -> None:
    """Lines scored: their output written, with an error entry for each bad line, their scores summed,
    their bad lines shown."""
    if scored.problem is not None:
        raise UsageProblem(f"{name}: cannot read: {scored.problem}")
    write(scored.output)
    for bad in scored.bad:
        number = tally.lines + bad.position + 1
        write(error_entry(name, number, bad.code, bad.message) + b"\n" + bad.after)
        tally.bad_line(f"{name}:{number}: {bad.message}")
    tally.lines += scored.lines
    for data_source, values in scored.scores.items():
        tally.summary.extend(data_source, values)
    tally.progress.update(scored.end)


def _ranges(source: BinaryIO, path: str, name: str) -> Iterator[ByteRange]:
    """Ranges of about RANGE_BYTES of whole lines of the open regular file `source`, from where it is,
    found as they are needed (the first is at work while the rest of a large file is unlooked at)."""
    from evalkit.services.inputs.read import byte_ranges

    try:
        for start, end in byte_ranges(source, RANGE_BYTES):
            yield ByteRange(path, start, end)
    except OSError as error:
        raise UsageProblem(f"{name}: cannot read: {error.strerror}") from None


@dataclass(frozen=True, slots=True)
class ScoreRanges:
    """What a worker runs on each range (services/run/pool.py's `make`): score_range, writing its output to
    `spool` (services/run/pool.py's spool_folder) when there is one."""

    spool: str | None

    def __call__(self) -> Callable[[ByteRange], Scored]:
        from evalkit.services.run.pool import spooler

        return functools.partial(score_range, keep=spooler(self.spool))


def score_range(part: ByteRange, keep: Callable[[bytes], bytes | Spooled | Held] | None = None) -> Scored:
    """Score the lines of part.path between part.start and part.end (a worker's unit with --jobs); `keep`
    is what becomes of the output (services/run/pool.py's spooler: a file, held by the worker, or as it is).
    A range no line of which can be too long is read at once and scored by qydomain's score_text, the
    twin of score_lines (tests/qydomain/test_score_text.py)."""
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES

    try:
        if part.end - part.start <= MAX_SUBMISSION_BYTES:
            data = _range_data(part)
        else:
            data, (lines, terminated) = None, _range_lines(part)
    except OSError as error:
        return Scored(b"", {}, 0, [], error.strerror or str(error), part.end)
    if data is not None:
        from evalkit.qydomain.records import score_text

        runs, scores, bad_lines, count = score_text(data)
        bad = [BadLine(*line, after) for line, after in zip(bad_lines, runs[1:], strict=True)]
        output = runs[0]
    else:
        output, scores, bad = score_lines(lines, terminated)
        count = len(lines)
    return Scored(output if keep is None else keep(output), scores, count, bad, None, part.end)


def _range_data(part: ByteRange) -> bytes:
    """The bytes of a range. Raises OSError."""
    with open(part.path, "rb") as handle:
        handle.seek(part.start)
        return handle.read(part.end - part.start)


def _range_lines(part: ByteRange) -> tuple[list[bytes | None], bool]:
    """The lines of a range longer than the limit on a line, without their b"\n" (None for one longer than
    the limit), and whether the last one ended with b"\n". Raises OSError."""
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES
    from evalkit.engine.text import capped_lines

    with open(part.path, "rb") as handle:
        handle.seek(part.start)
        lines: list[bytes | None] = []
        offset = part.start
        raw: bytes | None = None
        for consumed, raw in capped_lines(handle, MAX_SUBMISSION_BYTES):
            lines.append(raw if raw is None else raw.removesuffix(b"\n"))  # as data.split gives them
            offset += consumed
            if offset >= part.end:
                break
        return lines, raw is None or raw.endswith(b"\n")


def score_lines(
    lines: list[bytes | None], terminated: bool
) -> tuple[bytes, dict[str, array[float]], list[BadLine]]:
    """Score consecutive lines without their b"\n" (blank ones are skipped; None: a line longer than the
    limit): the output lines before the first bad line, each ending with b"\n", the scores of each data
    source in order, and the bad lines. Every line but the last ended with b"\n" in the input, the last one
    if `terminated`: a message about JSON that ends early counts it, as it always has."""
    from array import array

    from evalkit.qydomain.records import RowError, score_json_line

    output: list[bytes] = []
    segments = [output]  # the output lines before the first bad line, then after each bad line
    scores: dict[str, array[float]] = {}
    bad: list[tuple[int, str, str]] = []
    last = len(lines) - 1
    for index, raw in enumerate(lines):
        if raw is None:
            code, message = "line-too-long", _too_long()
        elif not raw or raw.isspace():  # blank: skipped (raw.strip() would copy every line to say so)
            continue
        else:
            try:
                row = score_json_line(raw)
            except RowError as error:
                problem = _row_error(raw + b"\n") if index < last or terminated else error
                code, message = problem.code, str(problem)
            else:
                output.append(row.line)
                try:
                    scores[row.data_source].append(row.score)
                except KeyError:
                    scores[row.data_source] = array("d", (row.score,))
                continue
        bad.append((index, code, message))
        output = []
        segments.append(output)
    joined = [b"\n".join([*segment, b""]) if segment else b"" for segment in segments]
    return joined[0], scores, [BadLine(*line, after) for line, after in zip(bad, joined[1:], strict=True)]


def _row_error(raw: bytes) -> RowError:
    from evalkit.qydomain.records import RowError, score_json_line

    try:
        score_json_line(raw)
    except RowError as error:
        return error
    raise AssertionError("a line scored with its b'\\n' but not without it")  # pragma: no cover


def _open_input(path: str, name: str) -> BinaryIO:
    if os.path.isdir(path):
        raise UsageProblem(f"{name}: cannot read: it is a folder, expected a .jsonl file")
    from evalkit.engine.text import NotText, check_not_other_encoding

    try:
        source = open(path, "rb")  # noqa: SIM115 (the caller closes it)
    except OSError as error:
        raise UsageProblem(f"{name}: cannot read: {error.strerror}") from None
    try:
        check_not_other_encoding(source.peek(4)[:4])  # UTF-16, Parquet: said once, not as each line's error
    except NotText as problem:
        source.close()
        raise UsageProblem(f"{name}: {problem.reason}") from None
    return source


def _chunks(source: BinaryIO, path: str) -> Iterator[Chunk]:
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES
    from evalkit.engine.text import capped_lines

    lines: list[bytes | None] = []
    offset = 0
    terminated = True
    try:
        for consumed, raw in capped_lines(source, MAX_SUBMISSION_BYTES):
            offset += consumed
            if raw is not None:
                terminated = raw.endswith(b"\n")
                raw = raw[:-1] if terminated else raw
            lines.append(raw)
            if len(lines) == CHUNK_LINES:
                yield Chunk(lines, terminated, offset)
                lines = []
    except OSError as error:
        raise UsageProblem(f"{path}: cannot read: {error.strerror}") from None
    if lines:
        yield Chunk(lines, terminated, offset)


def score_chunk(chunk: Chunk) -> Scored:
    """Score a chunk of lines read from a pipe; runs in a worker process when --jobs is above 1."""
    output, scores, bad = score_lines(chunk.lines, chunk.terminated)
    return Scored(output, scores, len(chunk.lines), bad, None, chunk.end_offset)


def _too_long() -> str:
    from evalkit.engine.limits import MAX_SUBMISSION_BYTES

    return f"the line is longer than {MAX_SUBMISSION_BYTES:,} bytes"


def error_entry(path: str, number: int, code: str, message: str) -> bytes:
    """The output line (without its b"\n") of line `number` of `path` that could not be scored."""
    entry = {"source": f"{path}:{number}", "error": {"code": code, "message": message}}
    return json.dumps(entry).encode("ascii")


def _score_chunks(chunks: Iterable[Chunk], path: str, jobs: int) -> Iterator[Scored]:
    """Each chunk scored, in input order (a pipe with --jobs: the parent reads the lines, workers score them
    and send back their output lines)."""
    from evalkit.services.run.pool import ordered_map
    from evalkit.services.run.workers import WorkerDied

    try:
        yield from ordered_map(chunks, ScoreChunks(), jobs)
    except WorkerDied as died:
        raise UsageProblem(f"{path}: {died}") from None


@dataclass(frozen=True, slots=True)
class ScoreChunks:
    """What runs on each chunk of lines (services/run/pool.py's `make`): score_chunk."""

    def __call__(self) -> Callable[[Chunk], Scored]:
        return score_chunk


def show_error(progress: Progress, count: int, message: str) -> None:
    """The `count`th bad line's message on stderr, above the bar; after ERRORS_SHOWN, only counted."""
    from evalkit.engine.untrusted_text import shown_as

    if count > ERRORS_SHOWN:
        return
    progress.clear()
    message = shown_as(message)
    if count == ERRORS_SHOWN:
        message += "\n(further bad lines are not shown; the output has an error entry for each)"
    print(message, file=sys.stderr)


@contextlib.contextmanager
def _output(path: str | None, prog: str) -> Iterator[Callable[[bytes | Spooled | Held], None]]:
    """Where the scored JSONL goes: stdout, or --out through a temporary file that replaces it only when
    the whole input was read (outputs/atomic.py). A chunk a worker spooled to a file is copied on by the
    kernel; one a worker holds, it writes into the file itself (a write of its that failed is raised when
    the pool ends, PlacingFailed, an OSError: it names the output too)."""
    if path is None:

        def write_stdout(data: bytes | Spooled | Held) -> None:
            with _write_errors_stop(None):
                _write(sys.stdout.buffer, data)

        with _write_errors_stop(None):
            try:
                yield write_stdout
            except (
                BaseException
            ) as ended:  # a prefix of the whole output, without holes; said on Ctrl+C, SIGTERM
                from evalkit.services.run.pool import cut_stdout

                note = cut_stdout()
                if note is not None and isinstance(ended, KeyboardInterrupt):
                    print(f"{prog}: {note}", file=sys.stderr)
                raise
            sys.stdout.flush()
        return
    from evalkit.services.outputs.atomic import atomic_output

    with _write_errors_stop(path), atomic_output(path, binary=True) as handle:

        def write_file(data: bytes | Spooled | Held) -> None:
            with _write_errors_stop(path):
                _write(handle, data)

        yield write_file


def _write(handle: IO[bytes], data: bytes | Spooled | Held) -> None:
    if isinstance(data, bytes):
        handle.write(data)
        return
    from evalkit.services.run.pool import Spooled, copy_spooled, place

    handle.flush()
    if isinstance(data, Spooled):
        copy_spooled(data, handle.fileno())
    else:
        place(data, handle.fileno())


@contextlib.contextmanager
def _write_errors_stop(path: str | None) -> Iterator[None]:
    """Turn a failed write (a full disk, say) into exit 2 rather than half a dataset and a traceback."""
    try:
        yield
    except BrokenPipeError:  # the reader went away (`| head`): the dispatcher ends quietly
        raise
    except OSError as error:
        raise UsageProblem(f"{path or 'stdout'}: cannot write: {error.strerror}") from None
