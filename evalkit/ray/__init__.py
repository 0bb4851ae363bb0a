"""evalkit on Ray Data: evaluate submissions and score datasets across a cluster.

Install with `pip install evalkit[ray]` (on every node). For pipelines that already hold a Ray Dataset:

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

from typing import TYPE_CHECKING

from evalkit.ray._workers import EvaluateBatch, ScoreBatch, config_files

if TYPE_CHECKING:
    import ray.data

__all__ = ["evaluate", "score"]

BATCH_ROWS = 1024
"""Rows per batch an actor is given: enough to amortise a task's overhead, small enough to stream."""



def _actors(concurrency: int | tuple[int, int] | None) -> ray.data.ActorPoolStrategy:
    """The actor pool: `concurrency` actors, or a range; by default one per CPU of the cluster, fewer while
    there is less work. Ray Data restarts an actor that dies (a node lost, a process killed) and runs its
    batches again (max_restarts and max_task_retries are unbounded by default), so no row is lost or written
    twice: a batch's output is kept only once it is complete."""
    import ray
    import ray.data

    if isinstance(concurrency, int):
        return ray.data.ActorPoolStrategy(size=concurrency)
    low, high = concurrency or (1, max(1, int(ray.cluster_resources().get("CPU", 1))))
    return ray.data.ActorPoolStrategy(min_size=low, max_size=high)


def evaluate(dataset: ray.data.Dataset, config_dir: str | None = None, *,
             concurrency: int | tuple[int, int] | None = None) -> ray.data.Dataset:
    """Evaluate every submission in `dataset` against the config in `config_dir` (None: the shipped default).

    The config is read here, on the driver, and sent to the actors, so worker nodes need not have it. Raises
    `evalkit.engine.ConfigError` for a config with errors. `concurrency`: how many actors, or a (min, max)
    range (default: one per CPU of the cluster, fewer while there is less work)."""
    from evalkit.engine import load_config

    load_config(config_dir)  # a config with errors fails here, once, not in every actor
    return dataset.map_batches(
        EvaluateBatch, fn_constructor_args=(config_files(config_dir),), batch_format="pyarrow",
        batch_size=BATCH_ROWS, compute=_actors(concurrency))


def score(dataset: ray.data.Dataset, *, concurrency: int | tuple[int, int] | None = None) -> ray.data.Dataset:
    """Score every row of `dataset` with the qydomain scorer its `data_source` names."""
    return dataset.map_batches(
        ScoreBatch, batch_format="pyarrow", batch_size=BATCH_ROWS,
        compute=_actors(concurrency))
