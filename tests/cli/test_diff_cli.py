"""`evalkit diff` through its entry point, in a temporary git repository: the shipped config committed,
then edited in the working tree, and compared against HEAD, against another folder, and with CI gates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).parents[2]
InProcess = Callable[..., subprocess.CompletedProcess[str]]  # the `in_process` fixture (conftest.py)
SAMPLES = REPO / "samples"
ADDED_RULE = """
  - id: mentions_heap
    when: {response_contains_any: ["heap"]}
    actions: {set_flag: heap}
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def evalkit_diff(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "diff", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def diff_json(*args: str | Path, cwd: Path) -> tuple[int, dict[str, Any]]:
    done = evalkit_diff(*args, "--format", "json", cwd=cwd)
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding the shipped config (`config/`) and the samples (`samples/`) in one commit:
    built once for the module, copied for each test that changes it."""
    repo = tmp_path_factory.mktemp("committed") / "project"
    shutil.copytree(
        REPO / "config_samples",
        repo / "config",
        ignore=shutil.ignore_patterns("*.py", "tests", "__pycache__"),
    )
    shutil.copytree(SAMPLES, repo / "samples")
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")
    return repo


@pytest.fixture
def repo(committed: Path, tmp_path: Path) -> Path:
    """The committed repository, a copy of this test's own."""
    return Path(shutil.copytree(committed, tmp_path / "project", symlinks=True))


def edit_rules(repo: Path, old: str, new: str) -> None:
    rules = repo / "config" / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    assert old in text
    rules.write_text(text.replace(old, new, 1), encoding="utf-8")


def lengthen_short_answers(repo: Path) -> None:
    """14 samples become needs_review (neutral before), 21 gain the too_short flag."""
    edit_rules(repo, "max_total_length: 80", "max_total_length: 400")


def test_an_unchanged_config_changes_nothing_and_both_sides_hash_alike(repo: Path) -> None:
    code, report = diff_json(
        "--base", "HEAD", "--config-dir", "config", "samples", "--fail-on-change", cwd=repo
    )
    assert code == 0
    assert report["submissions"] == 31 and report["changed"] == 0 and report["changes"] == []
    assert report["base"]["config_hash"] == report["head"]["config_hash"]
    eval_hash = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-m",
                "evalkit",
                "eval",
                "samples/sample_submission.json",
                "--config-dir",
                "config",
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )["meta"]["config_hash"]
    assert report["base"]["config_hash"] == eval_hash  # read from git, hashed as eval hashes the folder


def test_a_git_base_reports_labels_flags_rules_ratings_and_each_change(repo: Path) -> None:
    lengthen_short_answers(repo)
    code, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert code == 0
    assert report["base"]["ref"] == "HEAD" and report["head"]["ref"] == "config"
    assert report["base"]["config_hash"] != report["head"]["config_hash"]
    assert report["submissions"] == 31 and report["changed"] == 21
    assert report["labels"] == {"neutral -> needs_review": 14}
    assert report["flags"] == {"too_short": {"gained": 21, "lost": 0}}
    assert report["rules"]["very_short_answers"] == {"base": 2, "head": 23}
    assert report["rules"]["low_optimality_penalty"] == {"base": 7, "head": 7}
    assert report["dimensions"] == {"presentation": {"changed": 21, "mean_change": -0.5}}
    first = report["changes"][0]
    assert first == {
        "source": "samples/01_algorithms_graphs_complete.json",
        "label": ["neutral", "needs_review"],
        "flags": [["low_accuracy"], ["low_accuracy", "too_short"]],
        "corrected_ratings": {"presentation": [4.0, 3.5]},
        "fired_rules": [
            ["lower_accuracy_if_no_example"],
            ["lower_accuracy_if_no_example", "very_short_answers"],
        ],
    }


