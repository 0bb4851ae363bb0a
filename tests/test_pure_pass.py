"""The pure pass (`python3 tasks.py test` runs tests/engine and tests/qydomain again against the Python
source) leaves out test files that would run the same code twice. A file left out must not reach a compiled
module in the test process, even through the engine's own imports: the pure pass would then miss that
module's source."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from tests.budget import PURE_PASS, examples

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"evalkit.engine": ROOT / "engine", "evalkit.qydomain": ROOT / "qydomain"}


def _load(name: str, path: Path) -> object:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def _package_names(package: str) -> dict[str, str]:
    """What `from package import NAME` brings: the module that defines each name the package re-exports."""
    names = {}
    for node in ast.parse((FOLDERS[package] / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.rpartition(".")[0] == package:
            names.update({alias.asname or alias.name: node.module for alias in node.names})
    return names


def _engine_modules(source: Path) -> set[str]:
    """The evalkit.engine / evalkit.qydomain modules whose code a file imports (as `package.module`): a name
    taken from a package counts as the module that defines it, not as everything the package imports."""
    found = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import inside engine/ or qydomain/
                package = next(p for p, folder in FOLDERS.items() if source.parent == folder)
                base = f"{package}.{base}" if base else package
            if base in FOLDERS:
                defined = _package_names(base)
                found.update(defined.get(alias.name, f"{base}.{alias.name}") for alias in node.names)
            elif base.rpartition(".")[0] in FOLDERS:
                found.add(base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.rpartition(".")[0] in FOLDERS)
    return found


def _reached(test_file: Path) -> set[str]:
    seen: set[str] = set()
    todo = list(_engine_modules(test_file))
    while todo:
        name = todo.pop()
        package, _, module = name.rpartition(".")
        source = FOLDERS[package] / f"{module}.py"
        if name in seen or not source.exists():
            continue
        seen.add(name)
        todo.extend(_engine_modules(source))
    return seen


TASKS = _load("evalkit_tasks", ROOT / "tasks.py")
SETUP_COMPILED = {
    f"evalkit.{folder}.{module}"
    for folder, modules in (("engine", "COMPILED"), ("qydomain", "COMPILED_QYDOMAIN"))
    for module in ast.literal_eval(
        next(
            node.value
            for node in ast.parse((ROOT / "setup.py").read_text()).body
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == modules
        )
    )
}


@pytest.mark.parametrize("path", TASKS.SAME_IN_BOTH_BUILDS)  # type: ignore[attr-defined]
def test_a_file_left_out_of_the_pure_pass_reaches_no_compiled_module(path: str) -> None:
    reached = _reached(ROOT / path) & SETUP_COMPILED
    assert not reached, f"{path} reaches compiled {sorted(reached)}: the pure pass must run it"


def test_the_walk_finds_compiled_modules_where_they_are_reached() -> None:
    """The check above can fail: the regex tests reach the compiled evaluator through the package's names."""
    reached = _reached(ROOT / "tests/engine/test_regex.py")
    assert {"evalkit.engine.evaluator", "evalkit.engine.regex", "evalkit.engine.conditions"} <= reached
    assert "evalkit.engine.limits" in _reached(ROOT / "tests/engine/test_limits_yaml.py")


def test_the_pure_pass_explores_a_quarter_of_each_propertys_examples_and_at_least_25() -> None:
    assert f"--hypothesis-profile={PURE_PASS}" in TASKS._pure_pass()  # type: ignore[attr-defined]
    counts = (10, 40, 100, 300, 600)
    before = settings.get_current_profile_name()
    if before != PURE_PASS:
        assert [examples(full) for full in counts] == list(counts)
    settings.load_profile(PURE_PASS)
    try:
        assert [examples(full) for full in counts] == [10, 25, 25, 75, 150]
        assert (settings().max_examples, settings().deadline) == (25, None)  # properties at the default count
    finally:
        settings.load_profile(before)
