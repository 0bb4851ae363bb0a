"""Batch evaluation for `evalkit eval`: read the inputs as they are needed, evaluate in one process or a
pool of workers, and hand back rendered outputs in input order, a bounded number of items in flight.

Workers receive raw text (a file's content or a JSONL line), not parsed objects, and send back strings,
so little crosses the process boundary; each worker loads and compiles the config once.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from evalkit.engine.config import Config
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.text import NotText, check_not_other_encoding, shown
from evalkit.services.inputs import (
    expand_inputs,
    jsonl_lines,
    line_ranges,
    parse_text,
    range_lines,
    read_problem,
    read_text,
)

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

CHUNK = 256
WINDOW = 4
"""Chunks in flight per worker."""


class Want(NamedTuple):
    """Which renderings the caller needs."""

    result: bool = True
    explain: bool = False
    report: bool = False
    pretty: bool = False


class Outcome(NamedTuple):
    source: str
    result: str | None = None
    explain: str | None = None
    report: str | None = None
    error: str | None = None
    label: str | None = None
    fired: tuple[str, ...] = ()


class RawItem(NamedTuple):
    source: str
    text: str
    suffix: str


def raw_items(paths: Iterable[str]) -> Generator[RawItem | Outcome, None, None]:
    """Inputs as raw text items (one per JSONL line), read as they are needed: a JSONL file of any size is
    streamed a line at a time. Unreadable paths and lines come back as error outcomes."""
    files, missing = expand_inputs(paths)
    for name in missing:
        yield Outcome(name, error="no such file or folder")
    for path in files:
        if path.suffix == ".jsonl":
            yield from _jsonl_items(path)
            continue
        try:
            yield RawItem(shown(str(path)), read_text(path), path.suffix)
        except (OSError, ValueError) as exc:
            yield Outcome(shown(str(path)), error=read_problem(exc))


def _jsonl_items(path: Path) -> Iterator[RawItem | Outcome]:
    for where, text, problem in jsonl_lines(path):
        yield RawItem(where, text, ".json") if text is not None else Outcome(where, error=problem)


def count_items(paths: Iterable[str]) -> int:
    """How many items raw_items will yield, give or take blank lines: for a progress bar, by counting
    newlines (a pass over the bytes, no decoding)."""
    files, missing = expand_inputs(paths)
    total = len(missing)
    for path in files:
        if path.suffix != ".jsonl" or not path.is_file():  # a pipe is read once, by raw_items alone
            total += 1
            continue
        try:
            with open(path, "rb") as handle:
                last = b"\n"
                for block in iter(lambda: handle.read(1 << 20), b""):
                    total += block.count(b"\n")
                    last = block[-1:]
                total += last != b"\n"
        except OSError:
            total += 1
    return total


_NOT_AS_PYTHON = rb"(?:^|[:,\[])-?(?:[0-9]+(?:\.[0-9]+)?e|0\.0000)"
"""Where msgspec's compact output may write a float otherwise than Python's repr (json.dumps): in exponent
form (msgspec `1e16`, `1e-7`; Python `1e+16`, `1e-07`) and below 1e-4 (msgspec `0.00003`; Python `3e-05`).
A string holding the like (`:1e5`) sends its line to json.dumps too: the same bytes, slower. RE2 is three
times as fast as `re` at this."""


class _FastEncoder:
    """msgspec's encoder (C, about four times as fast as json.dumps) and its formatter, which respaces its
    output as json.dumps spaces it (in C); imported at the second value, so that one file's run does
    without them (10 ms of its cold start)."""

    def __init__(self) -> None:
        import re2
        from msgspec.json import encode, format

        self.encode, self.format = encode, format
        self.search = re2.compile(_NOT_AS_PYTHON).search

    def __call__(self, value: Any) -> str | None:
        try:
            encoded = self.encode(value)
        except Exception:
            return None
        if self.search(encoded) is not None:
            return None
        return self.format(encoded, indent=0).decode("utf-8")


_fast_encoder: _FastEncoder | None = None
_values = 0


def dumps_line(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False)`, byte for byte: the same separators (", " and ": "), key
    order, escapes (only '"', '\\' and control characters; all else raw UTF-8) and float reprs. msgspec
    encodes what it writes the same; json.dumps what it would not (floats below 1e-4 or in exponent form;
    NaN and infinities, which evaluation never produces: ratings are finite; lone surrogates, which it
    refuses)."""
    global _fast_encoder, _values
    if _fast_encoder is None:
        _values += 1
        if _values > 2:  # a result and its explain are one submission's
            _fast_encoder = _FastEncoder()
    if _fast_encoder is not None:
        written = _fast_encoder(value)
        if written is not None:
            return written
    return json.dumps(value, ensure_ascii=False)


def _dumps(value: Any, pretty: bool) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) if pretty else dumps_line(value)


