"""A fuzz target per file and command-line input surface: config YAML, submissions, journals, score rows,
git revisions. Each draws a hostile case, runs the commands that read it through their console scripts,
and asserts the rule of tests/fuzz/harness.py. A case is plain JSON data, so that every case that ever
broke a target is kept in tests/fuzz/corpus/<target>/ and replayed by every run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import FUZZ_SETTINGS, REPO, assert_sound, corpus, evalkit
from tests.fuzz.strategies import FILE_NAMES, HOSTILE_TEXT, VALUES, replaced

Case = dict[str, Any]
SAMPLE = json.loads((REPO / "samples" / "sample_submission.json").read_text(encoding="utf-8"))
RULES = (REPO / "config_samples" / "rules.yaml").read_text(encoding="utf-8")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate becomes bytes no decoder accepts


def _name(name: str) -> bytes:
    return os.fsencode(name)


def _fresh(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return root


def _config(where: Path) -> Path:
    return Path(shutil.copytree(REPO / "config_samples", where, ignore=shutil.ignore_patterns("__*")))


# --- submissions ----------------------------------------------------------------------------------


@st.composite
def submission_cases(draw: st.DrawFn) -> Case:
    files = []
    for _ in range(draw(st.integers(1, 3))):
        value = replaced(SAMPLE, draw)
        kind = draw(st.sampled_from(["json", "jsonl", "yaml", "text"]))
        if kind == "json":
            content = json.dumps(value, ensure_ascii=draw(st.booleans()))
        elif kind == "jsonl":
            content = "\n".join(json.dumps(replaced(SAMPLE, draw)) for _ in range(draw(st.integers(1, 3))))
            content += draw(st.sampled_from(["", "\n", "\r\n", "\n{broken"]))
        elif kind == "yaml":
            content = f"prompt: {json.dumps(draw(HOSTILE_TEXT))}\nresponses: {json.dumps(draw(VALUES))}\n"
        else:
            content = draw(HOSTILE_TEXT)
        suffix = ".jsonl" if kind == "jsonl" else ".yaml" if kind == "yaml" else ".json"
        files.append([draw(FILE_NAMES) + suffix, content])
    return {"files": files}


def run_submissions(case: Case, where: Path) -> None:
    inputs = _fresh(where / "in")
    for name, content in case["files"]:
        (inputs / Path(os.fsdecode(_name(name)))).write_bytes(_bytes(content))
    run = evalkit("eval", "in", "--report-md", "r.md", "--log-file", "l.log", cwd=where)
    written = [
        (where / name).read_text(errors="replace") for name in ("r.md", "l.log") if (where / name).exists()
    ]
    assert_sound(run, json_stdout=True, texts=written)


@FUZZ_SETTINGS
@given(case=submission_cases())
def test_submissions(case: Case, tmp_path_factory: pytest.TempPathFactory) -> None:
    run_submissions(case, tmp_path_factory.mktemp("case"))


# --- config YAML ----------------------------------------------------------------------------------


@st.composite
def config_cases(draw: st.DrawFn) -> Case:
    lines = RULES.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        piece = draw(HOSTILE_TEXT)
        how = draw(st.sampled_from(["quoted", "raw", "replace-id"]))
        if how == "quoted":
            lines[at] = (
                lines[at].replace(":", f": {json.dumps(piece)} #", 1) if ":" in lines[at] else lines[at]
            )
        elif how == "raw":
            lines.insert(at, piece + "\n")
        else:
            lines[at] = lines[at].replace("- id: ", f"- id: {json.dumps(piece)} #", 1)
    command = draw(st.sampled_from(["check-text", "check-github", "check-json", "eval", "test"]))
    return {"rules": "".join(lines), "command": command}


def run_config(case: Case, where: Path) -> None:
    config = _config(where / "config")
    (config / "rules.yaml").write_bytes(_bytes(case["rules"]))
    sample = REPO / "samples" / "sample_submission.json"
    args: list[str] = {
        "check-text": ["check", "config"],
        "check-github": ["check", "config", "--format", "github"],
        "check-json": ["check", "config", "--format", "json"],
        "eval": ["eval", str(sample), "--config-dir", "config", "--report-md", "r.md"],
        "test": ["test", "config"],
    }[case["command"]]
    run = evalkit(*args, cwd=where)
    report = [(where / "r.md").read_text(errors="replace")] if (where / "r.md").exists() else []
    assert_sound(run, json_stdout=case["command"] in ("check-json", "eval"), texts=report)


@FUZZ_SETTINGS
@given(case=config_cases())
def test_config_yaml(case: Case, tmp_path_factory: pytest.TempPathFactory) -> None:
    run_config(case, tmp_path_factory.mktemp("case"))


# --- journals -------------------------------------------------------------------------------------

DECISION = {"source": "s.json", "target": "label", "action": "edit", "step": 1, "value": "good"}


@st.composite
def journal_cases(draw: st.DrawFn) -> Case:
    lines = []
    targets = st.sampled_from(["label", "rating.accuracy", "flag.too_short", "rewrite", "ranking", "note"])
    for step in range(1, draw(st.integers(1, 6)) + 1):
        entry = {**DECISION, "step": step, "target": draw(targets), "ts": "2026-11-20T09:00:00Z"}
        line = json.dumps(replaced(entry, draw, rate=4), ensure_ascii=draw(st.booleans()))
        lines.append(draw(st.sampled_from([line, line, line[: len(line) // 2], draw(HOSTILE_TEXT)])))
    command = draw(st.sampled_from(["stats-text", "stats-json", "stats-html", "check"]))
    return {"journal": "\n".join(lines) + "\n", "command": command}


def run_journal(case: Case, where: Path) -> None:
    _fresh(where)
    shutil.copy(REPO / "samples" / "sample_submission.json", where / "s.json")
    (where / "j.decisions.jsonl").write_bytes(_bytes(case["journal"]))
    args = {
        "stats-text": ["stats", "j.decisions.jsonl"],
        "stats-json": ["stats", "j.decisions.jsonl", "--format", "json"],
        "stats-html": ["stats", "j.decisions.jsonl", "--format", "html"],
        "check": ["check", str(REPO / "config_samples"), "--journals", "j.decisions.jsonl"],
    }[case["command"]]
    run = evalkit(*args, cwd=where)
    assert_sound(run, json_stdout=case["command"] == "stats-json")
    if case["command"] == "stats-json" and run.code == 0:
        json.loads(run.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    if case["command"] == "stats-html":
        assert "'nan'" not in run.stdout.lower() and "'inf" not in run.stdout.lower()


@FUZZ_SETTINGS
@given(case=journal_cases())
def test_journals(case: Case, tmp_path_factory: pytest.TempPathFactory) -> None:
    run_journal(case, tmp_path_factory.mktemp("case"))


# --- score rows -----------------------------------------------------------------------------------

ROW = {"data_source": "typos", "extra_info": {"label": "the cat"}, "model_output": "the cat"}


@st.composite
def score_cases(draw: st.DrawFn) -> Case:
    sources = st.sampled_from(["typos", "connections", "unscrambling"])
    rows = []
    for _ in range(draw(st.integers(1, 5))):
        row = {**ROW, "data_source": draw(st.one_of(sources, HOSTILE_TEXT))}
        rows.append(json.dumps(replaced(row, draw, rate=4), ensure_ascii=draw(st.booleans())))
    rows += draw(st.lists(HOSTILE_TEXT, max_size=2))
    return {"rows": "\n".join(rows) + "\n", "format": draw(st.sampled_from(["text", "json"]))}


def run_score(case: Case, where: Path) -> None:
    _fresh(where)
    (where / "rows.jsonl").write_bytes(_bytes(case["rows"]))
    run = evalkit("score", "rows.jsonl", "--out", "scored.jsonl", "--format", case["format"], cwd=where)
    assert_sound(run, json_stdout=case["format"] == "json")


@FUZZ_SETTINGS
@given(case=score_cases())
def test_score_rows(case: Case, tmp_path_factory: pytest.TempPathFactory) -> None:
    run_score(case, tmp_path_factory.mktemp("case"))


# --- git revisions --------------------------------------------------------------------------------

REVISIONS = st.one_of(
    HOSTILE_TEXT.map(lambda text: text.replace("\x00", "")),  # no argument holds a NUL
    st.sampled_from(
        ["HEAD", "HEAD~999", ":/message", "HEAD^{tree}", "@{-1}", "--output=x", "-", "HEAD:", "..", "^"]
    ),
    st.lists(st.sampled_from(["HEAD", "~", "^", ":", "/", "@", "{", "}", "..", "-"]), max_size=6).map(
        "".join
    ),
)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding the shipped config and a sample, committed once."""
    root = tmp_path_factory.mktemp("repository")
    _config(root / "config")
    (root / "samples").mkdir()
    shutil.copy(REPO / "samples" / "sample_submission.json", root / "samples" / "s.json")
    git = ["git", "-C", str(root), "-c", "user.name=fuzz", "-c", "user.email=fuzz@example.com"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "message"], check=True)
    return root


def run_revision(case: Case, repository: Path) -> None:
    run = evalkit("diff", f"--base={case['revision']}", "--config-dir", "config", "samples", cwd=repository)
    assert_sound(run)


@FUZZ_SETTINGS
@given(revision=REVISIONS)
def test_git_revisions(revision: str, repository: Path) -> None:
    run_revision({"revision": revision}, repository)


# --- every input that once broke a target ---------------------------------------------------------

TARGETS: dict[str, Callable[[Case, Path], None]] = {
    "submissions": run_submissions,
    "config": run_config,
    "journals": run_journal,
    "score": run_score,
}


@pytest.mark.parametrize(
    "path",
    [path for target in [*TARGETS, "revisions"] for path in corpus(target)],
    ids=lambda path: path.stem,
)
def test_corpus(path: Path, tmp_path: Path, repository: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    target = path.parent.name
    if target == "revisions":
        run_revision(case, repository)
    else:
        TARGETS[target](case, tmp_path / "case")
