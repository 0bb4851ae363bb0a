"""`evalkit check` through its real entry point: every format and exit code, colour on a terminal, and
the promise that checking imports neither Textual nor pygls."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
INVALID = REPO / "tests" / "check" / "configs" / "invalid"
LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<severity>error|warning|info)\[(?P<code>[a-z0-9-]+)\] .+$"
)


def evalkit(*args: str, cwd: Path = REPO, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **env}
    environment.pop("FORCE_COLOR", None)
    return subprocess.run(
        [str(EVALKIT), *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=60
    )


def test_the_shipped_config_is_clean_and_exits_0() -> None:
    done = evalkit("check", "config_samples")
    assert (done.returncode, done.stdout, done.stderr) == (0, "1 config folder, 5 files: no problems\n", "")


def test_findings_exit_1_one_line_each_sorted_by_file_and_line() -> None:
    done = evalkit("check", str(INVALID / "unknown_dimension"), str(INVALID / "enum_values"))
    assert done.returncode == 1 and done.stderr == ""
    *lines, summary = done.stdout.splitlines()
    matches = [LINE.match(line) for line in lines]
    assert all(matches) and len(lines) == 8
    keys = [(m["path"], int(m["line"]), int(m["col"])) for m in matches if m]
    assert keys == sorted(keys)
    assert summary == "2 config folders, 4 files: 8 errors"


@pytest.mark.parametrize(
    "args",
    [
        ("check", "no/such/folder"),
        ("check", "README-not-a-config.yaml"),
        ("check", "--format", "xml", "config_samples"),
    ],
)
def test_usage_problems_exit_2_with_a_message_and_no_traceback(
    args: tuple[str, ...], in_process: Any
) -> None:
    # through the console script: test_samples_that_are_missing_or_a_file_say_which
    done = in_process(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert "evalkit check: " in done.stderr or "usage:" in done.stderr
    assert "Traceback" not in done.stderr


def test_samples_that_are_missing_or_a_file_say_which() -> None:
    missing = evalkit("check", "config_samples", "--samples", "no/such/samples")
    assert missing.stderr == (
        "evalkit check: no/such/samples: no such folder (--samples expects a folder of submissions)\n"
    )
    a_file = evalkit("check", "config_samples", "--samples", "samples/01_algorithms_graphs_complete.json")
    assert a_file.stderr.endswith(
        "samples/01_algorithms_graphs_complete.json: --samples expects a folder of submissions, not a file\n"
    )
    assert missing.returncode == a_file.returncode == 2
    assert missing.stdout == a_file.stdout == ""
    assert "Traceback" not in missing.stderr + a_file.stderr


def test_warnings_pass_unless_strict() -> None:
    folder = str(INVALID / "unreachable_rules")
    assert evalkit("check", folder).returncode == 0
    assert evalkit("check", "--strict", folder).returncode == 1


def test_json_format() -> None:
    done = evalkit("check", "--format", "json", str(INVALID / "duplicate_rule_ids"))
    out = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(d["line"], d["code"]) for d in out["diagnostics"]] == [
        (6, "duplicate-rule-id"),
        (9, "duplicate-rule-id"),
    ]
    assert out["summary"]["errors"] == 1 and out["summary"]["warnings"] == 1  # the second is in another list


def test_sarif_format_points_at_paths_relative_to_the_current_folder() -> None:
    done = evalkit("check", "--format", "sarif", "tests/check/configs/invalid/bad_regex")
    log = json.loads(done.stdout)
    assert done.returncode == 1 and log["version"] == "2.1.0"
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]
    }
    assert uris == {"tests/check/configs/invalid/bad_regex/rules.yaml"}


def test_github_format() -> None:
    done = evalkit("check", "--format", "github", "tests/check/configs/invalid/unreachable_rules", "--strict")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        "::warning file=tests/check/configs/invalid/unreachable_rules/rules.yaml,line=9,col=9,endLine=9,"
        "endColumn=18,title=evalkit unreachable-rule::rule 'never_one' can never run: 'always' has no "
        "conditions and stop_after_first is set"
    )


def test_samples_dry_run_from_the_command_line() -> None:
    done = evalkit("check", "config_samples", "--samples", "samples", "--strict")
    assert done.returncode == 0 and "samples: no problems" in done.stdout


def _run_on_a_terminal(*args: str, **env: str) -> str:
    leader, follower = pty.openpty()
    inherited = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment = {**inherited, "TERM": "xterm", **env}
    with subprocess.Popen(
        [str(EVALKIT), *args], cwd=REPO, stdout=follower, stderr=follower, env=environment
    ) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_text_is_coloured_on_a_terminal_and_plain_in_a_pipe_or_with_no_color() -> None:
    folder = str(INVALID / "duplicate_key")
    assert "\033[1;31merror\033[0m" in _run_on_a_terminal("check", folder)
    assert "\033[" not in _run_on_a_terminal("check", folder, NO_COLOR="1")
    assert "\033[" not in evalkit("check", folder).stdout


def test_checking_imports_neither_textual_nor_pygls_and_jinja_only_for_templates_that_need_it() -> None:
    code = (
        "import sys; from evalkit.cli import main; code = main(['check', sys.argv[1]]); "
        "print(sorted(m for m in ('textual', 'pygls', 'jinja2', 'jsonschema') if m in sys.modules))"
    )
    valid = REPO / "tests" / "check" / "configs" / "valid"
    for folder, expected in (
        (REPO / "config_samples", "[]"),  # its one template is text and lookups
        (valid / "every_condition", "['jinja2']"),  # a filter and an if
        (valid / "rules_only", "[]"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=60
        )
        assert done.stdout.splitlines()[-1] == expected


def test_checking_reads_the_schemas_beside_their_module_without_importlib_resources() -> None:
    """The schemas are files beside evalkit.schemas: read as such, as pip installs them, without the
    zipfile module and importlib.resources' readers, a fourteenth of check's start."""
    code = (
        "import sys; from evalkit.cli import main; code = main(['check', sys.argv[1]]); "
        "print(sorted(m for m in ('zipfile', 'importlib.resources') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(INVALID / "unknown_dimension")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "error[" in done.stdout  # the schemas were read: a finding says so
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.parametrize("opening", ['"', "[", "{"])
def test_a_quote_or_bracket_left_open_on_a_rules_first_line_is_marked_where_it_opens(
    tmp_path: Path, opening: str
) -> None:
    # `- id: "x`: the item's keys stand at column 5, after the dash; the next key ends the line's value
    rules = (REPO / "config_samples" / "rules.yaml").read_text(encoding="utf-8")
    first = rules.index("  - id: ") + len("  - id: ")
    (tmp_path / "rules.yaml").write_text(rules[:first] + opening + rules[first:], encoding="utf-8")
    line = rules[:first].count("\n") + 1
    done = evalkit("check", str(tmp_path))
    assert done.returncode == 1, done.stderr
    (diagnostic, _) = done.stdout.splitlines()
    assert diagnostic.startswith(f"{tmp_path / 'rules.yaml'}:{line}:9: error[yaml-syntax] the ")
    assert " is not closed (" in diagnostic
