"""evalkit on a two-node Ray cluster on this machine (a head and a worker node, one CPU each): the CLI's
outputs are the local run's (run from a folder whose `evalkit/` is not the installed package, as a checkout
of the project's is, which must not hide it from the workers; into a folder of parts; into Parquet), a
worker killed mid-run changes nothing in the data on stdout, an evaluator actor of the Python API that
dies mid-run is replaced with no row lost or doubled, and the Python API (this process is a driver on the
cluster) gives the local run's records, on Ray Data's own read_* datasets too. Ray is imported in the
fixture and the tests (see conftest.py)."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from evalkit.ray._outputs import read_parts
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


def test_eval_from_a_checkout_into_a_folder_of_parts_writes_the_local_eval_in_order(
    workdir: Path, cluster: str, tmp_path: Path
) -> None:
    # run from a folder whose evalkit/ is not the installed package, as a checkout of evalkit's is (Ray puts
    # the driver's working folder first on the workers' import path): this one fails when imported
    checkout = tmp_path / "checkout"
    (checkout / "evalkit").mkdir(parents=True)
    (checkout / "evalkit" / "__init__.py").write_text(
        "raise ImportError('the evalkit/ folder of the working folder was imported')\n", encoding="utf-8"
    )
    inputs = [str(workdir / "submissions.jsonl"), str(SAMPLES)]
    parts = workdir / "cluster-eval"
    parts.mkdir()
    (parts / "part-of-an-older-run.jsonl").write_text("stale\n", encoding="utf-8")
    run = run_evalkit("eval", *inputs, "--out", str(parts), "--ray", cluster, cwd=checkout)
    assert run.returncode == 1, run.stderr
    manifest = json.loads((parts / "manifest.json").read_text(encoding="utf-8"))
    written = [line for part in read_parts(parts) for line in lines_of(part)]
    assert written == lines_of(workdir / "local-eval.jsonl")
    assert manifest["records"] == len(written)
    assert sorted(p.name for p in parts.iterdir()) == sorted(["manifest.json", *manifest_files(manifest)])
    shown = [line for line in run.stderr.splitlines() if ": error: " in line]
    assert shown == [line for line in lines_of(workdir / "local-eval.stderr") if ": error: " in line]


def manifest_files(manifest: dict[str, Any]) -> list[str]:
    return [entry["file"] for entry in manifest["parts"]]


def chunk_workers() -> list[int]:
    """The pids of the CLI's worker processes (Ray names a process after its actor's class)."""
    listing = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True)
    return [int(line.split()[0]) for line in listing.stdout.splitlines() if "ray::ChunkWorker" in line]


def test_a_worker_killed_mid_run_changes_nothing_in_the_data_on_stdout(tmp_path: Path, cluster: str) -> None:
    submissions = write_submissions(tmp_path / "many.jsonl", 3000)  # a dozen chunks of 256 kB
    local = run_evalkit("eval", str(submissions), "--out", "local.jsonl", cwd=tmp_path)
    assert local.returncode == 1, local.stderr
    command = [EVALKIT, "eval", str(submissions), "--ray", cluster]
    env = {**os.environ, "EVALKIT_RAY_STALL_S": "120", "EVALKIT_RAY_CHUNK_BYTES": str(256 << 10)}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "bufsize": 0}  # nothing read ahead
    with subprocess.Popen(command, cwd=tmp_path, env=env, **pipes) as run:  # type: ignore[call-overload]
        assert run.stdout is not None
        first = run.stdout.readline()  # the first chunk is written: the others are at work
        workers = chunk_workers()
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        rest, errors = run.communicate(timeout=240)
    assert run.returncode == 1, errors
    assert (first + rest).decode("utf-8").splitlines() == lines_of(tmp_path / "local.jsonl")


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


def test_score_into_a_folder_of_parquet_parts_writes_the_local_rows_in_the_manifests_order(
    workdir: Path, cluster: str
) -> None:
    import pyarrow.parquet as pq

    parts = "cluster-score-parts.parquet/"
    env = {**os.environ, "EVALKIT_RAY_CHUNK_BYTES": "4096"}  # several parts from a small input
    run = subprocess.run(
        [EVALKIT, "score", str(workdir / "rows.jsonl"), "--out", parts, "--ray", cluster],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    files = list(read_parts(workdir / parts))
    assert len(files) > 1 and all(f.suffix == ".parquet" for f in files)
    records = [r for f in files for r in pq.read_table(f).column("record").to_pylist()]
    assert records == lines_of(workdir / "local-score.jsonl")
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


READ_APIS = """
import json, sys
import pyarrow as pa, pyarrow.parquet as pq, ray
import evalkit.ray

ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)
ray.data.DataContext.get_current().enable_progress_bars = False
folder = sys.argv[2]
rows = [json.loads(line) for line in open(f"{folder}/clean-rows.jsonl")]
pq.write_table(pa.Table.from_pylist(rows), f"{folder}/rows.parquet")


