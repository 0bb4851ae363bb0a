"""The four output formats of `evalkit check`, on a report with every severity and a fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from evalkit.engine.diagnostics import Diagnostic, Fix, Severity, Span
from evalkit.services.check.reporters import as_json, github, render, sarif, text, use_colour
from evalkit.services.check.runner import CheckReport

# What GitHub code scanning reads from an uploaded SARIF file ("SARIF support for code scanning"): a
# 2.1.0 log whose run names its tool, whose results point at a rule, a level, a message and a region.
GITHUB_SARIF = {
    "type": "object",
    "required": ["$schema", "version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id", "shortDescription"],
                                            "properties": {
                                                "shortDescription": {"type": "object", "required": ["text"]}
                                            },
                                        },
                                    }
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "ruleIndex", "level", "message", "locations"],
                            "properties": {
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "maxItems": 10,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1},
                                                            "startColumn": {"type": "integer", "minimum": 1},
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CheckReport:
    monkeypatch.chdir(tmp_path)
    fix = Fix("Replace with 'when'", Span(5, 5, 5, 9), "when")
    return CheckReport(
        diagnostics=[
            Diagnostic(
                "cfg/rules.yaml",
                Span(5, 5, 5, 9),
                Severity.ERROR,
                "unknown-key",
                "unknown key 'whne' in rating_rules[0]; did you mean 'when'?",
                fix,
            ),
            Diagnostic(
                "cfg/rules.yaml",
                Span(9, 9, 9, 14),
                Severity.WARNING,
                "unreachable-rule",
                "rule 'b' can never run: 'a' has no conditions, and\nstop_after_first is set",
            ),
            Diagnostic(
                "cfg dir/rules.yaml", Span(2, 9, 2, 13), Severity.INFO, "rule-never-fires", "100% sure: 'c'"
            ),
        ],
        folders=[Path("cfg"), Path("cfg dir")],
        files=2,
    )


def test_text_is_one_line_per_diagnostic_then_a_summary(report: CheckReport) -> None:
    lines = text(report).splitlines()
    assert lines[0] == (
        "cfg/rules.yaml:5:5: error[unknown-key] unknown key 'whne' in rating_rules[0]; did you mean 'when'?"
    )
    assert lines[-1] == "2 config folders, 2 files: 1 error, 1 warning, 1 info"


def test_text_colours_the_severity_only_when_asked(report: CheckReport) -> None:
    assert "\033[" not in text(report, colour=False)
    coloured = text(report, colour=True)
    assert "\033[1;31merror\033[0m" in coloured and "\033[1;33mwarning\033[0m" in coloured


def test_colour_follows_the_terminal_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_colour(Terminal()) and not use_colour(object())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Terminal())


def test_json_holds_every_diagnostic_and_the_counts(report: CheckReport) -> None:
    out = json.loads(as_json(report))
    assert [d["code"] for d in out["diagnostics"]] == ["unknown-key", "unreachable-rule", "rule-never-fires"]
    assert out["diagnostics"][0]["fix"] == {"title": "Replace with 'when'", "text": "when"}
    assert out["summary"] == {
        "folders": ["cfg", "cfg dir"],
        "files": 2,
        "samples": 0,
        "errors": 1,
        "warnings": 1,
        "infos": 1,
    }


def test_sarif_is_what_github_code_scanning_reads(report: CheckReport) -> None:
    log = json.loads(sarif(report))
    jsonschema.validate(log, GITHUB_SARIF)
    run = log["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note"]


def test_sarif_locations_are_relative_uris_with_exclusive_end_columns(report: CheckReport) -> None:
    results = json.loads(sarif(report))["runs"][0]["results"]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"] == {"uri": "cfg/rules.yaml", "uriBaseId": "%SRCROOT%"}
    assert first["region"] == {"startLine": 5, "startColumn": 5, "endLine": 5, "endColumn": 9}
    assert results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "cfg%20dir/rules.yaml"
    replacement = results[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"] == {"text": "when"}


def test_sarif_names_a_file_outside_the_current_folder_by_absolute_uri(tmp_path: Path) -> None:
    outside = tmp_path.parent / "elsewhere" / "rules.yaml"
    diagnostic = Diagnostic(str(outside), Span.point(1, 1), Severity.ERROR, "yaml-syntax", "bad")
    log = json.loads(sarif(CheckReport(diagnostics=[diagnostic])))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": outside.resolve().as_uri()}


def test_github_annotations_escape_what_the_workflow_command_syntax_reserves(report: CheckReport) -> None:
    lines = github(report).splitlines()
    assert lines[0] == (
        "::error file=cfg/rules.yaml,line=5,col=5,endLine=5,endColumn=9,title=evalkit unknown-key::"
        "unknown key 'whne' in rating_rules[0]; did you mean 'when'?"
    )
    # a diagnostic's message is one line: a newline in it is written as \n, never a line break
    assert lines[1].startswith("::warning ") and lines[1].endswith(
        "conditions, and\\nstop_after_first is set"
    )
    assert re.match(r"::notice file=cfg dir/rules.yaml,line=2,col=9,.*::100%25 sure: 'c'$", lines[2])


def test_a_clean_report_renders_as_a_summary_or_nothing() -> None:
    clean = CheckReport(folders=[Path("cfg")], files=5)
    assert render(clean, "text") == "1 config folder, 5 files: no problems"
    assert render(clean, "github") == ""
    assert json.loads(render(clean, "sarif"))["runs"][0]["results"] == []
