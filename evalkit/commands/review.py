"""`evalkit review INPUT... [--config-dir DIR] [--decisions FILE] [--export FILE]`: the reviewer TUI.

Every decision goes to the journal (JSON Lines) at once; by default `<first INPUT>.decisions.jsonl`
beside the first input (for a folder, beside the folder). Reopening with the same journal resumes. With
`--export FILE` no screen opens: the journal is replayed and the reviewed results written to FILE.

Exit codes: 0 on a normal quit or export; 1 for an export with submissions that cannot be read or are
invalid (each said on stderr, as `eval` says it); 2 when nothing can be done (no input found, an
unreadable journal, a config folder that does not exist, an export with a broken config).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.services.review.files import EXPORT_SUFFIX, JOURNAL_SUFFIX, default_path
from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from collections.abc import Iterator

    from evalkit.engine.config import Config
    from evalkit.tui.journal import Journal
    from evalkit.tui.journal_lock import JournalLock
    from evalkit.tui.model import ReviewSession


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="submission files (.json, .yaml, .jsonl) or folders of them; required, unless --queue",
    )
    parser.add_argument(
        "--config-dir", metavar="DIR", help="the rule config folder (default: the shipped one)"
    )
    parser.add_argument(
        "--decisions", metavar="FILE", help=f"the decisions journal (default: <first INPUT>{JOURNAL_SUFFIX})"
    )
    parser.add_argument(
        "--export",
        metavar="FILE",
        help="write the reviewed results as JSON Lines to FILE and exit, without the screen",
    )
    from evalkit.commands._signing import add_options

    add_options(parser)  # --sign: the export, or the journal's checkpoint when the session ends
    parser.add_argument(
        "--queue", metavar="URL", help="review a team's queue (evalkit queue) instead of files"
    )
    parser.add_argument(
        "--reviewer", metavar="NAME", help="with --queue: your name (default: the login name)"
    )
    parser.add_argument(
        "--adjudicate", action="store_true", help="with --queue: settle the items reviewers disagree on"
    )


def run(args: argparse.Namespace) -> int:
    if args.queue or args.reviewer or args.adjudicate:
        from evalkit.commands._review_queue import run_queue_review

        return run_queue_review(args)
    try:
        files = _input_files(args.inputs)
        config = _config(args.config_dir)
        journal_path = (
            Path(args.decisions) if args.decisions else default_path(args.inputs[0], JOURNAL_SUFFIX)
        )
        _refuse_outputs_over_inputs(args.inputs, journal_path, args.export)
        session, journal, skipped = open_session(config, journal_path)
        if args.export:
            return _signed_export(
                args, lambda: _export(session, files, Path(args.export)), files, journal_path
            )
        _refuse_without_terminal()
        lock = _lock(journal_path)
    except UsageProblem as problem:
        from evalkit.engine.untrusted_text import shown_as

        print(f"evalkit review: {shown_as(problem)}", file=sys.stderr)
        return 2
    from evalkit.tui.app import ReviewApp

    app = ReviewApp(
        session,
        files,
        journal,
        default_path(args.inputs[0], EXPORT_SUFFIX),
        skipped_entries=skipped,
        lock=lock,
    )
    return _signed_session(args, app, lock, files, journal_path)


def _session(app: Any, lock: JournalLock) -> int:
    try:
        app.run()
    finally:
        lock.release()
    if app.crash_report is not None:
        print(app.crash_report, file=sys.stderr)
    return int(app.return_code or 0)


def _signed_export(args: argparse.Namespace, export: Any, files: list[Path], journal: Path) -> int:
    if not (args.sign or args.tsa):
        return int(export())
    from evalkit.commands._signing import signed_review_export

    return signed_review_export(args, export, files, journal)


def _signed_session(
    args: argparse.Namespace, app: Any, lock: JournalLock, files: list[Path], journal: Path
) -> int:
    if not (args.sign or args.tsa):
        return _session(app, lock)
    from evalkit.commands._signing import signed_checkpoint

    return signed_checkpoint(args, lambda: _session(app, lock), lambda: list(app.exported), files, journal)


def _refuse_without_terminal() -> None:
    """The screen reads keys from standard input and draws on standard error; without a terminal on all
    three streams it would wait for keys that never come, writing escape codes into a file or a pipe."""
    streams = (("input", sys.stdin), ("output", sys.stdout), ("error", sys.stderr))
    missing = [name for name, stream in streams if stream is None or not stream.isatty()]
    if missing:
        names = ", ".join(missing[:-1]) + (" and " if len(missing) > 1 else "") + missing[-1]
        verb = "is not a terminal" if len(missing) == 1 else "are not terminals"
        raise UsageProblem(
            f"the review screen needs a terminal, and standard {names} {verb}; to write the reviewed "
            "results without the screen, use --export FILE"
        )


def _lock(journal_path: Path) -> JournalLock:
    from evalkit.tui.journal_lock import JournalLocked, lock_journal

    try:
        return lock_journal(journal_path)
    except JournalLocked as exc:
        raise UsageProblem(str(exc)) from None


def _input_files(inputs: list[str]) -> list[Path]:
    """The submission files to read; a folder's own journals and exports are not submissions."""
    from evalkit.services.inputs.read import expand_inputs

    if not inputs:
        raise UsageProblem("no INPUT given: name submission files, JSONL files or folders to review")
    files: list[Path] = []
    for name in inputs:
        found, missing = expand_inputs([name])
        if missing:
            raise UsageProblem(f"{name}: no such file or folder")
        files.extend(found)  # a folder's listing leaves its journals and exports out
    if not files:
        raise UsageProblem(f"no submission files (.json, .yaml, .yml, .jsonl) in {', '.join(inputs)}")
    return files


