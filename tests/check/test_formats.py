"""Every `--format` a command offers has its renderer: the names are the command's (`FORMATS`, read when
the options are parsed), the renderers the services' (`check_reporters.render`, `diffrender.RENDERERS`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.commands import check, diff
from evalkit.services.diff.render import RENDERERS

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"


def test_the_diff_renderers_are_the_formats_diff_offers() -> None:
    assert list(RENDERERS) == list(diff.FORMATS)


@pytest.mark.parametrize("fmt", check.FORMATS)
def test_check_renders_every_format_it_offers(fmt: str) -> None:
    folder = REPO / "tests" / "check" / "configs" / "invalid" / "duplicate_rule_ids"
    done = subprocess.run([EVALKIT, "check", "--format", fmt, folder], capture_output=True, text=True)
    assert done.returncode == 1 and "duplicate-rule-id" in done.stdout, done.stderr


@pytest.mark.parametrize("fmt", diff.FORMATS)
def test_diff_renders_every_format_it_offers(fmt: str, tmp_path: Path) -> None:
    head = tmp_path / "head"
    shutil.copytree(REPO / "config_samples", head, ignore=shutil.ignore_patterns("tests", "__*"))
    rules = head / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text.replace("max_total_length: 80", "max_total_length: 400"), encoding="utf-8")
    base, samples = REPO / "config_samples", REPO / "samples"
    command = [EVALKIT, "diff", "--base", base, "--config-dir", head, samples, "--format", fmt]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and "submissions" in done.stdout, done.stderr
