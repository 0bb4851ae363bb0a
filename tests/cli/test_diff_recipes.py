"""The docs' recipes for `evalkit diff` (docs/guide/diff.md), taken as written and run for real: the GitHub
Actions step in a clone whose `origin/main` holds the base config (as `actions/checkout` with
`fetch-depth: 0` leaves it), and the pre-commit hook with `pre-commit run --hook-stage manual`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
README = (REPO / "docs" / "guide" / "diff.md").read_text(encoding="utf-8")


def readme_block(containing: str) -> str:
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.S)
    return next(block for block in blocks if containing in block)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1", **extra}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with its config in configs/main and its samples, committed on main."""
    repo = tmp_path / "origin"
    shutil.copytree(
        REPO / "config_samples", repo / "configs" / "main", ignore=shutil.ignore_patterns("*.py", "tests")
    )
    shutil.copytree(REPO / "samples", repo / "samples")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")
    return repo


def lengthen_short_answers(config: Path) -> None:
    rules = config / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace("max_total_length: 80", "max_total_length: 400")
    )


def test_the_github_actions_step_writes_the_summary_and_gates_the_pull_request(
    project: Path, tmp_path: Path
) -> None:
    workflow = yaml.safe_load(readme_block("GITHUB_STEP_SUMMARY"))
    steps = workflow["jobs"]["impact"]["steps"]
    assert steps[0] == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}
    command = next(step["run"] for step in steps if "evalkit diff" in step.get("run", ""))
    clone = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True, capture_output=True)
    git(clone, "checkout", "-qb", "pull-request")
    summary = tmp_path / "summary.md"

    def run_step() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=clone,
            capture_output=True,
            text=True,
            env=environment(GITHUB_BASE_REF="main", GITHUB_STEP_SUMMARY=str(summary)),
        )

    passed = run_step()
    assert passed.returncode == 0, passed.stderr
    assert summary.read_text().startswith("### evalkit diff: 0 of 31 submissions changed\n")
    lengthen_short_answers(clone / "configs" / "main")
    git(clone, "-c", "user.email=t@e.st", "-c", "user.name=t", "commit", "-qam", "longer answers")
    failed = run_step()
    assert failed.returncode == 1  # 14 of 31 labels change: more than 5%
    assert "14 label changes, more than --max-label-changes 5% allows" in failed.stderr
    assert "### evalkit diff: 21 of 31 submissions changed" in summary.read_text()


def test_the_pre_commit_hook_runs_in_the_manual_stage_on_what_is_staged(project: Path) -> None:
    hooks = yaml.safe_load(readme_block("id: evalkit-diff"))
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": hooks}, sort_keys=False))
    git(project, "add", "-A")
    git(project, "commit", "-qm", "hooks")

    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        home = str(project.parent / "pre-commit-home")
        return subprocess.run(
            [str(BIN / "pre-commit"), "run", *args],
            cwd=project,
            capture_output=True,
            text=True,
            env=environment(PRE_COMMIT_HOME=home),
            timeout=300,
        )

    assert "evalkit diff" not in pre_commit("--all-files").stdout  # manual stage: not on every commit
    clean = pre_commit("evalkit-diff", "--hook-stage", "manual")
    assert clean.returncode == 0, clean.stdout
    assert "0 of 31 submissions changed" in clean.stdout  # verbose: the report shows when it passes too
    lengthen_short_answers(project / "configs" / "main")
    git(project, "add", "-A")
    failed = pre_commit("evalkit-diff", "--hook-stage", "manual")
    assert failed.returncode == 1
    assert "21 of 31 submissions changed" in failed.stdout
    assert "14 label changes, more than --max-label-changes 10% allows" in failed.stdout
