"""Build evalkit, with the hot modules of the engine and of the qydomain scorers compiled by mypyc where a C
compiler is at hand.

Compiled, an evaluation takes about half the time (benchmarks/bench_engine.py) and a scored row 10 to 15%
less (benchmarks/bench_score_cli.py), and they behave the same: the test suite runs against the compiled
modules and again against their Python source (`python3 tasks.py test`). Everything else is in
pyproject.toml.

The build falls back to pure Python, with a warning, when EVALKIT_COMPILE=0, when mypyc cannot be
imported, when mypy finds a type error, or when the C build fails (no compiler, no Python headers).

mypyc names a module after its path, and this project maps folders to import names (`engine/` is
`evalkit.engine`), so the modules are copied under their import names into build/mypyc-src first. Each
package's modules form a group with a shared library of its own, inside the package: `evalkit score` loads
the scorers' without the engine's.
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
COMPILED_QYDOMAIN = ("boxed", "connections", "guard", "records", "tags", "typos", "unscrambling")
"""The modules every scored row runs through (evalkit.qydomain.*): reading the row, scoring it, encoding it.
The reward-function wrappers (dispatch) stay interpreted: they take any value and score what is not a string
0, where a compiled function refuses an argument of another type than its annotation's. So does the summary,
which runs once per run."""
PACKAGES = {"engine": COMPILED, "qydomain": COMPILED_QYDOMAIN}
"""Each folder compiled, by the modules of it that are."""


def _fall_back(reason: str) -> list[Any]:
    print(f"evalkit: {reason}; building pure Python (the same behaviour at half the speed)", file=sys.stderr)
    return []


def _remove_earlier_builds() -> None:
    """An editable install compiles into engine/, where Python prefers a compiled module to its source: a
    pure editable build must not leave an earlier build's modules there to be served in place of the
    source. (A wheel builds elsewhere and leaves them alone.)"""
    for suffix in EXTENSION_SUFFIXES:
        for folder in PACKAGES:
            for library in (ROOT / folder).glob(f"*{suffix}"):
                library.unlink()


def _staged_sources() -> list[tuple[list[str], str]]:
    """Each package's compiled modules, copied under their import names, with its group's library name."""
    if STAGE.exists():
        shutil.rmtree(STAGE)
    (STAGE / "evalkit").mkdir(parents=True)
    shutil.copy2(ROOT / "evalkit" / "__init__.py", STAGE / "evalkit" / "__init__.py")
    groups = []
    for folder, modules in PACKAGES.items():
        package = STAGE / "evalkit" / folder
        package.mkdir()
        for source in (ROOT / folder).glob("*.py"):
            shutil.copy2(source, package / source.name)
        # relative paths keep this machine's folders out of the generated C
        groups.append(
            (
                [str((package / f"{name}.py").relative_to(ROOT)) for name in modules],
                f"evalkit.{folder}._native",
            )
        )
    return groups


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
    groups = _staged_sources()
    try:
        # each group's shared library goes inside its package, where the package's import finder looks
        # the build may run before pip has installed the dependencies (a fresh venv installs them in the
        # same step): their imports type as Any here, as mypy over the installed package (tasks.py lint)
        # checks them for real; a `type: ignore` about a dependency's types is then unused, not an error
        return mypycify(
            [
                "--ignore-missing-imports",
                "--no-warn-unused-ignores",
                *(path for paths, _ in groups for path in paths),
            ],
            opt_level="3",
            separate=groups,
        )
    except SystemExit:  # mypy printed the type errors above
        return _fall_back("mypyc refused the sources")


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