def test_the_json_shape_has_every_documented_key(repo: Path) -> None:
    lengthen_short_answers(repo)
    edit_rules(repo, "increment_score: 2\n", "increment_score: 4\n")
    _, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert list(report) == [
        "base",
        "head",
        "submissions",
        "changed",
        "labels",
        "scores",
        "flags",
        "rules",
        "dimensions",
        "changes",
    ]
    assert set(report["base"]) == set(report["head"]) == {"ref", "config_hash", "errors"}
    assert report["scores"] == {"+2": 3}
    changed_fields = {key for change in report["changes"] for key in change}
    assert changed_fields <= {
        "source",
        "label",
        "score",
        "flags",
        "corrected_ratings",
        "corrected_ranking",
        "rewrite_final",
        "fired_rules",
        "error",
    }
    assert all(
        len(value) == 2
        for change in report["changes"]
        for key, value in change.items()
        if key not in ("source", "corrected_ratings")
    )


def test_added_and_removed_rules_are_marked(repo: Path) -> None:
    edit_rules(repo, "\nrewrite_rules:", ADDED_RULE + "\nrewrite_rules:")
    edit_rules(repo, "id: negative_weights_without_alternative", "id: negative_weights_renamed")
    _, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    rules = report["rules"]
    assert rules["mentions_heap"] == {"base": None, "head": 4, "status": "added"}
    assert rules["negative_weights_renamed"] == {"base": None, "head": 1, "status": "added"}
    assert rules["negative_weights_without_alternative"] == {"base": 1, "head": None, "status": "removed"}
    assert list(rules)[-1] == "negative_weights_without_alternative"  # removed rules come after the head's
    assert report["flags"]["heap"] == {"gained": 4, "lost": 0}
    text = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo).stdout
    assert any(line.split() == ["mentions_heap", "-", "4", "added"] for line in text.splitlines())
    assert any(
        line.split() == ["negative_weights_without_alternative", "1", "-", "removed"]
        for line in text.splitlines()
    )


def test_a_folder_as_the_base(repo: Path) -> None:
    shutil.copytree(repo / "config", repo / "before")
    lengthen_short_answers(repo)
    code, report = diff_json("--base", "before", "--config-dir", "config", "samples", cwd=repo)
    assert code == 0 and report["base"]["ref"] == "before" and report["changed"] == 21


def test_an_older_commit_and_a_config_in_the_repository_root(tmp_path: Path) -> None:
    shutil.copytree(
        REPO / "config_samples",
        tmp_path,
        ignore=shutil.ignore_patterns("*.py", "tests", "__pycache__"),
        dirs_exist_ok=True,
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.email=t@e.st", "-c", "user.name=t", "commit", "-qm", "empty", "--allow-empty")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.email=t@e.st", "-c", "user.name=t", "commit", "-qm", "config")
    first = git(tmp_path, "rev-list", "--max-parents=0", "HEAD").strip()
    code, report = diff_json("--base", "HEAD", "--config-dir", ".", SAMPLES, cwd=tmp_path)
    assert code == 0 and report["changed"] == 0
    done = evalkit_diff("--base", first, "--config-dir", ".", SAMPLES, cwd=tmp_path)
    assert done.returncode == 2  # the first commit had no config at all
    assert done.stderr == (
        f"evalkit diff: --base {first}: {first} has no YAML files in the top folder of the "
        f"repository at {tmp_path}\n"
    )


def test_an_invalid_head_prints_its_diagnostics_and_exits_2(repo: Path) -> None:
    edit_rules(repo, "dedupe_comments", "dedupe_coments")
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert done.returncode == 2 and done.stdout == ""
    assert (
        "config/rules.yaml:5:3: error[unknown-key] unknown key 'dedupe_coments' in options; "
        "did you mean 'dedupe_comments'?"
    ) in done.stderr
    assert "evalkit diff: the head config (config) has errors; nothing was compared" in done.stderr


def test_a_head_folder_that_does_not_exist_is_said_before_any_git_lookup(
    repo: Path, in_process: InProcess
) -> None:
    # a head config with errors through `python -m evalkit`: test_an_invalid_head_prints_its_diagnostics...
    done = in_process("diff", "--base", "HEAD", "--config-dir", "confg", "samples", cwd=repo)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "evalkit diff: --config-dir confg: no such folder; did you mean config?"
    ]


def test_an_invalid_base_at_a_revision_is_named_by_revision_and_path(repo: Path) -> None:
    edit_rules(repo, "dedupe_comments", "dedupe_coments")
    git(repo, "commit", "-qam", "broken")
    edit_rules(repo, "dedupe_coments", "dedupe_comments")
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert done.returncode == 2
    assert "HEAD:config/rules.yaml:5:3: error[unknown-key] unknown key 'dedupe_coments'" in done.stderr
    assert "the base config (HEAD:config) has errors" in done.stderr


