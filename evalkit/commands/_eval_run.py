"""The body of `evalkit eval`, kept out of eval_.py so that parsing arguments imports nothing heavy."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

from evalkit.engine.config import Config
from evalkit.engine.text import shown
from evalkit.services.config.cache import load_for_eval
from evalkit.services.config.folders import refuse_missing_config_dir, refuse_without_config_files
from evalkit.services.inputs.read import STDIN, no_submissions
from evalkit.services.outputs.atomic import atomic_output
from evalkit.services.outputs.over_input import input_written_over
from evalkit.services.run.batch import (
    Outcome,
    RawItem,
    Rendered,
    Want,
    can_render_in_workers,
    count_items,
    evaluate_all,
    evaluate_rendered,
    jsonl_line,
    raw_items,
)
from evalkit.services.run.progress import Progress, counted
from evalkit.services.run.workers import PlacingFailed, WorkerDied
from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    import argparse

    from evalkit.services.run.pool import Spooled
    from evalkit.services.run.workers import Held


class OutputFailed(Exception):
    """An output could not be written: `cannot write NAME: REASON`, NAME the file, the log or stdout."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"cannot write {name}: {reason}")


@contextlib.contextmanager
def _writing(name: str) -> Iterator[None]:
    """Name the output in any error writing it (a full disk, a file too large), from opening to closing."""
    try:
        yield
    except BrokenPipeError:  # stdout's reader went away (`| head -1`): the dispatcher ends quietly
        raise
    except OSError as exc:
        raise OutputFailed(name, exc.strerror or str(exc)) from None


class Sink:
    """One output's handle, with its name for error messages."""

    def __init__(self, name: str, handle: IO[str]) -> None:
        self.name, self.handle = name, handle

    def write(self, text: str) -> None:
        with _writing(self.name):
            self.handle.write(text)

    def write_bytes(self, data: bytes | Spooled | Held) -> None:
        """UTF-8 text already encoded (a chunk), past the text layer when there is one below; a chunk a
        worker spooled to a file is copied on by the kernel; one a worker holds, it writes itself."""
        with _writing(self.name):
            buffer = getattr(self.handle, "buffer", None)
            if not isinstance(data, bytes):
                from evalkit.services.run.pool import Spooled, copy_spooled, place

                self.handle.flush()
                if buffer is not None:
                    buffer.flush()
                if isinstance(data, Spooled):
                    copy_spooled(data, self.handle.fileno())
                else:
                    place(data, self.handle.fileno())
                return
            if buffer is None:
                self.handle.write(data.decode("utf-8"))
                return
            self.handle.flush()
            buffer.write(data)


