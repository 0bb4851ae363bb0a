"""Config and rule test files that are symbolic links to nothing or to themselves, named on the command
line or beside the file named: `check` and `test` say which file cannot be read and why, once, at the
file, never with a traceback; checking one file reports only that file's problems. A tests/ folder or a
PATH that is such a link is named the same way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"


def evalkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(EVALKIT), *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    config = tmp_path / "config"
    shutil.copytree(REPO / "config_samples", config, ignore=shutil.ignore_patterns("__*"))
    (config / "ranking.yaml").unlink()
    (config / "ranking.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (config / "tests" / "loop.yaml").symlink_to("loop.yaml")
    return tmp_path


NOWHERE = "config/ranking.yaml:1:1: error[unreadable] cannot read the file: No such file or directory"


def test_checking_one_file_does_not_report_a_dangling_link_beside_it(folder: Path) -> None:
    done = evalkit("check", "config/rules.yaml", cwd=folder)
    assert (done.returncode, done.stdout) == (0, "1 config folder, 1 file: no problems\n")


def test_a_dangling_link_named_is_checked_and_said_to_lead_nowhere(folder: Path) -> None:
    done = evalkit("check", "config/ranking.yaml", cwd=folder)
    assert (done.returncode, done.stdout) == (1, f"{NOWHERE}\n1 config folder, 1 file: 1 error\n")


def test_a_link_to_itself_named_is_checked_without_a_traceback(folder: Path) -> None:
    (folder / "config" / "rules.yaml").unlink()
    (folder / "config" / "rules.yaml").symlink_to("rules.yaml")
    done = evalkit("check", "config/rules.yaml", cwd=folder)
    assert done.returncode == 1
    assert done.stdout == (
        "config/rules.yaml:1:1: error[unreadable] cannot read the file: Too many levels of symbolic links\n"
        "1 config folder, 1 file: 1 error\n"
    )


def test_a_rule_test_file_linked_to_itself_is_named_when_given(folder: Path) -> None:
    (folder / "config" / "ranking.yaml").unlink()
    shutil.copy(REPO / "config_samples" / "ranking.yaml", folder / "config")
    done = evalkit("test", "config/tests/loop.yaml", cwd=folder)
    assert done.returncode == 1
    problem = "error[unreadable] cannot read the file: Too many levels of symbolic links"
    assert done.stdout == f"config/tests/loop.yaml:1:1: {problem}\n0 passed, 1 failed\n"


LOOP = "Too many levels of symbolic links"


def test_test_on_a_folder_whose_config_file_loops_names_the_loop(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "rules.yaml").symlink_to("rules.yaml")
    done = evalkit("test", "config", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "evalkit test: no rule tests found in config (expected tests/*.yaml in a folder with config files); "
        f"config/rules.yaml: cannot follow the link: {LOOP}\n"
    )


def test_a_tests_folder_that_loops_is_named_and_fails(folder: Path) -> None:
    shutil.rmtree(folder / "config" / "tests")
    (folder / "config" / "tests").symlink_to("tests")
    (folder / "config" / "ranking.yaml").unlink()
    shutil.copy(REPO / "config_samples" / "ranking.yaml", folder / "config")
    done = evalkit("test", "config", cwd=folder)
    assert (done.returncode, done.stdout) == (
        1,
        f"config/tests:1:1: error[unreadable] cannot read the file: {LOOP}\n0 passed, 1 failed\n",
    )


@pytest.mark.parametrize("command", ["check", "test"])
def test_a_path_named_that_loops_is_said_to_loop(tmp_path: Path, command: str) -> None:
    (tmp_path / "somewhere").symlink_to("somewhere")
    done = evalkit(command, "somewhere", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        f"evalkit {command}: somewhere: cannot follow the link: {LOOP}\n",
    )
