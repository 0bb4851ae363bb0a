"""The seed's documented invocations, run as its README shows them (with `oai-eval` from the venv), in a
working folder holding copies of `samples/` and `config_samples/`. Expected values are the seed sample
worked out by hand against the shipped config (see tests/engine/test_result_shape.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
OAI_EVAL = str(Path(sys.executable).with_name("oai-eval"))
SAMPLE = "samples/sample_submission.json"
CONFIG_FILES = ["dimensions.yaml", "prompt.yaml", "ranking.yaml", "rewrite.yaml", "rules.yaml"]
CONFIG_HASH = hashlib.sha256(
    b"".join((ROOT / "config_samples" / name).read_bytes() for name in CONFIG_FILES)
).hexdigest()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "samples").mkdir()
    shutil.copy(ROOT / SAMPLE, tmp_path / SAMPLE)
    (tmp_path / "config_samples").mkdir()
    for name in CONFIG_FILES:
        shutil.copy(ROOT / "config_samples" / name, tmp_path / "config_samples" / name)
    return tmp_path


def oai_eval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([OAI_EVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    return done


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def assert_seed_result(result: dict[str, Any]) -> None:
    """The seed README's expected output fragment, made exact."""
    accuracy = result["corrected_ratings"]["accuracy"]
    assert (accuracy["original"], accuracy["updated"]) == (5.0, 4.5)
    assert result["corrected_ranking"] == ["resp_b", "resp_a"]
    assert result["ranking_feedback"] == "Ranking incluye todas las respuestas sin duplicados."
    assert result["rewrite_final"].startswith("Dijkstra halla")
    assert result["rewrite_final"].endswith("exige pesos no negativos.")
    assert result["prompt_feedback"] == "Prompt con etiquetas claras."
    assert "El rewrite no incluye un ejemplo concreto; se reduce accuracy." in result["global_summary"]
    assert (result["score"], result["label"]) == (3.0, "good")
    assert result["flags"] == {"low_accuracy": True, "justification_required": True}
    assert result["meta"]["rule_version"] == 2
    assert result["meta"]["config_hash"] == CONFIG_HASH
    assert result["meta"]["signals"]["response_count"] == 2


def test_readme_quick_run(workdir: Path) -> None:
    oai_eval(SAMPLE, "--out", "report.json", cwd=workdir)
    assert_seed_result(read_json(workdir / "report.json"))


def test_readme_run_with_config_dir(workdir: Path) -> None:
    oai_eval(SAMPLE, "--config-dir", "config_samples", "--out", "result.json", cwd=workdir)
    assert_seed_result(read_json(workdir / "result.json"))


def test_readme_explain_json(workdir: Path) -> None:
    oai_eval(SAMPLE, "--config-dir", "config_samples", "--explain-json", "explain.json", cwd=workdir)
    explain = read_json(workdir / "explain.json")
    fired = {rule["id"]: rule for rule in explain["fired_rules"]}
    assert fired["scoring_positive_signal"]["actions"][1] == {"increment_score": 2.0}
    assert fired["lower_accuracy_if_no_example"] == {
        "id": "lower_accuracy_if_no_example",
        "type": "rating",
        "detail": fired["lower_accuracy_if_no_example"]["detail"],
        "actions": [
            {"adjust_dimension": {"dimension": "accuracy", "from": 5.0, "to": 4.5, "delta": -0.5}},
            {"add_comment": "El rewrite no incluye un ejemplo concreto; se reduce accuracy."},
            {"set_flag": "low_accuracy"},
        ],
    }
    assert explain["score"] == 3.0
    assert explain["flags"]["low_accuracy"] is True
    assert explain["label"] == "good"
    assert (explain["meta"]["rule_version"], explain["meta"]["config_hash"]) == (2, CONFIG_HASH)


