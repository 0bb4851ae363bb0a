"""`evalkit eval --ray [ADDRESS]` and `evalkit score --ray [ADDRESS]`: the same run on a Ray cluster.

The driver (this process) checks the config, cuts the inputs into chunks (evalkit/ray/_chunks.py), has
actors across the cluster evaluate or score them (evalkit/ray/_scheduler.py), and takes what comes back in
input order: JSONL (the local run's lines, byte for byte) to stdout or `--out`, a Parquet file for an
`--out` ending in `.parquet`, or, for an `--out` folder, only the names of the parts the workers wrote
there, into its manifest (evalkit/ray/_outputs.py). Exit codes are the local run's; a run the cluster
cannot finish (a lost head, a chunk that kills its workers, no progress for a long time) stops with one
message and exit 2, its output left as it was before. Without Ray installed, `--ray` exits 2 saying how to
install it.

Ray's own messages never reach the data: stdout's descriptor is kept for the output alone and descriptor 1
points at stderr while Ray runs, whatever writes to it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    from evalkit.ray._chunks import Done, Job, Task
    from evalkit.ray._outputs import Output

LOCAL = "local"
"""`--ray` without an address: a new Ray instance on this machine, for the run (`ray.init`'s "local")."""

CONNECT_TIMEOUT_S = 10
HEAD_CHECK_S = 1.0
HEAD_LOST_CHECKS = 3
"""Failed checks in a row (one a second) after which the cluster's head counts as lost."""
UNWIND_S = 10.0
"""Seconds the main thread has to stop once the head is lost, before the watchdog ends the process itself."""
AUTH_FAILURE = "InvalidAuthToken"
NOT_WITH_RAY = ("explain_json", "report_md", "log_file")


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL,
        metavar="ADDRESS",
        help="run on a Ray cluster: ADDRESS of its head (host:port, or auto), or none to start Ray on this "
        "machine (needs pip install 'evalkit-rules[ray]')",
    )


def file_after_ray(argv: list[str]) -> list[str]:
    """`argv` with a file or folder that follows `--ray` read as an input, not as the cluster's address
    (`--ray` takes an optional ADDRESS: `eval --ray samples.jsonl` would otherwise look for a cluster at
    samples.jsonl and then say INPUT is missing): `--ray PATH` becomes `--ray=local PATH`."""
    out = list(argv)
    for index, token in enumerate(out[:-1]):
        following = out[index + 1]
        if token == "--":
            break
        if token == "--ray" and not following.startswith("-") and os.path.exists(following):
            out[index] = f"--ray={LOCAL}"
    return out


def run_eval(args: argparse.Namespace) -> int:
    return _run(args.prog, lambda: _eval(args))


def run_score(args: argparse.Namespace) -> int:
    return _run(args.prog, lambda: _score(args))


def _run(command: str, body: Callable[[], int]) -> int:
    try:
        return body()
    except UsageProblem as problem:
        from evalkit.engine.untrusted_text import shown_as

        print(f"{command}: {shown_as(problem)}", file=sys.stderr)
        return 2


class Stopped(Exception):
    """The run was stopped from outside (the head lost, SIGTERM): one message, exit 2."""


def _eval(args: argparse.Namespace) -> int:
    for flag in NOT_WITH_RAY:
        if getattr(args, flag):
            raise UsageProblem(f"--{flag.replace('_', '-')} is not available with --ray (only --out)")
    if args.jobs != 1:
        raise UsageProblem("--jobs does not go with --ray: Ray runs one evaluator per CPU of the cluster")
    if "-" in args.inputs:
        raise UsageProblem(
            "--ray reads files, not standard input (-): Ray's workers read the inputs themselves"
        )
    config = _checked_config(args.config_dir, args.prog)
    if config is None:
        return 2
    _require_ray()
    from evalkit.engine.untrusted_text import shown_as
    from evalkit.ray._chunks import eval_tasks
    from evalkit.ray._files import EVAL_SUFFIXES
    from evalkit.ray._workers import config_files

    files = _files(args.inputs, EVAL_SUFFIXES)
    progress = _progress(files)
    errors = 0

    def take(done: Done) -> None:
        nonlocal errors
        for line in done.errors:
            progress.clear()
            print(shown_as(line), file=sys.stderr)
        errors += len(done.errors)
        progress.advance(done.records)

    _on_ray(args, "eval", config_files(args.config_dir), eval_tasks(files), take)
    progress.finish()
    return 1 if errors else 0


