#!/usr/bin/env python3
"""Project tasks that need nothing but Python 3.11+ and pip.

    python3 tasks.py demo   # make .venv, install evalkit, evaluate the shipped samples
    python3 tasks.py test   # make .venv, install evalkit, its test tools and Ray; run the whole suite
    python3 tasks.py lint   # ruff (lint and format) over the tree, mypy over the package as installed
                            # (--types: mypy only)

The venv is reinstalled only when what the build reads changes: pyproject.toml, setup.py, or the engine,
whose hot modules mypyc compiles in place (a stamp file records their hash). `test` runs the suite against
that build and, at the same time in a process of its own, the engine's tests against its Python source
(EVALKIT_PURE=1), which is what a machine without a C compiler installs.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".evalkit-installed"


def _run(*command: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], cwd=ROOT, check=True, env=env)


def _build_inputs() -> str:
    digest = hashlib.sha256()
    compiled = [*sorted((ROOT / "engine").glob("*.py")), *sorted((ROOT / "qydomain").glob("*.py"))]
    for path in [ROOT / "pyproject.toml", ROOT / "setup.py", *compiled]:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def ensure_venv() -> None:
    wanted = _build_inputs()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        venv.create(VENV, with_pip=True)
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    _run(BIN / "python", "-m", "pip", "install", "--quiet", "-e", ".[test,ray]")
    STAMP.write_text(wanted)


SYSTEM_TOOLS = {
    "tmux": "tmux",
    "chromium": "chromium",
    "openssl": "openssl",
    "jq": "jq",
    "node": "nodejs",
    "npm": "npm",
}
"""Programs the tests drive for real (the review app in a terminal, the `evalkit stats` HTML page in a
headless browser, an RFC 3161 authority and the README's openssl recipe for signed results, sigstore-js),
by the Debian package that has them."""

NPM_FOLDER = ROOT / "build" / "npm"
NPM_TOOLS = ("@sigstore/verify@4.1.3", "@sigstore/bundle@5.0.1", "@sigstore/protobuf-specs@0.5.2")
"""For the tests only: sigstore-js, the independent verifier of evalkit's signed bundles
(tests/signing/test_independent.py), installed with npm into build/npm, never into the package."""


def ensure_npm_tools() -> Path:
    """build/npm/node_modules with NPM_TOOLS (installed when missing or of other versions)."""
    stamp = NPM_FOLDER / ".installed"
    if stamp.exists() and stamp.read_text() == " ".join(NPM_TOOLS):
        return NPM_FOLDER / "node_modules"
    NPM_FOLDER.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is missing: the signing tests verify with sigstore-js (apt-get install npm)")
    _run(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", NPM_FOLDER, *NPM_TOOLS)
    stamp.write_text(" ".join(NPM_TOOLS))
    return NPM_FOLDER / "node_modules"


POSTGRESQL_PACKAGE = "postgresql"
"""The server the queue tests start (tests/team_queue/postgres.py): Debian puts initdb and pg_ctl in
/usr/lib/postgresql/VERSION/bin, not on PATH."""


def _has_postgresql_server() -> bool:
    return shutil.which("initdb") is not None or bool(glob.glob("/usr/lib/postgresql/*/bin/initdb"))


def ensure_system_tools() -> None:
    missing = sorted({package for tool, package in SYSTEM_TOOLS.items() if shutil.which(tool) is None})
    if not _has_postgresql_server():
        missing.append(POSTGRESQL_PACKAGE)
    if not missing:
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        _run("apt-get", "update", "-qq")
        _run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing)
    else:
        print(
            f"tasks.py: {', '.join(missing)} missing and not installable here (root and apt-get needed); "
            "the tests that drive them fail saying so",
            flush=True,
        )


def demo() -> None:
    ensure_venv()
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    _run(BIN / "evalkit", "eval", "samples/sample_submission.json", "--out", "out/result.json")
    try:
        _run(
            BIN / "evalkit",
            "eval",
            "samples",
            "--out",
            "out/results.jsonl",
            "--report-md",
            "out/report.md",
            "--explain-json",
            "out/explain.jsonl",
        )
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode)
    print(
        "\nResults: out/result.json (the seed's sample), out/results.jsonl, out/explain.jsonl, out/report.md"
    )


PYTEST = [BIN / "python", "-m", "pytest", "-q"]
PYCACHE = VENV / "pycache"
SAME_IN_BOTH_BUILDS = (
    "tests/engine/test_limits_yaml.py",
    "tests/engine/test_positions.py",
    "tests/engine/test_validator.py",
    "tests/qydomain/test_score_cli.py",
)
"""Test files the pure pass leaves out, since they run the same code in both builds: none reaches a compiled
module in the test process, even indirectly (tests/test_pure_pass.py holds them to it), and the last runs
`evalkit score` in subprocesses, which import the compiled build whatever EVALKIT_PURE says."""


PURE_PASS_PROFILE = "pure-pass"
"""The Hypothesis profile of the pure pass (tests/conftest.py, tests/budget.py): each property explores a
quarter of its examples (at least 25) against the source, since the main pass has explored them all
against the same code compiled. The pure pass's line and branch coverage of engine/ and qydomain/ are the
same as at the full count (CONTRIBUTING.md)."""


PURE_PASS_UNUSED_PLUGINS = ("pytest-lsp", "textual-snapshot", "syrupy", "xdist", "xdist.looponfail")
"""pytest plugins the pure pass does not load: the engine's and the scorers' tests use none of them, and
loading them imports the language server protocol's types and Textual (half its collection: 0.55 of 1.15
CPU-seconds)."""


def _test_env() -> dict[str, str]:
    """The environment the tests run in. With PYTHONDONTWRITEBYTECODE set, every Python process the suite
    starts (pytest on each xdist worker, the commands the tests run, Ray's workers) compiled evalkit's
    modules and pytest rewrote the test modules' asserts again, every time: about 2 CPU-seconds of each
    worker's collection. The suite writes its bytecode under .venv/pycache instead, which keeps the tree
    as clean as the setting meant to."""
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", ""):
        env.setdefault("PYTHONPYCACHEPREFIX", str(PYCACHE))
    return env


def _workers() -> list[str]:
    """pytest-xdist's options for the main pass: one worker per core and one more, since the Ray tests (three
    xdist groups and the local --ray test, one Ray each, handed out first) keep their workers waiting on Ray's
    own processes most of the time; the extra worker uses the CPU they leave idle."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return ["-n", str(cores + 1), "--dist", "loadgroup"]