class RunLog:
    """The seed's --log-file: one line per config and per submission, as `logging`'s
    `%(asctime)s %(levelname)s %(message)s` writes them (without importing it: a tenth of the cold start).
    Without the flag it does nothing; a failed write stops the run (OutputFailed), once."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._handle: TextIO | None = None
        if path:
            self._handle = open(path, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115

    def info(self, message: str, *args: Any) -> None:
        self._write("INFO", message, args)

    def warning(self, message: str, *args: Any) -> None:
        self._write("WARNING", message, args)

    def _write(self, level: str, message: str, args: tuple[Any, ...]) -> None:
        if self._handle is None:
            return
        now = time.time()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + f",{int(now * 1000) % 1000:03d}"
        from evalkit.engine.untrusted_text import shown_as  # a log is read on terminals too (`tail -f`)

        line = shown_as(message % args if args else message)
        with _writing(f"the log {self.path}"):
            self._handle.write(f"{stamp} {level} {line}\n")
            self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            handle, self._handle = self._handle, None
            with contextlib.suppress(OSError):  # a failed write was reported already
                handle.close()


def _items(inputs: list[str]) -> Generator[RawItem | Outcome, None, None]:
    """raw_items of the inputs, `-` read from standard input where it stands among them."""
    if STDIN not in inputs:
        return raw_items(inputs)
    from evalkit.services.inputs.stdin import items_with_stdin

    return items_with_stdin(inputs)


def _is_batch(inputs: list[str], first_items: int) -> bool:
    return first_items != 1 or len(inputs) != 1 or Path(inputs[0]).is_dir() or inputs[0].endswith(".jsonl")


class EvalRun:
    """Streams: items are read, evaluated and written one after another, so a batch of any size runs in
    constant memory and `| head` sees results as they come. Files are still written atomically (into a
    temporary file renamed at the end); only the Markdown report keeps every section until the end."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.prog: str = args.prog  # `evalkit eval`, or `oai-eval` as the seed's users type it

    def execute(self) -> int:
        clash = _same_output(self.args) or _output_is_input(self.args)
        if clash:
            self._say(f"{clash}; give each output its own file")
            return 2
        folder = next((path for path in _outputs(self.args) if os.path.isdir(path)), None)
        if folder is not None:  # found now, not after a batch was evaluated for a report it cannot hold
            self._say(f"cannot write {folder}: it is a folder")
            return 2
        try:
            self.log = RunLog(self.args.log_file)
        except OSError as exc:
            self._say(f"cannot write the log {self.args.log_file}: {exc.strerror}")
            return 2
        try:
            return self._execute()
        except (OutputFailed, WorkerDied, UsageProblem) as exc:
            self._say(str(exc))
            return 2
        finally:
            self.log.close()

    def _say(self, message: str) -> None:
        """`PROG: message` on stderr, the message shown as a terminal shows untrusted text."""
        from evalkit.engine.untrusted_text import shown_as

        print(f"{self.prog}: {shown_as(message)}", file=sys.stderr)

    def _execute(self) -> int:
        missing = [p for p in self.args.inputs if p != STDIN and not Path(p).exists()]
        if missing:
            for path in missing:
                self._say(f"{path}: no such file or folder")
            return 2
        if STDIN in self.args.inputs:
            from evalkit.services.inputs.stdin import stdin_problem

            problem = stdin_problem(self.args.inputs)
            if problem is not None:
                self._say(problem)
                return 2
        config = self._config()
        if config is None:
            return 2
        items = _items(self.args.inputs)
        first = list(itertools.islice(items, 2))
        if not first:
            self._say(no_submissions(self.args.inputs))
            return 2
        batch = _is_batch(self.args.inputs, len(first))
        want = Want(
            result=True,
            explain=bool(self.args.explain_json),
            report=bool(self.args.report_md),
            pretty=not batch,
        )
        stdin = STDIN in self.args.inputs  # read once, here: its length is unknown, no worker can read it
        total = count_items(self.args.inputs) if batch and not stdin and sys.stderr.isatty() else 0
        progress = Progress(total, counted, enabled=total > 1)
        if batch and not stdin and can_render_in_workers(self.args.inputs):
            items.close()  # read again, from the start, and rendered chunk by chunk (by workers with --jobs)
            if self.args.jobs > 1:
                # what each worker's renderer imports (msgspec), imported here once, before they are forked:
                # a worker importing it itself takes longer than this process does (it copies every page
                # of the parent's that the import writes to), and the first chunk waits for it
                import msgspec.json  # noqa: F401
            outcomes: Generator[Any, None, None] = evaluate_rendered(
                config,
                self.args.inputs,
                want,
                self.args.jobs,
                bool(self.args.log_file or self.args.report_md),
                hold=_files_of_our_own(self.args.out, self.args.explain_json),
            )
        else:
            outcomes = evaluate_all(config, itertools.chain(first, items), want, self.args.jobs)
        try:
            errors = self._stream(config, outcomes, batch, progress)
        except BaseException as ended:
            progress.clear()  # the message that follows starts at the left edge
            outcomes.close()
            if self.args.out is None:  # a prefix of the whole output, without holes; said on Ctrl+C, SIGTERM
                from evalkit.services.run.pool import cut_stdout

                note = cut_stdout()
                if note is not None and isinstance(ended, KeyboardInterrupt):
                    print(f"{self.prog}: {note}", file=sys.stderr)
            raise
        finally:
            outcomes.close()  # worker processes end here, whatever ended the run
        return 1 if errors else 0

    def _config(self) -> Config | None:
        refuse_missing_config_dir(self.args.config_dir)
        config = load_for_eval(self.args.config_dir)
        refuse_without_config_files(config)
        for diagnostic in config.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        if config.plan is None:
            self._say("the config has errors; nothing was evaluated")
            return None
        self.log.info(
            "config %s (hash %s, rule version %s)",
            shown(str(config.folder)),
            config.config_hash,
            config.plan.rule_version,
        )
        return config

    def _stream(
        self, config: Config, outcomes: Iterator[Outcome | Rendered], batch: bool, progress: Progress
    ) -> int:
        """Write each outcome (or chunk rendered by a worker) as it comes; returns how many were errors."""
        args = self.args
        reported: list[Outcome] = []
        errors = 0
        with contextlib.ExitStack() as outputs:
            results = self._open(outputs, args.out) or Sink("stdout", sys.stdout)
            explain = self._open(outputs, args.explain_json)
            report = self._open(outputs, args.report_md)  # opened now: one it cannot write stops the run here
            for outcome in _placing_named(outcomes, results, explain):
                if isinstance(outcome, Rendered):
                    errors += self._write_rendered(outcome, results, explain, progress, reported)
                    continue
                self._record(outcome, progress)
                progress.advance(1)
                errors += outcome.error is not None
                results.write(_rendered(outcome, "result", batch))
                if explain is not None:
                    explain.write(_rendered(outcome, "explain", batch))
                if args.report_md:  # the summary heads the report: sections wait for the last outcome
                    reported.append(
                        Outcome(
                            outcome.source, report=outcome.report, error=outcome.error, label=outcome.label
                        )
                    )
            progress.finish()
            if report is not None:
                report.write(_report(config, reported))
        return errors

    def _write_rendered(
        self,
        rendered: Rendered,
        results: Sink,
        explain: Sink | None,
        progress: Progress,
        reported: list[Outcome],
    ) -> int:
        """A worker's chunk: its lines written as they are; the log, stderr and the report from its notes."""
        errors = 0
        for note in rendered.notes:
            self._record(note, progress)
            errors += note.error is not None
        if self.args.report_md:
            reported.extend(rendered.notes)
        results.write_bytes(rendered.result)
        if explain is not None and rendered.explain is not None:
            explain.write_bytes(rendered.explain)
        progress.advance(rendered.count)
        return errors

    @staticmethod
    def _open(outputs: contextlib.ExitStack, path: str | None) -> Sink | None:
        """An output file, written atomically; an error closing it (the last flush) names it too."""
        if path is None:
            return None
        outputs.enter_context(_writing(path))
        return Sink(path, outputs.enter_context(atomic_output(path)))

    def _record(self, outcome: Outcome, progress: Progress) -> None:
        if outcome.error:
            progress.clear()
            from evalkit.engine.untrusted_text import shown_as

            print(shown_as(f"{outcome.source}: error: {outcome.error}"), file=sys.stderr)
            self.log.warning("%s: %s", outcome.source, outcome.error)
        else:
            self.log.info(
                "%s: label=%s fired=%s", outcome.source, outcome.label, ",".join(outcome.fired) or "-"
            )


