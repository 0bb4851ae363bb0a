"""Batch evaluation for `evalkit eval`: read the inputs as they are needed, evaluate in one process or a
pool of workers, and hand back rendered outputs in input order, a bounded number of items in flight.

Workers receive raw text (a file's content or a JSONL line), not parsed objects, and send back strings,
so little crosses the process boundary; each worker loads and compiles the config once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from evalkit.engine.config import Config
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.text import NotText, check_not_other_encoding, shown
from evalkit.services.inputs.read import (
    NotRegular,
    expand_inputs,
    jsonl_lines,
    parse_text,
    range_lines,
    read_problem,
    read_text,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    from evalkit.engine.result import Result
    from evalkit.services.run.pool import LineRange, Spooled
    from evalkit.services.run.workers import Held

    Task: TypeAlias = LineRange | list["RawItem | Outcome"]
    """A chunk of work: a regular JSONL file's range of lines, which a worker reads itself, or items."""

CHUNK = 256
"""Items in a chunk of work handed to a worker, when they are not a JSONL file's range of lines."""


class Want(NamedTuple):
    """Which renderings the caller needs."""

    result: bool = True
    explain: bool = False
    report: bool = False
    pretty: bool = False


class Outcome(NamedTuple):
    """One submission's renderings (`result` and `explain`: its pretty JSON, or, for a batch, its line of
    JSON Lines with "source" first, without the newline), or its error."""

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


class _FastEncoder:
    """msgspec's encoder (C, about four times as fast as json.dumps) and its formatter, which respaces its
    output as json.dumps spaces it (in C), for the values that come out the same (`plain_json`: no float
    that Python's repr writes in exponent form); imported at the second value, so that one file's run does
    without them (10 ms of its cold start)."""

    def __init__(self) -> None:
        from msgspec.json import encode, format

        from evalkit.engine.result import Members, plain_json, ratings_members

        self.encode, self.format, self.plain = encode, format, plain_json
        self._ratings_members = ratings_members
        self._members: Members = {}
        """`corrected_ratings` members written (engine/result.py's ratings_members)."""

    def __call__(self, value: Any) -> str | None:
        written = self.encoded(value)
        return None if written is None else written.decode("utf-8")

    def encoded(self, value: Any) -> bytes | None:
        """`value` as json.dumps writes it, in UTF-8; None where msgspec would write it otherwise."""
        if not self.plain(value):
            return None
        try:
            encoded = self.encode(value)
        except Exception:  # a lone surrogate, which UTF-8 cannot hold
            return None
        return self.format(encoded, indent=0)

    def result_line(self, source: str, result: Result) -> bytes:
        """`line({"source": source, **result.to_dict()})`, with `corrected_ratings` written from what it
        is made of, its members looked up where they were written before (most are: ratings take few
        values), and the rest encoded as `line` encodes it."""
        ratings = result.unbuilt_ratings
        if ratings is not None:
            rest = result.to_dict_after_ratings()
            if self.plain(rest):
                try:
                    head, body = self.encode(source), self.format(self.encode(rest), indent=0)
                except Exception:  # a lone surrogate: json.dumps escapes it
                    pass
                else:
                    members = self._ratings_members(ratings, self._members, self.line)
                    return b"".join(
                        (b'{"source": ', head, b', "corrected_ratings": {', members, b"}, ", body[1:])
                    )
        return self.line({"source": source, **result.to_dict()})

    def line(self, value: Any) -> bytes:
        """`json.dumps(value, ensure_ascii=False)` in UTF-8, lone surrogates escaped (as chunks are)."""
        written = self.encoded(value)
        if written is None:
            return json.dumps(value, ensure_ascii=False).encode("utf-8", "backslashreplace")
        return written


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


def _dumps(source: str, value: dict[str, Any], pretty: bool) -> str:
    """One submission's pretty JSON, or its line of JSON Lines (without the newline) with "source" first."""
    if pretty:
        return json.dumps(value, ensure_ascii=False, indent=2)
    return dumps_line({"source": source, **value})


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
            result=_dumps(source, data, want.pretty) if want.result else None,
            explain=_dumps(source, result.explain(), want.pretty) if want.explain else None,
            report=_report_section(source, data) if want.report else None,
            label=result.label,
            fired=tuple(rule.id for rule in result.fired_rules),
        )


def _report_section(source: str, data: dict[str, Any]) -> str:
    from evalkit.services.run.report_md import submission_section

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
        from evalkit.services.config.cache import (
            load_for_eval,  # the parent's compiled config, from the cache
        )

        return BatchEvaluator(load_for_eval(Path(self.folder)), self.want)


