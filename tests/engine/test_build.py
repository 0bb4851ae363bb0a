"""The engine under test is the build asked for: its Python source with EVALKIT_PURE=1, else what is
installed, which CI (EVALKIT_EXPECT_COMPILED=1) requires to be compiled by mypyc."""

from __future__ import annotations

import ast
import importlib
import os
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _compiled_by_setup() -> tuple[str, ...]:
    """setup.py's COMPILED, read without running setup.py."""
    tree = ast.parse((ENGINE.parent / "setup.py").read_text(encoding="utf-8"))
    return next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED"
    )


COMPILED = _compiled_by_setup()


def _loaded_from(module: str) -> Path:
    spec = importlib.import_module(f"evalkit.engine.{module}").__spec__
    assert spec is not None and spec.origin is not None
    return Path(spec.origin)


def test_setup_compiles_the_engine_s_hot_modules() -> None:
    assert {"evaluator", "phases", "conditions", "submission"} <= set(COMPILED)


@pytest.mark.parametrize("module", COMPILED)
def test_the_engine_module_comes_from_the_build_asked_for(
    module: str, compiled_engine: dict[Path, Path]
) -> None:
    source = ENGINE / f"{module}.py"
    if os.environ.get("EVALKIT_PURE") == "1":
        assert _loaded_from(module) == source
    elif source in compiled_engine or os.environ.get("EVALKIT_EXPECT_COMPILED") == "1":
        assert _loaded_from(module).suffix in (".so", ".pyd"), f"{module} is not compiled"
    else:
        assert _loaded_from(module) == source
