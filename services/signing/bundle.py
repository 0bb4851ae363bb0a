"""Sigstore bundles v0.3 holding a DSSE envelope, signed with a plain key (no certificate, no transparency
log): `verificationMaterial.publicKey.hint` names the key, and RFC 3161 tokens (when asked for) sit in
`timestampVerificationData.rfc3161Timestamps`. A bundle without them carries no trusted time.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from evalkit.engine.text import shown
from evalkit.services.signing import SigningProblem
from evalkit.services.signing.dsse import unpacked

MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json"
SUFFIX = ".sigstore.json"


def bundle_path(first_output: str) -> Path:
    return Path(first_output + SUFFIX)


def bundle(envelope: dict[str, Any], hint: str, tokens: list[bytes]) -> dict[str, Any]:
    material: dict[str, Any] = {"publicKey": {"hint": hint}, "tlogEntries": []}
    if tokens:
        material["timestampVerificationData"] = {
            "rfc3161Timestamps": [{"signedTimestamp": base64.b64encode(t).decode("ascii")} for t in tokens]
        }
    return {"mediaType": MEDIA_TYPE, "verificationMaterial": material, "dsseEnvelope": envelope}


class ReadBundle:
    """A bundle's envelope and verification material, decoded. (Plain classes here: `--sign` imports this
    module, and a dataclass costs 0.4 ms to define.)"""

    def __init__(
        self, payload_type: str, payload: bytes, signature: bytes, hint: str, tokens: list[bytes]
    ) -> None:
        self.payload_type, self.payload, self.signature = payload_type, payload, signature
        self.hint, self.tokens = hint, tokens


def read_bundle(path: str) -> ReadBundle:
    """The bundle at `path`; SigningProblem when it cannot be read or is not a v0.3 DSSE bundle."""
    try:
        data = json.loads(Path(path).read_bytes())
    except OSError as exc:
        raise SigningProblem(f"{shown(path)}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise SigningProblem(f"{shown(path)}: not a JSON bundle ({exc})") from None
    return parse_bundle(data, path)


def parse_bundle(data: Any, path: str) -> ReadBundle:
    if not isinstance(data, dict) or data.get("mediaType") != MEDIA_TYPE:
        raise SigningProblem(f"{shown(path)}: not a Sigstore bundle v0.3 (mediaType {MEDIA_TYPE})")
    if "dsseEnvelope" not in data:
        raise SigningProblem(f"{shown(path)}: the bundle holds no DSSE envelope")
    try:
        payload_type, payload, signature = unpacked(data["dsseEnvelope"])
    except SigningProblem as problem:
        raise SigningProblem(f"{shown(path)}: {problem}") from None
    material: Any = data.get("verificationMaterial")
    try:
        hint = material["publicKey"]["hint"]
        stamps = (material.get("timestampVerificationData") or {}).get("rfc3161Timestamps") or []
        tokens = [base64.b64decode(stamp["signedTimestamp"], validate=True) for stamp in stamps]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SigningProblem(
            f"{shown(path)}: the bundle's verification material is malformed ({exc})"
        ) from None
    return ReadBundle(payload_type, payload, signature, str(hint), tokens)


def looks_like_bundle(path: str) -> bool:
    """Whether the file is a bundle (one JSON object with a Sigstore media type), not a journal."""
    if path.endswith(SUFFIX):
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return b'"mediaType"' in head and b"sigstore.bundle" in head
