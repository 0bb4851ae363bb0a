"""`evalkit eval --ray` without an address starts a real Ray on this machine for its run (2 CPUs here, one per
core) and writes the local run's lines in input order, with its progress bar. It uses no Ray of the
suite's, so it is in no xdist group: any worker takes it, early (tests/conftest.py's FIRST)."""

from __future__ import annotations

import os
import pty
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.ray.conftest import EVALKIT, RAY_SETTINGS, lines_of


def test_eval_ray_without_an_address_runs_locally_in_input_order_with_progress(
    workdir: Path, read_terminal: Callable[[int], str]
) -> None:
    controller, terminal = pty.openpty()
    command = [EVALKIT, "eval", str(workdir / "submissions.jsonl"), "--out", "ray.jsonl", "--ray"]
    env = {**os.environ, **RAY_SETTINGS}
    process = subprocess.Popen(command, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=terminal)
    os.close(terminal)
    assert process.wait(timeout=300) == 1
    shown = read_terminal(controller)
    assert "] 402/402" in shown
    assert "submissions.jsonl:5: error: invalid JSON" in shown
    local = [line for line in lines_of(workdir / "local-eval.jsonl") if "submissions.jsonl:" in line]
    assert lines_of(workdir / "ray.jsonl") == local