def _refuse_outputs_over_inputs(inputs: list[str], journal: Path, export: str | None) -> None:
    """The journal (appended to) and the export (replaced) must be files of their own."""
    from evalkit.engine.text import shown
    from evalkit.services.outputs.over_input import input_written_over

    if input_written_over(str(journal), inputs) is not None:
        name = shown(str(journal))
        raise UsageProblem(f"--decisions {name} is also an input; give the journal its own file")
    if export is not None and Path(export).is_dir():  # found now, not after every submission was evaluated
        raise UsageProblem(f"{shown(export)}: cannot write: it is a folder")
    if export is not None and input_written_over(export, [*inputs, str(journal)]) is not None:
        raise UsageProblem(f"--export {shown(export)} is also an input or the journal; give it its own file")


def _config(config_dir: str | None) -> Config:
    from evalkit.engine.config import analyze
    from evalkit.services.config.folders import refuse_missing_config_dir, refuse_without_config_files

    refuse_missing_config_dir(config_dir)
    config = analyze(config_dir)
    refuse_without_config_files(config)
    return config


def open_session(config: Config, journal_path: Path) -> tuple[ReviewSession, Journal, int]:
    """A session with the journal replayed; also the number of journal lines that could not be used."""
    from evalkit.tui.journal import Journal, JournalError
    from evalkit.tui.model import ReviewSession

    if journal_path.is_dir() or not journal_path.parent.is_dir():
        raise UsageProblem(f"--decisions {journal_path}: expected a file in an existing folder")
    journal = Journal(journal_path)
    try:
        contents = journal.read()
    except JournalError as exc:
        raise UsageProblem(str(exc)) from None
    session = ReviewSession(config, sink=journal.append)
    skipped = session.replay(contents.entries) + len(contents.problems)
    return session, journal, skipped


def _export(session: ReviewSession, files: list[Path], destination: Path) -> int:
    from evalkit.engine.text import counted
    from evalkit.engine.untrusted_text import shown_as
    from evalkit.services.inputs.read import read_file
    from evalkit.tui.export import write_jsonl_atomic

    if not session.config.ok:
        for diagnostic in session.config.diagnostics:
            if diagnostic.severity == 1:
                print(diagnostic.format(), file=sys.stderr)
        raise UsageProblem("the config has errors; nothing exported")
    for path in files:
        session.add(read_file(path))
    unread: list[str] = []
    try:
        count = write_jsonl_atomic(destination, _told(session.export_records(), unread))
    except OSError as exc:
        raise UsageProblem(f"{destination}: cannot write: {exc.strerror or exc}") from None
    done = session.progress().done
    print(shown_as(f"{destination}: {counted(count, 'result')}, {done} reviewed"), file=sys.stderr)
    return 1 if unread else 0


def _told(records: Iterator[dict[str, Any]], unread: list[str]) -> Iterator[dict[str, Any]]:
    """The records, with each error entry said on stderr as it passes (as eval does), its source kept in
    `unread`."""
    from evalkit.engine.untrusted_text import shown_as

    for record in records:
        if "error" in record:
            unread.append(record["source"])
            print(shown_as(f"{record['source']}: error: {record['error']['message']}"), file=sys.stderr)
        yield record
