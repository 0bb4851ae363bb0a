"""Rule tests (`evalkit test`), in the spirit of `opa test` and `semgrep --test`.

A config folder may hold `tests/*.yaml` (format: schemas/ruletest.schema.json). Each case names a
submission (inline, by name, or by path) and what its evaluation must produce. This module finds the test
files, checks them (schema, unknown rule ids) into Diagnostics, runs every case through the one Evaluator,
compares, names the rules that explain a failure, measures rule coverage, and writes actual outcomes back
(`--update`) through a ruamel.yaml round trip that keeps the files' comments and layout.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Collection, Iterator, Sequence

from evalkit.engine.atomic import write_text_atomic
from evalkit.engine.check import UsageProblem, config_folders, rule_positions
from evalkit.engine.config import Config, analyze, config_files, read_config_file
from evalkit.engine.diagnostics import Diagnostic, Fix, Span, closest, error, has_errors, info
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.result import Result
from evalkit.engine.submission import SubmissionError
from evalkit.engine.text import NotText, decode_utf8, not_a_regular_file
from evalkit.engine.yamlsource import YamlDocument, parse_yaml

TESTS_FOLDER = "tests"
DEFAULT_TOLERANCE = 1e-6
ID_LISTS = ("fired", "must_fire", "must_not_fire")
RECORDED = ("fired", "label", "score", "flags")
"""What --update records for a case that has no expectations yet."""


@dataclass(frozen=True, slots=True)
class Case:
    path: Path
    index: int
    name: str
    line: int
    submission: Any
    expect: dict[str, Any]
    submission_span: Span
    """Where the case names its submission."""
    problem: str | None = None
    """Why the case cannot run (its submission cannot be read), else None."""


@dataclass(slots=True)
class RuleTestFile:
    path: Path
    cases: list[Case] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Mismatch:
    key: str
    expected: Any
    actual: Any
    rules: tuple[str, ...]
    """The rules whose explanation shows why."""


@dataclass(slots=True)
class CaseOutcome:
    case: Case
    result: Result | None
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str | None = None
    updated: bool = False

    @property
    def passed(self) -> bool:
        return self.error is None and not self.mismatches


@dataclass(slots=True)
class Suite:
    """The tests of one config folder and what running them gave."""

    config: Config
    files: list[RuleTestFile]
    outcomes: list[CaseOutcome] = field(default_factory=list)

    def rule_count(self) -> int:
        return sum(1 for _ in rule_positions(self.config))

    def uncovered(self) -> list[Diagnostic]:
        """The rules that no case fired (whether or not the case passed), at their ids."""
        fired = {rule.id for o in self.outcomes if o.result is not None for rule in o.result.fired_rules}
        return [info(str(path), span, "uncovered-rule", f"rule '{rule_id}' is fired by no test")
                for rule_id, path, span in rule_positions(self.config) if rule_id not in fired]


# Finding the tests

def find_suites(paths: Sequence[str]) -> list[tuple[Path, list[Path]]]:
    """(config folder, its test files) for every PATH: a config folder or tree, a tests/ folder, or test
    files. Config folders without tests are passed over; raises UsageProblem when nothing is left."""
    found: dict[Path, list[Path]] = {}
    for raw in paths:
        for folder, files in _suites_of(Path(raw)):
            known = found.setdefault(folder, [])
            known.extend(f for f in files if f not in known)
    if not found:
        raise UsageProblem(f"no rule tests found in {', '.join(paths)} (expected {TESTS_FOLDER}/*.yaml "
                           "in a folder with config files)")
    return list(found.items())


def _suites_of(path: Path) -> Iterator[tuple[Path, list[Path]]]:
    if not path.exists():
        raise UsageProblem(f"{path}: no such file or folder")
    if path.is_file():
        yield _config_folder_of(path), [path]
    elif path.name == TESTS_FOLDER and config_files(path.parent):
        yield path.parent, find_test_files(path.parent)
    else:
        for folder in config_folders(path):
            if find_test_files(folder):
                yield folder, find_test_files(folder)


def _config_folder_of(test_file: Path) -> Path:
    folder = test_file.parent.parent
    if test_file.parent.name != TESTS_FOLDER or not config_files(folder):
        raise UsageProblem(f"{test_file}: a rule test file belongs in the {TESTS_FOLDER}/ folder of a config "
                           "folder")
    return folder


def find_test_files(folder: Path) -> list[Path]:
    tests = folder / TESTS_FOLDER
    return sorted(p for p in tests.glob("*.y*ml") if p.suffix in (".yaml", ".yml")) if tests.is_dir() else []


# Loading a test file

def load_test_file(path: Path, rule_ids: Collection[str]) -> RuleTestFile:
    """The file's cases, or the diagnostics that keep it from running (YAML, schema, unknown rule ids)."""
    raw, problem = read_config_file(path)
    if raw is None:
        return RuleTestFile(path, diagnostics=[problem] if problem else [])
    try:
        text = decode_utf8(raw)
    except NotText as exc:
        return RuleTestFile(path, diagnostics=[error(str(path), Span.point(exc.line, exc.column), "not-utf8",
                                                     exc.reason)])
    return check_test_text(path, text, rule_ids)


