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


def test_a_crlf_file_keeps_crlf_through_two_updates(suite: Path) -> None:
    """ruamel kept each comment's CR: comment lines came back `\\r\\r\\n`, and a second update made the file
    CR-only. Now every line ends CRLF after each update, and an update of an updated file changes only the
    value updated."""
    failing = suite / "tests" / "failing.yaml"
    failing.write_bytes(failing.read_bytes().replace(b"\n", b"\r\n"))
    evalkit_test(suite, "--update")
    once = failing.read_bytes()
    assert b"\r\r" not in once and once.count(b"\r\n") == once.count(b"\n") == once.count(b"\r")
    assert b"score: 2          # wrong: the heap rule adds 2\r\n" in once
    failing.write_bytes(once.replace(b"score: 2 ", b"score: 9 "))  # wrong again: a second update
    evalkit_test(suite, "--update")
    assert failing.read_bytes() == once


ALIASED = """\
submissions:
  heap: ../submissions/heap.json
cases:
  - name: first
    submission: heap
    expect: &shared
      fired: [mentions_heap, high_accuracy_needs_example, close_rewrite]
  - name: second
    submission: heap
    with:
      ratings: {accuracy: 4.0}
    expect: *shared
"""


def test_an_aliased_expectation_is_updated_for_its_case_alone(suite: Path) -> None:
    """Two cases share `expect` through an anchor; the second fails. Updating it through the alias rewrote
    the anchor, so the first case failed while the update said both passed: now the second case gets its
    own `expect`, and the first still passes."""
    for name in ("failing.yaml", "passing.yaml"):
        (suite / "tests" / name).unlink()
    aliased = suite / "tests" / "aliased.yaml"
    aliased.write_text(ALIASED, encoding="utf-8")
    before = evalkit_test(suite)
    assert "PASS" in before.stdout and "FAIL" in before.stdout, before.stdout
    updated = evalkit_test(suite, "--update")
    assert updated.stdout.splitlines()[-1] == "2 passed, 0 failed"
    after = evalkit_test(suite)
    assert after.returncode == 0 and after.stdout.splitlines()[-1] == "2 passed, 0 failed", after.stdout
    first, second = yaml.safe_load(aliased.read_text(encoding="utf-8"))["cases"]
    assert first["expect"] == {"fired": ["mentions_heap", "high_accuracy_needs_example", "close_rewrite"]}
    assert second["expect"] != first["expect"]


def test_a_test_file_kept_as_a_link_stays_a_link(suite: Path, tmp_path: Path) -> None:
    """--update writes through a symbolic link to its target, atomically: the link stays a link."""
    elsewhere = tmp_path / "shared" / "failing.yaml"
    elsewhere.parent.mkdir()
    failing = suite / "tests" / "failing.yaml"
    shutil.move(failing, elsewhere)
    elsewhere.with_name("heap.json").touch()
    failing.symlink_to(os.path.relpath(elsewhere, failing.parent))
    link = os.readlink(failing)
    done = evalkit_test(suite, "--update")
    assert f"updated {failing}" in done.stdout
    assert failing.is_symlink() and os.readlink(failing) == link
    assert "      score: 2          # wrong: the heap rule adds 2" in elsewhere.read_text(encoding="utf-8")
    assert sorted(p.name for p in elsewhere.parent.iterdir()) == ["failing.yaml", "heap.json"]
