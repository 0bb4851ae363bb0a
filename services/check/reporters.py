"""Renderers of a check's diagnostics: `text` (for people; colour on a terminal), `json` (for scripts),
`sarif` (SARIF 2.1.0, for GitHub code scanning) and `github` (workflow command annotations).

Each takes the report and returns the whole output as one string.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from evalkit.engine.diagnostics import Diagnostic, Severity, Span, describe
from evalkit.engine.text import counted, shown
from evalkit.engine.untrusted_text import shown_as
from evalkit.services.check.runner import CheckReport

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_COLOURS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.INFO: "\033[1;36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def render(report: CheckReport, fmt: str, colour: bool = False) -> str:
    """The report in one of `evalkit check --format`'s formats (`evalkit.commands.check.FORMATS`)."""
    renderers: dict[str, Callable[[CheckReport], str]] = {
        "text": lambda r: text(r, colour),
        "json": as_json,
        "sarif": sarif,
        "github": github,
    }
    return renderers[fmt](report)


def summary(report: CheckReport) -> str:
    checked = f"{counted(len(report.folders), 'config folder')}, {counted(report.files, 'file')}"
    if report.samples:
        checked += f", {counted(report.samples, 'sample')}"
    counts = [
        (report.count(Severity.ERROR), "error"),
        (report.count(Severity.WARNING), "warning"),
        (report.count(Severity.INFO), "info"),
    ]
    found = ", ".join(counted(n, word) for n, word in counts if n)
    return f"{checked}: {found or 'no problems'}"


def text(report: CheckReport, colour: bool = False) -> str:
    """`path:line:col: severity[code] message` per diagnostic, then a summary line."""
    lines = [_text_line(d, colour) for d in report.diagnostics]
    lines.append(summary(report))
    return "\n".join(lines)


def _text_line(d: Diagnostic, colour: bool) -> str:
    if not colour:
        return d.format()
    where = f"{_BOLD}{shown_as(d.path)}:{d.span.line}:{d.span.column}:{_RESET}"
    message = shown_as(d.message)
    return f"{where} {_COLOURS[d.severity]}{d.severity}{_RESET}{_DIM}[{d.code}]{_RESET} {message}"


def use_colour(stream: Any) -> bool:
    """Colour on a terminal, unless NO_COLOR is set (https://no-color.org); FORCE_COLOR forces it."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


def as_json(report: CheckReport) -> str:
    return json.dumps(
        {
            "diagnostics": [d.to_dict() for d in report.diagnostics],
            "summary": {
                "folders": [shown(str(f)) for f in report.folders],
                "files": report.files,
                "samples": report.samples,
                "errors": report.count(Severity.ERROR),
                "warnings": report.count(Severity.WARNING),
                "infos": report.count(Severity.INFO),
            },
        },
        indent=2,
        ensure_ascii=False,
    )


def sarif(report: CheckReport) -> str:
    """One run whose rules are the codes found; locations are relative to the current folder, which is
    the repository root when GitHub's upload-sarif action reads them."""
    from evalkit import __version__

    codes = sorted({d.code for d in report.diagnostics})
    driver = {
        "name": "evalkit",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [_sarif_rule(code, report) for code in codes],
    }
    run = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": [_sarif_result(d, codes.index(d.code)) for d in report.diagnostics],
    }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False)


def _sarif_rule(code: str, report: CheckReport) -> dict[str, Any]:
    severity = min(d.severity for d in report.diagnostics if d.code == code)
    return {
        "id": code,
        "shortDescription": {"text": describe(code)},
        "defaultConfiguration": {"level": _SARIF_LEVELS[severity]},
    }


def _sarif_result(d: Diagnostic, rule_index: int) -> dict[str, Any]:
    location = _artifact(d.path)
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _SARIF_LEVELS[d.severity],
        "message": {"text": shown(d.message)},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": _region(d.span)}}],
    }
    if d.fix is not None:
        result["fixes"] = [
            {
                "description": {"text": d.fix.title},
                "artifactChanges": [
                    {
                        "artifactLocation": location,
                        "replacements": [
                            {"deletedRegion": _region(d.fix.span), "insertedContent": {"text": d.fix.text}}
                        ],
                    }
                ],
            }
        ]
    return result


def _region(span: Span) -> dict[str, int]:
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def _artifact(path: str) -> dict[str, str]:
    """A relative URI under %SRCROOT% when the file is below the current folder, else a file: URI."""
    resolved = Path(path).resolve()
    try:
        relative = resolved.relative_to(Path.cwd().resolve())
    except ValueError:
        return {"uri": resolved.as_uri()}
    return {"uri": quote(os.fsencode(relative.as_posix())), "uriBaseId": "%SRCROOT%"}  # bytes: any name


def github(report: CheckReport) -> str:
    """`::error file=...,line=...::message` lines, which a GitHub Actions run shows on the diff."""
    return "\n".join(_annotation(d) for d in report.diagnostics)


def _annotation(d: Diagnostic) -> str:
    span = d.span
    properties = {
        "file": d.path,
        "line": span.line,
        "col": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
        "title": f"evalkit {d.code}",
    }
    rendered = ",".join(f"{key}={shown_as(value, 'github-property')}" for key, value in properties.items())
    return f"::{_GITHUB_COMMANDS[d.severity]} {rendered}::{shown_as(d.message, 'github')}"
