"""`evalkit test`: finding rule tests, running cases, comparing every kind of expectation, explaining
failures, reporting broken test files, and coverage; through the engine and through the entry point."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.services.check.runner import UsageProblem
from evalkit.services.ruletests.load import find_suites, load_test_file, merged
from evalkit.services.ruletests.run import run_suite

FIXTURES = Path(__file__).parent / "fixtures"
SUITE = FIXTURES / "suite"
EVALKIT = Path(sys.executable).parent / "evalkit"


def evalkit_test(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALKIT), "test", *args],
        cwd=FIXTURES,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _outcomes(name: str) -> dict[str, object]:
    suite = run_suite(SUITE, [SUITE / "tests" / name])
    return {outcome.case.name: outcome for outcome in suite.outcomes}


def test_passing_cases_by_path_by_name_inline_and_with_changes() -> None:
    outcomes = _outcomes("passing.yaml")
    assert len(outcomes) == 3 and all(o.passed for o in outcomes.values())  # type: ignore[attr-defined]


def test_each_wrong_expectation_is_a_mismatch_naming_the_rules_that_explain_it() -> None:
    outcome = _outcomes("failing.yaml")["wrong expectations"]
    found = {m.key: (m.expected, m.actual, m.rules) for m in outcome.mismatches}  # type: ignore[attr-defined]
    assert found == {
        "fired": (
            ["mentions_heap", "close_rewrite"],
            ["mentions_heap", "high_accuracy_needs_example", "close_rewrite"],
            ("high_accuracy_needs_example",),
        ),
        "score": (3, 2.0, ("mentions_heap",)),
        "corrected_ratings": (
            {"accuracy": 5.0, "optimality": 4.0},
            {"accuracy": 4.5, "optimality": 4.0},
            ("high_accuracy_needs_example",),
        ),
    }


def test_must_fire_and_must_not_fire_name_only_the_offending_rules() -> None:
    outcome = _outcomes("failing.yaml")["a rule that must fire does not"]
    assert [(m.key, m.rules) for m in outcome.mismatches] == [  # type: ignore[attr-defined]
        ("must_fire", ("high_accuracy_needs_example",)),
        ("must_not_fire", ("mentions_heap",)),
    ]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("no expectations yet", "the case has no expectations"),
        ("an invalid inline submission", "invalid submission: responses: expected at least one response"),
        ("a submission file that does not exist", "missing.json: cannot read the file"),
    ],
)
def test_a_case_that_cannot_be_judged_fails_with_the_reason(name: str, error: str) -> None:
    outcome = _outcomes("failing.yaml")[name]
    assert not outcome.passed and error in outcome.error  # type: ignore[attr-defined,operator]


def test_the_failure_report_shows_expected_against_actual_and_the_condition_that_failed() -> None:
    done = evalkit_test("suite")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[-1] == "3 passed, 5 failed"
    report = "\n".join(lines)
    assert "FAIL suite/tests/failing.yaml:14 a rule that must fire does not" in report
    assert (
        "      rule 'high_accuracy_needs_example' did not fire: condition 'dimension_gt' did not hold "
        "(values: {'accuracy': 4.0}, thresholds: {'accuracy': 4.5})"
    ) in lines
    assert "    score: expected 3, got 2.0" in lines
    assert "PASS suite/tests/passing.yaml:5 a file submission fires the heap rule" in lines


def test_coverage_lists_the_rules_no_test_fires_at_their_ids() -> None:
    done = evalkit_test("suite", "--coverage")
    assert "coverage suite: 3 of 4 rules fired by some test" in done.stdout
    assert (
        "suite/rules.yaml:17:9: info[uncovered-rule] rule 'never_tested' is fired by no test" in done.stdout
    )


def test_broken_test_files_are_reported_as_diagnostics_and_fail() -> None:
    done = evalkit_test("broken_tests")
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == "0 passed, 3 failed"
    assert (
        "broken_tests/tests/unknown_ids.yaml:5:19: error[unknown-rule] unknown rule id 'mentions_heep'; "
        "did you mean 'mentions_heap'?"
    ) in done.stdout
    assert (
        "broken_tests/tests/schema_errors.yaml:3:5: error[unknown-key] unknown key 'submision' in cases[0]; "
        "did you mean 'submission'?"
    ) in done.stdout
    assert "broken_tests/tests/schema_errors.yaml:6:27: error[unknown-dimension]" in done.stdout
    assert (
        "broken_tests/tests/not_yaml.yaml:1:8: error[yaml-syntax] the flow sequence '[' is not closed"
        in done.stdout
    )


def test_an_invalid_config_exits_2_with_its_diagnostics() -> None:
    done = evalkit_test("invalid_config")
    assert done.returncode == 2
    assert "invalid_config/rules.yaml:3:15: error[unknown-key]" in done.stdout
    assert "its tests were not run" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args", [("no/such/path",), ("suite/rules.yaml",), ("--coverage", "suite/submissions")]
)
def test_nothing_to_test_exits_2(args: tuple[str, ...]) -> None:
    done = evalkit_test(*args)
    assert done.returncode == 2 and done.stdout == "" and "evalkit test: " in done.stderr


def test_paths_name_a_tree_a_tests_folder_or_single_files() -> None:
    tree = find_suites([str(FIXTURES)])
    assert [folder.name for folder, _ in tree] == ["broken_tests", "invalid_config", "suite"]
    assert find_suites([str(SUITE / "tests")]) == [
        (SUITE, [SUITE / "tests" / "failing.yaml", SUITE / "tests" / "passing.yaml"])
    ]
    single = find_suites([str(SUITE / "tests" / "passing.yaml")])
    assert single == [(SUITE, [SUITE / "tests" / "passing.yaml"])]
    with pytest.raises(UsageProblem, match="belongs in the tests/ folder"):
        find_suites([str(SUITE / "submissions" / "heap.json")])


def test_with_merges_mappings_and_replaces_everything_else() -> None:
    base = {"ratings": {"accuracy": 5, "optimality": 4}, "responses": [{"id": 1}], "prompt": "p"}
    assert merged(base, {"ratings": {"accuracy": 3}, "responses": [], "extra": None}) == {
        "ratings": {"accuracy": 3, "optimality": 4},
        "responses": [],
        "prompt": "p",
        "extra": None,
    }
    assert base["ratings"] == {"accuracy": 5, "optimality": 4}


def test_a_misspelt_submission_name_gets_a_suggestion(tmp_path: Path) -> None:
    test_file = tmp_path / "cases.yaml"
    test_file.write_text(
        "submissions:\n  dijkstra: {prompt: p}\ncases:\n"
        "  - name: typo\n    submission: dijkstr\n    expect: {fired: []}\n"
    )
    (case,) = load_test_file(test_file, set()).cases
    assert case.problem == (
        "'dijkstr' is neither a name in `submissions` nor a submission file; did you mean 'dijkstra'?"
    )


def test_a_tolerance_alone_is_no_expectation(tmp_path: Path) -> None:
    copy = tmp_path / "tolerance.yaml"
    copy.write_text(
        "cases:\n  - name: only a tolerance\n    submission: "
        + str(SUITE / "submissions" / "heap.json")
        + "\n    expect: {tolerance: 0.1}\n"
    )
    (outcome,) = run_suite(SUITE, [copy]).outcomes
    assert not outcome.passed and "the case has no expectations" in str(outcome.error)


def _suite_with(tmp_path: Path, name: str, text: str) -> Path:
    """A copy of the fixture suite with one more test file."""
    import shutil

    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    (suite / "tests" / name).write_text(text, encoding="utf-8")
    return suite


@pytest.mark.parametrize("text", ["", "# cases to come\n"], ids=["empty", "comment"])
def test_an_empty_test_file_says_it_holds_no_tests(tmp_path: Path, text: str) -> None:
    suite = _suite_with(tmp_path, "new.yaml", text)
    done = evalkit_test(str(suite))
    assert done.returncode == 1
    message = "error[missing-key] the file holds no rule tests: write its cases under `cases:`"
    assert f"{suite / 'tests' / 'new.yaml'}:1:1: {message}" in done.stdout


def test_a_test_file_keeps_anchors_in_x_keys(tmp_path: Path) -> None:
    suite = _suite_with(
        tmp_path,
        "anchored.yaml",
        "x-heap: &heap\n  submission: ../submissions/heap.json\n"
        "cases:\n  - <<: *heap\n    name: merged from an x- key\n    expect: {must_fire: [mentions_heap]}\n",
    )
    done = evalkit_test(str(suite / "tests" / "anchored.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and "merged from an x- key" in done.stdout


def _many_cases(folder: Path, files: int, cases: int) -> Path:
    suite = folder / "suite"
    shutil.copytree(SUITE, suite, ignore=shutil.ignore_patterns("tests"))
    (suite / "tests").mkdir()
    for number in range(files):
        lines = [
            f"- {{name: c{i}, submission: h, expect: {{must_fire: [mentions_heap]}}}}" for i in range(cases)
        ]
        text = "submissions:\n  h: ../submissions/heap.json\ncases:\n" + "\n".join(lines) + "\n"
        (suite / "tests" / f"many{number}.yaml").write_text(text, encoding="utf-8")
    return suite


def _peak_kb(suite: Path) -> int:
    code = (
        "import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
        "assert done.returncode == 0; print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(EVALKIT), "test", str(suite)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return int(done.stdout)


def test_results_stream_so_memory_does_not_grow_with_the_cases(tmp_path: Path) -> None:
    """`evalkit test` keeps no result once it is printed: 8,000 cases in 8 files peak where 1,000 in one
    do (every result held took 1 GB for 100,000 cases: about 50 MB more for these 7,000)."""
    few = _peak_kb(_many_cases(tmp_path / "few", 1, 1000))
    many = _peak_kb(_many_cases(tmp_path / "many", 8, 1000))
    assert many - few < 15_000, (few, many)
