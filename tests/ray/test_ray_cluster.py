"""evalkit on a two-node Ray cluster on this machine (a head and a worker node, one CPU each): the CLI's
outputs are the local run's, an evaluator actor that dies mid-run is replaced with no row lost or doubled,
and the Python API (this process is a driver on the cluster) gives the local run's records. Ray is imported
in the fixture and the tests (see conftest.py)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.ray.conftest import (
    CLUSTER_HEAD,
    EVALKIT,
    OBJECT_STORE,
    RAY_SETTINGS,
    SAMPLES,
    by_source,
    lines_of,
    run_evalkit,
    sample_submissions,
    without_ray_log,
    write_submissions,
)

if TYPE_CHECKING:
    import ray.data

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
        import pyarrow.parquet  # noqa: F401  (the tests' imports, made here to be frozen with the rest)

        import evalkit.ray  # noqa: F401

        gc.freeze()  # Ray's, Ray Data's and Arrow's objects: out of the collector's walks at pytest's end
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


def records(dataset: ray.data.Dataset) -> list[str]:
    return [row["record"] for row in dataset.iter_rows()]


def test_evaluate_gives_the_records_of_the_local_eval(workdir: Path, cluster: str) -> None:
    import evalkit.ray

    results = evalkit.ray.evaluate(
        evalkit.ray.read_submissions([workdir / "submissions.jsonl", SAMPLES]), None
    )
    local = lines_of(workdir / "local-eval.jsonl")
    assert by_source(records(results)) == by_source(local)
    assert len(local) == 400 + 2 + len(list(SAMPLES.glob("*.*")))


def test_evaluate_takes_submissions_as_columns_with_their_sources(workdir: Path, cluster: str) -> None:
    import ray

    import evalkit.ray

    submissions = sample_submissions()
    rows = [{"source": f"row {number}", **submission} for number, submission in enumerate(submissions)]
    unfit = {"source": "bytes", **submissions[0], "attachment": b"\xff"}  # a value JSON cannot hold
    results = evalkit.ray.evaluate(ray.data.from_items([*rows, unfit]), None).to_pandas()
    unfit_record = results["record"][results["source"] == "bytes"].item()
    assert json.loads(unfit_record)["error"]["message"].startswith("the row has a value JSON cannot hold")
    results = results[results["source"] != "bytes"]
    folder = workdir / "columns"
    folder.mkdir()
    (folder / "rows.jsonl").write_text("".join(json.dumps(s) + "\n" for s in submissions), encoding="utf-8")
    subprocess.run([EVALKIT, "eval", "rows.jsonl", "--out", "local.jsonl"], cwd=folder, check=False)
    expected = {json.loads(line)["source"]: line for line in lines_of(folder / "local.jsonl")}
    for source, record in zip(results["source"], results["record"], strict=False):
        number = int(source.split()[1])
        assert record == expected[f"rows.jsonl:{number + 1}"].replace(
            f'"source": "rows.jsonl:{number + 1}"', f'"source": "{source}"'
        )


def test_score_gives_the_rows_of_the_local_score(workdir: Path, cluster: str) -> None:
    import evalkit.ray

    scored = evalkit.ray.score(evalkit.ray.read_rows([workdir / "rows.jsonl"]))
    assert by_source(records(scored)) == by_source(lines_of(workdir / "local-score.jsonl"))
