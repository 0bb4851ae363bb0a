"""DSSE (Dead Simple Signing Envelope) v1: the pre-authentication encoding that is signed, and the envelope.

PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal bytes. The
README's openssl recipe rebuilds these bytes with printf to check the signature without evalkit.
"""

from __future__ import annotations

import base64
from typing import Any

from evalkit.services.signing import SigningProblem

IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"


def pae(payload_type: str, payload: bytes) -> bytes:
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def envelope(payload: bytes, signature: bytes) -> dict[str, Any]:
    return {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": IN_TOTO_PAYLOAD_TYPE,
        "signatures": [{"sig": base64.b64encode(signature).decode("ascii")}],
    }


def unpacked(envelope: Any) -> tuple[str, bytes, bytes]:
    """The payload type, payload and (only) signature of an envelope; SigningProblem if malformed."""
    try:
        payload_type = envelope["payloadType"]
        payload = base64.b64decode(envelope["payload"], validate=True)
        signatures = envelope["signatures"]
        if not isinstance(payload_type, str) or len(signatures) != 1:
            raise ValueError("one signature expected")
        signature = base64.b64decode(signatures[0]["sig"], validate=True)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise SigningProblem(f"the DSSE envelope is malformed ({exc})") from None
    return payload_type, payload, signature
