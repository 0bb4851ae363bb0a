"""Whatever a bundle holds, `evalkit verify` answers 1 (a check failed) or 2 (not a bundle it can read),
with one message and never a traceback; only the untouched bundle verifies. In the test's process
(`in_process`), as `tests/signing/test_sign_verify.py` runs the same path through the console script."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.signing.conftest import evalkit


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, keys: Path) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "in.json").write_text(
        (Path(__file__).parents[2] / "samples/sample_submission.json").read_text()
    )
    done = evalkit("eval", "in.json", "--out", "r.json", "--sign", f"{keys}.key", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / "r.json.sigstore.json"


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.integers(min_value=0), byte=st.integers(min_value=0, max_value=255))
def test_any_byte_of_the_bundle_changed_is_refused_cleanly(
    signed: Path, keys: Path, in_process: Callable[..., Any], at: int, byte: int
) -> None:
    original = signed.read_bytes()
    index = at % len(original)
    if original[index] == byte:
        return
    hostile = signed.with_name("hostile.sigstore.json")
    hostile.write_bytes(original[:index] + bytes([byte]) + original[index + 1 :])
    done = in_process("verify", hostile, "--key", f"{keys}.pub", cwd=signed.parent)
    assert done.returncode in (1, 2) or _still_the_same(original, index, byte), done.stdout + done.stderr
    if done.returncode == 2:
        assert len(done.stderr.strip().splitlines()) == 1


MATERIAL_READ = ("publicKey", "timestampVerificationData")
"""What verification reads of a bundle's verification material: not `tlogEntries` (a bundle signed with a
plain key has none, and evalkit checks no log), nor a field it does not know (one renamed by the change)."""


def _still_the_same(original: bytes, index: int, byte: int) -> bool:
    """A change JSON does not see (whitespace for whitespace, an escape spelt otherwise), base64 does not
    see (the unused bits of a last digit) or in a field verification does not read (the key's hint, the
    tlog entries) leaves the same bundle."""
    try:
        changed = json.loads(original[:index] + bytes([byte]) + original[index + 1 :])
    except ValueError:
        return False
    before = json.loads(original)
    for bundle in (changed, before):
        material = bundle["verificationMaterial"]
        bundle["verificationMaterial"] = {key: material[key] for key in MATERIAL_READ if key in material}
        envelope = bundle["dsseEnvelope"]  # base64 decoded: the last digit's unused bits are not read
        envelope["payload"] = base64.b64decode(envelope["payload"])
        envelope["signatures"] = [base64.b64decode(s["sig"]) for s in envelope["signatures"]]
    changed["verificationMaterial"]["publicKey"] = before["verificationMaterial"]["publicKey"]
    return bool(changed == before)


def test_the_untouched_bundle_verifies_in_process(
    signed: Path, keys: Path, in_process: Callable[..., Any]
) -> None:
    done = in_process("verify", signed, "--key", f"{keys}.pub", cwd=signed.parent)
    assert done.returncode == 0, done.stdout
