"""Build evalkit, with the engine's hot modules compiled by mypyc where a C compiler is at hand.

Compiled, an evaluation takes about half the time (benchmarks/bench_engine.py) and behaves the same: the
test suite runs against the compiled modules and again against their Python source (`python3 tasks.py
test`). Everything else is in pyproject.toml.

The build falls back to pure Python, with a warning, when EVALKIT_COMPILE=0, when mypyc cannot be
imported, when mypy finds a type error, or when the C build fails (no compiler, no Python headers).

mypyc names a module after its path, and this project maps folders to import names (`engine/` is
`evalkit.engine`), so the modules are copied under their import names into build/mypyc-src first.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
STAGE = ROOT / "build" / "mypyc-src"
COMPILED = (
    "actions",
    "conditions",
    "context",
    "evaluator",
    "needles",
    "phases",
    "plan",
    "regex",
    "result",
    "submission",
)
"""The modules every evaluation runs through (evalkit.engine.*). Templates stay interpreted: Jinja's
sandbox subclass is defined inside a function, which mypyc refuses, and compiling it gained nothing."""


def _fall_back(reason: str) -> list[Any]:
    print(f"evalkit: {reason}; building pure Python (the same behaviour at half the speed)", file=sys.stderr)
    return []


def _remove_earlier_builds() -> None:
    """An editable install compiles into engine/, where Python prefers a compiled module to its source: a
    pure editable build must not leave an earlier build's modules there to be served in place of the
    source. (A wheel builds elsewhere and leaves them alone.)"""
    for suffix in EXTENSION_SUFFIXES:
        for library in (ROOT / "engine").glob(f"*{suffix}"):
            library.unlink()


def _staged_sources() -> list[str]:
    if STAGE.exists():
        shutil.rmtree(STAGE)
    package = STAGE / "evalkit" / "engine"
    package.mkdir(parents=True)
    shutil.copy2(ROOT / "evalkit" / "__init__.py", STAGE / "evalkit" / "__init__.py")
    for source in (ROOT / "engine").glob("*.py"):
        shutil.copy2(source, package / source.name)
    # relative paths keep this machine's folders out of the generated C
    return [str((package / f"{name}.py").relative_to(ROOT)) for name in COMPILED]


def _extensions() -> list[Any]:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command in ("egg_info", "dist_info"):  # pip asks for metadata first: nothing is built
        return []
    if command in ("editable_wheel", "develop"):  # the builds that compile into engine/ itself
        _remove_earlier_builds()
    if os.environ.get("EVALKIT_COMPILE", "1") == "0":
        return _fall_back("EVALKIT_COMPILE=0")
    try:
        from mypyc.build import mypycify
    except ImportError:
        return _fall_back("mypyc is not installed")
    os.chdir(ROOT)
    try:
        # the group's shared library goes inside evalkit.engine, where the package's import finder looks
        # the build may run before pip has installed the dependencies (a fresh venv installs them in the
        # same step): their imports type as Any here, as mypy over the installed package (tasks.py lint)
        # checks them for real
        return mypycify(
            ["--ignore-missing-imports", *_staged_sources()],
            opt_level="3",
            group_name="evalkit.engine._native",
        )
    except SystemExit:  # mypy printed the type errors above
        return _fall_back("mypyc refused the engine's sources")


class OptionalBuildExt(build_ext):
    """All or nothing: a module compiled without its group's shared library would fail to import."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, PlatformError: no compiler, no headers
            _fall_back(f"the C build failed ({type(exc).__name__}: {exc})")
            for built in self.get_outputs():
                Path(built).unlink(missing_ok=True)
            self.extensions: list[Any] = []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
