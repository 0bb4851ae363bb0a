"""What a cold `evalkit eval` imports (ARCHITECTURE.md promises it): on the shipped config, neither
Textual, pygls, Jinja nor jsonschema; the language server's and the reviewer's modules stay unloaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("textual", "pygls", "jinja2", "jsonschema")
FACES = ("evalkit.lsp", "evalkit.tui")


def test_a_cold_eval_on_the_shipped_config_imports_no_face_and_no_jinja(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "evalkit",
            "eval",
            str(ROOT / "samples"),
            "--out",
            str(tmp_path / "results.jsonl"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"EVALKIT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "evalkit.engine.evaluator" in imported  # the listing is there: it did evaluate
    assert sorted(m for m in imported if m.split(".")[0] in HEAVY or m.startswith(FACES)) == []
