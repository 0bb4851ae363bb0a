"""Text evalkit did not write reaches no terminal, CI log or Markdown raw, through every command that shows
it (issue 30, points 1 and 2): folder and file names, rule ids, flags, labels, test case names, git's
errors, submission text. One hostile workspace, each command run once through its console script."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
OSC52 = "\x1b]52;c;SGVsbG8=\x07"
"""A terminal that reads it writes `Hello` to the clipboard."""
HOSTILE_NAME = f"x{OSC52}\r::error::forged"
HOSTILE_ID = "evil`<img src=https://x/y.png>[l](https://x)\x1b]8;;https://x\x1b\\\\"
HOSTILE_FLAG = "f\x1b[2J\r::add-mask::secret @alice www.example.com"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What no output may hold raw (a line feed ends a line evalkit writes; the text's own are escaped)."""
pytestmark = pytest.mark.xdist_group("untrusted-outputs")  # the workspace's commands run once


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": ""}
    return subprocess.run(
        [str(EVALKIT), *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env, errors="replace"
    )


def assert_clean(*texts: str) -> None:
    """No raw control character, and no line a CI runner would take as a command."""
    for text in texts:
        assert RAW.search(text) is None, text
        for line in text.splitlines():
            assert not re.match(r"\s*(::|##\[)", line) or line.startswith(
                ("::error file=", "::warning file=")
            ), line


def _config(folder: Path, extra_rule: str = "") -> Path:
    shutil.copytree(REPO / "config_samples", folder, ignore=shutil.ignore_patterns("tests", "__*"))
    if extra_rule:
        rules = folder / "rules.yaml"
        rules.write_text(rules.read_text().replace("rating_rules:\n", "rating_rules:\n" + extra_rule, 1))
    return folder


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    _config(root / "base")
    evil = json.dumps(HOSTILE_ID)
    flag = json.dumps(HOSTILE_FLAG)
    _config(
        root / "head",
        f"  - id: {evil}\n    when: {{response_contains_any: [a]}}\n"
        f"    actions: {{set_flag: {flag}, add_comment: {json.dumps('x @alice ' + OSC52)}}}\n",
    )
    (root / "samples").mkdir()
    shutil.copy(REPO / "samples" / "sample_submission.json", root / "samples" / f"{HOSTILE_NAME}.json")
    (root / "broken").mkdir()
    (root / "broken" / f"{HOSTILE_NAME}.json").write_text("{not json")
    tree = root / "tree" / f"cfg{OSC52}" / "::add-mask::x"
    tree.mkdir(parents=True)
    (tree / "rules.yaml").write_text("rating_rules: [\n")
    tests = _config(root / "tested") / "tests"
    tests.mkdir()
    case = (REPO / "config_samples" / "tests" / "short_answers.yaml").read_text()
    (tests / "cases.yaml").write_text(
        case.replace("very short responses", json.dumps(HOSTILE_NAME)[:-1], 1)
        .replace("need review", 'need review"', 1)
        .replace("label: needs_review", "label: good", 1)
    )
    return root


@pytest.fixture(scope="module")
def diff_runs(workspace: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    return {
        fmt: run("diff", "--base", "base", "--config-dir", "head", "samples", "--format", fmt, cwd=workspace)
        for fmt in ("text", "markdown")
    }


def test_check_shows_a_hostile_folder_name_escaped_in_text_and_in_annotations(workspace: Path) -> None:
    text = run("check", "tree", cwd=workspace)
    github = run("check", "tree", "--format", "github", cwd=workspace)
    assert text.returncode == github.returncode == 1
    assert_clean(text.stdout, text.stderr, github.stdout, github.stderr)
    assert "tree/cfg\\x1b]52;c;SGVsbG8=\\x07/::add-mask::x/rules.yaml:1:" in text.stdout
    (annotation,) = github.stdout.splitlines()
    assert annotation.startswith(
        "::error file=tree/cfg\\x1b]52;c;SGVsbG8=\\x07/%3A%3Aadd-mask%3A%3Ax/rules.yaml,"
    )


def test_eval_names_a_hostile_file_escaped_on_stderr(workspace: Path) -> None:
    done = run("eval", "broken", "--report-md", "report.md", "--out", "out.jsonl", cwd=workspace)
    assert done.returncode == 1
    assert_clean(done.stderr)
    assert done.stderr.startswith("broken/x\\x1b]52;c;SGVsbG8=\\x07\\r::error::forged.json: error: ")
    report = (workspace / "report.md").read_text()
    assert RAW.search(report) is None and "\\r::error::forged" in report


def test_diff_text_shows_ids_flags_and_names_escaped(
    diff_runs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    done = diff_runs["text"]
    assert done.returncode == 0, done.stderr
    assert_clean(done.stdout, done.stderr)
    assert "evil`<img src=https://x/y.png>[l](https://x)\\x1b]8;;https://x\\x1b\\\\" in done.stdout
    assert "+f\\x1b[2J\\r::add-mask::secret" in done.stdout
    assert "samples/x\\x1b]52;c;SGVsbG8=\\x07\\r::error::forged.json" in done.stdout


def test_diff_markdown_renders_no_html_link_image_mention_or_new_row(
    diff_runs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    done = diff_runs["markdown"]
    assert done.returncode == 0, done.stderr
    assert RAW.search(done.stdout) is None
    html = MarkdownIt("commonmark").enable("table").render(done.stdout)
    assert "<img" not in html and "<a " not in html and "<h1" not in html
    tokens = MarkdownIt("commonmark").enable("table").parse(done.stdout)
    rows = [t.map for t in tokens if t.type == "tr_open"]
    lines = [t for t in done.stdout.splitlines() if t.startswith("|") and not t.startswith("| ---")]
    assert len(rows) == len(lines)  # every row on its line: none ended by a CR
    texts = [c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "text"]
    assert any("secret" in text for text in texts)
    assert re.search(r"@alice|https://|www\.example", "".join(texts)) is None  # code spans link nothing


def test_test_shows_a_hostile_case_name_escaped(workspace: Path) -> None:
    done = run("test", "tested", cwd=workspace)
    assert done.returncode == 1
    assert_clean(done.stdout, done.stderr)
    assert "x\\x1b]52;c;SGVsbG8=\\x07\\r::error::forged" in done.stdout


def test_git_errors_naming_a_hostile_folder_are_escaped(workspace: Path) -> None:
    repository = workspace / "repo"
    repository.mkdir()
    git = ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "empty"], check=True)
    folder = repository / f"c{OSC52}"
    _config(folder)
    done = run(
        "diff", "--base", "HEAD", "--config-dir", folder.name, str(workspace / "samples"), cwd=repository
    )
    assert done.returncode == 2
    assert_clean(done.stdout, done.stderr)
    assert "\\x1b]52;c;SGVsbG8=\\x07" in done.stderr


def test_argparse_quotes_a_hostile_argument_escaped(workspace: Path) -> None:
    done = run("check", f"--bogus=x{OSC52}", cwd=workspace)
    assert done.returncode == 2
    assert_clean(done.stderr)
    assert "x\\x1b]52;c;SGVsbG8=\\x07" in done.stderr


def test_stats_text_shows_hostile_labels_and_sources_escaped(tmp_path: Path) -> None:
    sample = tmp_path / f"s{OSC52}.json"
    shutil.copy(REPO / "samples" / "sample_submission.json", sample)
    entry = {"source": sample.name, "target": "label", "action": "edit", "step": 1, "value": HOSTILE_FLAG}
    entry["ts"] = "2026-11-20T09:00:00Z"
    journal = tmp_path / "ana.decisions.jsonl"
    journal.write_text(json.dumps(entry) + "\n")
    text = run("stats", str(journal), cwd=tmp_path)
    html = run("stats", str(journal), "--format", "html", cwd=tmp_path)
    assert text.returncode == html.returncode == 0, text.stderr
    assert_clean(text.stdout, text.stderr, html.stdout)
    assert "f\\x1b[2J\\r::add-mask::secret" in text.stdout
