"""The pure parts: DSSE's pre-authentication encoding, a signature over it, the command line without
secrets, a bundle's round trip, a file's digest, a run's summary."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.services.signing import SigningProblem, summaries
from evalkit.services.signing.bundle import parse_bundle
from evalkit.services.signing.digests import CHUNK, file_sha256
from evalkit.services.signing.dsse import IN_TOTO_PAYLOAD_TYPE, pae
from evalkit.services.signing.sign import signed_bundle
from evalkit.services.signing.statement import RunRecord, predicate, without_secrets
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


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.sampled_from([0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 7]), seed=st.binary(max_size=64))
def test_a_file_s_digest_is_its_sha256_whole_or_in_chunks(tmp_path: Path, size: int, seed: bytes) -> None:
    data = (seed or b"\x00") * (size // max(1, len(seed)) + 1)
    data = data[:size]
    path = tmp_path / "file"
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


result_objects = st.fixed_dictionaries(
    {"label": st.sampled_from(["good", "bad"]), "flags": st.lists(st.sampled_from(["x", "y"]), max_size=2)}
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(st.one_of(result_objects, st.just("garbage")), max_size=6), blank=st.booleans())
def test_the_summary_read_a_line_at_a_time_counts_every_line(
    tmp_path: Path, items: list[object], blank: bool
) -> None:
    lines = [json.dumps(item) if item != "garbage" else "{not json" for item in items]
    path = tmp_path / "results.jsonl"
    path.write_text("\n" * blank + "\n".join(lines) + "\n")
    good = [item for item in items if isinstance(item, dict)]
    summary = summaries.results(path)
    assert summary["submissions"] == len(items) and summary["errors"] == len(items) - len(good)
    assert summary["labels"] == dict(Counter(str(item["label"]) for item in good))


def test_the_summary_of_one_pretty_result_is_that_of_its_line(tmp_path: Path) -> None:
    result = {"label": "good", "flags": ["x"], "score": 1}
    pretty, line = tmp_path / "r.json", tmp_path / "r.jsonl"
    pretty.write_text(json.dumps(result, indent=2) + "\n")
    line.write_text(json.dumps(result) + "\n")
    assert summaries.results(pretty) == summaries.results(line) == {
        "submissions": 1, "errors": 0, "labels": {"good": 1}, "flags": {"x": 1}
    }  # fmt: skip


@pytest.mark.parametrize("special", ["named pipe", "/dev/zero", "folder"])
def test_only_a_regular_file_is_hashed(tmp_path: Path, special: str) -> None:
    path = {"named pipe": tmp_path / "pipe", "/dev/zero": Path("/dev/zero"), "folder": tmp_path}[special]
    if special == "named pipe":
        os.mkfifo(path)  # no writer: opening it to read would wait for one
    with pytest.raises(OSError, match="not a regular file"):
        file_sha256(path)


def test_the_recorded_timestamp_authority_keeps_no_password() -> None:
    url = "https://ann:hunter2@tsa.example/tsr"
    record = RunRecord("eval", ["in", "--tsa", url], {"out": "r.jsonl"}, tsa_url=url)
    recorded = predicate(record, 0.0)
    assert "hunter2" not in json.dumps(recorded)
    assert recorded["timestamp"]["authority"] == "https://ann:***@tsa.example/tsr"
