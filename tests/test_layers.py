"""Imports flow one way (ARCHITECTURE.md): the commands → the language server and the reviewer app → the
application services → the engine's pure core. qydomain stands alone. Read from the sources' import
statements, including those inside functions, so a lazy import cannot hide a wrong turn."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package data and the version, which any layer may read
DATA = {"evalkit.__version__", "evalkit.schemas", "evalkit.config_samples"}
# each layer and the evalkit packages it may import, besides itself and DATA
LAYERS = {
    "engine": {"evalkit.qydomain"},
    "services": {"evalkit.engine", "evalkit.qydomain"},
    "lsp": {"evalkit.services", "evalkit.engine", "evalkit.qydomain"},
    "tui": {"evalkit.services", "evalkit.engine", "evalkit.qydomain"},
    "qydomain": set(),
}
PACKAGE_OF_FOLDER = {"engine": "evalkit.engine", "services": "evalkit.services", "lsp": "evalkit.lsp"}
PACKAGE_OF_FOLDER |= {"tui": "evalkit.tui", "qydomain": "evalkit.qydomain"}


def evalkit_imports(source: Path) -> list[tuple[int, str]]:
    """(line, module) for every `import evalkit...` and `from evalkit... import` in the file."""
    found = []
    for node in ast.walk(ast.parse(source.read_bytes(), str(source))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "evalkit":  # from evalkit import schemas
            found += [(node.lineno, f"evalkit.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name == "evalkit" or name.startswith("evalkit.")]


def wrong_turns(folder: str) -> list[str]:
    own = PACKAGE_OF_FOLDER[folder]
    allowed = LAYERS[folder] | DATA | {own}
    return [
        f"{source.relative_to(ROOT)}:{line}: imports {name}"
        for source in sorted((ROOT / folder).rglob("*.py"))
        for line, name in evalkit_imports(source)
        if not any(name == package or name.startswith(package + ".") for package in allowed)
    ]


@pytest.mark.parametrize("folder", sorted(LAYERS))
def test_each_layer_imports_only_the_layers_below_it(folder: str) -> None:
    assert wrong_turns(folder) == []


def test_the_check_sees_a_wrong_turn(tmp_path: Path) -> None:
    source = tmp_path / "upward.py"
    source.write_text(
        "def f():\n"
        "    from evalkit.services.run.batch import run\n"
        "    import evalkit.lsp.server\n"
        "from evalkit import tui\n"
    )
    found = sorted(evalkit_imports(source))
    assert found == [(2, "evalkit.services.run.batch"), (3, "evalkit.lsp.server"), (4, "evalkit.tui")]
