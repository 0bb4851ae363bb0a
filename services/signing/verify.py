"""`evalkit verify BUNDLE`: every check a signed result must pass, each recorded with what it found.

Checks, in order: the payload type, the signature over the DSSE pre-authentication encoding with the given
public key, the statement's types, each subject's SHA-256 against the file (streamed), and the RFC 3161
token (its message imprint is the signature, its authority chains to the trusted certificate, its time
lies inside the key's validity when one is given). A failed signature stops there: nothing the payload
claims can be trusted.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from evalkit.engine.text import shown
from evalkit.services.signing import SigningProblem
from evalkit.services.signing.bundle import ReadBundle
from evalkit.services.signing.digests import file_sha256
from evalkit.services.signing.dsse import IN_TOTO_PAYLOAD_TYPE, pae
from evalkit.services.signing.keys import key_hint
from evalkit.services.signing.statement import PREDICATE_TYPE, STATEMENT_TYPE


@dataclass
class Check:
    name: str
    ok: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "detail": self.detail}


@dataclass
class Trust:
    """What the verifier trusts besides the key: TSA chains (each leaf..root) and the key's validity."""

    tsa_chains: list[list[x509.Certificate]] = field(default_factory=list)
    valid_from: datetime | None = None
    valid_until: datetime | None = None


@dataclass
class Verification:
    checks: list[Check] = field(default_factory=list)
    statement: dict[str, Any] | None = None
    timestamp: datetime | None = None

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def add(self, name: str, ok: bool, detail: str) -> bool:
        self.checks.append(Check(name, ok, detail))
        return ok


def verify_bundle(
    read: ReadBundle, key: ec.EllipticCurvePublicKey, folder: Path, artifacts: list[str], trust: Trust
) -> Verification:
    result = Verification()
    result.add(
        "payload type",
        read.payload_type == IN_TOTO_PAYLOAD_TYPE,
        f"{read.payload_type} (expected {IN_TOTO_PAYLOAD_TYPE})",
    )
    if not result.add("signature", *_signature(read, key)):
        return result
    claims = _statement(read.payload, result)
    if claims is None:
        return result
    result.statement = claims
    _subjects(claims, folder, artifacts, result)
    _journal_checkpoint(claims, folder, artifacts, result)
    _timestamp(read, trust, result)
    return result


