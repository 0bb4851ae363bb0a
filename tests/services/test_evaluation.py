"""Evaluating without raising (`evalkit.services.run.evaluation`) and the sample dry run built on it
(`evalkit.services.check.samples`), which `check --samples` and the language server share."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.engine import Evaluator
from evalkit.engine.config import analyze
from evalkit.engine.diagnostics import FILE_START, Span
from evalkit.engine.result import Result
from evalkit.services.check.samples import dry_run, find_samples_dir, read_samples, sample_position
from evalkit.services.run.evaluation import EvaluationFailure, evaluate_safely

REPO = Path(__file__).parents[2]
SEED = REPO / "samples" / "sample_submission.json"
EVALUATE = Evaluator(analyze(REPO / "config_samples")).evaluate


def _seed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SEED.read_text(encoding="utf-8"))
    return data


def _broken_rule(submission: object) -> Result:
    """Stands in for a rule whose evaluation raises (the engine's own never do on shipped configs)."""
    raise ZeroDivisionError("division by zero")


def test_a_valid_submission_gives_the_evaluators_result() -> None:
    outcome = evaluate_safely(EVALUATE, _seed())
    assert isinstance(outcome, Result)
    assert outcome.to_dict() == EVALUATE(_seed()).to_dict()


def test_a_submission_the_engine_refuses_is_a_failure_naming_the_field() -> None:
    seed = _seed()
    seed["ratings"]["accuracy"] = "high"
    outcome = evaluate_safely(EVALUATE, seed)
    assert outcome == EvaluationFailure(
        "SubmissionError",
        "ratings.accuracy: expected a number, found a string",
        invalid_submission=True,
    )
    assert str(outcome) == "SubmissionError: ratings.accuracy: expected a number, found a string"


def test_data_that_is_no_submission_at_all_is_a_failure() -> None:
    outcome = evaluate_safely(EVALUATE, ["not", "a", "submission"])
    assert isinstance(outcome, EvaluationFailure) and outcome.invalid_submission
    assert outcome.error_type == "SubmissionError"


def test_an_evaluation_that_raises_is_a_failure_naming_the_exception() -> None:
    outcome = evaluate_safely(_broken_rule, _seed())
    assert isinstance(outcome, EvaluationFailure) and not outcome.invalid_submission
    assert str(outcome) == "ZeroDivisionError: division by zero"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(_seed())), value=JSON)
def test_a_submission_changed_anywhere_is_a_result_or_refused_never_an_engine_failure(
    key: str, value: object
) -> None:
    """Whatever a submission holds, the engine evaluates it or refuses it as a submission: a failure on
    plain data is always the submission's fault."""
    seed = _seed()
    seed[key] = value
    outcome = evaluate_safely(EVALUATE, seed)
    assert isinstance(outcome, Result) or outcome.invalid_submission, outcome


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    folder = tmp_path / "samples"
    folder.mkdir()
    shutil.copy(SEED, folder / "a_seed.json")
    (folder / "b_broken.json").write_text('{"prompt": ', encoding="utf-8")
    lines = [json.dumps(_seed()), json.dumps({"prompt": 1})]
    (folder / "c_lines.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_the_dry_run_has_one_outcome_per_sample_in_order(samples: Path) -> None:
    outcomes = list(dry_run(EVALUATE, read_samples(samples)))
    assert [Path(o.source).name for o in outcomes] == [
        "a_seed.json",
        "b_broken.json",
        "c_lines.jsonl:1",
        "c_lines.jsonl:2",
    ]
    assert [o.result is not None for o in outcomes] == [True, False, True, False]
    assert outcomes[1].problem is not None and outcomes[1].problem.startswith("invalid JSON")
    assert outcomes[3].position == (str(samples / "c_lines.jsonl"), Span.point(2, 1))
    assert outcomes[0].position == (str(samples / "a_seed.json"), FILE_START)


def test_a_sample_the_rules_fail_on_is_an_outcome_with_its_failure(samples: Path) -> None:
    outcomes = list(dry_run(_broken_rule, read_samples(samples)))
    failed = [o for o in outcomes if o.failure is not None]
    assert [o.problem for o in failed] == ["ZeroDivisionError: division by zero"] * 2


def test_the_dry_run_evaluates_only_as_far_as_it_is_asked(samples: Path) -> None:
    evaluated: list[object] = []

    def counting(submission: object) -> Result:
        evaluated.append(submission)
        return EVALUATE(submission)

    run = dry_run(counting, read_samples(samples))
    next(run)
    assert len(evaluated) == 1


def test_reading_stops_at_the_limit(samples: Path) -> None:
    assert len(read_samples(samples, limit=2)) == 2


def test_a_sample_position_is_the_jsonl_line_or_the_files_start() -> None:
    assert sample_position("s/x.jsonl:7") == ("s/x.jsonl", Span.point(7, 1))
    assert sample_position("s/x:7.json") == ("s/x:7.json", FILE_START)


def test_the_samples_folder_is_the_option_then_beside_the_config_then_at_the_root(tmp_path: Path) -> None:
    config, root = tmp_path / "project" / "config", tmp_path
    config.mkdir(parents=True)
    assert find_samples_dir(config, root, None) is None
    (root / "samples").mkdir()
    assert find_samples_dir(config, root, None) == root / "samples"
    (config.parent / "samples").mkdir()
    assert find_samples_dir(config, root, None) == config.parent / "samples"
    (root / "mine").mkdir()
    assert find_samples_dir(config, root, "mine") == root / "mine"
    assert find_samples_dir(config, root, "absent") is None