def check_test_text(path: Path, text: str, rule_ids: Collection[str]) -> RuleTestFile:
    """`load_test_file` on text already read (an editor's unsaved buffer of the file at `path`)."""
    document, diagnostics = parse_yaml(text, str(path))
    if document is None or has_errors(diagnostics):
        return RuleTestFile(path, diagnostics=diagnostics)
    from evalkit.engine.schema_check import schema_diagnostics

    diagnostics += schema_diagnostics(document, "ruletest")
    if not has_errors(diagnostics):
        diagnostics += unknown_rule_ids(document, rule_ids)
    if has_errors(diagnostics):
        return RuleTestFile(path, diagnostics=diagnostics)
    reader = _SubmissionReader(path.parent, document.data.get("submissions") or {})
    cases = [_case(document, path, index, raw, reader) for index, raw in enumerate(document.data["cases"])]
    return RuleTestFile(path, cases, diagnostics)


def unknown_rule_ids(document: YamlDocument, rule_ids: Collection[str]) -> list[Diagnostic]:
    out = []
    for index, case in enumerate(document.data["cases"]):
        expect = case.get("expect") or {}
        for key in ID_LISTS:
            for position, rule_id in enumerate(expect.get(key) or []):
                if rule_id not in rule_ids:
                    span = document.value_span(("cases", index, "expect", key, position))
                    out.append(_unknown_rule(document.path, span, rule_id, rule_ids))
    return out


def case_problems(test_file: RuleTestFile) -> list[Diagnostic]:
    """The cases that cannot run (a submission file that does not exist or cannot be read, a name not in
    `submissions`) as errors where they name their submission: `evalkit test` fails such a case when it
    runs it, an editor shows it as the file is typed."""
    return [error(str(case.path), case.submission_span, "unreadable", case.problem)
            for case in test_file.cases if case.problem is not None]


def _unknown_rule(path: str, span: Span, rule_id: str, rule_ids: Collection[str]) -> Diagnostic:
    suggestion = closest(rule_id, sorted(rule_ids)) if rule_ids else None
    if suggestion is None:
        return error(path, span, "unknown-rule", f"unknown rule id '{rule_id}'; the config's rules are: "
                                                  f"{', '.join(sorted(rule_ids)) or 'none'}")
    return error(path, span, "unknown-rule", f"unknown rule id '{rule_id}'; did you mean '{suggestion}'?",
                 Fix(f"Replace with '{suggestion}'", span, suggestion))


class _SubmissionReader:
    """Resolves a case's `submission` (inline, a name in `submissions`, or a path), each file read once."""

    def __init__(self, base: Path, named: dict[str, Any]) -> None:
        self.base, self.named = base, named
        self._files: dict[Path, tuple[Any, str | None]] = {}

    def resolve(self, ref: Any) -> tuple[Any, str | None]:
        if isinstance(ref, str) and ref in self.named:
            ref = self.named[ref]
        if not isinstance(ref, str):
            return ref, None
        path = Path(os.path.normpath(self.base / ref))
        if not path.suffix and not path.exists():
            return None, self._unknown_name(ref)
        if path not in self._files:
            self._files[path] = _read_submission_file(path)
        return self._files[path]

    def _unknown_name(self, ref: str) -> str:
        suggestion = closest(ref, sorted(self.named)) if self.named else None
        hint = f"; did you mean '{suggestion}'?" if suggestion else ""
        return f"'{ref}' is neither a name in `submissions` nor a submission file{hint}"


