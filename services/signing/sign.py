"""Signing a run: the key is read before the run starts (a wrong passphrase stops it before any work), and
once the outputs are written, one bundle `<first output>.sigstore.json` is written beside them, atomically.

A run that cannot be signed (a TSA down, an output that vanished) leaves no bundle that claims outputs it does
not match: a bundle left by an earlier run over outputs this run replaced is removed, and the message names
the outputs written unsigned.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.engine.text import shown
from evalkit.services.signing import SigningProblem
from evalkit.services.signing.bundle import bundle, bundle_path
from evalkit.services.signing.dsse import IN_TOTO_PAYLOAD_TYPE, envelope, pae
from evalkit.services.signing.keys import key_hint, load_private
from evalkit.services.signing.statement import RunRecord, statement

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec


def _state(path: str) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


class PreparedSigner:
    """The key, read before the run, and the state of each output then (to tell a stale bundle)."""

    def __init__(
        self,
        key: ec.EllipticCurvePrivateKey,
        tsa_url: str | None,
        outputs: list[str],
        before: dict[str, tuple[int, int, int] | None],
    ) -> None:
        self.key, self.tsa_url, self.outputs, self.before = key, tsa_url, outputs, before

    @property
    def bundle(self) -> Path:
        return bundle_path(self.outputs[0])


def prepare(key_path: str, tsa_url: str | None, outputs: list[str]) -> PreparedSigner:
    """The signer for a run writing `outputs` (the first names the bundle); SigningProblem for a bad key
    or no output file to sign."""
    if not outputs:
        raise SigningProblem("--sign needs an output file (--out FILE): the bundle is written beside it")
    for path in outputs:
        if os.path.exists(path) and not os.path.isfile(path):
            raise SigningProblem(f"--sign signs files: {shown(path)} is not a regular file")
    key = load_private(key_path)
    return PreparedSigner(key, tsa_url, outputs, {path: _state(path) for path in outputs})


def signed_bundle(key: ec.EllipticCurvePrivateKey, tsa_url: str | None, payload: bytes) -> dict[str, object]:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec as curves

    signature = key.sign(pae(IN_TOTO_PAYLOAD_TYPE, payload), curves.ECDSA(hashes.SHA256()))
    tokens = []
    if tsa_url is not None:
        from evalkit.services.signing.tsa import request_token

        tokens.append(request_token(tsa_url, signature))
    return bundle(envelope(payload, signature), key_hint(key.public_key()), tokens)


def sign_run(signer: PreparedSigner, record: RunRecord) -> Path:
    """Write the run's bundle; raises SigningProblem (no bundle written) when it cannot."""
    target = signer.bundle
    try:
        claims = statement(record, target.parent)
    except OSError as exc:
        raise SigningProblem(f"cannot read {shown(str(exc.filename))} to sign it: {exc.strerror}") from None
    payload = json.dumps(claims, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    document = signed_bundle(signer.key, signer.tsa_url, payload)
    from evalkit.services.outputs.atomic import write_text_atomic

    try:
        write_text_atomic(target, json.dumps(document, indent=2) + "\n")
    except OSError as exc:
        raise SigningProblem(f"cannot write {shown(str(target))}: {exc.strerror or exc}") from None
    return target


def finish(signer: PreparedSigner, record: RunRecord, code: int, prog: str) -> int:
    """After the run: sign its outputs (exit code kept), or say why not (exit 2)."""
    if code not in (0, 1):
        _drop_stale_bundle(signer, prog)
        return code
    try:
        target = sign_run(signer, record)
    except SigningProblem as problem:
        written = ", ".join(shown(p) for p in record.outputs.values() if os.path.exists(p))
        print(f"{prog}: cannot sign: {problem}; written unsigned: {written or 'nothing'}", file=sys.stderr)
        _drop_stale_bundle(signer, prog)
        return 2
    trust = "timestamped" if signer.tsa_url else "no trusted time (no --tsa)"
    print(
        f"{prog}: signed {len(set(record.outputs.values()))} file(s) in {shown(str(target))}, {trust}",
        file=sys.stderr,
    )
    return code


def _drop_stale_bundle(signer: PreparedSigner, prog: str) -> None:
    """Remove a bundle of an earlier run once this run changed any output it may claim."""
    changed = any(_state(path) != state for path, state in signer.before.items())
    if changed and signer.bundle.exists():
        signer.bundle.unlink()
        print(
            f"{prog}: removed {shown(str(signer.bundle))}: it signed the outputs this run replaced",
            file=sys.stderr,
        )
