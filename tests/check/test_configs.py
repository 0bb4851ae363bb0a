"""Data-driven: each folder under configs/invalid/ holds broken config files and `expected.yaml`, the exact
diagnostics `evalkit check` must report (file, line, column, severity, code, message or an excerpt, and
the suggestion); each folder under configs/valid/ must produce none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from evalkit.engine.diagnostics import Diagnostic, catalogue
from evalkit.services.check.runner import check_paths

CONFIGS = Path(__file__).parent / "configs"
INVALID = sorted(p for p in (CONFIGS / "invalid").iterdir() if p.is_dir())
VALID = sorted(p for p in (CONFIGS / "valid").iterdir() if p.is_dir())
REPO = Path(__file__).parents[2]


def _key(entry: dict[str, Any]) -> tuple[str, int, int, str, str]:
    return entry["file"], entry["line"], entry["column"], entry["severity"], entry["code"]


def _entry(diagnostic: Diagnostic, case: Path) -> dict[str, Any]:
    return {
        "file": Path(diagnostic.path).relative_to(case).as_posix(),
        "line": diagnostic.line,
        "column": diagnostic.column,
        "severity": str(diagnostic.severity),
        "code": diagnostic.code,
    }


@pytest.mark.parametrize("case", INVALID, ids=[p.name for p in INVALID])
def test_invalid_config_reports_exactly_the_expected_diagnostics(case: Path) -> None:
    expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    found = check_paths([str(case)]).diagnostics
    assert [_entry(d, case) for d in found] == [
        {k: e[k] for k in ("file", "line", "column", "severity", "code")} for e in expected
    ]
    for diagnostic, entry in zip(found, expected, strict=False):
        _assert_words(diagnostic, entry)


def _assert_words(diagnostic: Diagnostic, entry: dict[str, Any]) -> None:
    if "message" in entry:
        assert diagnostic.message == entry["message"]
    else:
        assert entry["says"] in diagnostic.message
    suggestion = entry.get("suggestion")
    if suggestion is None:
        assert "did you mean" not in diagnostic.message
        return
    assert f"did you mean '{suggestion}'?" in diagnostic.message
    assert diagnostic.fix is not None and diagnostic.fix.text == suggestion


@pytest.mark.parametrize("case", INVALID, ids=[p.name for p in INVALID])
def test_expected_files_are_sorted_by_file_and_line_and_use_catalogued_codes(case: Path) -> None:
    expected = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    assert expected, "an invalid case must expect at least one diagnostic"
    assert [_key(e)[:3] for e in expected] == sorted(_key(e)[:3] for e in expected)
    assert all(e["code"] in catalogue() for e in expected)


@pytest.mark.parametrize(
    "case", [*VALID, REPO / "config_samples"], ids=[*(p.name for p in VALID), "config_samples"]
)
def test_valid_config_reports_nothing(case: Path) -> None:
    report = check_paths([str(case)])
    assert [d.format() for d in report.diagnostics] == []
    assert report.folders and report.files > 0


def test_every_kind_of_problem_the_issue_names_has_a_case() -> None:
    covered = {
        e["code"]
        for case in INVALID
        for e in yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    }
    assert {
        "yaml-syntax",
        "duplicate-key",
        "yaml-too-large",
        "yaml-too-deep",
        "recursive-alias",
        "not-utf8",
        "unknown-key",
        "wrong-type",
        "invalid-value",
        "unknown-dimension",
        "unknown-field",
        "missing-key",
        "duplicate-rule-id",
        "bad-regex",
        "bad-template",
        "not-finite",
        "number-too-large",
        "outside-scale",
        "bad-scale",
        "impossible-length",
        "unreachable-rule",
        "no-actions",
        "bad-placeholder",
        "shadowed-file",
    } <= covered