def _read_submission_file(path: Path) -> tuple[Any, str | None]:
    from evalkit.engine.inputs import read_file

    if path.suffix == ".jsonl":
        return None, f"{path}: a case takes one submission (.json or .yaml), not a .jsonl"
    kind = not_a_regular_file(path)
    if kind is not None:  # a named pipe would block, a device never end
        return None, f"{path}: cannot read the file: it is {kind}"
    loaded = next(read_file(path))
    if loaded.data is None:
        return None, f"{path}: {loaded.error}"
    return loaded.data, None


def _case(document: YamlDocument, path: Path, index: int, raw: dict[str, Any],
          reader: _SubmissionReader) -> Case:
    data, problem = reader.resolve(raw["submission"])
    if problem is None and "with" in raw:
        data = merged(data, raw["with"])
    line = document.value_span(("cases", index)).line
    where = document.value_span(("cases", index, "submission"))
    return Case(path, index, raw["name"], line, data, raw.get("expect") or {}, where, problem)


def merged(base: Any, changes: Any) -> Any:
    """`changes` over `base`: mappings merge key by key, anything else replaces (lists too)."""
    if not isinstance(base, dict) or not isinstance(changes, dict):
        return changes
    out = dict(base)
    for key, value in changes.items():
        out[key] = merged(base.get(key), value)
    return out


# Running and comparing

def run_suite(folder: Path, files: list[Path]) -> Suite:
    """Load the config and the test files, and run every case; with an invalid config nothing runs."""
    config = analyze(folder)
    suite = Suite(config, [])
    if config.plan is None:
        return suite
    ids = {entry[0] for entry in rule_positions(config)}
    suite.files = [load_test_file(path, ids) for path in files]
    evaluator = Evaluator(config)
    suite.outcomes = [run_case(evaluator, case) for test_file in suite.files for case in test_file.cases]
    return suite


def run_case(evaluator: Evaluator, case: Case) -> CaseOutcome:
    if case.problem is not None:
        return CaseOutcome(case, None, error=case.problem)
    try:
        result = evaluator.evaluate(case.submission)
    except SubmissionError as exc:
        return CaseOutcome(case, None, error=f"invalid submission: {exc}")
    except Exception as exc:  # a broken rule must fail its case, not the whole run
        return CaseOutcome(case, None, error=f"evaluation failed: {type(exc).__name__}: {exc}")
    if not expects_anything(case):
        return CaseOutcome(case, result, error="the case has no expectations; add `expect:` or record the actual "
                                           "outcome with `evalkit test --update`")
    return CaseOutcome(case, result, compare(case.expect, result))


def expects_anything(case: Case) -> bool:
    """Whether the case states an outcome (`tolerance` alone states none)."""
    return any(key in COMPARISONS for key in case.expect)


def compare(expect: dict[str, Any], result: Result) -> list[Mismatch]:
    tolerance = expect.get("tolerance", DEFAULT_TOLERANCE)
    found = [COMPARISONS[key](expected, result, tolerance)
             for key, expected in expect.items() if key in COMPARISONS]
    return [mismatch for mismatch in found if mismatch is not None]


def fired_ids(result: Result) -> list[str]:
    return [rule.id for rule in result.fired_rules]


def _acting(result: Result, *actions: str) -> tuple[str, ...]:
    """The fired rules that took any of `actions`: those that explain a label, score or flags."""
    return tuple(rule.id for rule in result.fired_rules
                 if any(name in action for action in rule.actions for name in actions))


def _fired(expected: list[str], result: Result, _: float) -> Mismatch | None:
    actual = fired_ids(result)
    if actual == expected:
        return None
    involved = [i for i in expected if i not in actual] + [i for i in actual if i not in expected]
    return Mismatch("fired", expected, actual, tuple(involved or actual))


