"""The engine under test is the build asked for: its Python source with EVALKIT_PURE=1, else what is
installed, which CI (EVALKIT_EXPECT_COMPILED=1) requires to be compiled by mypyc."""

from __future__ import annotations

import ast
import importlib
import os
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
COMPILED = ("actions", "conditions", "context", "evaluator", "phases", "plan", "regex", "result",
            "submission")


def _loaded_from(module: str) -> Path:
    spec = importlib.import_module(f"evalkit.engine.{module}").__spec__
    assert spec is not None and spec.origin is not None
    return Path(spec.origin)


@pytest.mark.parametrize("module", COMPILED)
def test_the_engine_module_comes_from_the_build_asked_for(module: str,
                                                          compiled_engine: dict[Path, Path]) -> None:
    source = ENGINE / f"{module}.py"
    if os.environ.get("EVALKIT_PURE") == "1":
        assert _loaded_from(module) == source
    elif source in compiled_engine or os.environ.get("EVALKIT_EXPECT_COMPILED") == "1":
        assert _loaded_from(module).suffix in (".so", ".pyd"), f"{module} is not compiled"
    else:
        assert _loaded_from(module) == source


def test_setup_compiles_the_modules_this_test_checks() -> None:
    tree = ast.parse((ENGINE.parent / "setup.py").read_text(encoding="utf-8"))
    assigned = next(node.value for node in tree.body
                    if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED")
    assert ast.literal_eval(assigned) == COMPILED