class _RunEach:
    """What a worker runs on each chunk of items (pool.py's `make`): the runner `recipe` makes."""

    __slots__ = ("recipe",)

    def __init__(self, recipe: Callable[[], ItemRunner]) -> None:
        self.recipe = recipe

    def __call__(self) -> Callable[[list[RawItem | Outcome]], list[Any]]:
        run = self.recipe().run
        return lambda chunk: [item if isinstance(item, Outcome) else run(item) for item in chunk]


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
    """Raises WorkerDied (evalkit.services.run.workers) when a worker process dies; the workers never outlive
    this generator, whether it ends, fails or is closed."""
    from evalkit.services.run.pool import ordered_map

    for done in ordered_map(_chunks(items, CHUNK), _RunEach(recipe), jobs):
        yield from done


def error_json(outcome: Outcome) -> str:
    return json.dumps({"source": outcome.source, "error": {"message": outcome.error}}, ensure_ascii=False)


def jsonl_line(outcome: Outcome, field: str) -> str:
    """One outcome's line of JSON Lines, with its "source" first: `field` ("result" or "explain") of an
    outcome rendered for a batch (Want.pretty false), or its error entry."""
    body = getattr(outcome, field)
    if body is None:
        return error_json(outcome) + "\n"
    return body + "\n"


class Rendered:
    """A chunk's outputs, rendered by a worker and encoded (UTF-8, valid whatever the text holds): what the
    parent writes as it is, in order. `notes` holds
    every outcome without its result and explain (for the log and the report) when the parent asked for
    them, else only the errors (for stderr)."""

    __slots__ = ("count", "explain", "notes", "result")

    def __init__(
        self,
        result: bytes | Spooled | Held,
        explain: bytes | Spooled | Held | None,
        count: int,
        notes: list[Outcome],
    ) -> None:
        self.result, self.explain, self.count, self.notes = result, explain, count, notes


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
    config: Config, paths: list[str], want: Want, jobs: int, notes: bool, hold: bool = False
) -> Generator[Rendered, None, None]:
    """The JSON Lines of a batch, rendered in `jobs` worker processes, chunk by chunk in input order. The
    parent only finds where ranges of a JSONL file's lines start (line_ranges) and writes what comes back;
    workers read their ranges, decode, parse, evaluate, encode and join. Other files are read by the parent
    and handed on as text. `notes`: every outcome's notes (a log or a report is wanted). `hold`: the
    outputs are files of the caller's, which workers write their chunks into (services/run/pool.py)."""
    from evalkit.services.run.pool import ordered_map, spool_folder

    with spool_folder(jobs, hold) as spool:
        make = RenderRecipe(EvalRecipe(str(config.folder), want), notes, spool)
        local = ChunkRenderer(BatchEvaluator(config, want), notes).render if jobs <= 1 else None
        yield from ordered_map(_tasks(paths), make, jobs, local)


def _tasks(paths: Iterable[str]) -> Iterator[Task]:
    files, missing = expand_inputs(paths)
    pending: list[RawItem | Outcome] = [Outcome(name, error="no such file or folder") for name in missing]
    for path in files:
        # a regular file: can_render_in_workers says so of an INPUT, the listing marks a folder's others
        if path.suffix == ".jsonl" and not isinstance(path, NotRegular):
            if pending:
                yield pending
                pending = []
            yield from _line_ranges(path)
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


def _line_ranges(path: Path) -> Iterator[Task]:
    """A regular JSONL file's ranges, found as they are needed (the first is evaluated while the rest of a
    large file is still unread), or the one error jsonl_lines gives for a file it cannot read."""
    source = shown(str(path))
    try:
        with open(path, "rb") as handle:
            check_not_other_encoding(handle.peek(4)[:4])
            from evalkit.services.run.pool import file_ranges

            yield from file_ranges(handle, str(path), source, RANGE_BYTES)
    except (OSError, NotText) as exc:
        yield [Outcome(source, error=read_problem(exc))]


class RenderRecipe:
    """A worker's BatchEvaluator, which renders whole chunks (evaluate_rendered)."""

    __slots__ = ("notes", "recipe", "spool")

    def __init__(self, recipe: EvalRecipe, notes: bool, spool: str | None = None) -> None:
        """`spool`: where the worker writes its chunks of output (services/run/pool.py's spool_folder), if
        anywhere."""
        self.recipe, self.notes, self.spool = recipe, notes, spool

    def __call__(self) -> Callable[[Task], Rendered]:
        return ChunkRenderer(self.recipe(), self.notes, self.spool).render