class BatchEvaluator:
    def __init__(self, config: Config, want: Want) -> None:
        self.evaluator = Evaluator(config)
        self.want = want

    def run(self, item: RawItem) -> Outcome:
        loaded = parse_text(item.text, item.source, item.suffix)
        if loaded.submission is None:
            return Outcome(item.source, error=loaded.error)
        return self._render(item.source, self.evaluator.evaluate(loaded.submission))

    def _render(self, source: str, result: Any) -> Outcome:
        want = self.want
        data = result.to_dict()
        return Outcome(
            source,
            result=_dumps(data, want.pretty) if want.result else None,
            explain=_dumps(result.explain(), want.pretty) if want.explain else None,
            report=_report_section(source, data) if want.report else None,
            label=result.label,
            fired=tuple(rule.id for rule in result.fired_rules),
        )


def _report_section(source: str, data: dict[str, Any]) -> str:
    from evalkit.services.report_md import submission_section

    return submission_section(source, data)


class ItemRunner(Protocol):
    """What runs each raw item: a BatchEvaluator, or the diff's pair of evaluators."""

    def run(self, item: RawItem) -> Any: ...


class EvalRecipe:
    """How a worker process makes its BatchEvaluator: the config is loaded again there, from its folder."""

    __slots__ = ("folder", "want")

    def __init__(self, folder: str, want: Want) -> None:
        self.folder, self.want = folder, want

    def __call__(self) -> BatchEvaluator:
        from evalkit.services.config_cache import (
            load_for_eval,  # the parent's compiled config, from the cache
        )

        return BatchEvaluator(load_for_eval(Path(self.folder)), self.want)


_worker: ItemRunner | None = None


def _init_worker(recipe: Callable[[], ItemRunner]) -> None:
    global _worker
    _worker = recipe()


def _run_chunk(items: list[RawItem]) -> list[Any]:
    assert _worker is not None
    return [_worker.run(item) for item in items]


def _chunks(items: Iterable[RawItem | Outcome], size: int) -> Iterator[list[RawItem | Outcome]]:
    chunk: list[RawItem | Outcome] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def evaluate_all(
    config: Config, items: Iterable[RawItem | Outcome], want: Want, jobs: int = 1
) -> Generator[Outcome, None, None]:
    """Outcomes in input order; with jobs > 1, chunks are evaluated in worker processes."""
    return run_items(items, BatchEvaluator(config, want), EvalRecipe(str(config.folder), want), jobs)


def run_items(
    items: Iterable[RawItem | Outcome], runner: ItemRunner, recipe: Callable[[], ItemRunner], jobs: int
) -> Generator[Any, None, None]:
    """What `runner.run` returns for each item, in input order, and the Outcomes (unreadable items) as
    they are. With jobs > 1, chunks run in worker processes, each with the runner `recipe` makes (a
    picklable callable: workers load the config themselves)."""
    if jobs <= 1:
        for item in items:
            yield item if isinstance(item, Outcome) else runner.run(item)
        return
    yield from _parallel(items, recipe, jobs)


def _parallel(
    items: Iterable[RawItem | Outcome], recipe: Callable[[], ItemRunner], jobs: int
) -> Iterator[Any]:
    """Raises WorkerDied (evalkit.services.workers) when a worker process dies; the workers never outlive
    this generator, whether it ends, fails or is closed."""
    from evalkit.services.workers import worker_pool

    with worker_pool(jobs, _init_worker, (recipe,)) as pool:
        pending: deque[tuple[list[RawItem | Outcome], Future[list[Any]]]] = deque()
        for chunk in _chunks(items, CHUNK):
            raw = [item for item in chunk if isinstance(item, RawItem)]
            pending.append((chunk, pool.submit(_run_chunk, raw)))
            if len(pending) >= WINDOW * jobs:  # read no further ahead: memory stays flat, results flow
                yield from _in_order(*pending.popleft(), pool)
        while pending:
            yield from _in_order(*pending.popleft(), pool)


def _in_order(
    chunk: list[RawItem | Outcome], future: Future[list[Any]], pool: ProcessPoolExecutor
) -> Iterator[Any]:
    from evalkit.services.workers import result_of

    results: list[Any] = result_of(future, pool)
    done = iter(results)
    for item in chunk:
        yield item if isinstance(item, Outcome) else next(done)


def error_json(outcome: Outcome) -> str:
    return json.dumps({"source": outcome.source, "error": {"message": outcome.error}}, ensure_ascii=False)


def jsonl_line(outcome: Outcome, field: str) -> str:
    """One outcome's line of JSON Lines, with its "source" first: `field` ("result" or "explain"), or its
    error entry."""
    body = getattr(outcome, field)
    if body is None:
        return error_json(outcome) + "\n"
    return f'{{"source": {json.dumps(outcome.source, ensure_ascii=False)}, ' + body[1:] + "\n"


class Rendered:
    """A chunk's outputs, rendered by a worker and encoded (UTF-8, valid whatever the text holds): what the
    parent writes as it is, in order. `notes` holds
    every outcome without its result and explain (for the log and the report) when the parent asked for
    them, else only the errors (for stderr)."""

    __slots__ = ("count", "explain", "notes", "result")

    def __init__(self, result: bytes, explain: bytes | None, count: int, notes: list[Outcome]) -> None:
        self.result, self.explain, self.count, self.notes = result, explain, count, notes


