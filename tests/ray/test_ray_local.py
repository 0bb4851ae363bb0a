"""evalkit on a real local Ray (one node of 2 CPUs, no dashboard, a small object store): the Python API gives
the local run's records. Ray is imported in the fixture and the tests (see conftest.py)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.ray.conftest import (
    CLUSTER_HEAD,
    EVALKIT,
    OBJECT_STORE,
    RAY_SETTINGS,
    SAMPLES,
    by_source,
    lines_of,
    sample_submissions,
)

if TYPE_CHECKING:
    import ray.data

pytestmark = pytest.mark.xdist_group("ray-local")


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """A one-node Ray on this machine, started as `ray.init(address="local")` starts one but without the
    autoscaler's monitor and the log monitor (CLUSTER_HEAD), which ray.init cannot leave out."""
    import ray
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as patch:
        for name, value in RAY_SETTINGS.items():
            patch.setenv(name, value)
        node = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 2,
                "include_dashboard": False,
                "object_store_memory": OBJECT_STORE,
                **CLUSTER_HEAD,
            },
        )
        ray.init(address=node.address, logging_level="ERROR")
        yield
        ray.shutdown()
        node.shutdown()


def records(dataset: ray.data.Dataset) -> list[str]:
    return [row["record"] for row in dataset.iter_rows()]


def test_evaluate_gives_the_records_of_the_local_eval(workdir: Path) -> None:
    import evalkit.ray

    results = evalkit.ray.evaluate(
        evalkit.ray.read_submissions([workdir / "submissions.jsonl", SAMPLES]), None
    )
    local = lines_of(workdir / "local-eval.jsonl")
    assert by_source(records(results)) == by_source(local)
    assert len(local) == 400 + 2 + len(list(SAMPLES.glob("*.*")))


def test_evaluate_takes_submissions_as_columns_with_their_sources(workdir: Path) -> None:
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


def test_score_gives_the_rows_of_the_local_score(workdir: Path) -> None:
    import evalkit.ray

    scored = evalkit.ray.score(evalkit.ray.read_rows([workdir / "rows.jsonl"]))
    assert by_source(records(scored)) == by_source(lines_of(workdir / "local-score.jsonl"))
