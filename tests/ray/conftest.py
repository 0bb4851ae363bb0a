"""Inputs and local reference runs shared by the Ray tests.

Ray starts four times: a two-node cluster on this machine (test_ray_cluster.py, xdist group "ray-cluster")
for the CLI with an address, a killed worker, the Python API's tests (the pytest process is a driver on
it); a cluster whose nodes and head the fault tests take away (test_ray_faults.py, "ray-faults"); a
`ray start` head with token authentication (test_ray_token.py, "ray-token"); and the Ray `evalkit eval
--ray` without an address starts for its run (test_ray_local_cli.py). One
pytest worker runs the group's tests one after another on its cluster; the group, the largest unit of work,
is handed out first, and the CLI's test is the first of the rest, so the two wait for Ray side by side.
Ray and pyarrow are imported inside the tests, not when the modules are collected: every xdist worker
collects the whole suite.

The Ray these tests start runs without what no test looks at (RAY_SETTINGS): Ray's usage statistics and its
metrics collection, and, on the cluster, the autoscaler's monitor and the log monitor (cluster_utils leaves
the latter off on worker nodes already). Each is a process or a thread on every node competing for the
machine's two cores.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

EVALKIT = str(Path(sys.executable).with_name("evalkit"))
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
MB = 1024 * 1024
OBJECT_STORE = 80 * MB
RAY_SETTINGS = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_enable_metrics_collection": "0"}
"""Environment variables for the Ray the tests start: no usage statistics, no metrics collection."""
CLUSTER_HEAD = {"no_monitor": True, "include_log_monitor": False}
"""The cluster head's node arguments beyond its resources: no autoscaler monitor, no log monitor."""


def run_evalkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EVALKIT, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def sample_submissions() -> list[dict[str, object]]:
    """The JSON samples that are objects (valid or not: invalid ones make error lines)."""
    found = []
    for path in sorted(SAMPLES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            found.append(data)
    return found


def write_submissions(path: Path, count: int) -> Path:
    """`count` submissions, each unique (a lost or doubled one shows), with a blank line and two bad ones."""
    samples = sample_submissions()
    lines = []
    for number in range(count):
        submission = dict(samples[number % len(samples)])
        submission["prompt"] = f"{submission['prompt']} #{number}"
        lines.append(json.dumps(submission, ensure_ascii=False))
    lines[3:3] = ["", '{"prompt": "unterminated', "[1, 2]"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_rows(path: Path, count: int) -> Path:
    """`count` dataset rows for `evalkit score`, each unique, with a blank line and two bad ones."""
    kinds = [
        ("typos", "extraordinary", "<solution>extraordinary</solution>"),
        (
            "connections",
            "Apple,Banana,Pear,Grape,Red,Blue,Green,Yellow",
            "<think>hm</think><solution>Apple,Banana,Pear,Orange,Red,Blue,Green,Yellow</solution>",
        ),
        (
            "unscrambling",
            "The hero wakes up. He fights the dragon. He wins the gold.",
            "<PLOT_SUMMARY>The hero wakes up. He wins the gold. He fights the dragon.</PLOT_SUMMARY>",
        ),
    ]
    lines = []
    for number in range(count):
        data_source, label, output = kinds[number % len(kinds)]
        lines.append(
            json.dumps(
                {
                    "id": number,
                    "data_source": data_source,
                    "extra_info": {"label": label},
                    "model_output": output,
                }
            )
        )
    lines[5:5] = ["", '{"data_source": "typos"', '{"data_source": "riddles", "extra_info": {"label": "x"}}']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def by_source(lines: list[str]) -> list[str]:
    """Output lines sorted by their source (scored rows, which have none, by their id)."""
    return sorted(lines, key=lambda line: str(json.loads(line).get("source", json.loads(line).get("id"))))


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Inputs and the local runs' outputs, made once for the Ray tests (each test writes outputs of its own
    names beside them). The inputs are named by absolute paths (which start the sources), so that runs
    from any folder compare."""
    folder = tmp_path_factory.mktemp("ray-inputs")
    write_submissions(folder / "submissions.jsonl", 400)
    write_rows(folder / "rows.jsonl", 600)
    for name, args in {
        "eval": ["eval", str(folder / "submissions.jsonl"), str(SAMPLES)],
        "score": ["score", str(folder / "rows.jsonl")],
    }.items():
        local = run_evalkit(*args, "--out", f"local-{name}.jsonl", cwd=folder)
        assert local.returncode == 1, local.stderr  # the bad lines are findings
        (folder / f"local-{name}.stderr").write_text(local.stderr + local.stdout, encoding="utf-8")
    return folder


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


RAY_LOG_LINE = re.compile(r"\[\d{4}-\d\d-\d\d [\d:,]+ [A-Z] \d+ \d+\] ")
"""A line Ray's C++ core writes to stderr itself (ray#53727: a warning about every Ray Data actor pool)."""


def without_ray_log(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not RAY_LOG_LINE.match(line))
