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
    from evalkit.services.ruletests.load import Case, RuleTestFile
    from evalkit.services.ruletests.run import CaseOutcome, Suite


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
    from evalkit.services.ruletests.load import find_suites
    from evalkit.services.ruletests.run import open_suite
    from evalkit.services.usage import UsageProblem

    try:
        targets = find_suites(args.paths)
    except UsageProblem as problem:
        print(f"evalkit test: {shown_as(problem)}", file=sys.stderr)
        return 2
    tally = Tally()
    invalid = False
    for folder, files in targets:  # a suite, a file, a case at a time: memory for one test file at most
        suite = open_suite(folder, files)
        if suite.config.plan is None:
            _print_invalid_config(suite)
            invalid = True
            continue
        for test_file in suite.test_files():
            _run_file(suite, test_file, args.update, tally)
        if args.coverage:
            _print_coverage(suite)
    print(f"{tally.passed} passed, {tally.failed} failed")
    if invalid:
        return 2
    return 1 if tally.failed else 0


class Tally:
    passed = 0
    failed = 0


def _run_file(suite: Suite, test_file: RuleTestFile, update: bool, tally: Tally) -> None:
    """Print the file's problems and each case's outcome as it comes. With --update, the failed cases it
    can record are written back once the file has run, and said then (as UPDATED)."""
    from evalkit.services.ruletests.update import recorded_values, update_file

    for diagnostic in test_file.diagnostics:
        print(diagnostic.format())
    tally.failed += any(d.severity == 1 for d in test_file.diagnostics)
    held: list[str | Case] = []  # with --update: the file's reports, a case to update standing for its own
    changes: list[tuple[int, dict[str, Any]]] = []
    for outcome in suite.run(test_file):
        values = recorded_values(outcome) if update and not outcome.passed else {}
        if values:
            changes.append((outcome.case.index, values))
            held.append(outcome.case)
            continue
        report = _case_report(outcome)
        tally.passed += outcome.passed
        tally.failed += not outcome.passed
        if update:
            held.append(report)
        else:
            print(report)
    if changes:
        update_file(test_file.path, changes)
        print(f"updated {shown_as(test_file.path)}")
    for item in held:
        print(item if isinstance(item, str) else f"UPDATED {_where(item)}")
        tally.passed += not isinstance(item, str)


def _print_invalid_config(suite: Suite) -> None:
    for diagnostic in suite.config.diagnostics:
        print(diagnostic.format())
    print(shown_as(f"{suite.config.folder}: the config has errors; its tests were not run"), file=sys.stderr)


def _where(case: Case) -> str:
    return shown_as(f"{case.path}:{case.line} {case.name}")


def _case_report(outcome: CaseOutcome) -> str:
    where = _where(outcome.case)
    if outcome.passed:
        return f"PASS {where}"
    lines = [f"FAIL {where}"]
    if outcome.error is not None:
        lines.append(f"    {shown_as(outcome.error)}")
    lines.extend(_mismatch_lines(outcome))
    return "\n".join(lines)


def _mismatch_lines(outcome: CaseOutcome) -> list[str]:
    from evalkit.services.ruletests.explain import explain_rule

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
