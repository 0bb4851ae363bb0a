"""The scorers under test are the build asked for: their Python source with EVALKIT_PURE=1, else what is
installed, which CI (EVALKIT_EXPECT_COMPILED=1) requires to be compiled by mypyc."""

from __future__ import annotations

import ast
import importlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _compiled_by_setup() -> tuple[str, ...]:
    """setup.py's COMPILED_QYDOMAIN, read without running setup.py."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    return next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED_QYDOMAIN"
    )


COMPILED = _compiled_by_setup()


def test_setup_compiles_the_modules_every_scored_row_runs_through() -> None:
    assert {"records", "unscrambling", "connections", "typos", "tags"} <= set(COMPILED)


@pytest.mark.parametrize("module", COMPILED)
def test_the_qydomain_module_comes_from_the_build_asked_for(
    module: str, compiled_qydomain: dict[Path, Path]
) -> None:
    source = ROOT / "qydomain" / f"{module}.py"
    spec = importlib.import_module(f"evalkit.qydomain.{module}").__spec__
    assert spec is not None and spec.origin is not None
    if os.environ.get("EVALKIT_PURE") == "1":
        assert Path(spec.origin) == source
    elif source in compiled_qydomain or os.environ.get("EVALKIT_EXPECT_COMPILED") == "1":
        assert Path(spec.origin).suffix in (".so", ".pyd"), f"{module} is not compiled"
    else:
        assert Path(spec.origin) == source
