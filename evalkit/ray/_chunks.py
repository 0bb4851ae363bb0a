"""`--ray`'s work, cut into chunks: what the driver hands out and what a worker does with one.

The driver only cuts the inputs (a JSONL file into ranges of whole lines, numbered as it counts their
newlines; a Parquet file whole; other files read as text, they are small) and hands each chunk to a worker.
The worker reads its chunk itself, evaluates or scores it with the local run's own code (run/batch.py's
ChunkRenderer, run/score.py's score_range), and either sends its output back (a single ordered output)
or writes it as a part of an `--out` folder itself and sends back only the part's name and size. The
files are read by path, so every node must see the inputs (and an `--out` folder) where the driver does,
as Ray Data's own readers and writers need.
"""

from __future__ import annotations

import os
import time
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from evalkit.services.run.batch import Outcome, RawItem
from evalkit.services.run.pool import LineRange

if TYPE_CHECKING:
    import pyarrow as pa

RANGE_BYTES = 4 << 20
"""A chunk of a JSONL file: about 4,000 submissions of a kilobyte (smaller near a file's end, so that the
workers finish together: inputs.guided_size). A Ray task costs the driver about 5 ms of CPU in all (its
threads taking the reply included), so a chunk this size makes that about a microsecond a submission."""
CHUNK_BYTES_VARIABLE = "EVALKIT_RAY_CHUNK_BYTES"
"""Sets the chunk size in bytes instead (smaller: finer balance over few CPUs, more driver work)."""
ITEMS = 256
"""Files read by the driver (JSON, YAML) handed out together."""
JSONL, PARQUET = "jsonl", "parquet"


class ParquetFile(NamedTuple):
    """A Parquet file, one row a submission (eval) or a dataset row (score): a worker reads it whole."""

    path: str  # absolute: a worker's working folder is not the driver's
    source: str  # the path as messages show it


Task = LineRange | ParquetFile | list[RawItem | Outcome]


class Job(NamedTuple):
    """What every worker of a run needs: the command, the config's files (eval), the output's form, and
    where to write parts (None: the output is sent back to the driver)."""

    command: str  # "eval" or "score"
    config: dict[str, bytes] | None
    form: str  # JSONL or PARQUET
    parts: str | None
    stamp: str  # the start of this run's part names


class Done(NamedTuple):
    """A chunk done: its output (None when written as a part), the part's name and size, its records, the
    lines stderr shows for its bad items, its scores by data source (score), and the worker CPU it took."""

    number: int  # the chunk's, from 0 in input order
    output: bytes | pa.Table | None
    part: str | None
    size: int
    records: int
    errors: list[str]
    scores: dict[str, array[float]]
    problem: str | None  # score: the file could not be read (exit 2)
    end: int  # bytes of its file done, for score's progress bar
    cpu: float


def eval_tasks(files: list[Path]) -> Iterator[Task]:
    """eval's chunks, in input order."""
    from evalkit.engine.text import shown
    from evalkit.services.inputs.read import read_problem, read_text

    pending: list[RawItem | Outcome] = []
    for path in files:
        source = shown(str(path))
        if path.suffix in (".jsonl", ".parquet"):
            if pending:
                yield pending
                pending = []
            yield from _file_tasks(path, source, check_encoding=True)
            continue
        try:
            pending.append(RawItem(source, read_text(path), path.suffix))
        except (OSError, ValueError) as exc:
            pending.append(Outcome(source, error=read_problem(exc)))
        if len(pending) >= ITEMS:
            yield pending
            pending = []
    if pending:
        yield pending


def score_tasks(files: list[Path]) -> Iterator[Task]:
    """score's chunks, in input order."""
    from evalkit.engine.text import shown

    for path in files:
        yield from _file_tasks(path, shown(str(path)), check_encoding=False)


def _file_tasks(path: Path, source: str, check_encoding: bool) -> Iterator[Task]:
    """A Parquet file whole, or a JSONL file's ranges (eval's refuses a UTF-16 or UTF-32 file at once, as
    its local run does: one error for the file)."""
    absolute = str(path.absolute())
    if path.suffix == ".parquet":
        yield ParquetFile(absolute, source)
        return
    from evalkit.engine.text import NotText, check_not_other_encoding
    from evalkit.services.inputs.read import line_ranges, read_problem

    try:
        with open(path, "rb") as handle:
            if check_encoding:
                check_not_other_encoding(handle.peek(4)[:4])
            size = int(os.environ.get(CHUNK_BYTES_VARIABLE, RANGE_BYTES))
            for start, end, first in line_ranges(handle, size, os.fstat(handle.fileno()).st_size):
                yield LineRange(absolute, source, start, end, first)
    except (OSError, NotText) as exc:
        yield [Outcome(source, error=read_problem(exc))]


