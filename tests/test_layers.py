"""Imports flow one way (ARCHITECTURE.md): the commands → the language server, the reviewer app and
evalkit.ray → the application services → the engine's pure core. qydomain stands alone. Read from the
sources' import statements, including those inside functions, so a lazy import cannot hide a wrong turn."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package data and the version, which any layer may read
DATA = {"evalkit.__version__", "evalkit.schemas", "evalkit.config_samples"}
BELOW_THE_FACES = {"evalkit.services", "evalkit.engine", "evalkit.qydomain"}
# each layer (its folders and files, from the repository's root) and the evalkit packages it may import,
# besides itself and DATA
LAYERS = {
    "engine": {"evalkit.qydomain"},
    "services": {"evalkit.engine", "evalkit.qydomain"},
    "lsp": BELOW_THE_FACES,
    "tui": BELOW_THE_FACES,
    "evalkit/ray": BELOW_THE_FACES,
    "qydomain": set(),
    # the command line: every layer below it
    "evalkit/commands": BELOW_THE_FACES | {"evalkit.lsp", "evalkit.tui", "evalkit.ray"},
    "evalkit/cli.py": {"evalkit.commands", "evalkit.engine"},
    "evalkit/__init__.py": {"evalkit.engine", "evalkit.qydomain"},
    "evalkit/__main__.py": {"evalkit.cli"},
}
PACKAGE_OF = {
    "engine": "evalkit.engine",
    "services": "evalkit.services",
    "lsp": "evalkit.lsp",
    "tui": "evalkit.tui",
    "qydomain": "evalkit.qydomain",
    "evalkit/ray": "evalkit.ray",
    "evalkit/commands": "evalkit.commands",
    "evalkit/cli.py": "evalkit.cli",
    "evalkit/__init__.py": "evalkit.__init__",
    "evalkit/__main__.py": "evalkit.__main__",
}


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


def sources(root: Path, layer: str) -> list[Path]:
    """The layer's Python files: a file, or every file of a folder."""
    path = root / layer
    return [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))


def wrong_turns(layer: str, root: Path = ROOT) -> list[str]:
    allowed = LAYERS[layer] | DATA | {PACKAGE_OF[layer]}
    return [
        f"{source.relative_to(root)}:{line}: imports {name}"
        for source in sources(root, layer)
        for line, name in evalkit_imports(source)
        if not any(name == package or name.startswith(package + ".") for package in allowed)
    ]


def test_every_python_file_of_the_package_is_in_a_layer() -> None:
    """A new folder or a new file beside cli.py must say where it stands."""
    folders = {"engine", "services", "lsp", "tui", "qydomain", "evalkit"}
    covered = {path for layer in LAYERS for path in sources(ROOT, layer)}
    everything = {path for folder in folders for path in (ROOT / folder).rglob("*.py")}
    assert everything == covered


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    assert wrong_turns(layer) == []


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


@pytest.mark.parametrize(
    ("layer", "module", "wrong"),
    [
        ("evalkit/ray", "_workers.py", "from evalkit.commands._eval_run import _rendered"),
        ("evalkit/ray", "_chunks.py", "import evalkit.commands.score"),
        ("services", "run/score.py", "from evalkit.commands import score"),
        ("services", "run/pool.py", "from evalkit.ray._chunks import Done"),
        ("engine", "plan.py", "from evalkit import ray"),
        ("lsp", "server.py", "from evalkit.commands.check import run"),
        ("evalkit/__init__.py", "", "from evalkit.services.usage import UsageProblem"),
    ],
)
def test_the_check_sees_a_wrong_turn_into_the_command_line_or_ray(
    tmp_path: Path, layer: str, module: str, wrong: str
) -> None:
    """A copy of the layer with one wrong import added lazily is refused, naming the file and line."""
    folder = tmp_path / layer
    folder.parent.mkdir(parents=True, exist_ok=True)
    source = folder / module if module else folder
    if module:
        import shutil

        shutil.copytree(ROOT / layer, folder)
    else:
        source.write_bytes((ROOT / layer).read_bytes())
    assert wrong_turns(layer, tmp_path) == []
    text = source.read_text(encoding="utf-8") + f"\n\ndef later():\n    {wrong}\n"
    source.write_text(text, encoding="utf-8")
    line = len(text.splitlines())
    [turn] = wrong_turns(layer, tmp_path)
    assert turn.startswith(f"{source.relative_to(tmp_path)}:{line}: imports evalkit.")