def _score(args: argparse.Namespace) -> int:
    if args.jobs != 1:
        raise UsageProblem("--jobs does not go with --ray: Ray runs one scorer per CPU of the cluster")
    _require_ray()
    from evalkit.commands.score import render_summary
    from evalkit.engine.text import shown
    from evalkit.qydomain.summary import ScoreSummary
    from evalkit.ray._chunks import score_tasks
    from evalkit.ray._files import SCORE_SUFFIXES
    from evalkit.services.run.score import show_error

    files = _files([args.input], SCORE_SUFFIXES)
    summary, bad = ScoreSummary(), 0
    progress = _progress(files)

    def take(done: Done) -> None:
        nonlocal bad
        if done.problem is not None:
            raise UsageProblem(f"{shown(args.input)}: cannot read: {done.problem}")
        for line in done.errors:
            bad += 1
            show_error(progress, bad, line)
        for data_source, values in done.scores.items():
            summary.extend(data_source, values)
        progress.advance(done.records)

    stdout = _on_ray(args, "score", None, score_tasks(files), take)
    progress.finish()
    report = render_summary(args, summary, bad) + "\n"
    if args.out:
        stdout.write(report.encode("utf-8"))
        stdout.flush()
    else:
        sys.stderr.write(report)
    return 1 if bad else 0


def _on_ray(
    args: argparse.Namespace,
    command: str,
    config: dict[str, bytes] | None,
    tasks: Iterator[Task],
    take: Callable[[Done], None],
) -> IO[bytes]:
    """Connect, run every chunk, write the output; returns the stream stdout's data goes to. Raises
    UsageProblem (exit 2) for a run that could not finish, its output left as it was."""
    from evalkit.ray._chunks import Job
    from evalkit.ray._outputs import form_of

    stdout = _keep_stdout()
    _connect(args.ray, args.prog)
    output = _output(args.out, command, stdout)
    job = Job(command, config, form_of(args.out), output.parts, output.stamp)
    with _watched(output, args.prog):
        try:
            _run_chunks(job, tasks, take, output)
        except BaseException:
            output.discard()
            raise
        output.commit(command)
    return stdout


def _run_chunks(job: Job, tasks: Iterator[Task], take: Callable[[Done], None], output: Output) -> None:
    from evalkit.ray._scheduler import RunFailed, run_chunks

    def taken(done: Done) -> None:
        take(done)
        try:
            output.take(done)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise UsageProblem(f"cannot write {exc.filename or 'stdout'}: {exc.strerror}") from None

    try:
        run_chunks(job, tasks, taken, describe=_described)
    except RunFailed as failed:
        raise UsageProblem(f"the run on Ray failed: {failed}") from None


def _described(task: Task) -> str:
    from evalkit.ray._chunks import ParquetFile
    from evalkit.services.run.pool import LineRange

    if isinstance(task, LineRange):
        return f"{task.source} from line {task.first}"
    if isinstance(task, ParquetFile):
        return task.source
    return f"{task[0].source} and the {len(task) - 1} files after it"


def _output(out: str | None, command: str, stdout: IO[bytes]) -> Output:
    from evalkit.ray._outputs import FileOutput, FolderOutput, StreamOutput, form_of, is_folder
    from evalkit.ray._workers import EVALUATED_SCHEMA, SCORED_SCHEMA

    try:
        if out is None:
            return StreamOutput(stdout)
        if is_folder(out):
            return FolderOutput(out, form_of(out))
        schema = (
            (EVALUATED_SCHEMA if command == "eval" else SCORED_SCHEMA) if form_of(out) == "parquet" else None
        )
        return FileOutput(out, schema)
    except OSError as exc:
        raise UsageProblem(f"cannot write {exc.filename or out}: {exc.strerror}") from None


def _keep_stdout() -> IO[bytes]:
    """A stream of its own for the output on stdout's descriptor; descriptor 1 then points at stderr, so
    that whatever Ray prints (its processes' messages, a killed worker's lines) goes there, not into the
    data."""
    sys.stdout.flush()
    kept = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(kept, "wb")


def _checked_config(folder: str | None, prog: str) -> Any:
    from evalkit.engine.config import analyze
    from evalkit.services.config.folders import refuse_missing_config_dir, refuse_without_config_files

    refuse_missing_config_dir(folder)
    config = analyze(folder)
    refuse_without_config_files(config)
    for diagnostic in config.diagnostics:
        print(diagnostic.format(), file=sys.stderr)
    if config.plan is None:
        print(f"{prog}: the config has errors; nothing was evaluated", file=sys.stderr)
        return None
    return config


def _require_ray() -> None:
    try:
        import pyarrow  # noqa: F401
        import ray  # noqa: F401
    except ImportError:
        raise UsageProblem(
            "--ray needs Ray Data, which is not installed: pip install 'evalkit-rules[ray]'"
        ) from None


def _files(inputs: list[str], suffixes: tuple[str, ...]) -> list[Path]:
    from evalkit.ray._files import input_files

    missing = [path for path in inputs if not os.path.exists(path)]
    if missing:
        raise UsageProblem(f"{missing[0]}: no such file or folder")
    files = input_files(inputs, suffixes)
    if not files:
        raise UsageProblem(f"no input files found (expected {', '.join(suffixes)})")
    return files


