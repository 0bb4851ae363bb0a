"""What clusters do to a `--ray` run, on a cluster of this module's own (its head is lost at the end): a
node that joins mid-run and then is removed mid-run, a driver stopped (SIGTERM) or killed (SIGKILL), a head
lost. Each run either completes with the local run's output or stops with one message and exit 2, leaving
the previous output as it was and no partial one; none hangs (every wait has a timeout, and the CLI's own
is lowered with EVALKIT_RAY_STALL_S).

The cluster is made with ray.cluster_utils but this process does not connect to it (a driver whose head is
lost is ended by Ray): runs are watched through the outputs' hidden temporary files. Its head has no CPU
and one worker node one, so that a test can take that node away and leave the run only a node it adds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ray.conftest import (
    CLUSTER_HEAD,
    EVALKIT,
    OBJECT_STORE,
    RAY_SETTINGS,
    lines_of,
    run_evalkit,
    write_submissions,
)

pytestmark = pytest.mark.xdist_group("ray-faults")

ENV = {**os.environ, **RAY_SETTINGS, "EVALKIT_RAY_STALL_S": "90", "EVALKIT_RAY_CHUNK_BYTES": str(256 << 10)}
SUBMISSIONS = 8000  # about thirty chunks: long enough to act on mid-run


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as patch:
        for name, value in RAY_SETTINGS.items():
            patch.setenv(name, value)
        cluster = Cluster(
            initialize_head=True,
            connect=False,
            head_node_args={
                "num_cpus": 0,
                "include_dashboard": False,
                "object_store_memory": OBJECT_STORE,
                **CLUSTER_HEAD,
            },
        )
        cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
        yield cluster
        cluster.shutdown()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ray-faults")
    submissions = write_submissions(folder / "many.jsonl", SUBMISSIONS)
    local = run_evalkit("eval", str(submissions), "--out", "local.jsonl", cwd=folder)
    assert local.returncode == 1, local.stderr
    return folder


def start(inputs: Path, out: Path, address: str) -> subprocess.Popen[str]:
    command = [EVALKIT, "eval", str(inputs / "many.jsonl"), "--out", str(out), "--ray", address]
    return subprocess.Popen(command, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def temporary_files(out: Path) -> list[Path]:
    return [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.") and p.name.endswith(".tmp")]


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)


def written(out: Path, size: int) -> Callable[[], bool]:
    """Whether the run's hidden temporary file holds `size` bytes or more (chunks have been taken)."""
    return lambda: any(p.stat().st_size >= size for p in temporary_files(out) if p.exists())


def test_a_node_added_and_one_removed_mid_run_leave_the_local_output(nodes: Any, inputs: Path) -> None:
    # the run's only CPU goes away with its chunks in flight: only the node that joined can finish it
    out = inputs / "nodes.jsonl"
    with start(inputs, out, nodes.address) as run:
        wait_for(written(out, 1), "the first chunk")
        (working,) = nodes.worker_nodes
        nodes.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
        nodes.remove_node(working)
        _, errors = run.communicate(timeout=240)
    assert run.returncode == 1, errors
    assert lines_of(out) == lines_of(inputs / "local.jsonl")
    assert not temporary_files(out)


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGKILL])
def test_a_driver_stopped_mid_run_leaves_the_previous_output(
    nodes: Any, inputs: Path, sent: signal.Signals
) -> None:
    out = inputs / f"stopped-{sent.name}.jsonl"
    out.write_text("the previous run's\n", encoding="utf-8")
    with start(inputs, out, nodes.address) as run:
        wait_for(written(out, 1), "the first chunk")
        run.send_signal(sent)
        _, errors = run.communicate(timeout=60)
    assert out.read_text(encoding="utf-8") == "the previous run's\n"
    if sent == signal.SIGTERM:
        assert run.returncode == 2
        assert errors.splitlines()[-1] == "evalkit eval: stopped by SIGTERM; the output was not written"
        assert not temporary_files(out)
    else:  # nothing runs to clean up: the temporary file is hidden, and the next write removes it
        assert temporary_files(out)
        again = run_evalkit("eval", str(inputs / "many.jsonl"), "--out", out.name, cwd=inputs)
        assert again.returncode == 1
        assert not temporary_files(out)


def test_a_lost_head_stops_the_run_with_one_message_and_exit_2(nodes: Any, inputs: Path) -> None:
    # the last test of the module: the cluster has no head afterwards
    out = inputs / "headless.jsonl"
    out.write_text("the previous run's\n", encoding="utf-8")
    with start(inputs, out, nodes.address) as run:
        wait_for(written(out, 1), "the first chunk")
        nodes.remove_node(nodes.head_node, allow_graceful=False)
        _, errors = run.communicate(timeout=120)
    assert run.returncode == 2
    lines = [line for line in errors.splitlines() if line.startswith("evalkit eval:")]
    assert len(lines) == 1
    assert "head" in lines[0] and "was lost" in lines[0], errors
    assert out.read_text(encoding="utf-8") == "the previous run's\n"
    assert not temporary_files(out)
