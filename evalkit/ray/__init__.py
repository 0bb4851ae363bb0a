"""evalkit on Ray Data: evaluate submissions and score datasets across a cluster.

Install with `pip install 'evalkit-rules[ray]'` (on every node). Files, read as `evalkit eval` and
`evalkit score` read them (sources `path:line`; the files are read on the driver's node, so only it needs
them):

    import evalkit.ray
    results = evalkit.ray.evaluate(evalkit.ray.read_submissions(["runs/"]), "my_config/")
    scored = evalkit.ray.score(evalkit.ray.read_rows(["rollouts.jsonl"]))

For pipelines that already hold a Ray Dataset:

    import ray, evalkit.ray
    submissions = ray.data.read_text("submissions.jsonl")      # a "text" column: one JSON submission a row
    results = evalkit.ray.evaluate(submissions, "my_config/")  # source, label, error, record

    rollouts = ray.data.read_parquet("rollouts.parquet")       # data_source, extra_info, model_output
    scored = evalkit.ray.score(rollouts)                       # source, data_source, score, error, record

A row is either a `text` column holding the submission's (or the dataset row's) JSON, or the object itself,
one column a field (a null in a column is read as the field being absent, since Arrow writes a field one row
lacks as null). A `source` column, if there is one, is carried through. `record` is the JSON object the local
`evalkit eval` / `evalkit score` writes for that row, so `record` lines are its output. An evaluator is
compiled once per actor, not per batch; a failed actor is restarted and its batches retried.

`evaluate` and `score` take `Dataset.map_batches`' own arguments (`concurrency` as an int, (min, max) or
(min, max, initial), `num_cpus`, `batch_format`, `batch_size`, ...). By default the actor pool leaves one
CPU of the cluster to Ray Data's read tasks. The classes are public for a pipeline's own `map_batches`:

    ds.map_batches(evalkit.ray.EvaluateBatch, fn_constructor_args=(evalkit.ray.config_files("cfg/"),),
                   concurrency=(1, 4), batch_format="pandas")
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import ray
import ray.data

from evalkit.ray._files import (
    DATASET_SCHEMA,
    EVAL_SUFFIXES,
    SCORE_SUFFIXES,
    SUBMISSION_SCHEMA,
    InputFiles,
    dataset_rows,
    input_files,
    submission_rows,
)
from evalkit.ray._workers import EvaluateBatch, ScoreBatch, config_files

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "EvaluateBatch",
    "ScoreBatch",
    "config_files",
    "default_concurrency",
    "evaluate",
    "read_rows",
    "read_submissions",
    "score",
]

READ_CPUS = 0
"""The CPUs a read task of evalkit's asks for. Reads run on the driver's node and cost little next to
evaluating: asking for none keeps them from waiting behind actors that hold every CPU there."""

BATCH_ROWS = 1024
"""Rows per batch an actor is given: enough to amortise a task's overhead, small enough to stream."""

Concurrency = int | tuple[int, int] | tuple[int, int, int]


def default_concurrency() -> tuple[int, int, int]:
    """The actor pool when none is asked for: (min, max, initial) as Ray Data takes them, leaving one CPU
    of the cluster to Ray Data's read tasks (`read_text`, `read_json`, `read_parquet` ask for a CPU each:
    a pool holding every CPU would wait for ever for its input)."""
    cpus = int(ray.cluster_resources().get("CPU", 1))
    size = max(1, cpus - 1)
    return (1, size, size)


def _actor_cpus(num_cpus: float | None) -> float | None:
    """On a one-CPU cluster an actor that asks for the CPU leaves none to the reads: it asks for none."""
    if num_cpus is None and ray.cluster_resources().get("CPU", 1) < 2:
        return 0
    return num_cpus


def read_submissions(paths: Iterable[str | Path]) -> ray.data.Dataset:
    """Submission files (.json, .yaml, .yml, .jsonl, .parquet) or folders of them, as `evalkit eval` reads
    them: a `source`, `text`, `suffix` and `error` column, in input order."""
    files = input_files([str(path) for path in paths], EVAL_SUFFIXES)
    return _read(InputFiles(files, submission_rows, SUBMISSION_SCHEMA))


def read_rows(paths: Iterable[str | Path]) -> ray.data.Dataset:
    """Dataset files (.jsonl, .parquet) or folders of them, as `evalkit score` reads them: a `source`,
    `text` (the line's bytes) and `error` column, in input order."""
    files = input_files([str(path) for path in paths], SCORE_SUFFIXES)
    return _read(InputFiles(files, dataset_rows, DATASET_SCHEMA))


def _read(files: InputFiles) -> ray.data.Dataset:
    return ray.data.read_datasource(files, num_cpus=READ_CPUS)


def evaluate(
    dataset: ray.data.Dataset,
    config_dir: str | None = None,
    *,
    concurrency: Concurrency | None = None,
    batch_size: int | None = BATCH_ROWS,
    batch_format: str = "pyarrow",
    num_cpus: float | None = None,
    **map_batches_args: Any,
) -> ray.data.Dataset:
    """Evaluate every submission in `dataset` against the config in `config_dir` (None: the shipped default).

    The config is read here, on the driver, and sent to the actors, so worker nodes need not have it. Raises
    `evalkit.engine.ConfigError` for a config with errors. `concurrency`, `num_cpus`, `batch_format` and any
    other keyword argument are `Dataset.map_batches`' (concurrency: actors, or (min, max) or
    (min, max, initial); default `default_concurrency()`); any `batch_format` works, the output is Arrow."""
    from evalkit.engine import load_config

    load_config(config_dir)  # a config with errors fails here, once, not in every actor
    return _mapped(
        dataset,
        EvaluateBatch,
        (config_files(config_dir),),
        concurrency,
        batch_size,
        batch_format,
        num_cpus,
        map_batches_args,
    )


def score(
    dataset: ray.data.Dataset,
    *,
    concurrency: Concurrency | None = None,
    batch_size: int | None = BATCH_ROWS,
    batch_format: str = "pyarrow",
    num_cpus: float | None = None,
    **map_batches_args: Any,
) -> ray.data.Dataset:
    """Score every row of `dataset` with the qydomain scorer its `data_source` names; the arguments are
    evaluate's."""
    return _mapped(dataset, ScoreBatch, (), concurrency, batch_size, batch_format, num_cpus, map_batches_args)


def _mapped(
    dataset: ray.data.Dataset,
    batch_class: type,
    constructor_args: tuple[Any, ...],
    concurrency: Concurrency | None,
    batch_size: int | None,
    batch_format: str,
    num_cpus: float | None,
    others: dict[str, Any],
) -> ray.data.Dataset:
    if isinstance(concurrency, tuple) and len(concurrency) not in (2, 3):
        raise ValueError(f"concurrency is an int, (min, max) or (min, max, initial), not {concurrency!r}")
    return dataset.map_batches(
        batch_class,
        fn_constructor_args=constructor_args,
        batch_format=batch_format,
        batch_size=batch_size,
        concurrency=default_concurrency() if concurrency is None else concurrency,
        num_cpus=_actor_cpus(num_cpus),
        **others,
    )
