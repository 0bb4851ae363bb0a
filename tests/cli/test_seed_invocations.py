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
    assert "resp_b > resp_a" in report


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