_Chunk = tuple[bytes, "bytes | None", int, list[Outcome]]
"""A chunk's results, explanations (if asked for), count and notes, as Rendered holds them."""


class ChunkRenderer:
    """Renders a task's JSON Lines whole: the lines of a JSONL range are read, decoded, parsed, evaluated
    and encoded straight to UTF-8 bytes, each line's value (its "source" first) built and encoded once."""

    def __init__(self, evaluator: BatchEvaluator, notes: bool, spool: str | None = None) -> None:
        from msgspec.json import decode

        from evalkit.engine.submission import parse_submission
        from evalkit.services.run.pool import spooler

        self.evaluator, self.notes = evaluator, notes
        self._spooled = spooler(spool)
        self.encoder = _FastEncoder()
        self._decode: Callable[[str], Any] = decode
        self._parse_submission = parse_submission

    def run(self, item: RawItem) -> Outcome:
        return self.evaluator.run(item)

    def render(self, task: Task) -> Rendered:
        result, explain, count, notes = self._render(task)
        spool = self._spooled
        return Rendered(spool(result), None if explain is None else spool(explain), count, notes)

    def _render(self, task: Task) -> _Chunk:
        if not isinstance(task, list):  # a LineRange
            return self._render_lines(
                range_lines(Path(task.path), task.source, task.start, task.end, task.first)
            )
        outcomes = [item if isinstance(item, Outcome) else self.run(item) for item in task]
        explain = self.evaluator.want.explain
        return (
            _encoded([jsonl_line(outcome, "result") for outcome in outcomes]),
            _encoded([jsonl_line(outcome, "explain") for outcome in outcomes]) if explain else None,
            len(outcomes),
            [_note(o) for o in outcomes if self.notes or o.error is not None],
        )

    def _render_lines(self, lines: Iterable[tuple[str, str | None, str | None]]) -> _Chunk:
        """The hot loop of `evalkit eval` on JSONL: per line, one msgspec decode (into a dict), the
        submission (`parse_submission`), the evaluation and its line (`_FastEncoder.result_line`); nothing
        else unless asked for. (No call here that the loop can do itself: a Python call costs about a
        fortieth of a line's work.)"""
        want = self.evaluator.want
        evaluate = self.evaluator.evaluator.evaluate
        decode, parse_submission, line = self._decode, self._parse_submission, self.encoder.line
        result_line = self.encoder.result_line
        results: list[bytes] = []
        explains: list[bytes] | None = [] if want.explain else None
        notes: list[Outcome] = []
        keep_notes = self.notes
        for where, text, problem in lines:
            submission = None
            if text is not None:
                try:  # noqa: SIM105 - contextlib.suppress costs a context manager a line
                    submission = parse_submission(decode(text))
                except Exception:  # the slow path below says what is wrong
                    pass
            if submission is None:
                outcome = (
                    Outcome(where, error=problem)
                    if text is None
                    else self.evaluator.run(RawItem(where, text, ".json"))
                )
                results.append(_line_bytes(outcome, "result"))
                if explains is not None:
                    explains.append(_line_bytes(outcome, "explain"))
                if keep_notes or outcome.error is not None:
                    notes.append(_note(outcome))
                continue
            result = evaluate(submission)
            results.append(result_line(where, result))
            if explains is not None:
                explains.append(line({"source": where, **result.explain()}))
            if keep_notes:
                notes.append(
                    Outcome(
                        where,
                        report=_report_section(where, result.to_dict()) if want.report else None,
                        label=result.label,
                        fired=tuple(rule.id for rule in result.fired_rules),
                    )
                )
        return _joined(results), None if explains is None else _joined(explains), len(results), notes


def _note(outcome: Outcome) -> Outcome:
    """An outcome without its result and explain: what the parent needs for the log and the report."""
    return Outcome(
        outcome.source, report=outcome.report, error=outcome.error, label=outcome.label, fired=outcome.fired
    )


def _line_bytes(outcome: Outcome, field: str) -> bytes:
    return jsonl_line(outcome, field)[:-1].encode("utf-8", "backslashreplace")


def _joined(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n" if lines else b""


def _encoded(lines: list[str]) -> bytes:
    return "".join(lines).encode("utf-8", "backslashreplace")