def _must_fire(expected: list[str], result: Result, _: float) -> Mismatch | None:
    missing = tuple(i for i in expected if i not in fired_ids(result))
    return Mismatch("must_fire", expected, fired_ids(result), missing) if missing else None


def _must_not_fire(expected: list[str], result: Result, _: float) -> Mismatch | None:
    present = tuple(i for i in expected if i in fired_ids(result))
    return Mismatch("must_not_fire", expected, fired_ids(result), present) if present else None


def _label(expected: str | None, result: Result, _: float) -> Mismatch | None:
    if result.label == expected:
        return None
    return Mismatch("label", expected, result.label, _acting(result, "assign_label", "increment_score"))


def _score(expected: float | None, result: Result, tolerance: float) -> Mismatch | None:
    if _close(expected, result.score, tolerance):
        return None
    return Mismatch("score", expected, result.score, _acting(result, "increment_score"))


def _flags(expected: list[str], result: Result, _: float) -> Mismatch | None:
    actual = sorted(name for name, on in result.flags.items() if on)
    if sorted(set(expected)) == actual:
        return None
    return Mismatch("flags", expected, actual, _acting(result, "set_flag"))


def _ratings(expected: dict[str, float], result: Result, tolerance: float) -> Mismatch | None:
    actual = {dim: result.corrected_ratings.get(dim, {}).get("updated") for dim in expected}
    wrong = [dim for dim in expected if not _close(expected[dim], actual[dim], tolerance)]
    if not wrong:
        return None
    return Mismatch("corrected_ratings", expected, actual, _acting(result, "adjust_dimension"))


def _ranking(expected: list[Any], result: Result, _: float) -> Mismatch | None:
    actual = list(result.corrected_ranking)
    return None if actual == expected else Mismatch("ranking", expected, actual, ())


def _rewrite(expected: str, result: Result, _: float) -> Mismatch | None:
    if result.rewrite_final == expected:
        return None
    return Mismatch("rewrite_final", expected, result.rewrite_final,
                    tuple(rule.id for rule in result.fired_rules if rule.type == "rewrite"))


def _close(expected: float | None, actual: float | None, tolerance: float) -> bool:
    """|expected - actual| <= tolerance, exactly: an integer beyond a float's range (`score: 2**1100`) is
    compared as the integer it is, not converted (which raised OverflowError)."""
    if expected is None or actual is None:
        return expected is actual
    if all(isinstance(value, int) or math.isfinite(value) for value in (expected, actual, tolerance)):
        return abs(Fraction(expected) - Fraction(actual)) <= Fraction(tolerance)
    try:
        return math.isclose(expected, actual, rel_tol=0.0, abs_tol=tolerance)  # an infinity or a NaN
    except OverflowError:  # a huge integer against an infinity: only an infinite tolerance spans them
        return math.isinf(tolerance)


COMPARISONS: dict[str, Callable[[Any, Result, float], Mismatch | None]] = {
    "fired": _fired, "must_fire": _must_fire, "must_not_fire": _must_not_fire, "label": _label,
    "score": _score, "flags": _flags, "corrected_ratings": _ratings, "ranking": _ranking,
    "rewrite_final": _rewrite,
}


# Explaining

def explain_rule(result: Result, rule_id: str) -> str:
    """Why `rule_id` fired or not: the conditions it saw, or the first that failed and what it observed."""
    for rule in result.fired_rules:
        if rule.id == rule_id:
            actions = ", ".join(_action_text(action) for action in rule.actions) or "none"
            return f"rule '{rule_id}' fired: {_conditions_text(rule.detail)}; actions: {actions}"
    for skipped in result.skipped_rules:
        if skipped.id == rule_id:
            failed = skipped.failed
            observed = _observed_text(skipped.detail.get(failed)) if failed else ""
            return f"rule '{rule_id}' did not fire: {skipped.reason}{f' ({observed})' if observed else ''}"
    return f"rule '{rule_id}' did not fire: its conditions did not hold"


