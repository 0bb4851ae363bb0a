"""evalkit on a two-node Ray cluster on this machine (a head and a worker node, one CPU each): the CLI's
outputs are the local run's, and an evaluator actor that dies mid-run is replaced with no row lost or
doubled. Ray is imported in the fixture and the tests (see conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ray.conftest import (
    CLUSTER_HEAD,
    OBJECT_STORE,
    RAY_SETTINGS,
    SAMPLES,
    by_source,
    lines_of,
    run_evalkit,
    without_ray_log,
    write_submissions,
)

pytestmark = pytest.mark.xdist_group("ray-cluster")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The cluster's address; this process is a driver on it too."""
    import ray
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as patch:
        for name, value in RAY_SETTINGS.items():
            patch.setenv(name, value)
        nodes = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 1,
                "include_dashboard": False,
                "object_store_memory": OBJECT_STORE,
                **CLUSTER_HEAD,
            },
        )
        nodes.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
        nodes.wait_for_nodes()
        ray.init(address=nodes.address, logging_level="ERROR")
        yield nodes.address
        ray.shutdown()
        nodes.shutdown()


def test_eval_on_two_nodes_writes_the_local_eval_in_input_order(workdir: Path, cluster: str) -> None:
    inputs = [str(workdir / "submissions.jsonl"), str(SAMPLES)]
    run = run_evalkit("eval", *inputs, "--out", "cluster-eval.jsonl", "--ray", cluster, cwd=workdir)
    assert run.returncode == 1, run.stderr
    assert lines_of(workdir / "cluster-eval.jsonl") == lines_of(workdir / "local-eval.jsonl")
    shown = [line for line in run.stderr.splitlines() if ": error: " in line]
    assert shown == [line for line in lines_of(workdir / "local-eval.stderr") if ": error: " in line]


def test_score_on_two_nodes_writes_parquet_with_the_local_rows_and_summary(
    workdir: Path, cluster: str
) -> None:
    import pyarrow.parquet as pq

    run = run_evalkit(
        "score", str(workdir / "rows.jsonl"), "--out", "cluster-score.parquet", "--ray", cluster, cwd=workdir
    )
    assert run.returncode == 1, run.stderr
    table = pq.read_table(workdir / "cluster-score.parquet")
    assert table.column_names == ["source", "data_source", "score", "error", "record"]
    assert table.column("record").to_pylist() == lines_of(workdir / "local-score.jsonl")
    local = (workdir / "local-score.stderr").read_text(encoding="utf-8")
    assert without_ray_log(run.stderr) + run.stdout == local


def dies_once(marker: Path) -> type:
    """An evaluator whose process dies at its third batch, the first time only (`marker` remembers). A class
    made here, not at the module's top, is sent to the actors by value: they cannot import this module."""
    from evalkit.ray._workers import EvaluateBatch

    class DiesOnce(EvaluateBatch):
        def __init__(self, files: dict[str, bytes]) -> None:
            super().__init__(files)
            self.batches = 0

        def __call__(self, batch: Any) -> Any:
            self.batches += 1
            if self.batches == 3 and not marker.exists():
                marker.write_text(str(os.getpid()))
                os._exit(1)
            return super().__call__(batch)

    return DiesOnce


def test_an_evaluator_killed_mid_run_is_replaced_and_no_row_is_lost_or_doubled(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evalkit.ray

    submissions = write_submissions(tmp_path / "many.jsonl", 1000)  # ten batches of 100 over two actors
    local = run_evalkit("eval", str(submissions), "--out", "local.jsonl", cwd=tmp_path)
    assert local.returncode == 1, local.stderr
    monkeypatch.setattr(evalkit.ray, "EvaluateBatch", dies_once(tmp_path / "died"))
    results = evalkit.ray.evaluate(evalkit.ray.read_submissions([submissions]), None, batch_size=100)
    evaluated = [row["record"] for row in results.iter_rows()]  # the run happens here
    assert (tmp_path / "died").exists()
    assert by_source(evaluated) == by_source(lines_of(tmp_path / "local.jsonl"))
