"""Others can verify evalkit's bundles without evalkit: sigstore-js (`@sigstore/verify`, installed by
tasks.py into build/npm) given the public key and a trusted_root.json, and the docs' openssl recipe
(docs/guide/signing.md: DSSE's pre-authentication encoding, `openssl dgst -verify`, `openssl ts
-verify`), run as printed there."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import tasks
from tests.signing.conftest import ROOT, evalkit
from tests.signing.test_sign_verify import _trusted_root
from tests.signing.tsa_server import Authority

SIGSTORE_JS = Path(__file__).with_name("js") / "sigstore_verify.js"


@pytest.fixture(scope="session")
def node_modules() -> Path:
    return tasks.ensure_npm_tools()


def _sign(work: Path, keys: Path, *extra: str) -> Path:
    done = evalkit("eval", "in", "--out", "out/results.jsonl", "--report-md", "out/report.md",
                   "--sign", f"{keys}.key", *extra, cwd=work)  # fmt: skip
    assert done.returncode == 1, done.stderr
    return work / "out/results.jsonl.sigstore.json"


def _sigstore_js(node_modules: Path, bundle: Path, keys: Path, root: Path, timestamps: int) -> str:
    done = subprocess.run(
        ["node", str(SIGSTORE_JS), str(bundle), f"{keys}.pub", str(root), str(timestamps)],
        env={**os.environ, "NODE_PATH": str(node_modules)},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode == 0) == (done.stdout.strip() == "verified"), done.stdout + done.stderr
    return done.stdout.strip()


def _flip_signature(bundle: Path) -> None:
    document = json.loads(bundle.read_text())
    signature = document["dsseEnvelope"]["signatures"][0]
    raw = bytearray(base64.b64decode(signature["sig"]))
    raw[40] ^= 1
    signature["sig"] = base64.b64encode(bytes(raw)).decode()
    bundle.write_text(json.dumps(document))


def test_sigstore_js_verifies_a_timestamped_bundle_and_refuses_a_tampered_one(
    node_modules: Path, work: Path, keys: Path, authority: Authority, tmp_path: Path
) -> None:
    bundle = _sign(work, keys, "--tsa", authority.url)
    root = _trusted_root(authority, tmp_path / "trusted_root.json")
    assert _sigstore_js(node_modules, bundle, keys, root, 1) == "verified"
    _flip_signature(bundle)
    assert _sigstore_js(node_modules, bundle, keys, root, 1) != "verified"


def test_sigstore_js_verifies_a_bundle_without_timestamp_and_sees_it_has_none(
    node_modules: Path, work: Path, keys: Path, authority: Authority, tmp_path: Path
) -> None:
    bundle = _sign(work, keys)
    root = _trusted_root(authority, tmp_path / "trusted_root.json")
    assert _sigstore_js(node_modules, bundle, keys, root, 0) == "verified"
    assert (
        _sigstore_js(node_modules, bundle, keys, root, 1) == "TIMESTAMP_ERROR: expected 1 timestamps, got 0"
    )


def _readme_recipe() -> str:
    readme = (ROOT / "docs" / "guide" / "signing.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- verify-with-openssl:[^>]*-->\n```bash\n(.*?)```", readme, re.DOTALL)
    assert found, "docs/guide/signing.md lost its openssl recipe"
    return found.group(1)


def _recipe(work: Path, bundle: Path, key: Path, tsa_ca: Path) -> subprocess.CompletedProcess[str]:
    scratch = work / "scratch"
    scratch.mkdir(exist_ok=True)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _readme_recipe()],
        cwd=scratch,
        env={**os.environ, "BUNDLE": str(bundle), "KEY": str(key), "TSA_CA": str(tsa_ca)},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_the_readme_s_openssl_recipe_verifies_a_bundle(work: Path, keys: Path, authority: Authority) -> None:
    bundle = _sign(work, keys, "--tsa", authority.url)
    done = _recipe(work, bundle, Path(f"{keys}.pub"), authority.folder / "ca.crt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Verified OK" in done.stdout  # openssl dgst: the signature over the PAE
    assert "results.jsonl: OK" in done.stdout and "report.md: OK" in done.stdout  # sha256sum -c
    assert "Verification: OK" in done.stdout  # openssl ts: the token over the signature, the TSA's chain
    assert "Time stamp:" in done.stdout


@pytest.mark.parametrize("tamper", ["artifact", "signature", "token", "tsa_ca"])
def test_the_readme_s_openssl_recipe_refuses_each_tamper(
    work: Path, keys: Path, authority: Authority, tamper: str, tmp_path: Path
) -> None:
    bundle = _sign(work, keys, "--tsa", authority.url)
    tsa_ca = authority.folder / "ca.crt"
    if tamper == "artifact":
        (work / "out/report.md").write_text("edited\n")
    elif tamper == "signature":
        _flip_signature(bundle)
    elif tamper == "token":
        document = json.loads(bundle.read_text())
        other = _sign(work, keys, "--tsa", authority.url)  # another signature's token
        document["verificationMaterial"] = json.loads(other.read_text())["verificationMaterial"]
        bundle = work / "tampered.sigstore.json"
        bundle.write_text(json.dumps(document))
        (work / "results.jsonl").write_bytes((work / "out/results.jsonl").read_bytes())
        (work / "report.md").write_bytes((work / "out/report.md").read_bytes())
    else:
        from tests.signing.tsa_server import make_ca

        make_ca(tmp_path / "stranger", "a CA that signed no TSA")
        tsa_ca = tmp_path / "stranger/ca.crt"
    done = _recipe(work, bundle, Path(f"{keys}.pub"), tsa_ca)
    assert done.returncode != 0, done.stdout
    said = done.stdout + done.stderr
    if tamper == "signature":
        assert "Verification failure" in said
        return
    assert "Verified OK" in said  # the signature holds: the step that refuses is the one tampered with
    if tamper == "artifact":
        assert "report.md: FAILED" in said
    else:
        assert "results.jsonl: OK" in said and "Verification: FAILED" in said
