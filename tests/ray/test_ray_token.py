"""A `ray start` cluster with token authentication (Ray 2.60 turns it on when `~/.ray/auth_token` exists, as
after any local `--ray`): a driver that does not say RAY_AUTH_MODE=token is refused, which Ray would repeat
20 times over 25 s; evalkit stops at the first refusal with one message saying what to set, and with it set
the run writes the local run's lines. The head runs under `ray start --block` in a HOME of its own (its token
there), and ends with that process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ray.conftest import EVALKIT, RAY_SETTINGS, SAMPLES, lines_of

pytestmark = pytest.mark.xdist_group("ray-token")

RAY = str(Path(sys.executable).with_name("ray"))
NO_DASHBOARD = ["--include-dashboard=false"]


@pytest.fixture(scope="module")
def token_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    home = tmp_path_factory.mktemp("home")
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(os.urandom(32).hex(), encoding="ascii")  # as ray.init leaves
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, **RAY_SETTINGS, "HOME": str(home)}
    env.pop("RAY_AUTH_MODE", None)  # unset: `ray start` turns token authentication on, the token being there
    command = [RAY, "start", "--head", "--block", f"--port={port}", "--num-cpus=1", *NO_DASHBOARD]
    with subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as head:
        try:
            deadline = time.monotonic() + 120
            while not answers(port):
                assert head.poll() is None, "ray start ended"
                assert time.monotonic() < deadline, "ray start did not come up"
                time.sleep(0.2)
            yield f"127.0.0.1:{port}", env
        finally:
            head.terminate()  # `ray start --block` stops the node's processes as it ends
            head.wait(timeout=120)


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def test_a_token_cluster_refusing_the_driver_stops_it_at_once_saying_what_to_set(
    token_cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    address, env = token_cluster
    command = [EVALKIT, "eval", str(SAMPLES), "--out", "out.jsonl", "--ray", address]
    refused = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"evalkit eval: the Ray cluster at {address} uses token authentication and refused this driver's "
        "token (RAY_AUTH_MODE is not set): set RAY_AUTH_MODE=token and the cluster's token (RAY_AUTH_TOKEN, "
        "or ~/.ray/auth_token; `ray get-auth-token` on the head shows it)"
    ]
    assert not (tmp_path / "out.jsonl").exists()
    local = subprocess.run([EVALKIT, "eval", str(SAMPLES), "--out", "local.jsonl"], cwd=tmp_path, check=False)
    with_token = {**env, "RAY_AUTH_MODE": "token"}
    run = subprocess.run(command, cwd=tmp_path, env=with_token, capture_output=True, text=True, timeout=300)
    assert run.returncode == local.returncode == 0, run.stderr
    assert lines_of(tmp_path / "out.jsonl") == lines_of(tmp_path / "local.jsonl")
