"""Rule tests (`evalkit test`), in the spirit of `opa test` and `semgrep --test`: finding and loading them.

A config folder may hold `tests/*.yaml` (format: schemas/ruletest.schema.json). Each case names a
submission (inline, by name, or by path) and what its evaluation must produce. This module finds the test
files and checks them (YAML, the schema, unknown rule ids) into Diagnostics and Cases. Running and comparing
is services/ruletests/run.py, explaining a failure services/ruletests/explain.py, writing actual outcomes back
(`--update`) services/ruletests/update.py.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.engine.config import config_files, read_config_file
from evalkit.engine.diagnostics import FILE_START, Diagnostic, Fix, Span, closest, error, has_errors
from evalkit.engine.text import NotText, decode_utf8, not_a_regular_file
from evalkit.engine.yamlsource import YamlDocument, parse_yaml
from evalkit.services.check.runner import broken_link, config_folders
from evalkit.services.config.folders import no_such_path
from evalkit.services.usage import UsageProblem

TESTS_FOLDER = "tests"
DEFAULT_TOLERANCE = 1e-6
ID_LISTS = ("fired", "must_fire", "must_not_fire")


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


def find_suites(paths: Sequence[str]) -> list[tuple[Path, list[Path]]]:
    """(config folder, its test files) for every PATH: a config folder or tree, a tests/ folder, or test
    files. Config folders without tests are passed over; raises UsageProblem when nothing is left."""
    found: dict[Path, list[Path]] = {}
    for raw in paths:
        for folder, files in _suites_of(Path(raw)):
            known = found.setdefault(folder, [])
            known.extend(f for f in files if f not in known)
    if not found:
        raise UsageProblem(
            f"no rule tests found in {', '.join(paths)} (expected {TESTS_FOLDER}/*.yaml "
            f"in a folder with config files){_broken_links_in(paths)}"
        )
    return list(found.items())


def _broken_links_in(paths: Sequence[str]) -> str:
    """The config files under `paths` that are links looping or leading nowhere, said after a semicolon
    (a test run found nothing: this may be why), else nothing."""
    broken = (
        broken_link(file)
        for raw in paths
        if Path(raw).is_dir()
        for folder in config_folders(Path(raw))
        for file in config_files(folder).values()
    )
    return "".join(f"; {problem}" for problem in broken if problem is not None)


def _suites_of(path: Path) -> Iterator[tuple[Path, list[Path]]]:
    if not path.exists() and not path.is_symlink():
        raise UsageProblem(no_such_path(str(path), None))
    if path.is_file() or (path.is_symlink() and not path.exists()):  # a link to nothing: reading says so
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
        broken = broken_link(test_file)
        if broken is not None:
            raise UsageProblem(broken)
        raise UsageProblem(
            f"{test_file}: a rule test file belongs in the {TESTS_FOLDER}/ folder of a config folder"
        )
    return folder


def find_test_files(folder: Path) -> list[Path]:
    """The folder's rule test files; a tests/ that is a link looping or leading nowhere stands for them,
    so that reading it says why none can run."""
    tests = folder / TESTS_FOLDER
    if broken_link(tests) is not None:
        return [tests]
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
        return RuleTestFile(
            path, diagnostics=[error(str(path), Span.point(exc.line, exc.column), "not-utf8", exc.reason)]
        )
    return check_test_text(path, text, rule_ids)


def check_test_text(path: Path, text: str, rule_ids: Collection[str]) -> RuleTestFile:
    """`load_test_file` on text already read (an editor's unsaved buffer of the file at `path`)."""
    document, diagnostics = parse_yaml(text, str(path))
    if document is None or has_errors(diagnostics):
        return RuleTestFile(path, diagnostics=diagnostics)
    if document.data is None:  # nothing but blank lines and comments
        return RuleTestFile(path, diagnostics=[*diagnostics, _empty_file(path)])
    from evalkit.engine.schema_check import schema_diagnostics

    diagnostics += schema_diagnostics(document, "ruletest")
    if not has_errors(diagnostics):
        diagnostics += unknown_rule_ids(document, rule_ids)
    if has_errors(diagnostics):
        return RuleTestFile(path, diagnostics=diagnostics)
    reader = _SubmissionReader(path.parent, document.data.get("submissions") or {})
    cases = [_case(document, path, index, raw, reader) for index, raw in enumerate(document.data["cases"])]
    return RuleTestFile(path, cases, diagnostics)


def _empty_file(path: Path) -> Diagnostic:
    return error(
        str(path), FILE_START, "missing-key", "the file holds no rule tests: write its cases under `cases:`"
    )


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
    return [
        error(str(case.path), case.submission_span, "unreadable", case.problem)
        for case in test_file.cases
        if case.problem is not None
    ]


def _unknown_rule(path: str, span: Span, rule_id: str, rule_ids: Collection[str]) -> Diagnostic:
    suggestion = closest(rule_id, sorted(rule_ids)) if rule_ids else None
    if suggestion is None:
        return error(
            path,
            span,
            "unknown-rule",
            f"unknown rule id '{rule_id}'; the config's rules are: {', '.join(sorted(rule_ids)) or 'none'}",
        )
    return error(
        path,
        span,
        "unknown-rule",
        f"unknown rule id '{rule_id}'; did you mean '{suggestion}'?",
        Fix(f"Replace with '{suggestion}'", span, suggestion),
    )


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
    from evalkit.services.inputs.read import read_file

    if path.suffix == ".jsonl":
        return None, f"{path}: a case takes one submission (.json or .yaml), not a .jsonl"
    kind = not_a_regular_file(path)
    if kind is not None:  # a named pipe would block, a device never end
        return None, f"{path}: cannot read the file: it is {kind}"
    loaded = next(read_file(path))
    if loaded.data is None:
        return None, f"{path}: {loaded.error}"
    return loaded.data, None


def _case(
    document: YamlDocument, path: Path, index: int, raw: dict[str, Any], reader: _SubmissionReader
) -> Case:
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
