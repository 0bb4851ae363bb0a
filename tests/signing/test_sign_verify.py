"""`evalkit eval --sign KEY [--tsa URL]` and `evalkit verify BUNDLE --key PUB`: a signed run verifies, and
each tamper case fails naming its check (exit 1); bad usage exits 2."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.signing.conftest import evalkit
from tests.signing.tsa_server import Authority, make_ca


def _signed(work: Path, keys: Path, *extra: str) -> Path:
    done = evalkit(
        "eval", "in", "--out", "out/results.jsonl", "--explain-json", "out/explain.jsonl",
        "--report-md", "out/report.md", "--log-file", "out/run.log", "--sign", f"{keys}.key", *extra,
        cwd=work,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # one submission of three is invalid: findings, still signed
    bundle = work / "out" / "results.jsonl.sigstore.json"
    assert bundle.exists(), done.stderr
    return bundle


def _verify(work: Path, bundle: Path, keys: Path, *extra: str) -> Any:
    return evalkit("verify", str(bundle), "--key", f"{keys}.pub", *extra, cwd=work)


def _statement(bundle: Path) -> dict[str, Any]:
    return json.loads(base64.b64decode(json.loads(bundle.read_text())["dsseEnvelope"]["payload"]))


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


@pytest.fixture(scope="module")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("other")
    assert evalkit("keygen", "--out", "other", cwd=folder).returncode == 0
    return folder / "other"


def test_a_signed_run_records_every_output_input_and_config_file(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    document = json.loads(bundle.read_text())
    assert document["mediaType"] == "application/vnd.dev.sigstore.bundle.v0.3+json"
    assert document["dsseEnvelope"]["payloadType"] == "application/vnd.in-toto+json"
    assert "timestampVerificationData" not in document["verificationMaterial"]
    statement = _statement(bundle)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    names = [s["name"] for s in statement["subject"]]
    assert names == ["results.jsonl", "explain.jsonl", "report.md", "run.log"]
    predicate = statement["predicate"]
    assert predicate["verifier"]["version"]["evalkit"] and isinstance(predicate["verifier"]["compiled"], bool)
    assert sorted(i["name"] for i in predicate["inputs"]) == [
        "in/05_data_sql_complete.json", "in/broken.json", "in/sample_submission.json"
    ]  # fmt: skip
    result = json.loads((work / "out/results.jsonl").read_text().splitlines()[0])
    assert predicate["policy"]["config_hash"] == result["meta"]["config_hash"]
    assert [f["name"] for f in predicate["policy"]["files"]] == sorted(
        f["name"] for f in predicate["policy"]["files"]
    )
    assert predicate["summary"]["submissions"] == 3 and predicate["summary"]["errors"] == 1
    assert sum(predicate["summary"]["labels"].values()) == 2
    assert predicate["timeVerified"].endswith("Z")
    assert predicate["timestamp"]["trusted"] is False
    assert predicate["invocation"]["command"] == "eval" and "--sign" in predicate["invocation"]["arguments"]


def test_a_signed_run_verifies_in_text_and_json(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    done = _verify(work, bundle, keys)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("verified")
    assert "no trusted time" in done.stdout
    done = _verify(work, bundle, keys, "--format", "json")
    report = json.loads(done.stdout)
    assert report["verified"] is True and done.returncode == 0
    assert {c["check"] for c in report["checks"]} >= {
        "signature",
        "artifact results.jsonl",
        "artifact run.log",
    }


def test_a_byte_flipped_in_an_artifact_fails_naming_it(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    report = work / "out/report.md"
    report.write_bytes(_flip(report.read_bytes(), 10))
    done = _verify(work, bundle, keys)
    assert done.returncode == 1
    assert "FAIL artifact report.md: artifact changed" in done.stdout
    assert "NOT verified: artifact report.md failed" in done.stdout


def test_an_artifact_given_on_the_command_line_is_checked_wherever_it_is(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    moved = work / "moved.jsonl"
    moved.write_bytes((work / "out/results.jsonl").read_bytes())
    assert _verify(work, bundle, keys).returncode == 0
    done = evalkit("verify", str(bundle), "moved.jsonl", "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 1 and "not a subject" in done.stdout
    (work / "elsewhere").mkdir()
    (work / "elsewhere/results.jsonl").write_bytes(b"{}\n")
    done = evalkit("verify", str(bundle), "elsewhere/results.jsonl", "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 1 and "artifact changed" in done.stdout


def _rewrite(bundle: Path, change: Any) -> None:
    document = json.loads(bundle.read_text())
    change(document)
    bundle.write_text(json.dumps(document))


def test_a_byte_flipped_in_the_payload_fails_the_signature(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)

    def flip_payload(document: dict[str, Any]) -> None:
        envelope = document["dsseEnvelope"]
        payload = base64.b64decode(envelope["payload"])
        envelope["payload"] = base64.b64encode(_flip(payload, len(payload) // 2)).decode()

    _rewrite(bundle, flip_payload)
    done = _verify(work, bundle, keys)
    assert done.returncode == 1
    assert (
        "FAIL signature: does not verify with the given key: the payload or the signature changed"
        in done.stdout
    )


def test_a_byte_flipped_in_the_signature_fails_it(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)

    def flip_signature(document: dict[str, Any]) -> None:
        signature = document["dsseEnvelope"]["signatures"][0]
        signature["sig"] = base64.b64encode(_flip(base64.b64decode(signature["sig"]), 40)).decode()

    _rewrite(bundle, flip_signature)
    done = _verify(work, bundle, keys)
    assert done.returncode == 1 and "FAIL signature" in done.stdout


def test_the_wrong_key_fails_saying_so(work: Path, keys: Path, other_keys: Path) -> None:
    bundle = _signed(work, keys)
    done = evalkit("verify", str(bundle), "--key", f"{other_keys}.pub", cwd=work)
    assert done.returncode == 1
    assert (
        "FAIL signature: does not verify with the given key: the bundle names another key (wrong key)"
        in done.stdout
    )


def test_a_timestamped_run_verifies_against_the_tsa_chain_and_a_trusted_root(
    work: Path, keys: Path, authority: Authority, tmp_path: Path
) -> None:
    bundle = _signed(work, keys, "--tsa", authority.url)
    assert _statement(bundle)["predicate"]["timestamp"] == {
        "authority": authority.url, "trusted": True,
        "note": "an RFC 3161 token over the signature is in the bundle",
    }  # fmt: skip
    done = _verify(work, bundle, keys, "--tsa-cert", str(authority.folder / "chain.pem"))
    assert done.returncode == 0, done.stdout
    assert "ok   timestamp: RFC 3161 token over the signature" in done.stdout
    root = _trusted_root(authority, tmp_path / "trusted_root.json")
    done = _verify(work, bundle, keys, "--trusted-root", str(root))
    assert done.returncode == 0, done.stdout


def _trusted_root(authority: Authority, path: Path) -> Path:
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    chain = [authority.folder / "tsa.crt", authority.folder / "ca.crt"]
    raw = [
        base64.b64encode(x509.load_pem_x509_certificate(p.read_bytes()).public_bytes(Encoding.DER)).decode()
        for p in chain
    ]
    path.write_text(
        json.dumps(
            {
                "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
                "tlogs": [],
                "certificateAuthorities": [],
                "ctlogs": [],
                "timestampAuthorities": [
                    {
                        "subject": {"organization": "evalkit tests", "commonName": "evalkit test TSA"},
                        "uri": authority.url,
                        "certChain": {"certificates": [{"rawBytes": r} for r in raw]},
                        "validFor": {"start": "2000-01-01T00:00:00Z"},
                    }
                ],
            }
        )
    )
    return path


def _tokens(bundle: Path) -> list[dict[str, str]]:
    return json.loads(bundle.read_text())["verificationMaterial"]["timestampVerificationData"][
        "rfc3161Timestamps"
    ]


def test_a_byte_flipped_in_the_token_is_a_bad_timestamp(work: Path, keys: Path, authority: Authority) -> None:
    bundle = _signed(work, keys, "--tsa", authority.url)

    def flip_token(document: dict[str, Any]) -> None:
        stamp = document["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"][0]
        token = base64.b64decode(stamp["signedTimestamp"])
        stamp["signedTimestamp"] = base64.b64encode(_flip(token, len(token) - 20)).decode()

    _rewrite(bundle, flip_token)
    done = _verify(work, bundle, keys, "--tsa-cert", str(authority.folder / "chain.pem"))
    assert done.returncode == 1
    assert "FAIL timestamp: bad timestamp" in done.stdout


def test_a_token_for_another_signature_is_a_bad_timestamp(
    work: Path, keys: Path, authority: Authority
) -> None:
    first = _signed(work, keys, "--tsa", authority.url)
    foreign = _tokens(first)
    second = _signed(work, keys, "--tsa", authority.url)  # signed anew: another signature, another token
    assert _tokens(second) != foreign

    def swap(document: dict[str, Any]) -> None:
        document["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"] = foreign

    _rewrite(second, swap)
    done = _verify(work, second, keys, "--tsa-cert", str(authority.folder / "chain.pem"))
    assert done.returncode == 1
    assert "bad timestamp: the timestamp token is over another signature" in done.stdout


def test_a_tsa_certificate_that_does_not_chain_is_a_bad_timestamp(
    work: Path, keys: Path, authority: Authority, tmp_path: Path
) -> None:
    bundle = _signed(work, keys, "--tsa", authority.url)
    make_ca(tmp_path / "stranger", "a CA that signed no TSA")
    done = _verify(work, bundle, keys, "--tsa-cert", str(tmp_path / "stranger/ca.crt"))
    assert done.returncode == 1
    assert "FAIL timestamp: bad timestamp" in done.stdout


def test_a_timestamp_outside_the_key_s_validity_fails(work: Path, keys: Path, authority: Authority) -> None:
    bundle = _signed(work, keys, "--tsa", authority.url)
    chain = str(authority.folder / "chain.pem")
    done = _verify(work, bundle, keys, "--tsa-cert", chain, "--key-valid-until", "2001-01-01T00:00:00Z")
    assert done.returncode == 1 and "after the key's validity" in done.stdout
    done = _verify(work, bundle, keys, "--tsa-cert", chain, "--key-valid-from", "2001-01-01T00:00:00Z")
    assert done.returncode == 0


def test_a_timestamp_present_but_no_tsa_trust_given_does_not_verify(
    work: Path, keys: Path, authority: Authority
) -> None:
    bundle = _signed(work, keys, "--tsa", authority.url)
    done = _verify(work, bundle, keys)
    assert done.returncode == 1 and "give --tsa-cert PEM or --trusted-root FILE" in done.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["verify", "missing.sigstore.json", "--key", "KEY.pub"], "missing.sigstore.json: cannot read"),
        (["verify", "BUNDLE"], "needs --key PUB"),
        (["verify", "BUNDLE", "--key", "KEY.key"], "is a private key; --key takes the public key"),
        (["verify", "BUNDLE", "--key", "in/sample_submission.json"], "not a PEM public key"),
        (
            ["verify", "BUNDLE", "--key", "KEY.pub", "--tsa-cert", "in/sample_submission.json"],
            "no PEM certificate",
        ),
        (["verify", "BUNDLE", "--key", "KEY.pub", "--key-valid-from", "soon"], "not an RFC 3339 time"),
        (
            ["verify", "BUNDLE", "--key", "KEY.pub", "--config-dir", "in"],
            "--config-dir goes with --reproduce",
        ),
    ],
)
def test_bad_usage_of_verify_is_one_message_exit_2(
    work: Path, keys: Path, arguments: list[str], message: str
) -> None:
    bundle = _signed(work, keys)
    typed = [a.replace("BUNDLE", str(bundle)).replace("KEY", str(keys)) for a in arguments]
    done = evalkit(*typed, cwd=work)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_file_that_is_not_a_bundle_is_exit_2(work: Path, keys: Path) -> None:
    fake = work / "fake.sigstore.json"
    fake.write_text('{"mediaType": "something else"}')
    done = evalkit("verify", str(fake), "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 2 and "not a Sigstore bundle v0.3" in done.stderr