def test_a_base_file_that_is_not_utf8_is_a_diagnostic(repo: Path) -> None:
    rules = repo / "config" / "rules.yaml"
    saved = rules.read_bytes()
    rules.write_bytes(b"# caf\xe9\n" + saved)
    git(repo, "commit", "-qam", "latin-1")
    rules.write_bytes(saved)
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "HEAD:config/rules.yaml:1:6: error[not-utf8] the file is not UTF-8 text (byte 5: 0xe9)",
        "evalkit diff: the base config (HEAD:config) has errors; nothing was compared",
    ]


def test_fail_on_change(repo: Path) -> None:
    lengthen_short_answers(repo)
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", "--fail-on-change", cwd=repo)
    assert done.returncode == 1
    assert "evalkit diff: 21 submissions changed (--fail-on-change)" in done.stderr
    assert "21 of 31 submissions changed" in done.stdout  # the report is printed all the same


@pytest.mark.parametrize(("limit", "code"), [("14", 0), ("13", 1), ("50%", 0), ("45%", 1), ("0", 1)])
def test_max_label_changes_as_a_count_or_a_percentage(repo: Path, limit: str, code: int) -> None:
    lengthen_short_answers(repo)  # 14 of 31 labels change: 45.2%
    done = evalkit_diff(
        "--base", "HEAD", "--config-dir", "config", "samples", "--max-label-changes", limit, cwd=repo
    )
    assert done.returncode == code, done.stderr
    if code:
        assert f"14 label changes, more than --max-label-changes {limit} allows" in done.stderr


@pytest.mark.parametrize("limit", ["many", "-1", "101%", "5.5"])
def test_a_bad_label_limit_is_a_usage_error(repo: Path, limit: str, in_process: InProcess) -> None:
    # a refusal before anything is compared through `python -m evalkit`: test_a_revision_git_does_not_know
    done = in_process(
        "diff", "--base", "HEAD", "--config-dir", "config", "samples", "--max-label-changes", limit, cwd=repo
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"evalkit diff: --max-label-changes {limit!r}: expected a count")


def test_a_revision_git_does_not_know(repo: Path) -> None:
    done = evalkit_diff("--base", "no-such-branch", "--config-dir", "config", "samples", cwd=repo)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "evalkit diff: --base no-such-branch: not a config folder, and "
        f"'no-such-branch' is not a revision of the git repository at {repo}"
    )


def test_a_revision_outside_any_repository(tmp_path: Path) -> None:
    shutil.copytree(
        REPO / "config_samples", tmp_path / "config", ignore=shutil.ignore_patterns("*.py", "tests")
    )
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", SAMPLES, cwd=tmp_path)
    assert done.returncode == 2
    assert "not a config folder, and config is not inside a git repository" in done.stderr


def test_unreadable_submissions_count_as_errors_on_both_sides(repo: Path) -> None:
    (repo / "samples" / "zz_broken.json").write_text("{not json", encoding="utf-8")
    code, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert code == 1  # as eval: some submissions could not be read
    assert report["base"]["errors"] == report["head"]["errors"] == 1 and report["changed"] == 0
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert "samples/zz_broken.json: error: invalid JSON at column 2" in done.stderr


def test_jobs_give_the_same_report(repo: Path) -> None:
    lengthen_short_answers(repo)
    corpus = repo / "corpus.jsonl"
    lines = [json.dumps(json.loads(p.read_text())) for p in sorted((repo / "samples").glob("*.json"))]
    corpus.write_text("\n".join(lines * 40) + "\n", encoding="utf-8")
    one = diff_json("--base", "HEAD", "--config-dir", "config", corpus, cwd=repo)
    two = diff_json("--base", "HEAD", "--config-dir", "config", corpus, "--jobs", "2", cwd=repo)
    assert one == two and one[1]["submissions"] == len(lines) * 40


