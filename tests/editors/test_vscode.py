"""The VS Code extension in editors/vscode: installed from its lock file, compiled, its client code run
under Node against the real `evalkit lsp` over stdio (editors/vscode/test/server.test.ts), and packaged
to a .vsix with @vscode/vsce, as a release would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.xdist_group("editors")


def _npm(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["npm", *args], cwd=EXTENSION, env=env, capture_output=True, text=True, timeout=600)


def test_the_extension_builds_talks_to_the_server_and_packages() -> None:
    if shutil.which("npm") is None:
        pytest.fail("the VS Code extension's tests need Node.js and npm")
    for step in (("ci", "--no-audit", "--no-fund"), ("run", "compile"), ("test",), ("run", "package")):
        done = _npm(*step)
        assert done.returncode == 0, f"npm {' '.join(step)}:\n{done.stdout}\n{done.stderr}"
        if step == ("test",):
            assert "# pass 3" in done.stdout and "# fail 0" in done.stdout, done.stdout
    names = set(zipfile.ZipFile(EXTENSION / "evalkit.vsix").namelist())
    assert {
        "extension/package.json",
        "extension/out/src/extension.js",
        "extension/out/src/settings.js",
    } <= names
    assert not any(name.startswith("extension/out/test/") for name in names)
