"""Journals are read a line at a time by `evalkit stats` and `evalkit check --journals`: a sparse file of a
gigabyte (one line of NUL bytes) is one clear warning, a journal of hundreds of thousands of lines runs in
bounded memory (RLIMIT_AS), and a journal of bad lines says the first PROBLEMS_KEPT of them and counts the
rest. Each through the console script, as a user runs it."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from evalkit.services.review.reviews import PROBLEMS_KEPT

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
MEMORY_LIMIT = 400 * 1024 * 1024
"""Address space for one command: stats needs under 200 MB; reading a journal whole asked for gigabytes."""


def evalkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(EVALKIT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT)),
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr[-2000:]
    return done


def test_a_sparse_gigabyte_journal_is_one_warning(tmp_path: Path) -> None:
    journal = tmp_path / "sparse.decisions.jsonl"
    with journal.open("wb") as handle:
        handle.truncate(1 << 30)
    stats = evalkit("stats", journal.name, cwd=tmp_path)
    assert stats.returncode == 0
    assert stats.stderr.splitlines() == [
        "sparse.decisions.jsonl:1:1: warning[journal-not-json] the line is longer than 50,000,000 bytes; "
        "skipped"
    ]
    check = evalkit(
        "check", str(REPO / "config_samples"), "--journals", "*.decisions.jsonl", "--strict", cwd=tmp_path
    )
    assert check.returncode == 0, check.stderr  # an info: the journal's other lines would still count
    assert check.stdout.splitlines()[0] == (
        "sparse.decisions.jsonl:1:1: info[journal-not-json] the line is longer than 50,000,000 bytes; skipped"
    )


def decision(number: int) -> dict[str, object]:
    return {
        "ts": f"2026-11-{1 + number // 86400 % 28:02d}T{number // 3600 % 24:02d}:{number // 60 % 60:02d}:"
        f"{number % 60:02d}Z",
        "source": f"samples/s{number % 100}.json",
        "target": ("label", "flag.too_short", "rating.clarity")[number % 3],
        "action": "accept",
        "value": None,
        "note": None,
        "step": number + 1,
    }


def test_a_journal_of_300_000_lines_runs_in_bounded_memory(tmp_path: Path) -> None:
    journal = tmp_path / "long.decisions.jsonl"
    with journal.open("w") as handle:
        for number in range(300_000):
            handle.write(json.dumps(decision(number)) + "\n")
    done = evalkit("stats", journal.name, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [read] = json.loads(done.stdout)["journals"]
    assert read["decisions"] == 300_000 and read["submissions"] == 100 and read["skipped_entries"] == 0


def test_a_journal_of_bad_lines_says_the_first_ones_and_counts_the_rest(tmp_path: Path) -> None:
    journal = tmp_path / "bad.decisions.jsonl"
    lines = [json.dumps(decision(0)), *(["not json"] * (PROBLEMS_KEPT + 500)), json.dumps(decision(1))]
    journal.write_text("\n".join(lines) + "\n")
    done = evalkit("stats", journal.name, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0
    said = done.stderr.splitlines()
    assert len(said) == PROBLEMS_KEPT + 1
    assert said[0].startswith("bad.decisions.jsonl:2:1: warning[journal-not-json] not a JSON entry")
    assert said[-1] == "bad.decisions.jsonl: 500 more lines skipped"
    [read] = json.loads(done.stdout)["journals"]
    assert read["decisions"] == 2 and read["skipped_entries"] == PROBLEMS_KEPT + 500