def _conditions_text(detail: dict[str, Any]) -> str:
    if not detail:
        return "it has no conditions"
    return "; ".join(f"{name} held ({_observed_text(seen)})" for name, seen in detail.items())


def _observed_text(seen: Any) -> str:
    if not isinstance(seen, dict):
        return _short(seen)
    return ", ".join(f"{key}: {_short(value)}" for key, value in seen.items() if key != "held")


def _action_text(action: dict[str, Any]) -> str:
    (name, value), = action.items()
    return f"{name} {_short(value)}"


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# Writing actual outcomes back

def recorded_values(outcome: CaseOutcome) -> dict[str, Any]:
    """What --update writes into the case's `expect`: the actual value of each mismatched key (for
    must_fire and must_not_fire, the ids that now hold), or the usual keys for a case without any."""
    result = outcome.result
    if result is None:
        return {}
    if not expects_anything(outcome.case):
        return {key: _actual(key, result, None) for key in RECORDED}
    return {m.key: _actual(m.key, result, m.expected) for m in outcome.mismatches}


def _actual(key: str, result: Result, expected: Any) -> Any:
    fired = fired_ids(result)
    values: dict[str, Callable[[], Any]] = {
        "fired": lambda: fired,
        "must_fire": lambda: [i for i in expected if i in fired],
        "must_not_fire": lambda: [i for i in expected if i not in fired],
        "label": lambda: result.label,
        "score": lambda: _plain_number(result.score),
        "flags": lambda: sorted(name for name, on in result.flags.items() if on),
        "corrected_ratings": lambda: {dim: _plain_number(result.corrected_ratings[dim]["updated"])
                                      for dim in expected},
        "ranking": lambda: list(result.corrected_ranking),
        "rewrite_final": lambda: result.rewrite_final,
    }
    return values[key]()


def _plain_number(value: float | None) -> float | int | None:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def update_files(outcomes: list[CaseOutcome]) -> list[Path]:
    """Write the actual outcomes of the failed cases back into their files; returns the files changed."""
    by_file: dict[Path, list[CaseOutcome]] = {}
    for outcome in outcomes:
        if recorded_values(outcome) and not outcome.passed:
            by_file.setdefault(outcome.case.path, []).append(outcome)
    for path, changed in by_file.items():
        _rewrite_file(path, changed)
        for outcome in changed:
            outcome.updated = True
    return list(by_file)


def _rewrite_file(path: Path, outcomes: list[CaseOutcome]) -> None:
    from io import StringIO

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.representer.add_representer(type(None), _represent_null)  # ruamel would write `score:` for null
    yaml.width = 4096  # never re-wrap long strings the author wrote on one line
    data, indent, block_seq_indent = load_yaml_guess_indent(path.read_text(encoding="utf-8-sig"), yaml=yaml)
    yaml.indent(mapping=2, sequence=indent or 4, offset=2 if block_seq_indent is None else block_seq_indent)
    for outcome in outcomes:
        case = data["cases"][outcome.case.index]
        if case.get("expect") is None:
            case["expect"] = CommentedMap()
        for key, value in recorded_values(outcome).items():
            _assign(case["expect"], key, value)
    out = StringIO()
    yaml.dump(data, out)
    try:
        write_text_atomic(path, out.getvalue())  # a full disk or SIGTERM leaves the old file whole
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # named after the test file


def _represent_null(representer: Any, _: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def _assign(expect: Any, key: str, value: Any) -> None:
    """Set expect[key], keeping the existing node (and so its flow or block style) where the kinds match."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import LiteralScalarString

    current = expect.get(key)
    if current == value and key in expect:
        return  # equal already (4.0 against 4): leave the author's spelling alone
    if isinstance(current, CommentedSeq) and isinstance(value, list):
        current[:] = value
    elif isinstance(current, CommentedMap) and isinstance(value, dict):
        current.update({k: v for k, v in value.items() if current.get(k) != v})
    elif isinstance(value, (list, dict)):
        node = CommentedSeq(value) if isinstance(value, list) else CommentedMap(value)
        node.fa.set_flow_style()
        expect[key] = node
    else:
        expect[key] = LiteralScalarString(value) if isinstance(value, str) and "\n" in value else value