class LineRange(NamedTuple):
    """Bytes `start` to `end` of a regular JSONL file, whole lines, the first numbered `first`: a worker
    reads them itself (line_ranges)."""

    path: str
    source: str
    start: int
    end: int
    first: int


Task = LineRange | list[RawItem | Outcome]


def can_render_in_workers(paths: Iterable[str]) -> bool:
    """Whether `evaluate_rendered` may read `paths`: regular files and folders (read again from the start;
    a pipe is read once, by raw_items)."""
    import os
    import stat

    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return False
    return True


def evaluate_rendered(
    config: Config, paths: list[str], want: Want, jobs: int, notes: bool
) -> Generator[Rendered, None, None]:
    """The JSON Lines of a batch, rendered in `jobs` worker processes, chunk by chunk in input order. The
    parent only finds where ranges of a JSONL file's lines start (line_ranges) and writes what comes back;
    workers read their ranges, decode, parse, evaluate, encode and join. Other files are read by the parent
    and handed on as text. `notes`: every outcome's notes (a log or a report is wanted)."""
    from evalkit.services.workers import worker_pool

    recipe = RenderRecipe(EvalRecipe(str(config.folder), want), notes)
    with worker_pool(jobs, _init_worker, (recipe,)) as pool:
        pending: deque[Future[Rendered]] = deque()
        for task in _tasks(paths):
            pending.append(pool.submit(_run_task, task))
            if len(pending) >= WINDOW * jobs:
                yield _result(pending.popleft(), pool)
        while pending:
            yield _result(pending.popleft(), pool)


def _result(future: Future[Rendered], pool: ProcessPoolExecutor) -> Rendered:
    from evalkit.services.workers import result_of

    return result_of(future, pool)


def _tasks(paths: Iterable[str]) -> Iterator[Task]:
    files, missing = expand_inputs(paths)
    pending: list[RawItem | Outcome] = [Outcome(name, error="no such file or folder") for name in missing]
    for path in files:
        if path.suffix == ".jsonl":  # a regular file (can_render_in_workers)
            ranges = _line_ranges(path)
            if isinstance(ranges, Outcome):
                pending.append(ranges)
                continue
            if pending:
                yield pending
                pending = []
            yield from ranges
            continue
        try:
            pending.append(RawItem(shown(str(path)), read_text(path), path.suffix))
        except (OSError, ValueError) as exc:
            pending.append(Outcome(shown(str(path)), error=read_problem(exc)))
        if len(pending) >= CHUNK:
            yield pending
            pending = []
    if pending:
        yield pending


RANGE_BYTES = 256 * 1024
"""A worker's share of a JSONL file with --jobs: about 250 submissions of a kilobyte."""


def _line_ranges(path: Path) -> list[LineRange] | Outcome:
    """A regular JSONL file's ranges, or the one error jsonl_lines gives for a file it cannot read at all."""
    source = shown(str(path))
    try:
        with open(path, "rb") as handle:
            check_not_other_encoding(handle.peek(4)[:4])
            return [LineRange(str(path), source, *part) for part in line_ranges(handle, RANGE_BYTES)]
    except (OSError, NotText) as exc:
        return Outcome(source, error=read_problem(exc))


class RenderRecipe:
    """A worker's BatchEvaluator, which renders whole chunks (evaluate_rendered)."""

    __slots__ = ("notes", "recipe")

    def __init__(self, recipe: EvalRecipe, notes: bool) -> None:
        self.recipe, self.notes = recipe, notes

    def __call__(self) -> ChunkRenderer:
        return ChunkRenderer(self.recipe(), self.notes)


class ChunkRenderer:
    def __init__(self, evaluator: BatchEvaluator, notes: bool) -> None:
        self.evaluator, self.notes = evaluator, notes

    def run(self, item: RawItem) -> Outcome:
        return self.evaluator.run(item)

    def render(self, task: Task) -> Rendered:
        outcomes = list(self._outcomes(task))
        explain = self.evaluator.want.explain
        return Rendered(
            _encoded([jsonl_line(outcome, "result") for outcome in outcomes]),
            _encoded([jsonl_line(outcome, "explain") for outcome in outcomes]) if explain else None,
            len(outcomes),
            [
                Outcome(o.source, report=o.report, error=o.error, label=o.label, fired=o.fired)
                for o in outcomes
                if self.notes or o.error is not None
            ],
        )

    def _outcomes(self, task: Task) -> Iterator[Outcome]:
        run = self.evaluator.run
        if isinstance(task, LineRange):
            for where, text, problem in range_lines(
                Path(task.path), task.source, task.start, task.end, task.first
            ):
                yield Outcome(where, error=problem) if text is None else run(RawItem(where, text, ".json"))
            return
        for item in task:
            yield item if isinstance(item, Outcome) else run(item)


def _encoded(lines: list[str]) -> bytes:
    return "".join(lines).encode("utf-8", "backslashreplace")


def _run_task(task: Task) -> Rendered:
    assert isinstance(_worker, ChunkRenderer)
    return _worker.render(task)
