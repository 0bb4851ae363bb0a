"""`evalkit verify --reproduce`: the signed command run again from its recorded inputs and config; the
bytes compared; changed inputs or config named before anything runs."""

from __future__ import annotations

import shutil
from pathlib import Path

from evalkit.services.signing.reproduce import rerun_arguments
from tests.signing.conftest import ROOT, evalkit


def _signed(work: Path, keys: Path) -> Path:
    shutil.copytree(ROOT / "config_samples", work / "rules", ignore=shutil.ignore_patterns("tests", "__*"))
    done = evalkit("eval", "in", "--config-dir", "rules", "--out", "out/results.jsonl",
                   "--explain-json=out/explain.jsonl", "--log-file", "out/run.log", "--sign", f"{keys}.key",
                   cwd=work)  # fmt: skip
    assert done.returncode == 1, done.stderr
    return work / "out/results.jsonl.sigstore.json"


def _reproduce(work: Path, bundle: Path, keys: Path, *extra: str) -> tuple[int, str]:
    done = evalkit("verify", str(bundle), "--key", f"{keys}.pub", "--reproduce", *extra, cwd=work)
    return done.returncode, done.stdout + done.stderr


def test_a_signed_run_reproduces_byte_for_byte(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    code, said = _reproduce(work, bundle, keys)
    assert code == 0, said
    assert "ok   reproduce out/results.jsonl: same bytes" in said
    assert "ok   reproduce out/explain.jsonl: same bytes" in said
    assert "run.log" not in said.split("reproduce: config")[1]  # the log holds times: not compared


def test_a_changed_input_is_named_before_anything_runs(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    sample = work / "in/sample_submission.json"
    sample.write_text(sample.read_text().replace("resp_a", "resp_z"))
    code, said = _reproduce(work, bundle, keys)
    assert code == 1 and "FAIL reproduce: inputs: inputs differ: in/sample_submission.json" in said
    assert "same bytes" not in said


def test_a_changed_config_is_named(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    rules = work / "rules/rules.yaml"
    rules.write_text(rules.read_text() + "\n# edited\n")
    code, said = _reproduce(work, bundle, keys)
    assert code == 1 and "FAIL reproduce: config: config differs" in said


def test_another_config_folder_that_behaves_differently_shows_in_the_bytes(work: Path, keys: Path) -> None:
    bundle = _signed(work, keys)
    other = work / "other-rules"
    shutil.copytree(work / "rules", other)
    code, said = _reproduce(work, bundle, keys, "--config-dir", str(other))
    assert code == 0, said  # the same YAML bytes elsewhere: the same config_hash, the same results
    dimensions = other / "dimensions.yaml"
    dimensions.write_text(dimensions.read_text() + "\n")
    code, said = _reproduce(work, bundle, keys, "--config-dir", str(other))
    assert code == 1 and "config differs" in said


def test_rerun_arguments_point_outputs_elsewhere_and_drop_the_signing_flags() -> None:
    arguments = ["in", "--out", "r.jsonl", "--explain-json=e.jsonl", "--sign", "k.key", "--tsa=http://t",
                 "--config-dir", "rules", "--jobs", "2"]  # fmt: skip
    fresh = {"out": "/tmp/x/out.jsonl", "explain_json": "/tmp/x/explain_json.jsonl"}
    rerun = rerun_arguments(arguments, {"out": "r.jsonl", "explain_json": "e.jsonl"}, fresh, "rules2")
    assert rerun == ["in", "--out", "/tmp/x/out.jsonl", "--explain-json", "/tmp/x/explain_json.jsonl",
                     "--jobs", "2", "--config-dir", "rules2"]  # fmt: skip