def _connect(address: str, prog: str) -> None:
    """Join the cluster at `address`, or start Ray on this machine; quietly, as the run shows progress.

    ray.init runs from a neutral folder: Ray puts the driver's working folder first on every worker's
    import path, and a project checkout's `evalkit/` folder there would hide the installed package."""
    import logging

    import ray

    _check_reachable(address)
    here = os.getcwd()
    try:
        with _auth_failure_stops(address, prog):
            os.chdir(os.path.abspath(os.sep))
            ray.init(
                address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False
            )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UsageProblem(f"cannot connect to the Ray cluster at {address}: {_first_line(exc)}") from None
    finally:
        os.chdir(here)


@contextlib.contextmanager
def _auth_failure_stops(address: str, prog: str) -> Iterator[None]:
    """While connecting: a cluster that refuses the driver's token (`InvalidAuthToken`, which Ray would
    print 20 times over 25 s before giving up) stops the run at the first refusal, with one message saying
    what to set. Ray's C++ core prints the refusal on stderr, so stderr is read through a pipe meanwhile
    (what else Ray says there is passed on)."""
    read, write = os.pipe()
    saved = os.dup(2)
    os.dup2(write, 2)
    os.close(write)
    done = threading.Event()

    def watch() -> None:
        pending = b""
        while chunk := os.read(read, 65536):
            pending = (pending + chunk)[-4096:]
            refused = AUTH_FAILURE.encode() in pending
            if not done.is_set() and not refused:
                os.write(saved, chunk)
            if refused and not done.is_set():
                mode = os.environ.get("RAY_AUTH_MODE", "not set")
                os.write(
                    saved,
                    f"{prog}: the Ray cluster at {address} uses token authentication and refused this "
                    f"driver's token (RAY_AUTH_MODE is {mode}): set RAY_AUTH_MODE=token and the cluster's "
                    "token (RAY_AUTH_TOKEN, or ~/.ray/auth_token; `ray get-auth-token` on the head shows "
                    "it)\n".encode(),
                )
                os._exit(2)  # ray.init is stuck in Ray's core, retrying: nothing was written yet

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()  # the watcher reads on, dropping it: a local Ray's processes inherited the pipe as stderr
        os.dup2(saved, 2)


def _check_reachable(address: str) -> None:
    """Refuse a `host:port` nobody answers at: Ray would retry it for minutes, printing warnings."""
    import socket

    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or "://" in address:
        return  # local, auto, ray://...: Ray says itself, at once, when there is no cluster
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise UsageProblem(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def _watched(output: Output, prog: str) -> Iterator[None]:
    """The run, stopped with one message and exit 2 when the cluster's head is lost (checked every second:
    Ray's driver would otherwise wait a minute for it, or for ever) or when the driver gets SIGTERM; the
    output is given up either way, so no partial output is left."""
    import _thread

    import ray

    reason: list[str] = []
    finished = threading.Event()
    head = ray.get_runtime_context().gcs_address
    head_lost = f"the Ray cluster's head at {head} was lost; the run stopped, its output not written"

    def stop(why: str) -> None:
        reason.append(why)
        _thread.interrupt_main()
        if not finished.wait(UNWIND_S):  # the main thread is stuck in Ray: end here, cleaning up
            output.discard()
            os.write(2, f"{prog}: {why}\n".encode())
            os._exit(2)

    def watch() -> None:
        failures = 0
        while not finished.wait(HEAD_CHECK_S):
            failures = 0 if _answers(head) else failures + 1
            if failures == HEAD_LOST_CHECKS:
                stop(head_lost)
                return

    def terminated(*_: object) -> None:
        reason.append("stopped by SIGTERM; the output was not written")
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminated)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    except BaseException as stopped:
        # whatever the run stopped with (Ray's calls fail in many ways when the head's node goes, a
        # BrokenPipeError from its object store among them), a lost head is what is said
        if not reason and not (isinstance(stopped, Exception) and _gone(head)):
            raise
        output.discard()
        sys.stderr.write(f"{prog}: {reason[0] if reason else head_lost}\n")
        sys.stderr.flush()
        os._exit(2)  # Ray's exit handlers would wait for the lost head
    finally:
        finished.set()
        signal.signal(signal.SIGTERM, previous)


def _gone(head: str) -> bool:
    """Whether the head does not answer now, or a second later (an error of the run's may come first)."""
    if not _answers(head):
        return True
    time.sleep(HEAD_CHECK_S)
    return not _answers(head)


def _answers(address: str) -> bool:
    import socket

    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=HEAD_CHECK_S).close()
    except (OSError, ValueError):
        return False
    return True


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _progress(files: list[Path]) -> Any:
    """Eval's progress bar, counted ahead only when it will be drawn (a terminal)."""
    import pyarrow.parquet as pq

    from evalkit.ray._files import PARQUET
    from evalkit.services.run.batch import count_items
    from evalkit.services.run.progress import Progress, counted

    if not sys.stderr.isatty():
        return Progress(0, counted)
    rows = sum(pq.ParquetFile(path).metadata.num_rows for path in files if path.suffix == PARQUET)
    total = rows + count_items(str(path) for path in files if path.suffix != PARQUET)
    return Progress(total, counted, enabled=total > 1)