class ChunkWorker:
    """A worker's state for a run: the compiled config (eval), made once; `run` does one chunk."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self._renderer: Any = _renderer(job) if job.command == "eval" else None
        self._started = time.process_time()

    def run(self, index: int, task: Task) -> Done:
        started = time.process_time()
        done = self._eval(index, task) if self._renderer is not None else self._score(index, task)
        if self.job.parts is not None and done.problem is None:
            done = self._written(done)
        return done._replace(cpu=time.process_time() - started)

    def cpu(self) -> float:
        """CPU seconds this worker's process has spent since its config was compiled (Ray's threads too)."""
        return time.process_time() - self._started

    def _eval(self, index: int, task: Task) -> Done:
        if isinstance(task, ParquetFile):
            task = list(_parquet_items(task))
        rendered = self._renderer.render(task)
        errors = [f"{n.source}: error: {n.error}" for n in rendered.notes if n.error is not None]
        output: bytes | pa.Table = rendered.result
        if self.job.form == PARQUET:
            output = _evaluated_table(rendered.result, rendered.notes)
        return Done(index, output, None, 0, rendered.count, errors, {}, None, 0, 0.0)

    def _score(self, index: int, task: Task) -> Done:
        if isinstance(task, list):  # the file could not be opened: `cannot read the file: REASON`
            problem = str(getattr(task[0], "error", "")).removeprefix("cannot read the file: ")
            return Done(index, None, None, 0, 0, [], {}, problem, 0, 0.0)
        if isinstance(task, LineRange) and self.job.form == JSONL:
            return _scored_range(index, task)
        from evalkit.ray._files import DATASET_SCHEMA
        from evalkit.ray._workers import ScoreBatch

        try:
            rows = list(_parquet_rows(task) if isinstance(task, ParquetFile) else _range_rows(task))
        except OSError as exc:
            return Done(index, None, None, 0, 0, [], {}, exc.strerror or str(exc), 0, 0.0)
        import pyarrow as pa

        table = ScoreBatch()(pa.Table.from_pylist(rows, schema=DATASET_SCHEMA))
        return _scored_table(index, table, self.job.form, task.end if isinstance(task, LineRange) else 0)

    def _written(self, done: Done) -> Done:
        """The chunk's output written as a part (to a temporary name, renamed: a chunk run twice, its
        worker lost mid-write, leaves one whole part)."""
        assert self.job.parts is not None
        name = f"{self.job.stamp}-{done.number:06d}.{self.job.form}"
        temp = Path(self.job.parts, f".{name}.{os.getpid()}.tmp")
        if isinstance(done.output, bytes):
            temp.write_bytes(done.output)
        else:
            import pyarrow.parquet as pq

            pq.write_table(done.output, temp)
        os.replace(temp, Path(self.job.parts, name))
        return done._replace(output=None, part=name, size=temp.with_name(name).stat().st_size)


def _renderer(job: Job) -> Any:
    import tempfile

    from evalkit.engine.config import analyze
    from evalkit.services.run.batch import BatchEvaluator, ChunkRenderer, Want

    assert job.config is not None
    with tempfile.TemporaryDirectory(prefix="evalkit-config-") as folder:
        for name, raw in job.config.items():
            Path(folder, name).write_bytes(raw)
        config = analyze(folder)
    if config.plan is None:  # the driver checked the same bytes: only a different evalkit gets here
        raise ValueError("the config has errors on this worker: is its evalkit the driver's version?")
    return ChunkRenderer(BatchEvaluator(config, Want(result=True)), notes=job.form == PARQUET)


def _parquet_items(task: ParquetFile) -> Iterator[RawItem | Outcome]:
    from evalkit.ray._files import parquet_rows

    cut = len(task.path)
    for where, text, problem in parquet_rows(Path(task.path)):
        source = task.source + where[cut:]
        yield Outcome(source, error=problem) if text is None else RawItem(source, text, ".json")


def _parquet_rows(task: ParquetFile) -> Iterator[dict[str, Any]]:
    from evalkit.ray._files import dataset_rows

    cut = len(task.path)
    for row in dataset_rows(Path(task.path)):
        row["source"] = task.source + row["source"][cut:]
        yield row


def _range_rows(task: LineRange) -> Iterator[dict[str, Any]]:
    """A range's non-blank lines as score's rows, numbered (for a Parquet output's `source` column)."""
    with open(task.path, "rb") as handle:
        handle.seek(task.start)
        data = handle.read(task.end - task.start)
    for number, raw in enumerate(data.splitlines(keepends=True), start=task.first):
        if raw.strip():
            yield {"source": f"{task.source}:{number}", "text": raw, "error": None}


def _evaluated_table(result: bytes, notes: list[Outcome]) -> pa.Table:
    import pyarrow as pa

    from evalkit.ray._workers import EVALUATED_SCHEMA

    records = result.decode("utf-8").split("\n")[:-1]
    columns = {
        "source": [n.source for n in notes],
        "label": [n.label for n in notes],
        "error": [n.error for n in notes],
        "record": records,
    }
    return pa.table(columns, schema=EVALUATED_SCHEMA)


def _scored_range(index: int, task: LineRange) -> Done:
    """A JSONL range scored as `evalkit score` scores it, its bad lines numbered (the driver need not)."""
    from evalkit.services.run.score import ByteRange, error_entry, score_range

    scored = score_range(ByteRange(task.path, task.start, task.end))
    if scored.problem is not None:
        return Done(index, None, None, 0, 0, [], {}, scored.problem, task.end, 0.0)
    assert isinstance(scored.output, bytes)
    pieces, errors = [scored.output], []
    for bad in scored.bad:
        number = task.first + bad.position
        pieces += [error_entry(task.source, number, bad.code, bad.message), b"\n", bad.after]
        errors.append(f"{task.source}:{number}: {bad.message}")
    records = sum(len(values) for values in scored.scores.values()) + len(errors)
    return Done(index, b"".join(pieces), None, 0, records, errors, scored.scores, None, task.end, 0.0)


def _scored_table(index: int, table: pa.Table, form: str, end: int) -> Done:
    columns = [table.column(c).to_pylist() for c in ("source", "data_source", "score", "error")]
    scores: dict[str, array[float]] = {}
    errors = []
    for source, data_source, value, error in zip(*columns, strict=True):
        if error is not None:
            errors.append(f"{source}: {error}")
        else:
            scores.setdefault(data_source, array("d")).append(value)
    records = table.column("record").to_pylist()
    output = table if form == PARQUET else "".join(r + "\n" for r in records).encode("utf-8")
    return Done(index, output, None, 0, table.num_rows, errors, scores, None, end, 0.0)
