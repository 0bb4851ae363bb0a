"""The scorers under test are the build asked for, as the engine's are (tests/conftest.py): the modules mypyc
compiled (setup.py's COMPILED_QYDOMAIN), refused when older than their source, or with EVALKIT_PURE=1 their
Python source, even where a compiled module sits beside it."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

QYDOMAIN = Path(__file__).resolve().parents[2] / "qydomain"


def compiled_qydomain_modules() -> dict[Path, Path]:
    """Each qydomain module compiled in place (an editable install), by its source."""
    compiled = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for library in QYDOMAIN.glob(f"*{suffix}"):
            source = QYDOMAIN / (library.name.removesuffix(suffix) + ".py")
            if source.exists():
                compiled[source] = library
    return compiled


class _QydomainFromSource(importlib.abc.MetaPathFinder):
    """Imports `evalkit.qydomain.X` from qydomain/X.py even where a compiled X sits beside it."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, module = name.rpartition(".")
        source = QYDOMAIN / f"{module}.py"
        if package != "evalkit.qydomain" or not source.exists():
            return None
        return importlib.util.spec_from_file_location(name, source)


if os.environ.get("EVALKIT_PURE") == "1":  # before the test modules import the scorers
    sys.meta_path.insert(0, _QydomainFromSource())


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("EVALKIT_PURE") == "1":
        return
    stale = sorted(
        source.name
        for source, library in compiled_qydomain_modules().items()
        if source.stat().st_mtime > library.stat().st_mtime
    )
    if stale:
        pytest.exit(
            f"qydomain/{', qydomain/'.join(stale)} changed after it was compiled: rebuild with "
            "`python3 tasks.py test` (it reinstalls when qydomain changes) or "
            "`.venv/bin/pip install -e .`, or test the source with EVALKIT_PURE=1",
            returncode=2,
        )


@pytest.fixture
def compiled_qydomain() -> dict[Path, Path]:
    return compiled_qydomain_modules()
