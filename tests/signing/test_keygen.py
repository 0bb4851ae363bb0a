"""`evalkit keygen`: an ECDSA P-256 pair, the private key PKCS#8 PEM mode 0600 (encrypted with a
passphrase), the public key SPKI PEM; never over an existing file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.signing.conftest import evalkit


def test_keygen_writes_a_p256_pair_private_0600_pkcs8_public_spki(tmp_path: Path) -> None:
    done = evalkit("keygen", "--out", "team", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    private, public = tmp_path / "team.key", tmp_path / "team.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")  # PKCS#8, not "EC PRIVATE KEY"
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")  # SPKI
    key = serialization.load_pem_private_key(private.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1)
    assert serialization.load_pem_public_key(public.read_bytes()) == key.public_key()
    assert "not encrypted" in done.stdout


def test_keygen_encrypts_with_the_passphrase_from_the_environment(tmp_path: Path) -> None:
    done = evalkit("keygen", env={"EVALKIT_KEY_PASSWORD": "s3cret"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = (tmp_path / "evalkit.key").read_bytes()
    assert data.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    with pytest.raises(ValueError):
        serialization.load_pem_private_key(data, password=b"wrong")
    assert serialization.load_pem_private_key(data, password=b"s3cret") is not None


@pytest.mark.parametrize("existing", ["team.key", "team.pub"])
def test_keygen_never_overwrites_either_file(tmp_path: Path, existing: str) -> None:
    (tmp_path / existing).write_text("precious")
    done = evalkit("keygen", "--out", "team", cwd=tmp_path)
    assert done.returncode == 2
    assert f"{existing} exists" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / existing).read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == [existing]


def test_keygen_into_a_missing_folder_says_so(tmp_path: Path) -> None:
    done = evalkit("keygen", "--out", "nowhere/team", cwd=tmp_path)
    assert done.returncode == 2
    assert "nowhere/team.key: cannot write" in done.stderr
