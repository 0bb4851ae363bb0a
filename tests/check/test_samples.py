"""`evalkit check --samples DIR`: the rules run on sample submissions; evaluation errors are errors and a
rule that fires on no sample is reported (info; a warning under --strict)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from evalkit.engine import Evaluator
from evalkit.engine.diagnostics import Severity
from evalkit.services.check.runner import UsageProblem, check_paths

REPO = Path(__file__).parents[2]
CONFIG = REPO / "config_samples"
SEED = REPO / "samples" / "sample_submission.json"
NEVER_FIRED_BY_SEED = ["negative_weights_without_alternative", "low_optimality_penalty", "very_short_answers"]


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    folder = tmp_path / "samples"
    folder.mkdir()
    shutil.copy(SEED, folder / "seed.json")
    return folder


def _rule_lines(rule_ids: list[str]) -> list[int]:
    text = (CONFIG / "rules.yaml").read_text(encoding="utf-8").splitlines()
    return [
        next(n for n, line in enumerate(text, 1) if line.strip() == f"- id: {rule_id}")
        for rule_id in rule_ids
    ]


def test_rules_that_fire_on_no_sample_are_infos_at_their_ids(samples: Path) -> None:
    report = check_paths([str(CONFIG)], str(samples))
    assert [(d.code, d.severity, d.line, d.column) for d in report.diagnostics] == [
        ("rule-never-fires", Severity.INFO, line, 9) for line in _rule_lines(NEVER_FIRED_BY_SEED)
    ]
    assert "fires on none of the 1 sample submission in" in report.diagnostics[0].message
    assert not report.failed(strict=False) and report.samples == 1


def test_under_strict_a_rule_that_never_fires_is_a_warning_and_fails(samples: Path) -> None:
    report = check_paths([str(CONFIG)], str(samples), strict=True)
    assert {d.severity for d in report.diagnostics} == {Severity.WARNING}
    assert report.failed(strict=True)


def test_the_shipped_samples_fire_every_shipped_rule() -> None:
    report = check_paths([str(CONFIG)], str(REPO / "samples"), strict=True)
    assert [d.format() for d in report.diagnostics] == []


def test_an_unreadable_or_invalid_sample_is_an_error_at_the_sample(samples: Path) -> None:
    (samples / "broken.json").write_text('{"prompt": ', encoding="utf-8")
    good = json.loads(SEED.read_text(encoding="utf-8"))
    (samples / "lines.jsonl").write_text(json.dumps(good) + "\n" + json.dumps({"prompt": 1}) + "\n")
    report = check_paths([str(CONFIG)], str(samples))
    errors = [(Path(d.path).name, d.line, d.code) for d in report.diagnostics if d.severity is Severity.ERROR]
    assert errors == [("broken.json", 1, "invalid-sample"), ("lines.jsonl", 2, "invalid-sample")]


def test_an_evaluation_that_raises_is_an_error_naming_the_sample(
    samples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(self: Evaluator, submission: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(Evaluator, "evaluate", explode)
    report = check_paths([str(CONFIG)], str(samples))
    errors = [d for d in report.diagnostics if d.code == "evaluation-error"]
    assert len(errors) == 1 and errors[0].path == str(samples / "seed.json")
    assert "ZeroDivisionError: division by zero" in errors[0].message
    assert report.failed(strict=False)


def test_an_invalid_config_is_not_dry_run(samples: Path) -> None:
    broken = REPO / "tests" / "check" / "configs" / "invalid" / "duplicate_rule_ids"
    report = check_paths([str(broken)], str(samples))
    assert {d.code for d in report.diagnostics} == {"duplicate-rule-id"}


def _file(path: Path) -> Path:
    path.write_text('{"prompt": "p", "response": "r"}', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: tmp / "absent", "absent: no such folder"),
        (
            lambda tmp: _file(tmp / "one.json"),
            "one.json: --samples expects a folder of submissions, not a file",
        ),
        (lambda tmp: tmp, "no submissions"),
    ],
)
def test_a_samples_folder_that_is_missing_or_empty_is_a_usage_problem(
    tmp_path: Path, make: Callable[[Path], Path], says: str
) -> None:
    with pytest.raises(UsageProblem, match=says):
        check_paths([str(CONFIG)], str(make(tmp_path)))
