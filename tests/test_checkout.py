"""The suite refuses to run against another checkout's install (tests/conftest.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_second_checkout_run_with_the_first_ones_venv_is_refused_saying_why(tmp_path: Path) -> None:
    second = tmp_path / "second"
    (second / "tests").mkdir(parents=True)
    (second / "engine").mkdir()
    (second / "evalkit").mkdir()
    for name in ("tests/conftest.py", "tests/budget.py", "evalkit/__init__.py"):
        shutil.copy(ROOT / name, second / name)
    (second / "tests" / "test_anything.py").write_text("def test_anything() -> None:\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "tests"],
        cwd=second,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"this checkout is {second}" in done.stdout + done.stderr
    assert f"evalkit.engine from {ROOT / 'engine'}" in done.stdout + done.stderr
    assert "python3 tasks.py test" in done.stdout + done.stderr


def test_this_checkout_runs_against_its_own_install() -> None:
    import evalkit.engine

    assert Path(evalkit.engine.__file__ or "").resolve().parent == ROOT / "engine"