def test_markdown_is_a_short_table_with_the_details_folded(repo: Path) -> None:
    lengthen_short_answers(repo)
    out = evalkit_diff(
        "--base", "HEAD", "--config-dir", "config", "samples", "--format", "markdown", cwd=repo
    ).stdout
    head, _, folded = out.partition("<details>")
    assert head.startswith("### evalkit diff: 21 of 31 submissions changed\n")
    assert "| neutral → needs\\_review | 14 |" in head
    assert "| `very_short_answers` | 2 | 23 | +21 |" in head
    assert "| `low_optimality_penalty` |" not in head  # unchanged rules only in the folded table
    assert "<summary>Changed submissions (21)</summary>" in folded
    assert "| label | neutral → needs\\_review |" in folded
    assert out.count("<details>") == out.count("</details>") == 3


def test_text_is_a_terminal_table(repo: Path) -> None:
    lengthen_short_answers(repo)
    out = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo).stdout
    lines = out.splitlines()
    assert lines[0].startswith("base HEAD (") and lines[1].startswith("head config (")
    assert lines[2] == "21 of 31 submissions changed"
    assert ["very_short_answers", "2", "23", "+21"] in [line.split() for line in lines]
    block = lines[lines.index("samples/01_algorithms_graphs_complete.json") :][:5]
    assert [line.split(None, 1) for line in block[1:]] == [
        ["label", "neutral -> needs_review"],
        ["flags", "+too_short"],
        ["rating", "presentation  4 -> 3.5"],
        ["fired_rules", "+very_short_answers"],
    ]


def test_a_rewrite_change_shows_where_the_texts_differ(repo: Path) -> None:
    edit_rules(repo, 'append_text: "."', 'append_text: " (fin)."')
    out = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo).stdout
    lines = out.splitlines()
    at = lines.index("samples/sample_submission.json")
    assert lines[at + 1].split(None, 1) == ["rewrite_final", "…no negativos. -> …no negativos (fin)."]
    _, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    whole = next(c for c in report["changes"] if c["source"] == "samples/sample_submission.json")
    assert whole["rewrite_final"][1] == whole["rewrite_final"][0][:-1] + " (fin)."  # JSON: the whole texts


def test_a_config_file_committed_as_a_symbolic_link_is_read_through_it(repo: Path) -> None:
    shared = repo / "shared"
    shared.mkdir()
    (repo / "config" / "rules.yaml").rename(shared / "rules.yaml")
    (repo / "config" / "rules.yaml").symlink_to(Path("..") / "shared" / "rules.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules shared through a link")
    code, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert code == 0 and report["changed"] == 0  # the link's text (../shared/rules.yaml) is no config
    assert report["base"]["config_hash"] == report["head"]["config_hash"]
    lengthen_short_answers(repo)  # through the link, in the working tree
    code, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert code == 0 and report["labels"] == {"neutral -> needs_review": 14}


def test_a_link_out_of_the_repository_at_the_base_is_a_one_line_error(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    (repo / "config" / "prompt.yaml").rename(outside)
    (repo / "config" / "prompt.yaml").symlink_to(outside)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "prompt from elsewhere")
    done = evalkit_diff("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "evalkit diff: --base HEAD: HEAD:config/prompt.yaml: a symbolic link git cannot follow at HEAD "
        f"(symlink: {outside})\n"
    )


def test_a_feedback_template_change_is_a_change(repo: Path) -> None:
    ranking = repo / "config" / "ranking.yaml"
    text = ranking.read_text(encoding="utf-8")
    ranking.write_text(text.replace("Ranking incluye todas", "El ranking incluye todas"), encoding="utf-8")
    code, report = diff_json("--base", "HEAD", "--config-dir", "config", "samples", cwd=repo)
    assert code == 0 and report["changed"] > 0
    assert all(set(change) == {"source", "ranking_feedback"} for change in report["changes"])
    assert report["changes"][0]["ranking_feedback"][1].startswith("El ranking incluye todas")