def _placing_named(outcomes: Iterator[Any], results: Sink, explain: Sink | None) -> Iterator[Any]:
    """`outcomes`; a chunk a worker could not write into the results or the explanations (PlacingFailed)
    names that output, as a write of the parent's would."""
    try:
        yield from outcomes
    except PlacingFailed as failed:
        sink = explain if explain is not None and failed.fd == explain.handle.fileno() else results
        raise OutputFailed(sink.name, failed.strerror or str(failed)) from None


OUTPUT_FLAGS = ("out", "explain_json", "report_md", "log_file")


def _files_of_our_own(out: str | None, explain: str | None) -> bool:
    """Whether the results and explanations go to regular files that `--jobs` workers can write their chunks
    into themselves, at offsets the parent gives: --out and --explain-json (atomic outputs' temporary
    files, open before the workers start), or stdout redirected to a file (`> results.jsonl`, not `>>`:
    there each write would go to the end); not a device or a pipe."""
    from evalkit.services.run.pool import stdout_is_a_file

    if out is None and not stdout_is_a_file():
        return False
    paths = [path for path in (out, explain) if path is not None]
    return all(os.path.isfile(path) or not os.path.exists(path) for path in paths)


def _outputs(args: argparse.Namespace) -> list[str]:
    return [path for path in (getattr(args, flag) for flag in OUTPUT_FLAGS) if path is not None]


def _same_output(args: argparse.Namespace) -> str | None:
    """Two output flags naming one file (the last written would silently replace the other), or None.
    Devices and pipes (`/dev/stdout`, `/dev/null`) are written in place, so they may be named twice."""
    seen: dict[Path, str] = {}
    for flag in OUTPUT_FLAGS:
        path = getattr(args, flag)
        if path is None or (os.path.exists(path) and not os.path.isfile(path)):
            continue
        option = "--" + flag.replace("_", "-")
        key = Path(path).resolve()
        if key in seen:
            return f"{seen[key]} and {option} both name {path}"
        seen[key] = option
    return None


def _output_is_input(args: argparse.Namespace) -> str | None:
    """An output flag naming one of the inputs (written over once read, or appended to), or None."""
    for flag in OUTPUT_FLAGS:
        path = getattr(args, flag)
        read = None if path is None else input_written_over(path, args.inputs)
        if read is not None:
            option = "--" + flag.replace("_", "-")
            also = "" if read == path else f" ({read})"
            return f"{option} {path} is also an input{also}"
    return None


def _rendered(outcome: Outcome, field: str, batch: bool) -> str:
    """One outcome's line of JSON Lines (with its "source"), or a single submission's pretty JSON."""
    body = getattr(outcome, field)
    if batch or body is None:
        return jsonl_line(outcome, field)
    return body + "\n"


def _summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """The report's counts: submissions evaluated, errors, and each label."""
    labels: dict[str, int] = {}
    for outcome in outcomes:
        if outcome.error is None:
            labels[str(outcome.label)] = labels.get(str(outcome.label), 0) + 1
    errors = sum(1 for o in outcomes if o.error is not None)
    return {"count": len(outcomes) - errors, "errors": errors, "labels": labels}


def _report(config: Config, outcomes: list[Outcome]) -> str:
    from evalkit.services.run.report_md import error_section, render_report

    summary: dict[str, Any] = {
        **_summary(outcomes),
        "config_hash": config.config_hash,
        "rule_version": config.plan.rule_version if config.plan else None,
    }
    sections = [o.report or error_section(o.source, str(o.error)) for o in outcomes]
    return render_report(sections, summary)