def _pure_pass() -> list[str | Path]:
    """The pure pass's pytest command (run with EVALKIT_PURE=1). It keeps out of pytest's cache, which the
    main pass writes at the same time."""
    return [
        *PYTEST,
        "-p",
        "no:cacheprovider",
        *(f"-pno:{plugin}" for plugin in PURE_PASS_UNUSED_PLUGINS),
        f"--hypothesis-profile={PURE_PASS_PROFILE}",
        "tests/engine",
        "tests/qydomain",
        *(f"--ignore={path}" for path in SAME_IN_BOTH_BUILDS),
    ]


def test() -> None:
    ensure_venv()
    ensure_system_tools()
    try:
        ensure_npm_tools()
    except (RuntimeError, subprocess.CalledProcessError) as exc:  # the signing tests fail saying so
        print(f"tasks.py: sigstore-js not installed ({exc})", flush=True)
    extra = sys.argv[2:]
    if extra:  # `-n 0` in the arguments runs everything in this process
        parallel = [] if any(a.startswith(("-n", "--numprocesses")) for a in extra) else _workers()
        _run(*PYTEST, *parallel, *extra, env=_test_env())
        return
    # The whole suite. The engine's tests against its Python source (EVALKIT_PURE=1) run in one process of
    # their own while the main pass runs, on the CPU its waits leave idle; their report follows the main
    # pass's.
    pure_command = _pure_pass()
    main_command = [*PYTEST, *_workers()]
    with tempfile.TemporaryFile() as report:
        print("+ EVALKIT_PURE=1", *pure_command, "(in the background)", flush=True)
        pure = subprocess.Popen(
            [str(c) for c in pure_command],
            cwd=ROOT,
            env={**_test_env(), "EVALKIT_PURE": "1"},
            stdin=subprocess.DEVNULL,
            stdout=report,
            stderr=subprocess.STDOUT,
        )
        try:
            print("+", *main_command, flush=True)
            main = subprocess.run([str(c) for c in main_command], cwd=ROOT, env=_test_env()).returncode
        finally:
            pure_code = pure.wait()
        report.seek(0)
        print("\n+ EVALKIT_PURE=1", *pure_command, flush=True)
        sys.stdout.flush()
        sys.stdout.buffer.write(report.read())
        sys.stdout.flush()
    if main or pure_code:
        sys.exit(main or pure_code)


def _typecheck_tree() -> Path:
    """The package as it installs (pyproject's package-dir), as links to the sources, for mypy: it cannot
    follow setuptools' mapping of top-level folders into evalkit.*, nor an editable install's finder."""
    import tomllib

    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    tree = ROOT / "build" / "typecheck"
    package = tree / "evalkit"
    if tree.exists():
        shutil.rmtree(tree)
    package.mkdir(parents=True)
    for source in (ROOT / "evalkit").glob("*.py"):
        (package / source.name).symlink_to(source)
    for name, folder in mapping.items():
        if name != "evalkit":
            (package / name.removeprefix("evalkit.").replace(".", "/")).symlink_to(ROOT / folder)
    return tree


def lint() -> None:
    ensure_venv()
    if "--types" not in sys.argv[2:]:
        _run(BIN / "ruff", "check", ".")
        _run(BIN / "ruff", "format", "--check", ".")
    tree = _typecheck_tree()
    print("+ mypy -p evalkit (in build/typecheck)", flush=True)
    subprocess.run(
        [str(BIN / "python"), "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "evalkit"],
        cwd=tree,
        check=True,
    )


TASKS = {"demo": demo, "test": test, "lint": lint}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in TASKS:
        sys.exit(f"usage: python3 tasks.py {{{'|'.join(TASKS)}}}")
    try:
        TASKS[sys.argv[1]]()
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode)
