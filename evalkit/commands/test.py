"""`evalkit test [PATH...]`: run the rule tests in config folders' `tests/*.yaml`.

One line per case; a failure shows expected against actual and why the rules involved fired or not.
The last line is `N passed, M failed`. `--coverage` lists the rules no test fires; `--update` writes the
actual outcomes of failing cases back into their files, keeping comments and layout.
Exit codes: 0 every case passed, 1 some failed, 2 nothing could be done (bad usage, an invalid config).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from evalkit.engine.untrusted_text import shown_as

if TYPE_CHECKING:
    from evalkit.services.ruletest_run import CaseOutcome, Suite


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=["."],
        help="config folders, trees, tests/ folders or test files (default: the current folder)",
    )
    parser.add_argument("--coverage", action="store_true", help="list the rules that no test fires")
    parser.add_argument(
        "--update",
        action="store_true",
        help="write the actual outcomes of failing cases back into the test files",
    )


def run(args: argparse.Namespace) -> int:
    from evalkit.services.ruletest_load import find_suites
    from evalkit.services.ruletest_run import run_suite
    from evalkit.services.ruletest_update import update_files
    from evalkit.services.usage import UsageProblem

    try:
        targets = find_suites(args.paths)
    except UsageProblem as problem:
        print(f"evalkit test: {shown_as(problem)}", file=sys.stderr)
        return 2
    suites = [run_suite(folder, files) for folder, files in targets]
    outcomes = [outcome for suite in suites for outcome in suite.outcomes]
    if args.update:
        for path in update_files(outcomes):
            print(f"updated {shown_as(path)}")
    passed, failed = _report(suites, args.coverage)
    print(f"{passed} passed, {failed} failed")
    if any(suite.config.plan is None for suite in suites):
        return 2
    return 1 if failed else 0


def _report(suites: list[Suite], coverage: bool) -> tuple[int, int]:
    """Print every suite's problems and cases; returns (passed, failed) over all of them."""
    passed = failed = 0
    for suite in suites:
        if suite.config.plan is None:
            _print_invalid_config(suite)
            continue
        for test_file in suite.files:
            for diagnostic in test_file.diagnostics:
                print(diagnostic.format())
            failed += any(d.severity == 1 for d in test_file.diagnostics)
        for outcome in suite.outcomes:
            print(_case_report(outcome))
            passed += outcome.passed or outcome.updated
            failed += not (outcome.passed or outcome.updated)
        if coverage:
            _print_coverage(suite)
    return passed, failed


def _print_invalid_config(suite: Suite) -> None:
    for diagnostic in suite.config.diagnostics:
        print(diagnostic.format())
    print(shown_as(f"{suite.config.folder}: the config has errors; its tests were not run"), file=sys.stderr)


def _case_report(outcome: CaseOutcome) -> str:
    case = outcome.case
    where = shown_as(f"{case.path}:{case.line} {case.name}")
    if outcome.updated:
        return f"UPDATED {where}"
    if outcome.passed:
        return f"PASS {where}"
    lines = [f"FAIL {where}"]
    if outcome.error is not None:
        lines.append(f"    {shown_as(outcome.error)}")
    lines.extend(_mismatch_lines(outcome))
    return "\n".join(lines)


def _mismatch_lines(outcome: CaseOutcome) -> list[str]:
    from evalkit.services.ruletest_explain import explain_rule

    lines = []
    for mismatch in outcome.mismatches:
        expected, actual = _shown(mismatch.expected), _shown(mismatch.actual)
        lines.append(shown_as(f"    {mismatch.key}: expected {expected}, got {actual}"))
        if outcome.result is None:
            continue
        lines.extend(shown_as(f"      {explain_rule(outcome.result, rule_id)}") for rule_id in mismatch.rules)
        if not mismatch.rules and mismatch.key != "ranking":
            lines.append("      no fired rule changed it")
    return lines


def _shown(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def _print_coverage(suite: Suite) -> None:
    uncovered = suite.uncovered()
    total = suite.rule_count()
    print(
        shown_as(f"coverage {suite.config.folder}: {total - len(uncovered)} of {total} rules fired by ")
        + "some test"
    )
    for diagnostic in uncovered:
        print(diagnostic.format())