def scores(dataset):
    return sorted([json.loads(r["record"])["id"], r["score"]] for r in dataset.iter_rows())


def without_sources(dataset):
    found = []
    for row in dataset.iter_rows():
        record = json.loads(row["record"])
        record.pop("source", None)
        found.append(json.dumps(record, sort_keys=True))
    return sorted(found)


texts, rows_json = f"{folder}/submissions.jsonl", f"{folder}/clean-rows.jsonl"
# a file, not stdout: the cluster's raylet may print its warnings to this driver's stdout
open(f"{folder}/found.json", "w").write(json.dumps({
    "read_text": without_sources(evalkit.ray.evaluate(ray.data.read_text(texts), None)),
    "read_text, pandas batches, (min, max, initial)": without_sources(evalkit.ray.evaluate(
        ray.data.read_text(texts), None, batch_format="pandas", concurrency=(1, 1, 1)
    )),
    "read_json": scores(evalkit.ray.score(ray.data.read_json(rows_json))),
    "read_parquet, num_cpus": scores(
        evalkit.ray.score(ray.data.read_parquet(f"{folder}/rows.parquet"), num_cpus=0.5)
    ),
    "map_batches with the public class": scores(ray.data.read_json(rows_json).map_batches(
        evalkit.ray.ScoreBatch, concurrency=1, batch_format="numpy"
    )),
}))
"""


def test_the_api_on_ray_datas_read_datasets_finishes_with_the_local_records(
    workdir: Path, cluster: str, tmp_path: Path
) -> None:
    # Ray Data's readers ask for a CPU each: an actor pool holding both CPUs would wait for ever. A driver
    # of its own, in a process bounded by a timeout, so that a hang fails the test rather than the suite
    clean = [line for line in lines_of(workdir / "rows.jsonl") if '"model_output"' in line]
    (tmp_path / "clean-rows.jsonl").write_text("\n".join(clean) + "\n", encoding="utf-8")
    (tmp_path / "submissions.jsonl").write_bytes((workdir / "submissions.jsonl").read_bytes())
    run = subprocess.run(
        [sys.executable, "-c", READ_APIS, cluster, str(tmp_path)], capture_output=True, text=True, timeout=240
    )
    assert run.returncode == 0, run.stderr
    found = json.loads((tmp_path / "found.json").read_text(encoding="utf-8"))
    local_eval = []
    for line in lines_of(workdir / "local-eval.jsonl"):
        record = json.loads(line)
        if record.pop("source").startswith(str(workdir / "submissions.jsonl")):
            local_eval.append(json.dumps(record, sort_keys=True))
    local_scores = sorted(
        [json.loads(line)["id"], json.loads(line)["score"]]
        for line in lines_of(workdir / "local-score.jsonl")
        if '"score"' in line
    )
    assert found["read_text"] == found["read_text, pandas batches, (min, max, initial)"] == sorted(local_eval)
    for name in ("read_json", "read_parquet, num_cpus", "map_batches with the public class"):
        assert found[name] == local_scores, name