def test_a_base_file_too_large_is_said_from_its_size_and_never_read(repo: Path) -> None:
    """A 200 MB rules.yaml at the base: `git cat-file --batch-check` gives its size, the diagnostic says it,
    and the blob is never read (before, the whole blob was read, then refused: 450 MB peaked at 1.3 GB)."""
    rules = repo / "config" / "rules.yaml"
    saved = rules.read_bytes()
    with open(rules, "ab") as handle:
        handle.write(b"#" * (200 << 20))
    git(repo, "commit", "-qam", "huge")
    rules.write_bytes(saved)
    code = (
        "import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "print(done.stderr, end='')"
    )
    args = ["--base", "HEAD", "--config-dir", "config", "samples"]
    done = subprocess.run(
        [sys.executable, "-c", code, sys.executable, "-m", "evalkit", "diff", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    status, *stderr = done.stdout.splitlines()
    returncode, peak_kb = map(int, status.split())
    assert returncode == 2 and peak_kb < 150_000, done.stdout
    assert stderr == [
        "HEAD:config/rules.yaml:1:1: error[file-too-large] the file is larger than 4,000,000 bytes "
        f"({len(saved) + (200 << 20):,} bytes); the limit is 1,000,000 characters",
        "evalkit diff: the base config (HEAD:config) has errors; nothing was compared",
    ]


def _report_without_refs(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    report["base"].pop("ref")
    return report


@pytest.fixture
def other_repo(tmp_path: Path) -> Path:
    """Another repository, whose config at HEAD differs from the project's."""
    other = tmp_path / "other"
    shutil.copytree(REPO / "config_samples", other / "config", ignore=shutil.ignore_patterns("*.py", "tests"))
    git(other, "init", "-q")
    edit_rules(other, "max_total_length: 80", "max_total_length: 400")
    git(other, "add", "-A")
    git(other, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "other")
    return other


@pytest.mark.parametrize(
    "variables",
    [
        {"GIT_DIR": "{other}/.git"},
        {"GIT_DIR": ".git"},  # as git exports it inside a hook: relative to the hook's folder
        {"GIT_WORK_TREE": "{other}"},
        {"GIT_DIR": "{other}/.git", "GIT_WORK_TREE": "{other}", "GIT_INDEX_FILE": "{other}/.git/index"},
    ],
)
def test_git_variables_in_the_environment_do_not_choose_the_repository(
    repo: Path, other_repo: Path, variables: dict[str, str]
) -> None:
    """The base is read from the repository that holds the config folder, whatever GIT_DIR or GIT_WORK_TREE
    say (GIT_WORK_TREE elsewhere was a ValueError traceback; GIT_DIR read the other repository)."""
    args = ["diff", "--base", "HEAD", "--config-dir", "config", "samples", "--format", "json"]
    plain = subprocess.run(
        [sys.executable, "-m", "evalkit", *args], cwd=repo, capture_output=True, text=True, timeout=120
    )
    environment = {**os.environ, **{k: v.format(other=other_repo) for k, v in variables.items()}}
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert "Traceback" not in done.stderr
    assert _report_without_refs(done) == _report_without_refs(plain)
    assert json.loads(done.stdout)["changed"] == 0  # the project's own HEAD, not the other's config


def test_a_pre_commit_hook_runs_evalkit_diff(repo: Path) -> None:
    """`evalkit diff --fail-on-change` in a real pre-commit hook (git's environment, the repository's top
    as its folder): a commit that changes outcomes is refused, one that does not goes through."""
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        f"#!/bin/sh\nexec {sys.executable} -m evalkit diff --base HEAD --config-dir config samples "
        "--fail-on-change\n"
    )
    hook.chmod(0o755)
    lengthen_short_answers(repo)
    refused = subprocess.run(
        ["git", "commit", "-qam", "longer"], cwd=repo, capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 1 and "21 submissions changed (--fail-on-change)" in refused.stderr
    assert "Traceback" not in refused.stderr
    git(repo, "checkout", "--", "config")
    (repo / "notes.txt").write_text("no config change\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-qm", "notes")


def test_a_revision_named_by_its_message(repo: Path) -> None:
    """`--base ':/message'` (the youngest commit whose message matches) is a revision like any other."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "later")
    lengthen_short_answers(repo)
    code, report = diff_json("--base", ":/^config", "--config-dir", "config", "samples", cwd=repo)
    assert code == 0 and report["changed"] == 21 and report["base"]["ref"] == ":/^config"
    done = evalkit_diff("--base", ":/no commit says this", "--config-dir", "config", "samples", cwd=repo)
    assert done.returncode == 2 and "':/no commit says this' is not a revision" in done.stderr
