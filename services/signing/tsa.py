"""RFC 3161 timestamps over a DSSE signature, as Sigstore takes them: the message imprint is the SHA-256 of
the signature's bytes, and the bundle keeps the authority's whole DER TimeStampResp.

`request_token` is the only code in evalkit that goes on the network, and only with `--tsa URL`.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from cryptography import x509

from evalkit.services.signing import SigningProblem

if TYPE_CHECKING:
    from rfc3161_client import TimeStampResponse

TIMEOUT_SECONDS = 10.0
TIMEOUT_VARIABLE = "EVALKIT_TSA_TIMEOUT"  # seconds to wait for the authority (default TIMEOUT_SECONDS)
MAX_RESPONSE_BYTES = 1 << 20


def request_token(url: str, signature: bytes, timeout: float | None = None) -> bytes:
    """The authority's answer (a granted TimeStampResp, DER) for a token over `signature`; SigningProblem
    when it is down, slow, refuses, or answers anything else."""
    from rfc3161_client import HashAlgorithm, TimestampRequestBuilder

    if timeout is None:
        timeout = _timeout()
    request = TimestampRequestBuilder().data(signature).hash_algorithm(HashAlgorithm.SHA256).build()
    answer = _post(url, request.as_bytes(), timeout)
    response = _decoded(answer, url)
    if (
        response.status != 0
    ):  # granted; "granted with modifications" does not verify (rfc3161-client, sigstore)
        raise SigningProblem(f"the timestamp authority {url} refused: status {response.status}")
    if response.tst_info.nonce != request.nonce:
        raise SigningProblem(f"the timestamp authority {url} answered another request (nonce differs)")
    return answer


def _timeout() -> float:
    try:
        return float(os.environ.get(TIMEOUT_VARIABLE, TIMEOUT_SECONDS))
    except ValueError:
        raise SigningProblem(f"{TIMEOUT_VARIABLE}: expected a number of seconds") from None


def _post(url: str, body: bytes, timeout: float) -> bytes:
    if not url.startswith(("http://", "https://")):
        raise SigningProblem(f"--tsa {url}: expected an http:// or https:// URL")
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/timestamp-query"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            answer = reply.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise SigningProblem(f"the timestamp authority {url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
            reason = f"no answer in {timeout:g} s"
        raise SigningProblem(f"the timestamp authority {url} cannot be reached: {reason}") from None
    if len(answer) > MAX_RESPONSE_BYTES:
        raise SigningProblem(f"the timestamp authority {url} answered more than {MAX_RESPONSE_BYTES} bytes")
    return answer


def _decoded(answer: bytes, url: str) -> TimeStampResponse:
    from rfc3161_client import decode_timestamp_response

    try:
        return decode_timestamp_response(answer)
    except ValueError as exc:
        raise SigningProblem(f"the timestamp authority {url} did not answer a timestamp ({exc})") from None


@dataclass
class TokenCheck:
    ok: bool
    detail: str
    time: datetime | None = None


def verify_token(token: bytes, signature: bytes, chain: list[x509.Certificate]) -> TokenCheck:
    """Whether `token` is a granted timestamp over `signature` by an authority that chains to the last
    certificate of `chain` (the root; those before it are the TSA's certificate and intermediates)."""
    from rfc3161_client import VerificationError, VerifierBuilder, decode_timestamp_response

    try:
        response = decode_timestamp_response(token)
    except ValueError as exc:
        return TokenCheck(False, f"the timestamp token cannot be read ({exc})")
    builder = VerifierBuilder().add_root_certificate(chain[-1])
    for certificate in chain[:-1]:
        builder = builder.add_intermediate_certificate(certificate)
    try:
        builder.build().verify_message(response, signature)
    except VerificationError as exc:
        return TokenCheck(False, _token_problem(str(exc)))
    except ValueError as exc:
        return TokenCheck(False, f"the timestamp token does not verify ({exc})")
    when = response.tst_info.gen_time
    return TokenCheck(True, f"timestamped {when.isoformat()}", when)


def _token_problem(message: str) -> str:
    if "Mismatch between messages" in message:
        return "the timestamp token is over another signature (message imprint differs)"
    if "certificates" in message.lower():
        return f"the timestamp authority's certificate does not chain to the trusted one ({message})"
    return f"the timestamp token does not verify ({message})"
