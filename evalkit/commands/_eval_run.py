"""The body of `evalkit eval`, kept out of eval_.py so that parsing arguments imports nothing heavy."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator, TextIO

from evalkit.engine.atomic import atomic_output, write_text_atomic
from evalkit.engine.batch import Outcome, Want, count_items, evaluate_all, raw_items
from evalkit.engine.config import Config
from evalkit.engine.config_cache import load_for_eval


class RunLog:
    """The seed's --log-file: one line per config and per submission. Without the flag it does nothing and
    `logging` is not even imported (it is a tenth of the cold start)."""

    def __init__(self, path: str | None) -> None:
        self._logger: Any = None
        if path:
            import logging

            handler = logging.FileHandler(path, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            self._logger = logging.Logger("evalkit.eval", logging.INFO)  # not registered: one per run
            self._logger.addHandler(handler)

    def info(self, message: str, *args: Any) -> None:
        if self._logger is not None:
            self._logger.info(message, *args)

    def warning(self, message: str, *args: Any) -> None:
        if self._logger is not None:
            self._logger.warning(message, *args)

    def close(self) -> None:
        if self._logger is not None:
            for handler in self._logger.handlers:
                handler.close()


class Progress:
    """A one-line progress bar on stderr, only on a terminal and only for batches. The total is counted
    ahead (count_items: blank lines included), so `finish` closes the bar at what was really done."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.stream, self.done = total, stream, 0
        self.enabled = total > 1 and stream.isatty()
        self._last = 0.0
        self._open = False  # a bar is on the line

    def step(self) -> None:
        self.done += 1
        self.total = max(self.total, self.done)
        now = time.monotonic()
        if self.enabled and now - self._last > 0.1:
            self._last = now
            self._draw()

    def finish(self) -> None:
        if self.enabled and self.done:
            self.total = self.done
            self._draw()
            self.stream.write("\n")
            self.stream.flush()
            self._open = False

    def clear(self) -> None:
        """Erase the bar's line, so that a message printed next starts at the left edge."""
        if self._open:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._open = False

    def _draw(self) -> None:
        filled = int(30 * self.done / self.total)
        self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}")
        self.stream.flush()
        self._open = True


def _is_batch(inputs: list[str], first_items: int) -> bool:
    return first_items != 1 or len(inputs) != 1 or Path(inputs[0]).is_dir() or inputs[0].endswith(".jsonl")


class EvalRun:
    """Streams: items are read, evaluated and written one after another, so a batch of any size runs in
    constant memory and `| head` sees results as they come. Files are still written atomically (into a
    temporary file renamed at the end); only the Markdown report keeps every section until the end."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    def execute(self) -> int:
        clash = _same_output(self.args)
        if clash:
            print(f"evalkit eval: {clash}; give each output its own file", file=sys.stderr)
            return 2
        try:
            self.log = RunLog(self.args.log_file)
        except OSError as exc:
            print(f"evalkit eval: cannot write the log {self.args.log_file}: {exc.strerror}", file=sys.stderr)
            return 2
        try:
            return self._execute()
        finally:
            self.log.close()

    def _execute(self) -> int:
        missing = [p for p in self.args.inputs if not Path(p).exists()]
        if missing:
            for path in missing:
                print(f"evalkit eval: {path}: no such file or folder", file=sys.stderr)
            return 2
        config = self._config()
        if config is None:
            return 2
        items = raw_items(self.args.inputs)
        first = list(itertools.islice(items, 2))
        if not first:
            print("evalkit eval: no submissions found in the inputs", file=sys.stderr)
            return 2
        batch = _is_batch(self.args.inputs, len(first))
        want = Want(result=True, explain=bool(self.args.explain_json), report=bool(self.args.report_md),
                    pretty=not batch)
        progress = Progress(count_items(self.args.inputs) if batch and sys.stderr.isatty() else 0)
        outcomes = evaluate_all(config, itertools.chain(first, items), want, self.args.jobs)
        try:
            errors = self._stream(config, outcomes, batch, progress)
        except BrokenPipeError:  # stdout's reader went away (`| head -1`): the dispatcher ends quietly
            raise
        except OSError as exc:
            progress.clear()
            print(f"evalkit eval: cannot write {exc.filename or 'to stdout'}: {exc.strerror}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            progress.clear()
            raise
        return 1 if errors else 0

    def _config(self) -> Config | None:
        config = load_for_eval(self.args.config_dir)
        for diagnostic in config.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        if config.plan is None:
            print("evalkit eval: the config has errors; nothing was evaluated", file=sys.stderr)
            return None
        self.log.info("config %s (hash %s, rule version %s)", config.folder, config.config_hash, config.plan.rule_version)
        return config

    def _stream(self, config: Config, outcomes: Iterator[Outcome], batch: bool, progress: Progress) -> int:
        """Write each outcome as it comes; returns how many were errors."""
        args = self.args
        reported: list[Outcome] = []
        errors = 0
        with contextlib.ExitStack() as outputs:
            results = outputs.enter_context(atomic_output(args.out)) if args.out else sys.stdout
            explain = outputs.enter_context(atomic_output(args.explain_json)) if args.explain_json else None
            for outcome in outcomes:
                self._record(outcome, progress)
                progress.step()
                errors += outcome.error is not None
                results.write(_rendered(outcome, "result", batch))
                if explain is not None:
                    explain.write(_rendered(outcome, "explain", batch))
                if args.report_md:  # the summary heads the report: sections wait for the last outcome
                    reported.append(Outcome(outcome.source, report=outcome.report, error=outcome.error,
                                            label=outcome.label))
            progress.finish()
            if args.report_md:
                write_text_atomic(args.report_md, _report(config, reported))
        return errors

    def _record(self, outcome: Outcome, progress: Progress) -> None:
        if outcome.error:
            progress.clear()
            print(f"{outcome.source}: error: {outcome.error}", file=sys.stderr)
            self.log.warning("%s: %s", outcome.source, outcome.error)
        else:
            self.log.info("%s: label=%s fired=%s", outcome.source, outcome.label, ",".join(outcome.fired) or "-")


OUTPUT_FLAGS = ("out", "explain_json", "report_md", "log_file")


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


def _error_json(outcome: Outcome) -> str:
    return json.dumps({"source": outcome.source, "error": {"message": outcome.error}}, ensure_ascii=False)


def _rendered(outcome: Outcome, field: str, batch: bool) -> str:
    """One outcome's line of JSON Lines (with its "source"), or a single submission's pretty JSON."""
    body = getattr(outcome, field)
    if body is None:
        return _error_json(outcome) + "\n"
    if not batch:
        return body + "\n"
    return f'{{"source": {json.dumps(outcome.source, ensure_ascii=False)}, ' + body[1:] + "\n"


def _report(config: Config, outcomes: list[Outcome]) -> str:
    from evalkit.commands.eval_ import summary_of
    from evalkit.engine.report import render_report

    summary: dict[str, Any] = {**summary_of(outcomes), "config_hash": config.config_hash,
                               "rule_version": config.plan.rule_version if config.plan else None}
    sections = [o.report or f"## {o.source}\n\nError: {o.error}\n" for o in outcomes]
    return render_report(sections, summary)
