"""The package as people install it: `python -m build` makes an sdist and a wheel that `twine check`
accepts; the wheel holds the schemas, the shipped config and (with a C compiler at hand) the compiled
engine and scorers; installed into a fresh venv, with pipx and with `uv tool install`, every face runs
from a folder outside the checkout.

One build for the module (a minute of CPU: mypyc compiles the engine again, as a release does).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TIMEOUT = 900

pytestmark = pytest.mark.xdist_group("packaging")


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, f"{' '.join(map(str, command))} exited {done.returncode}:\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from a clean copy of the tracked files (as a release checkout)."""
    scratch = tmp_path_factory.mktemp("release")
    source = scratch / "source"
    tracked = _run("git", "ls-files", "-z", cwd=ROOT).split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    _run(PYTHON, "-m", "build", "--outdir", scratch / "dist", source, cwd=scratch)
    return scratch / "dist"


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("*.whl")
    return wheel


def test_build_makes_an_sdist_and_a_wheel_that_twine_accepts(dist: Path) -> None:
    assert len(list(dist.glob("*.tar.gz"))) == 1
    _run(PYTHON, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()), cwd=dist)


def test_the_wheel_holds_the_schemas_the_shipped_config_and_the_compiled_modules(dist: Path) -> None:
    names = set(zipfile.ZipFile(_wheel(dist)).namelist())
    for schema in (ROOT / "schemas").glob("*.json"):
        assert f"evalkit/schemas/{schema.name}" in names
    for config in (ROOT / "config_samples").rglob("*.yaml"):
        assert f"evalkit/config_samples/{config.relative_to(ROOT / 'config_samples').as_posix()}" in names
    assert "evalkit/tui/app.tcss" in names or any(
        n.startswith("evalkit/tui/") and n.endswith(".tcss") for n in names
    )
    if shutil.which("cc") or os.environ.get("EVALKIT_EXPECT_COMPILED") == "1":
        for module in ("engine/evaluator", "engine/conditions", "qydomain/connections", "qydomain/typos"):
            assert any(n.startswith(f"evalkit/{module}.") and n.endswith((".so", ".pyd")) for n in names), (
                module
            )
    assert not any(n.startswith(("engine/", "tui/", "lsp/", "tests/")) for n in names), "top-level packages"


def _faces(bin_folder: Path, where: Path) -> None:
    """Every face of the installed command, run from `where` (outside the checkout)."""
    evalkit = bin_folder / "evalkit"
    shutil.copytree(ROOT / "samples", where / "samples")
    shutil.copytree(ROOT / "config_samples", where / "rules")
    result = json.loads(_run(evalkit, "eval", "samples/sample_submission.json", cwd=where))
    assert result["label"]
    seed = json.loads(_run(bin_folder / "oai-eval", "samples/sample_submission.json", cwd=where))
    assert seed == result
    assert "no problems" in _run(evalkit, "check", "rules", "--samples", "samples", cwd=where)
    assert "passed" in _run(evalkit, "test", "rules", cwd=where)
    assert "0 of 31 submissions changed" in _run(
        evalkit, "diff", "samples", "--base", "rules", "--config-dir", "rules", cwd=where
    )
    _run(
        evalkit, "review", "samples", "--decisions", "me.decisions.jsonl", "--export", "out.jsonl", cwd=where
    )
    assert len((where / "out.jsonl").read_text().splitlines()) == 31
    assert json.loads(_run(evalkit, "schema", "rules", cwd=where))["$schema"]
    row = {
        "data_source": "typos",
        "extra_info": {"label": "word"},
        "model_output": "<solution>word</solution>",
    }
    (where / "rows.jsonl").write_text(json.dumps(row) + "\n")
    assert json.loads(_run(evalkit, "score", "rows.jsonl", cwd=where).splitlines()[0])["score"] == 1.0
    (where / "empty.decisions.jsonl").write_text("")
    _run(evalkit, "stats", "empty.decisions.jsonl", cwd=where)
    _lsp_answers_initialize(evalkit, where)
    _run(evalkit, "queue", "init", "team.db", "--config-dir", "rules", "--per-item", "2", cwd=where)
    _run(evalkit, "queue", "add", "team.db", "samples", cwd=where)
    assert "31" in _run(evalkit, "queue", "status", "team.db", cwd=where)
    _run(evalkit, "keygen", "--out", "me", cwd=where)
    _run(evalkit, "eval", "samples", "--out", "signed.jsonl", "--sign", "me.key", cwd=where)
    assert "verified" in _run(evalkit, "verify", "signed.jsonl.sigstore.json", "--key", "me.pub", cwd=where)


def _lsp_answers_initialize(evalkit: Path, where: Path) -> None:
    frames = b""
    for message in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "capabilities": {}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ):
        body = json.dumps(message).encode()
        frames += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    done = subprocess.run([evalkit, "lsp"], cwd=where, input=frames, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b'"capabilities"' in done.stdout


def test_the_wheel_installs_into_a_fresh_venv_and_runs_every_face(dist: Path, tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    bin_folder = environment / ("Scripts" if os.name == "nt" else "bin")
    wheel = f"{_wheel(dist)}[sign]"  # keygen, --sign and verify need the extra; the rest, nothing more
    _run(bin_folder / "python", "-m", "pip", "install", "--quiet", wheel, cwd=tmp_path)
    where = tmp_path / "work"
    where.mkdir()
    _faces(bin_folder, where)
    compiled = _run(
        bin_folder / "python", "-c", "import evalkit.engine.evaluator as m; print(m.__file__)", cwd=where
    )
    assert compiled.strip().endswith((".so", ".pyd")) or not shutil.which("cc")


def test_pipx_and_uv_install_the_wheel_as_a_tool(dist: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
        "UV_TOOL_DIR": str(tmp_path / "uv"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "uv-bin"),
    }
    _run(PYTHON, "-m", "pipx", "install", "--python", PYTHON, _wheel(dist), cwd=tmp_path, env=env)
    uv = Path(PYTHON).with_name("uv")
    _run(uv, "tool", "install", "--python", PYTHON, _wheel(dist), cwd=tmp_path, env=env)
    for bin_folder in (tmp_path / "pipx-bin", tmp_path / "uv-bin"):
        where = tmp_path / f"work-{bin_folder.name}"
        where.mkdir()
        assert _run(bin_folder / "evalkit", "--version", cwd=where).startswith("evalkit ")
        result = json.loads(
            _run(bin_folder / "evalkit", "eval", ROOT / "samples/sample_submission.json", cwd=where)
        )
        assert result["label"]
