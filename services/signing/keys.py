"""ECDSA P-256 keys: made by `evalkit keygen`, read by `--sign` (private, PKCS#8 PEM, maybe encrypted) and by
`evalkit verify --key` (public, SPKI PEM).

The passphrase comes from `EVALKIT_KEY_PASSWORD`, else from a prompt when standard input is a terminal. A
key's hint (the bundle's `publicKey.hint`) is the SHA-256 of its SPKI DER, in hex.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from evalkit.engine.text import shown
from evalkit.services.signing import SigningProblem
from evalkit.services.signing.digests import sha256_hex

PASSWORD_VARIABLE = "EVALKIT_KEY_PASSWORD"
PRIVATE_SUFFIX, PUBLIC_SUFFIX = ".key", ".pub"

Prompt = Callable[[str], str]
NOT_P256 = "{}: not an ECDSA P-256 key (evalkit keygen makes one)"


def _terminal_prompt(question: str) -> str:
    import getpass

    return getpass.getpass(question)


def passphrase(prompt: Prompt | None = None, confirm: bool = False) -> bytes | None:
    """The passphrase from the environment, else asked on a terminal (None: none given)."""
    given = os.environ.get(PASSWORD_VARIABLE)
    if given is not None:
        return given.encode() or None
    if prompt is None:
        if not sys.stdin.isatty():
            return None
        prompt = _terminal_prompt
    first = prompt("Passphrase for the private key (empty for none): ")
    if first and confirm and prompt("Passphrase again: ") != first:
        raise SigningProblem("the two passphrases differ; no key was written")
    return first.encode() or None


def key_hint(public: ec.EllipticCurvePublicKey) -> str:
    return sha256_hex(spki_der(public))


def spki_der(public: ec.EllipticCurvePublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def key_paths(prefix: str) -> tuple[Path, Path]:
    return Path(prefix + PRIVATE_SUFFIX), Path(prefix + PUBLIC_SUFFIX)


def write_pair(prefix: str, secret: bytes | None) -> tuple[Path, Path]:
    """A new key pair at PREFIX.key (mode 0600) and PREFIX.pub; never over an existing file."""
    private_path, public_path = key_paths(prefix)
    for path in (private_path, public_path):
        if os.path.lexists(path):
            raise SigningProblem(f"{shown(str(path))} exists; keygen never overwrites a key (pick --out)")
    key = ec.generate_private_key(ec.SECP256R1())
    encryption = serialization.BestAvailableEncryption(secret) if secret else serialization.NoEncryption()
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    _write_new(private_path, private_pem, 0o600)
    try:
        _write_new(public_path, public_pem, 0o644)
    except BaseException:
        private_path.unlink(missing_ok=True)
        raise
    return private_path, public_path


def _write_new(path: Path, data: bytes, mode: int) -> None:
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise SigningProblem(f"{shown(str(path))} exists; keygen never overwrites a key") from None
    except OSError as exc:
        raise SigningProblem(f"{shown(str(path))}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), mode)  # the umask may have taken bits off; never more than asked
            handle.write(data)
    except OSError as exc:
        with contextlib.suppress(OSError):
            path.unlink()
        raise SigningProblem(f"{shown(str(path))}: cannot write: {exc.strerror}") from None


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise SigningProblem(f"{shown(path)}: cannot read the {what}: {exc.strerror or exc}") from None


def load_private(path: str, prompt: Prompt | None = None) -> ec.EllipticCurvePrivateKey:
    """The signing key at `path`; raises SigningProblem for a public key, a missing or wrong passphrase,
    or anything but an ECDSA P-256 private key."""
    data = _read(path, "private key")
    if b"PUBLIC KEY-----" in data:
        raise SigningProblem(f"{shown(path)} is a public key; --sign needs the private key (the .key file)")
    encrypted = b"ENCRYPTED PRIVATE KEY-----" in data
    secret = passphrase(prompt) if encrypted else None
    if encrypted and secret is None:
        raise SigningProblem(
            f"{shown(path)} is encrypted: give its passphrase in {PASSWORD_VARIABLE} "
            "or run on a terminal to be asked"
        )
    try:
        key = serialization.load_pem_private_key(data, password=secret)
    except (ValueError, TypeError) as exc:
        why = "wrong passphrase" if encrypted else f"not a PEM private key ({exc})"
        raise SigningProblem(f"{shown(path)}: {why}") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise SigningProblem(NOT_P256.format(shown(path)))
    return key


def load_public(path: str) -> ec.EllipticCurvePublicKey:
    """The verifying key at `path` (SPKI PEM)."""
    data = _read(path, "public key")
    if b"PRIVATE KEY-----" in data:
        raise SigningProblem(f"{shown(path)} is a private key; --key takes the public key (the .pub file)")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise SigningProblem(f"{shown(path)}: not a PEM public key (SPKI)") from None
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        raise SigningProblem(NOT_P256.format(shown(path)))
    return key
