"""`evalkit eval --ray [ADDRESS]` and `evalkit score --ray [ADDRESS]`: the same run on a Ray cluster.

The driver (this process) checks the config, has the input files read on its own node, lets Ray Data's actors
evaluate or score them across the cluster, and writes what comes back in input order: JSONL (the local
run's lines, byte for byte) or, for an `--out` ending in `.parquet`, a Parquet file with the same records.
Exit codes are the local run's; without Ray installed, `--ray` exits 2 saying how to install it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.services.usage import UsageProblem

if TYPE_CHECKING:
    import pyarrow as pa
    import ray.data

LOCAL = "local"
"""`--ray` without an address: a new Ray instance on this machine, for the run (`ray.init`'s "local")."""

CONNECT_TIMEOUT_S = 10
NOT_WITH_RAY = ("explain_json", "report_md", "log_file")


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL,
        metavar="ADDRESS",
        help="run on a Ray cluster: ADDRESS of its head (host:port, or auto), or none to start Ray on this "
        "machine (needs pip install evalkit[ray])",
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
    from evalkit.ray import evaluate, read_submissions
    from evalkit.ray._files import EVAL_SUFFIXES
    from evalkit.ray._workers import EVALUATED_SCHEMA

    files = _files(args.inputs, EVAL_SUFFIXES)
    _connect(args.ray)
    results = evaluate(read_submissions(args.inputs), args.config_dir)
    progress = _progress(files)
    errors = 0
    with _writer(args.out, EVALUATED_SCHEMA) as write:
        for batch in _batches(results):
            write(batch)
            for source, error in zip(
                batch.column("source").to_pylist(), batch.column("error").to_pylist(), strict=False
            ):
                progress.step()
                if error is not None:
                    errors += 1
                    progress.clear()
                    print(shown_as(f"{source}: error: {error}"), file=sys.stderr)
        progress.finish()
    return 1 if errors else 0


def _score(args: argparse.Namespace) -> int:
    if args.jobs != 1:
        raise UsageProblem("--jobs does not go with --ray: Ray runs one scorer per CPU of the cluster")
    _require_ray()
    from evalkit.commands.score import _render_summary, _show_error
    from evalkit.qydomain.summary import ScoreSummary
    from evalkit.ray import read_rows, score
    from evalkit.ray._files import SCORE_SUFFIXES
    from evalkit.ray._workers import SCORED_SCHEMA

    files = _files([args.input], SCORE_SUFFIXES)
    _connect(args.ray)
    scored = score(read_rows([args.input]))
    summary, bad = ScoreSummary(), 0
    progress = _progress(files)
    with _writer(args.out, SCORED_SCHEMA) as write:
        for batch in _batches(scored):
            write(batch)
            for source, data_source, value, error in zip(
                *(batch.column(c).to_pylist() for c in ("source", "data_source", "score", "error")),
                strict=False,
            ):
                progress.step()
                if error is None:
                    summary.add(data_source, value)
                else:
                    bad += 1
                    _show_error(progress, bad, f"{source}: {error}")
        progress.finish()
    print(_render_summary(args, summary, bad), file=sys.stdout if args.out else sys.stderr)
    return 1 if bad else 0


def _checked_config(folder: str | None, prog: str) -> Any:
    from evalkit.engine.config import analyze
    from evalkit.services.config_files import refuse_missing_config_dir, refuse_without_config_files

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
        import ray.data  # noqa: F401
    except ImportError:
        raise UsageProblem("--ray needs Ray Data, which is not installed: pip install evalkit[ray]") from None


def _files(inputs: list[str], suffixes: tuple[str, ...]) -> list[Path]:
    from evalkit.ray._files import input_files

    missing = [path for path in inputs if not os.path.exists(path)]
    if missing:
        raise UsageProblem(f"{missing[0]}: no such file or folder")
    files = input_files(inputs, suffixes)
    if not files:
        raise UsageProblem(f"no input files found (expected {', '.join(suffixes)})")
    return files


def _connect(address: str) -> None:
    """Join the cluster at `address`, or start Ray on this machine; quietly, as the run shows progress."""
    import logging

    import ray
    from ray.data import DataContext

    _check_reachable(address)
    try:
        ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UsageProblem(f"cannot connect to the Ray cluster at {address}: {exc}") from None
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    context = DataContext.get_current()
    context.execution_options.preserve_order = True  # the output is in input order, as the local run's
    context.enable_progress_bars = False
    context.print_on_execution_start = False


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


def _batches(dataset: ray.data.Dataset) -> Iterator[pa.Table]:
    """The results as they come, in input order; a run Ray could not finish (an actor that died beyond its
    retries, a lost cluster) stops with exit 2, and --out is left as it was."""
    from ray.exceptions import RayError

    try:
        yield from dataset.iter_batches(batch_format="pyarrow", batch_size=None)
    except RayError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageProblem(f"the run on Ray failed: {reason}") from None


def _progress(files: list[Path]) -> Any:
    """Eval's progress bar, counted ahead only when it will be drawn (a terminal)."""
    import pyarrow.parquet as pq

    from evalkit.ray._files import PARQUET
    from evalkit.services.batch import count_items
    from evalkit.services.progress import Progress, counted

    if not sys.stderr.isatty():
        return Progress(0, counted)
    rows = sum(pq.ParquetFile(path).metadata.num_rows for path in files if path.suffix == PARQUET)
    total = rows + count_items(str(path) for path in files if path.suffix != PARQUET)
    return Progress(total, counted, enabled=total > 1)


@contextlib.contextmanager
def _writer(out: str | None, schema: pa.Schema) -> Iterator[Callable[[pa.Table], object]]:
    """Where each batch of records goes: JSONL lines to stdout or --out, or a Parquet file for a
    `.parquet` --out; files are written atomically."""
    from evalkit.services.atomic import atomic_output

    if out is None:
        yield lambda batch: sys.stdout.write(_lines(batch))
        return
    try:
        with atomic_output(out, binary=True) as handle:
            if not out.endswith(".parquet"):
                yield lambda batch: handle.write(_lines(batch).encode("utf-8"))
                return
            import pyarrow.parquet as pq

            with pq.ParquetWriter(handle, schema) as writer:
                yield lambda batch: writer.write_table(batch.cast(schema))
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise UsageProblem(f"cannot write {exc.filename or out}: {exc.strerror}") from None


def _lines(batch: pa.Table) -> str:
    records = batch.column("record").to_pylist()
    return "\n".join(records) + "\n" if records else ""
