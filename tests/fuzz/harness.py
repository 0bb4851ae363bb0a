"""What every fuzz target asserts of one run of a command (issue 30, "Make the hunt systematic").

A command is run through its console script, as a user runs it, in a process of its own with its address
space capped (RLIMIT_AS) and a timeout; whatever the input: no traceback, an exit code of 0, 1 or 2, within
the bounds, and no raw control character in any output a terminal or a CI log may show. JSON outputs are
held to JSON's own rule: no C0 control character raw (JSON escapes them; C1 and DEL are text to JSON).

How many examples each target explores: `FUZZ_EXAMPLES` (a handful in the normal suite, seconds), or the
`EVALKIT_FUZZ_EXAMPLES` environment variable for a longer hunt (CONTRIBUTING.md, "Fuzzing").
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, settings

from tests.budget import examples

REPO = Path(__file__).resolve().parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
CORPUS = Path(__file__).resolve().parent / "corpus"
"""Every input a target ever broke, one file each in a folder per target: replayed by every run."""
FUZZ_EXAMPLES = int(os.environ.get("EVALKIT_FUZZ_EXAMPLES", "4"))
MEMORY_LIMIT = 1024 * 1024 * 1024
"""Address space for one command: evalkit needs under 200 MB (stats with numpy, more than eval)."""
TIME_LIMIT = 60.0
"""Seconds for one command on a small input: a catastrophe-scale bound (a hang, an input read without
end), not a timing assertion; each input here is a few kilobytes."""
RAW_ANYWHERE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What no text output holds raw: control characters (a line feed ends a line evalkit writes, a tab is
text), those that end or reorder a line."""
RAW_IN_JSON = re.compile("[\x00-\x08\x0b-\x1f]")
CI_COMMAND = re.compile(r"\s*(::|##\[)")

FUZZ_SETTINGS = settings(
    max_examples=examples(FUZZ_EXAMPLES),
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str
    seconds: float


def evalkit(*args: str | Path, cwd: Path, stdin: bytes = b"") -> Run:
    """`evalkit ARGS` from `cwd`, bounded in memory and time; stdout and stderr decoded as UTF-8 (a byte
    that is not UTF-8 shows as U+FFFD, itself no control character)."""
    env = {**os.environ, "NO_COLOR": "1", "EVALKIT_NO_CACHE": "1"}
    env.pop("FORCE_COLOR", None)
    start = time.monotonic()
    done = subprocess.run(
        [str(EVALKIT), *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=TIME_LIMIT,
        preexec_fn=_limits,
        env=env,
        check=False,
    )
    seconds = time.monotonic() - start
    decode = lambda raw: raw.decode("utf-8", "replace")  # noqa: E731
    return Run(tuple(map(str, args)), done.returncode, decode(done.stdout), decode(done.stderr), seconds)


def assert_sound(run: Run, json_stdout: bool = False, texts: Sequence[str] = ()) -> None:
    """The rule every run keeps, whatever its input (see the module's docstring); `texts`: the contents of
    files it wrote that a terminal or a CI log may show (a report, a log)."""
    where = " ".join(run.args)
    assert "Traceback" not in run.stderr, f"{where}\n{run.stderr}"
    assert run.code in (0, 1, 2), f"{where}: exit {run.code}\n{run.stderr}"
    assert run.seconds < TIME_LIMIT
    _assert_shown(run.stderr, where)
    if json_stdout:
        assert RAW_IN_JSON.search(run.stdout) is None, f"{where}: raw control character in JSON"
    else:
        _assert_shown(run.stdout, where)
    for text in texts:
        _assert_shown(text, where)


def _assert_shown(text: str, where: str) -> None:
    found = RAW_ANYWHERE.search(text)
    assert found is None, (
        f"{where}: raw {found.group()!r} in {text[max(0, found.start() - 60) : found.end() + 60]!r}"
    )
    for line in text.splitlines():
        assert CI_COMMAND.match(line) is None or line.startswith(
            ("::error file=", "::warning file=", "::notice file=")
        ), f"{where}: a CI runner command: {line!r}"


def corpus(target: str) -> list[Path]:
    """The inputs that once broke `target`, each a regression case."""
    folder = CORPUS / target
    return sorted(folder.iterdir()) if folder.is_dir() else []
