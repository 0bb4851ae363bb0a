"""An unsigned `evalkit eval` imports nothing of signing: not evalkit.services.signing, not cryptography,
not rfc3161-client (its cold start is unchanged; benchmarks/bench_sign.py measures it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SIGNING = ("evalkit.services.signing", "evalkit.services.review.chain", "cryptography", "rfc3161_client")


def _imported(tmp_path: Path, *arguments: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "evalkit", "eval", str(ROOT / "samples"), *arguments],
        capture_output=True, text=True, cwd=tmp_path, env={"EVALKIT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}


@pytest.mark.parametrize(
    "arguments",
    [
        ["--out", "results.jsonl"],
        ["--ou", "results.jsonl"],
    ],  # the plain form, and argparse's (an abbreviation)
    ids=["plain", "argparse"],
)
def test_an_unsigned_eval_imports_nothing_of_signing(tmp_path: Path, arguments: list[str]) -> None:
    imported = _imported(tmp_path, *arguments)
    assert "evalkit.engine.evaluator" in imported  # the listing is there: it did evaluate
    assert sorted(m for m in imported if m.startswith(SIGNING)) == []


def test_a_signed_eval_does_import_them(tmp_path: Path, keys: Path) -> None:
    imported = _imported(tmp_path, "--out", "results.jsonl", "--sign", f"{keys}.key")
    assert {"evalkit.services.signing.sign", "cryptography"} <= imported


NETWORK = ("evalkit.services.signing.tsa", "rfc3161_client", "urllib.request", "http.client")


def test_a_signed_eval_without_tsa_loads_no_network_or_timestamp_code(tmp_path: Path, keys: Path) -> None:
    imported = _imported(tmp_path, "--out", "results.jsonl", "--sign", f"{keys}.key")
    assert sorted(m for m in imported if m.startswith(NETWORK)) == []
