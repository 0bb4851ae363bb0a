"""The body of `evalkit diff`, kept out of diff.py so that parsing arguments imports nothing heavy."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

from evalkit.commands.diff import PROG, gate_problems, head_folder, label_limit
from evalkit.engine.config import Config
from evalkit.engine.untrusted_text import shown_as
from evalkit.services.config.folders import refuse_missing_config_dir, refuse_without_config_files
from evalkit.services.config.gitrev import BadFile, ConfigSource, NoRevision, RevisionError, config_at
from evalkit.services.diff.impact import DiffRecipe, DiffReport, ItemDiff, Unchanged, diff_items
from evalkit.services.diff.render import RENDERERS
from evalkit.services.inputs.read import STDIN, no_submissions
from evalkit.services.inputs.stdin import items_with_stdin, stdin_problem
from evalkit.services.run.batch import raw_items
from evalkit.services.usage import UsageProblem


def _told(items: Iterator[ItemDiff | Unchanged]) -> Iterator[ItemDiff | Unchanged]:
    """The items, with each one that could not be evaluated said on stderr as it passes (as eval does)."""
    for item in items:
        if isinstance(item, ItemDiff):
            _tell(item)
        yield item


def _tell(item: ItemDiff) -> None:
    if item.base == item.head and isinstance(item.base, str):
        print(shown_as(f"{item.source}: error: {item.base}"), file=sys.stderr)
        return
    for side, problem in (("base", item.base), ("head", item.head)):
        if isinstance(problem, str):
            print(shown_as(f"{item.source}: error in the {side}: {problem}"), file=sys.stderr)


def _say(message: str) -> None:
    print(f"{PROG}: {shown_as(message)}", file=sys.stderr)


class DiffRun:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    def execute(self) -> int:
        self._check_usage()
        head_source = ConfigSource(str(head_folder(self.args)))
        head = self._config(head_source, "head")  # first: a mistyped --config-dir is said as such
        if head is None:
            return 2
        try:
            base_source = self._base_source(Path(head_source.folder))
        except BadFile as exc:
            print(shown_as(exc), file=sys.stderr)
            _say(f"the base config ({exc.folder}) has errors; nothing was compared")
            return 2
        base = self._config(base_source, "base")
        if base is None:
            return 2
        items = (
            raw_items(self.args.inputs)
            if STDIN not in self.args.inputs
            else items_with_stdin(self.args.inputs)
        )
        first = list(itertools.islice(items, 1))
        if not first:
            raise UsageProblem(no_submissions(self.args.inputs))
        report = DiffReport.between(base, head, self.args.base, head_source.folder)
        report.add_all(
            _told(
                diff_items(
                    itertools.chain(first, items),
                    base,
                    head,
                    DiffRecipe(base_source, head_source),
                    self.args.jobs,
                )
            )
        )
        return self._finish(report)

    def _check_usage(self) -> None:
        args = self.args
        refuse_missing_config_dir(args.config_dir)
        if not isinstance(args.base, str) or not args.base:  # argparse reads `--base=--` as no value at all
            raise UsageProblem(
                "--base: expected a config folder or a git revision (HEAD, origin/main, a sha)"
            )
        if args.jobs < 1:
            raise UsageProblem("--jobs must be at least 1")
        try:
            label_limit(args.max_label_changes, 0)
        except ValueError:
            raise UsageProblem(
                f"--max-label-changes {args.max_label_changes!r}: expected a count (3) or a percentage (5%)"
            ) from None
        missing = [p for p in args.inputs if p != STDIN and not Path(p).exists()]
        if missing:
            raise UsageProblem(f"{missing[0]}: no such file or folder")
        problem = stdin_problem(args.inputs)
        if problem is not None:
            raise UsageProblem(problem)

    def _base_source(self, head: Path) -> ConfigSource:
        base = self.args.base
        if Path(base).is_dir():
            return ConfigSource(base)
        try:
            return config_at(base, head)
        except NoRevision as exc:
            raise UsageProblem(f"--base {base}: not a config folder, and {exc}") from None
        except BadFile:
            raise
        except RevisionError as exc:
            raise UsageProblem(f"--base {base}: {exc}") from None

    @staticmethod
    def _config(source: ConfigSource, side: str) -> Config | None:
        """The side's compiled config, or None after printing its diagnostics as `check` does; a folder
        without config files is refused as `check` and `eval` refuse it (every submission would 'change')."""
        config = source.analyze()
        refuse_without_config_files(config)
        if config.plan is not None:
            return config
        for diagnostic in config.diagnostics:
            print(diagnostic.format(), file=sys.stderr)
        _say(f"the {side} config ({source.folder}) has errors; nothing was compared")
        return None

    def _finish(self, report: DiffReport) -> int:
        output = RENDERERS[self.args.format](report)
        sys.stdout.write(output if output.endswith("\n") else output + "\n")
        problems = gate_problems(report, self.args)
        for problem in problems:
            _say(problem)
        return 1 if problems or any(report.errors) else 0
