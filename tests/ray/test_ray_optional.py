"""Ray stays optional: the core commands never import it, and `--ray` without it installed says how to get
it. A stand-in `ray` package, put first on PYTHONPATH, tells whether it was imported (or fails as a
missing Ray does); no Ray is started here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.ray.conftest import EVALKIT, SAMPLES, write_rows


def stand_in_ray(folder: Path, body: str) -> dict[str, str]:
    (folder / "ray").mkdir()
    (folder / "ray" / "__init__.py").write_text(body, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(folder)}


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EVALKIT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("command", "code"), [(["eval", str(SAMPLES)], 0), (["score", "rows.jsonl"], 1)])
def test_the_commands_without_ray_do_not_import_it(tmp_path: Path, command: list[str], code: int) -> None:
    env = stand_in_ray(tmp_path, "import pathlib\npathlib.Path(__file__).with_name('imported').touch()\n")
    write_rows(tmp_path / "rows.jsonl", 10)  # with two bad lines: exit 1
    result = run([*command, "--out", "out.jsonl"], tmp_path, env)
    assert result.returncode == code, result.stderr
    assert (tmp_path / "out.jsonl").exists()
    assert not (tmp_path / "ray" / "imported").exists()


@pytest.mark.parametrize("command", [["eval", str(SAMPLES)], ["score", "rows.jsonl"]])
def test_ray_without_ray_installed_exits_2_saying_how_to_install_it(
    tmp_path: Path, command: list[str]
) -> None:
    env = stand_in_ray(tmp_path, "raise ModuleNotFoundError(\"No module named 'ray'\", name='ray')\n")
    write_rows(tmp_path / "rows.jsonl", 10)
    result = run([*command, "--out", "out.jsonl", "--ray"], tmp_path, env)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"evalkit {command[0]}: --ray needs Ray Data, which is not installed: "
        "pip install 'evalkit-rules[ray]'"
    ]
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("flag", [["--explain-json", "x.jsonl"], ["--report-md", "r.md"], ["--jobs", "2"]])
def test_ray_refuses_what_it_does_not_do_before_starting(tmp_path: Path, flag: list[str]) -> None:
    env = stand_in_ray(tmp_path, "raise ModuleNotFoundError(\"No module named 'ray'\", name='ray')\n")
    result = run(["eval", str(SAMPLES), *flag, "--ray"], tmp_path, env)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert f"evalkit eval: {flag[0]} " in result.stderr


def test_ray_with_no_cluster_at_the_address_exits_2_at_once(tmp_path: Path) -> None:
    result = run(
        ["eval", str(SAMPLES), "--out", "out.jsonl", "--ray", "127.0.0.1:1"], tmp_path, dict(os.environ)
    )
    assert result.returncode == 2
    assert result.stderr.startswith("evalkit eval: cannot reach the Ray cluster at 127.0.0.1:1: "), (
        result.stderr
    )
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "out.jsonl").exists()
