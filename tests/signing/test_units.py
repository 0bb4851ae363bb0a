"""The pure parts: DSSE's pre-authentication encoding, a signature over it, the command line without
secrets, a bundle's round trip."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import given
from hypothesis import strategies as st

from evalkit.services.signing import SigningProblem
from evalkit.services.signing.bundle import parse_bundle
from evalkit.services.signing.dsse import IN_TOTO_PAYLOAD_TYPE, pae
from evalkit.services.signing.sign import signed_bundle
from evalkit.services.signing.statement import without_secrets
from evalkit.services.signing.verify import Trust, verify_bundle

KEY = ec.generate_private_key(ec.SECP256R1())


def test_pae_is_dsse_v1_s_encoding() -> None:
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )  # the DSSE specification's own example


@given(payload=st.binary(min_size=1, max_size=300), at=st.integers(min_value=0))
def test_a_signature_holds_for_its_payload_and_for_no_payload_changed_in_one_byte(
    payload: bytes, at: int
) -> None:
    document = signed_bundle(KEY, None, payload)
    read = parse_bundle(document, "b.sigstore.json")
    assert read.payload == payload and read.tokens == []
    check = verify_bundle(read, KEY.public_key(), Path("."), [], Trust())
    assert check.checks[1].name == "signature" and check.checks[1].ok
    index = at % len(payload)
    read.payload = payload[:index] + bytes([payload[index] ^ 0x80]) + payload[index + 1 :]
    check = verify_bundle(read, KEY.public_key(), Path("."), [], Trust())
    assert not check.checks[1].ok and not check.ok


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (["in", "--out", "r.jsonl"], ["in", "--out", "r.jsonl"]),
        (["--password", "hunter2", "x"], ["--password", "***", "x"]),
        (["--token=abc"], ["--token=***"]),
        (["postgresql://ann:hunter2@db/evals"], ["postgresql://ann:***@db/evals"]),
        (["postgresql://ann@db/evals"], ["postgresql://ann@db/evals"]),
        (["http://127.0.0.1:8/tsa"], ["http://127.0.0.1:8/tsa"]),
    ],
)
def test_the_recorded_command_line_keeps_no_secret(typed: list[str], kept: list[str]) -> None:
    assert without_secrets(typed) == kept


@pytest.mark.parametrize(
    "document",
    [
        {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"},
        {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json", "dsseEnvelope": {"payload": "%%"}},
        [],
    ],
)
def test_a_malformed_bundle_is_a_signing_problem(document: object) -> None:
    with pytest.raises(SigningProblem):
        parse_bundle(document, "b.sigstore.json")


def test_the_bundle_carries_the_payload_type_and_the_key_s_hint() -> None:
    document = signed_bundle(KEY, None, b"{}")
    assert document["dsseEnvelope"]["payloadType"] == IN_TOTO_PAYLOAD_TYPE  # type: ignore[index]
    assert base64.b64decode(document["dsseEnvelope"]["payload"]) == b"{}"  # type: ignore[index]


@pytest.mark.parametrize(
    "argv",
    [
        ["in", "--out", "r.jsonl", "--sign", "k.key"],
        ["--sign=k.key", "--tsa", "http://127.0.0.1:1/", "in", "--out=r.jsonl"],
        ["in", "--tsa", "http://t/"],
    ],
)
def test_eval_s_plain_parse_reads_the_signing_options_as_argparse_does(argv: list[str]) -> None:
    from evalkit.commands.eval_ import parse_plain
    from tests.cli.test_eval_cli import argparse_args

    plain = parse_plain(argv)
    assert plain is not None and vars(plain) == argparse_args(argv)


def test_a_passphrase_typed_twice_differently_writes_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalkit.services.signing.keys import passphrase

    monkeypatch.delenv("EVALKIT_KEY_PASSWORD", raising=False)
    answers = iter(["first", "second"])
    with pytest.raises(SigningProblem, match="the two passphrases differ"):
        passphrase(lambda question: next(answers), confirm=True)
    assert passphrase(lambda question: "", confirm=True) is None  # empty: no passphrase, not encrypted