def _signature(read: ReadBundle, key: ec.EllipticCurvePublicKey) -> tuple[bool, str]:
    try:
        key.verify(read.signature, pae(read.payload_type, read.payload), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        other = read.hint != key_hint(key)
        why = "the bundle names another key (wrong key)" if other else "the payload or the signature changed"
        return False, f"does not verify with the given key: {why}"
    return True, f"ECDSA P-256 over the DSSE envelope, key {read.hint[:16]}…"


def _statement(payload: bytes, result: Verification) -> dict[str, Any] | None:
    try:
        claims = json.loads(payload)
    except ValueError as exc:
        result.add("statement", False, f"the signed payload is not JSON ({exc})")
        return None
    ok = isinstance(claims, dict) and claims.get("_type") == STATEMENT_TYPE
    ok = ok and claims.get("predicateType") == PREDICATE_TYPE and isinstance(claims.get("subject"), list)
    result.add(
        "statement", ok, f"in-toto {STATEMENT_TYPE}, predicate {PREDICATE_TYPE}" if ok else "not evalkit's"
    )
    return claims if ok else None


def _subjects(claims: dict[str, Any], folder: Path, artifacts: list[str], result: Verification) -> None:
    """Each ARTIFACT given against the subject of its name; with none, every subject beside the bundle."""
    subjects = {str(s.get("name")): s.get("digest", {}).get("sha256") for s in claims["subject"]}
    if not artifacts:
        for name, digest in subjects.items():
            _artifact(result, name, folder / name, digest)
        return
    for artifact in artifacts:
        found = _subject_for(artifact, folder, subjects)
        if found is None:
            result.add(f"artifact {shown(artifact)}", False, "not a subject of the bundle")
            continue
        _artifact(result, found, Path(artifact), subjects[found])


def _subject_for(artifact: str, folder: Path, subjects: dict[str, Any]) -> str | None:
    relative = Path(os.path.relpath(Path(artifact).resolve(), folder.resolve())).as_posix()
    if relative in subjects:
        return relative
    by_base = [name for name in subjects if Path(name).name == Path(artifact).name]
    return by_base[0] if len(by_base) == 1 else None


def _artifact(result: Verification, name: str, path: Path, digest: Any) -> None:
    label = f"artifact {shown(name)}"
    try:
        actual = file_sha256(path)
    except OSError as exc:
        result.add(label, False, f"cannot read {shown(str(path))}: {exc.strerror or exc}")
        return
    same = actual == digest
    result.add(
        label, same, "sha256 matches" if same else f"artifact changed: sha256 {actual} is not {digest}"
    )


def _journal_checkpoint(
    claims: dict[str, Any], folder: Path, artifacts: list[str], result: Verification
) -> None:
    """For a review session's checkpoint: the journal's chain, and whether the lines checkpointed are still
    its first lines (a journal that grew since fails its digest, but this says what still holds)."""
    predicate = claims.get("predicate") or {}
    summary = predicate.get("summary") or {}
    if (predicate.get("invocation") or {}).get("command") != "review" or "last_line_sha256" not in summary:
        return
    name = str(claims["subject"][0].get("name"))
    given = [a for a in artifacts if Path(a).name == Path(name).name]
    try:
        raw = Path(given[0] if given else folder / name).read_bytes()
    except OSError:
        return  # the artifact's check said why
    from evalkit.services.review.chain import check_chain, line_digest

    report = check_chain(raw)
    if not report.ok:
        result.add("journal chain", False, f"broken at line {report.broken_line}: {report.reason}")
        return
    lines = [line for line in raw.split(b"\n") if line.strip()]
    count = int(summary.get("journal_lines") or 0)
    kept = 0 < count <= len(lines) and line_digest(lines[count - 1]) == summary["last_line_sha256"]
    added = f", {len(lines) - count} added since" if kept and len(lines) > count else ""
    detail = (
        f"{report.reason}; the {count} lines checkpointed are its first{added}"
        if kept
        else (f"the {count} lines checkpointed were changed or removed")
    )
    result.add("journal chain", kept, detail)


def _timestamp(read: ReadBundle, trust: Trust, result: Verification) -> None:
    if not read.tokens:
        result.add(
            "timestamp",
            not trust.tsa_chains,
            "the bundle carries no timestamp (no trusted time)"
            + (": a TSA certificate was given, so one was expected" if trust.tsa_chains else ""),
        )
        return
    if not trust.tsa_chains:
        result.add(
            "timestamp", False, "the bundle has a timestamp: give --tsa-cert PEM or --trusted-root FILE"
        )
        return
    from evalkit.services.signing.tsa import verify_token

    for number, token in enumerate(read.tokens, start=1):
        checks = [verify_token(token, read.signature, chain) for chain in trust.tsa_chains]
        good = next((check for check in checks if check.ok), None)
        name = "timestamp" if len(read.tokens) == 1 else f"timestamp {number}"
        if good is None:
            result.add(name, False, f"bad timestamp: {checks[0].detail}")
            continue
        assert good.time is not None
        result.timestamp = good.time
        result.add(name, *_inside_validity(good.time, trust))


def _inside_validity(moment: datetime, trust: Trust) -> tuple[bool, str]:
    if trust.valid_from is not None and moment < trust.valid_from:
        return False, f"bad timestamp: {moment.isoformat()} is before the key's validity ({trust.valid_from})"
    if trust.valid_until is not None and moment > trust.valid_until:
        return False, f"bad timestamp: {moment.isoformat()} is after the key's validity ({trust.valid_until})"
    return True, f"RFC 3161 token over the signature, {moment.isoformat()}"


def load_certificates(path: str) -> list[x509.Certificate]:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SigningProblem(f"{shown(path)}: cannot read: {exc.strerror or exc}") from None
    try:
        certificates = x509.load_pem_x509_certificates(data)
    except ValueError:
        raise SigningProblem(f"{shown(path)}: no PEM certificate in it") from None
    return _leaf_first(certificates)


def _leaf_first(certificates: list[x509.Certificate]) -> list[x509.Certificate]:
    """The chain ordered leaf..root: the self-signed ones last."""
    return sorted(certificates, key=lambda c: c.issuer == c.subject)


def trusted_root_chains(path: str) -> list[list[x509.Certificate]]:
    """The timestamp authorities' chains of a Sigstore trusted_root.json."""
    import base64

    try:
        root = json.loads(Path(path).read_bytes())
        authorities = root.get("timestampAuthorities") or []
        chains = [
            _leaf_first(
                [
                    x509.load_der_x509_certificate(base64.b64decode(c["rawBytes"]))
                    for c in a["certChain"]["certificates"]
                ]
            )
            for a in authorities
        ]
    except OSError as exc:
        raise SigningProblem(f"{shown(path)}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SigningProblem(f"{shown(path)}: not a Sigstore trusted root ({exc})") from None
    if not chains:
        raise SigningProblem(f"{shown(path)}: the trusted root lists no timestamp authority")
    return chains
