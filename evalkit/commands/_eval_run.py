"""The body of `evalkit eval`, kept out of eval_.py so that parsing arguments imports nothing heavy."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from evalkit.engine.atomic import write_text_atomic
from evalkit.engine.batch import Outcome, RawItem, Want, evaluate_all, raw_items
from evalkit.engine.config import Config, analyze


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
    """A one-line progress bar on stderr, only on a terminal and only for batches."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.stream, self.done = total, stream, 0
        self.enabled = total > 1 and stream.isatty()
        self._last = 0.0

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            filled = int(30 * self.done / self.total)
            self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()

    def clear(self) -> None:
        """Erase the bar's line, so that a message printed next starts at the left edge."""
        if self.enabled and 0 < self._last and self.done < self.total:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _is_batch(inputs: list[str], items: list[RawItem | Outcome]) -> bool:
    return len(items) != 1 or len(inputs) != 1 or Path(inputs[0]).is_dir() or inputs[0].endswith(".jsonl")


class EvalRun:
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
        items = list(raw_items(self.args.inputs))
        if not items:
            print("evalkit eval: no submissions found in the inputs", file=sys.stderr)
            return 2
        batch = _is_batch(self.args.inputs, items)
        want = Want(result=True, explain=bool(self.args.explain_json), report=bool(self.args.report_md),
                    pretty=not batch)
        outcomes = self._evaluate(config, items, want)
        try:
            self._write(config, outcomes, batch)
        except BrokenPipeError:  # stdout's reader went away (`| head -1`): the dispatcher ends quietly
            raise
        except OSError as exc:
            print(f"evalkit eval: cannot write {exc.filename or 'to stdout'}: {exc.strerror}", file=sys.stderr)
            return 2
        return 1 if any(o.error for o in outcomes) else 0

    def _config(self) -> Config | None:
        config = analyze(self.args.config_dir)
        for diagnostic in config.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        if config.plan is None:
            print("evalkit eval: the config has errors; nothing was evaluated", file=sys.stderr)
            return None
        self.log.info("config %s (hash %s, rule version %s)", config.folder, config.config_hash, config.plan.rule_version)
        return config

    def _evaluate(self, config: Config, items: list[RawItem | Outcome], want: Want) -> list[Outcome]:
        progress = Progress(len(items))
        outcomes = []
        try:
            for outcome in evaluate_all(config, items, want, self.args.jobs):
                outcomes.append(outcome)
                self._record(outcome, progress)
                progress.step()
        except KeyboardInterrupt:
            progress.clear()
            raise
        return outcomes

    def _record(self, outcome: Outcome, progress: Progress) -> None:
        if outcome.error:
            progress.clear()
            print(f"{outcome.source}: error: {outcome.error}", file=sys.stderr)
            self.log.warning("%s: %s", outcome.source, outcome.error)
        else:
            self.log.info("%s: label=%s fired=%s", outcome.source, outcome.label, ",".join(outcome.fired) or "-")

    def _write(self, config: Config, outcomes: list[Outcome], batch: bool) -> None:
        results = _lines(outcomes, "result") if batch else (outcomes[0].result or _error_json(outcomes[0])) + "\n"
        if self.args.out:
            write_text_atomic(self.args.out, results)
        else:
            sys.stdout.write(results)
        if self.args.explain_json:
            explain = _lines(outcomes, "explain") if batch else (outcomes[0].explain or _error_json(outcomes[0])) + "\n"
            write_text_atomic(self.args.explain_json, explain)
        if self.args.report_md:
            write_text_atomic(self.args.report_md, _report(config, outcomes))


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


def _lines(outcomes: list[Outcome], field: str) -> str:
    lines = []
    for outcome in outcomes:
        body = getattr(outcome, field)
        if body is None:
            lines.append(_error_json(outcome))
        else:
            source = json.dumps(outcome.source, ensure_ascii=False)
            lines.append(f'{{"source": {source}, ' + body[1:])
    return "\n".join(lines) + "\n"


def _report(config: Config, outcomes: list[Outcome]) -> str:
    from evalkit.commands.eval_ import summary_of
    from evalkit.engine.report import render_report

    summary: dict[str, Any] = {**summary_of(outcomes), "config_hash": config.config_hash,
                               "rule_version": config.plan.rule_version if config.plan else None}
    sections = [o.report or f"## {o.source}\n\nError: {o.error}\n" for o in outcomes]
    return render_report(sections, summary)
