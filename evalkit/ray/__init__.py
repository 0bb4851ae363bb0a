"""evalkit on Ray Data: evaluate submissions and score datasets across a cluster.

Install with `pip install evalkit[ray]` (on every node). Files, read as `evalkit eval` and `evalkit score`
read them (sources `path:line`; the files are read on the driver's node, so only it needs them):

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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

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

__all__ = ["evaluate", "read_rows", "read_submissions", "score"]

READ_CPUS = 0
"""The CPUs a read task asks for. Reads run on the driver's node and cost little next to evaluating: asking
for none keeps them from waiting forever behind actors that hold every CPU there and wait for their input."""

BATCH_ROWS = 1024
"""Rows per batch an actor is given: enough to amortise a task's overhead, small enough to stream."""


def _actors(concurrency: int | tuple[int, int] | None) -> ray.data.ActorPoolStrategy:
    """The actor pool: `concurrency` actors, or a (min, max) range; by default one per CPU of the cluster
    from the start, fewer when there is less work. Ray Data restarts an actor that dies (a node lost, a
    process killed) and runs its batches again (max_restarts and max_task_retries are unbounded by default),
    so no row is lost or written twice: a batch's output is kept only once it is complete."""
    if isinstance(concurrency, int):
        return ray.data.ActorPoolStrategy(size=concurrency)
    if concurrency is not None:
        return ray.data.ActorPoolStrategy(min_size=concurrency[0], max_size=concurrency[1])
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    return ray.data.ActorPoolStrategy(min_size=1, max_size=cpus, initial_size=cpus)


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
    concurrency: int | tuple[int, int] | None = None,
    batch_size: int = BATCH_ROWS,
) -> ray.data.Dataset:
    """Evaluate every submission in `dataset` against the config in `config_dir` (None: the shipped default).

    The config is read here, on the driver, and sent to the actors, so worker nodes need not have it. Raises
    `evalkit.engine.ConfigError` for a config with errors. `concurrency`: how many actors, or a (min, max)
    range (default: one per CPU of the cluster, fewer while there is less work)."""
    from evalkit.engine import load_config

    load_config(config_dir)  # a config with errors fails here, once, not in every actor
    return dataset.map_batches(
        EvaluateBatch,
        fn_constructor_args=(config_files(config_dir),),
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=_actors(concurrency),
    )


def score(
    dataset: ray.data.Dataset,
    *,
    concurrency: int | tuple[int, int] | None = None,
    batch_size: int = BATCH_ROWS,
) -> ray.data.Dataset:
    """Score every row of `dataset` with the qydomain scorer its `data_source` names."""
    return dataset.map_batches(
        ScoreBatch, batch_format="pyarrow", batch_size=batch_size, compute=_actors(concurrency)
    )
