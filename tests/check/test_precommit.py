"""The shipped pre-commit hook, run for real by `pre-commit run` in a temporary git repository.

The hook definition comes from `.pre-commit-hooks.yaml` unchanged (id, files, require_serial, entry)
except that it runs the evalkit of this virtual environment (`language: system`) instead of having
pre-commit build a fresh environment from PyPI, which takes minutes and needs the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).parents[2]
BIN = Path(sys.executable).parent


def _hook() -> dict[str, object]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return next(hook for hook in hooks if hook["id"] == "evalkit-check")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    shutil.copytree(
        REPO / "config_samples", repo / "configs" / "main", ignore=shutil.ignore_patterns("*.py", "tests")
    )
    (repo / "notes.yaml").write_text("not: [valid yaml\n")  # not a config name: the hook must skip it
    hook = {**_hook(), "language": "system", "entry": f"{BIN / 'evalkit'} check"}
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "test")
    return repo


def _pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    _git(repo, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"), "NO_COLOR": "1"}
    return subprocess.run(
        [str(BIN / "pre-commit"), "run", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_the_hook_definition_matches_the_issue() -> None:
    hook = _hook()
    assert (
        hook["require_serial"] is True and hook["entry"] == "evalkit check" and hook["language"] == "python"
    )


def test_a_clean_config_passes(repo: Path) -> None:
    done = _pre_commit(repo, "--all-files")
    assert done.returncode == 0, done.stdout
    assert "evalkit check" in done.stdout and "Passed" in done.stdout


def test_a_broken_config_fails_and_points_at_the_problem(repo: Path) -> None:
    rules = repo / "configs" / "main" / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8").replace("dedupe_comments", "dedupe_coments"))
    done = _pre_commit(repo, "--all-files")
    assert done.returncode == 1
    assert (
        "configs/main/rules.yaml:5:3: error[unknown-key] unknown key 'dedupe_coments' in options; "
        "did you mean 'dedupe_comments'?"
    ) in done.stdout


def test_only_staged_config_files_are_passed_and_checked(repo: Path) -> None:
    _pre_commit(repo, "--all-files")
    _git(repo, "commit", "-qm", "configs", "--no-verify")
    (repo / "configs" / "other").mkdir()
    (repo / "configs" / "other" / "dimensions.yml").write_text("scale: [5, 1]\n")
    done = _pre_commit(repo)
    assert done.returncode == 1
    assert "configs/other/dimensions.yml:1:8: error[bad-scale]" in done.stdout
    assert "1 config folder, 1 file: 1 error" in done.stdout