def test_readme_custom_config_with_markdown_report(workdir: Path) -> None:
    oai_eval(
        SAMPLE,
        "--config-dir",
        "config_samples",
        "--out",
        "result.json",
        "--report-md",
        "result.md",
        cwd=workdir,
    )
    assert_seed_result(read_json(workdir / "result.json"))
    report = (workdir / "result.md").read_text(encoding="utf-8")
    assert report.startswith("# evalkit report")
    assert CONFIG_HASH in report
    assert "**Label:** good" in report
    assert "resp\\_b > resp\\_a" in report  # the ids' `_` escaped as Markdown punctuation


def test_readme_log_file(workdir: Path) -> None:
    oai_eval(
        SAMPLE, "--config-dir", "config_samples", "--out", "result.json", "--log-file", "log.txt", cwd=workdir
    )
    log = (workdir / "log.txt").read_text(encoding="utf-8")
    assert CONFIG_HASH in log
    assert "lower_accuracy_if_no_example" in log


def test_evalkit_eval_matches_oai_eval(workdir: Path) -> None:
    oai_eval(SAMPLE, "--out", "a.json", cwd=workdir)
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", SAMPLE, "--out", "b.json"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (workdir / "a.json").read_bytes() == (workdir / "b.json").read_bytes()


OAI_EVAL_REFUSALS = {
    # each: the arguments after `oai-eval`, and the message after its name
    "jobs 0": (["--jobs", "0", SAMPLE], "--jobs must be at least 1"),
    "jobs 0 with --ray": (["--jobs", "0", SAMPLE, "--ray"], "--jobs must be at least 1"),
    "jobs with --ray": (
        ["--jobs", "2", "--ray", "--", SAMPLE],
        "--jobs does not go with --ray: Ray runs one evaluator per CPU of the cluster",
    ),
    "one output twice": (
        [SAMPLE, "--out", "r.json", "--report-md", "r.json"],
        "--out and --report-md both name r.json; give each output its own file",
    ),
    "output a folder": ([SAMPLE, "--out", "samples"], "cannot write samples: it is a folder"),
    "output in a missing folder": (
        [SAMPLE, "--out", "gone/r.json"],
        "cannot write gone/r.json: No such file or directory",
    ),
    "log in a missing folder": (
        [SAMPLE, "--log-file", "gone/run.log"],
        "cannot write the log gone/run.log: No such file or directory",
    ),
    "missing input": (["gone.json"], "gone.json: no such file or folder"),
    "no submissions": (
        ["empty", "samples/empty.jsonl"],
        "no submissions found in empty, samples/empty.jsonl",
    ),
    "config without config files": (
        [SAMPLE, "--config-dir", "empty"],
        "empty: no config files found here (looked for dimensions.yaml, ranking.yaml, prompt.yaml, "
        "rewrite.yaml, rules.yaml)",
    ),
}


@pytest.mark.parametrize("argv, message", OAI_EVAL_REFUSALS.values(), ids=OAI_EVAL_REFUSALS.keys())
def test_oai_eval_names_itself_in_every_refusal(workdir: Path, argv: list[str], message: str) -> None:
    (workdir / "empty").mkdir()
    (workdir / "samples" / "empty.jsonl").write_text("\n", encoding="utf-8")
    done = subprocess.run([OAI_EVAL, *argv], cwd=workdir, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == f"oai-eval: {message}\n"


def test_oai_eval_names_itself_when_it_caps_jobs(workdir: Path) -> None:
    done = oai_eval(SAMPLE, "--jobs", "100000", "--out", "r.json", cwd=workdir)
    assert done.stderr.startswith("oai-eval: --jobs 100000 is more than the ")


def test_oai_eval_names_itself_for_an_invalid_config(workdir: Path) -> None:
    (workdir / "config_samples" / "rules.yaml").write_text("rating_rules: 3\n", encoding="utf-8")
    for ray in ([], ["--ray"]):
        done = subprocess.run(
            [OAI_EVAL, SAMPLE, "--config-dir", "config_samples", *ray],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2
        assert done.stderr.splitlines()[-1] == "oai-eval: the config has errors; nothing was evaluated"
