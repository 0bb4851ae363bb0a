"""`evalkit score --sign` and `evalkit diff --format json --out FILE --sign`: signed, verified, reproduced;
diff's --out is written atomically and left alone when nothing could be compared."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

from tests.signing.conftest import ROOT, evalkit


def _statement(bundle: Path) -> dict[str, Any]:
    return json.loads(base64.b64decode(json.loads(bundle.read_text())["dsseEnvelope"]["payload"]))


def test_signed_scores_verify_and_reproduce(work: Path, keys: Path) -> None:
    rows = work / "rows.jsonl"
    rows.write_text(
        '{"data_source": "typos", "extra_info": {"label": "the cat"}, "model_output": "the cat"}\n'
        '{"data_source": "typos", "extra_info": {}, "model_output": 3}\n'
    )
    done = evalkit("score", "rows.jsonl", "--out", "out/scored.jsonl", "--sign", f"{keys}.key", cwd=work)
    assert done.returncode == 1, done.stderr  # one bad row: findings, still signed
    bundle = work / "out/scored.jsonl.sigstore.json"
    predicate = _statement(bundle)["predicate"]
    assert predicate["summary"] == {"rows": 2, "errors": 1, "data_sources": {"typos": 1}}
    assert predicate["policy"] is None and [i["name"] for i in predicate["inputs"]] == ["rows.jsonl"]
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", "--reproduce", cwd=work)
    assert done.returncode == 0, done.stdout
    assert "ok   reproduce out/scored.jsonl: same bytes" in done.stdout


def test_a_signed_json_diff_verifies_and_records_both_configs(work: Path, keys: Path) -> None:
    base = work / "base"
    shutil.copytree(ROOT / "config_samples", base, ignore=shutil.ignore_patterns("tests", "__*"))
    done = evalkit("diff", "in", "--base", "base", "--format", "json", "--out", "out/diff.json",
                   "--sign", f"{keys}.key", cwd=work)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report = json.loads((work / "out/diff.json").read_text())
    summary = _statement(work / "out/diff.json.sigstore.json")["predicate"]["summary"]
    assert summary["submissions"] == report["submissions"]
    assert summary["base"]["config_hash"] == report["base"]["config_hash"]
    done = evalkit("verify", "out/diff.json.sigstore.json", "--key", f"{keys}.pub", cwd=work)
    assert done.returncode == 0, done.stdout


def test_diff_out_is_left_alone_when_nothing_could_be_compared(work: Path) -> None:
    kept = work / "out/diff.txt"
    kept.write_text("the last report\n")
    done = evalkit("diff", "in", "--base", "no-such-folder", "--out", "out/diff.txt", cwd=work)
    assert done.returncode == 2
    assert kept.read_text() == "the last report\n"
    done = evalkit("diff", "in", "--base", str(ROOT / "config_samples"), "--out", "out/diff.txt", cwd=work)
    assert done.returncode in (0, 1) and "submission" in kept.read_text() and done.stdout == ""
