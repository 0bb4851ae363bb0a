"""`evalkit test --update`: actual outcomes written back through a ruamel.yaml round trip that keeps
comments and layout; passing cases and files are left byte for byte as they were."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SUITE = Path(__file__).parent / "fixtures" / "suite"
EVALKIT = Path(sys.executable).parent / "evalkit"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    copy = tmp_path / "suite"
    shutil.copytree(SUITE, copy)
    return copy


def evalkit_test(suite: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALKIT), "test", str(suite), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _case(path: Path, name: str) -> dict[str, object]:
    return next(c for c in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"] if c["name"] == name)


def test_update_records_actual_outcomes_and_keeps_comments(suite: Path) -> None:
    failing = suite / "tests" / "failing.yaml"
    done = evalkit_test(suite, "--update")
    assert f"updated {failing}" in done.stdout
    text = failing.read_text(encoding="utf-8")
    assert "# Cases that fail on purpose" in text
    assert "  - name: wrong expectations   # a comment that --update keeps" in text
    assert "      score: 2          # wrong: the heap rule adds 2" in text
    assert "      corrected_ratings: {accuracy: 4.5, optimality: 4.0}" in text
    assert _case(failing, "a rule that must fire does not")["expect"] == {
        "must_fire": ["mentions_heap"],
        "must_not_fire": [],
    }
    assert _case(failing, "no expectations yet")["expect"] == {
        "fired": ["mentions_heap", "high_accuracy_needs_example", "close_rewrite"],
        "label": "good",
        "score": 2,
        "flags": ["efficient"],
    }


def test_after_update_only_the_cases_that_cannot_run_still_fail(suite: Path) -> None:
    evalkit_test(suite, "--update")
    done = evalkit_test(suite)
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == "6 passed, 2 failed"
    assert "FAIL" in done.stdout and done.stdout.count("FAIL") == 2


def test_update_leaves_passing_files_untouched(suite: Path) -> None:
    passing = suite / "tests" / "passing.yaml"
    before = passing.read_bytes()
    evalkit_test(suite, "--update")
    assert passing.read_bytes() == before


def test_update_twice_changes_nothing_the_second_time(suite: Path) -> None:
    evalkit_test(suite, "--update")
    after_first = (suite / "tests" / "failing.yaml").read_bytes()
    done = evalkit_test(suite, "--update")
    assert "updated" not in done.stdout.splitlines()[0]
    assert (suite / "tests" / "failing.yaml").read_bytes() == after_first


def test_a_multi_line_rewrite_is_written_as_a_literal_block(suite: Path) -> None:
    failing = suite / "tests" / "failing.yaml"
    failing.write_text(
        failing.read_text(encoding="utf-8").replace(
            "      label: good\n", "      label: good\n      rewrite_final: old\n", 1
        ),
        encoding="utf-8",
    )
    (suite / "rewrite.yaml").write_text("min_length: 500\nnote_text: Expand it.\n")
    evalkit_test(suite, "--update")
    assert (
        "      rewrite_final: |-\n        A binary heap gives the closest node\n\n        Expand it."
        in failing.read_text(encoding="utf-8")
    )


def test_update_on_a_full_disk_names_the_test_file_and_leaves_it_whole(suite: Path) -> None:
    import resource

    failing = suite / "tests" / "failing.yaml"
    before = failing.read_bytes()
    limit = len(before) + 16  # files may not grow past this: the updated file would

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [str(EVALKIT), "test", str(suite), "--update"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=small_files,
    )
    assert done.returncode == 2
    assert done.stderr == f"evalkit test: {failing}: File too large\n"
    assert failing.read_bytes() == before
    assert [p.name for p in failing.parent.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(("line_end", "bom"), [("\r\n", ""), ("\n", "\ufeff"), ("\r\n", "\ufeff")])
def test_update_keeps_the_files_line_ends_and_byte_order_mark(suite: Path, line_end: str, bom: str) -> None:
    failing = suite / "tests" / "failing.yaml"
    text = failing.read_text(encoding="utf-8")
    failing.write_bytes((bom + text.replace("\n", line_end)).encode("utf-8"))
    evalkit_test(suite, "--update")
    updated = failing.read_bytes().decode("utf-8")
    assert updated.startswith(bom + "# Cases that fail on purpose")
    assert updated.count(line_end) == updated.count("\n") > text.count("\n") // 2
    assert f"      score: 2{line_end}" in updated  # the update itself (it was 2 for "wrong expectations")
