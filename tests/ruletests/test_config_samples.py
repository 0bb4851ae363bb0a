"""The shipped config's own rule tests pass and fire every rule in it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"


def test_evalkit_test_config_samples_passes_with_full_coverage() -> None:
    done = subprocess.run(
        [str(EVALKIT), "test", "config_samples", "--coverage"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout
    assert all(line.startswith("PASS ") for line in lines[:-2])
    assert lines[-2] == "coverage config_samples: 8 of 8 rules fired by some test"
    passed = int(lines[-1].split()[0])
    assert lines[-1] == f"{passed} passed, 0 failed" and passed >= 5
