"""Signed results' figures (issue 27), each against an anchor measured in the same run, the cases taking
turns run by run, wall clock and CPU time (user + system) side by side:

    .venv/bin/python benchmarks/bench_sign.py [--runs 20] [--gigabytes 1] [--against REV] [--parts 123]

1. Cold start: an unsigned `evalkit eval FILE` imports nothing of signing; with `--against REV` (e.g. main)
   its start is compared with that revision's, both installed from wheels (bench_startup's install_wheel).
2. What `--sign` adds to a run: `evalkit eval samples --out R` with and without `--sign KEY`, alternated
   with a bare `python -c pass` and `python -c 'import cryptography.hazmat.bindings._rust'` (the anchor:
   what loading cryptography's native module alone costs); the difference of the medians (the issue asks
   for at most 10 ms, plus a TSA's round trip). Then where it goes: each import and step of signing timed
   in fresh processes after eval's imports.
3. `evalkit verify` of a results file of N GB (default 1): MB/s of the whole command, beside `sha256sum` of
   the same file as the anchor (the issue asks for at least 400 MB/s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_startup import install_wheel, timed_runs

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"


def _medians(runs: tuple[list[float], list[float]]) -> tuple[float, float]:
    return statistics.median(runs[0]), statistics.median(runs[1])


def _line(label: str, runs: tuple[list[float], list[float]]) -> tuple[float, float]:
    wall, cpu = _medians(runs)
    print(
        f"  {label}: wall median {wall * 1000:.1f} ms, CPU median {cpu * 1000:.1f} ms ({len(runs[0])} runs)"
    )
    return wall, cpu


def cold_start(runs: int, against: str | None, folder: Path, env: dict[str, str]) -> None:
    command = ["eval", "samples/sample_submission.json", "--out", "/dev/null"]
    cases = [("this tree, unsigned eval (editable .venv)", [str(BIN / "evalkit"), *command], env)]
    if against:
        this = install_wheel(folder / "this")
        other = install_wheel(folder / "against", against)
        cases = [
            (f"{against}'s unsigned eval (wheel)", [str(other / "evalkit"), *command], env),
            ("this tree's unsigned eval (wheel)", [str(this / "evalkit"), *command], env),
        ]
    print("1. cold start of an unsigned `evalkit eval FILE`:", flush=True)
    times = timed_runs(cases, runs)
    anchor = _line(cases[0][0], times[0])
    for (label, _, _), measured in zip(cases[1:], times[1:], strict=True):
        wall, cpu = _line(label, measured)
        print(f"    ratio to the anchor: wall {wall / anchor[0]:.3f}, CPU {cpu / anchor[1]:.3f}")


def signing_cost(runs: int, folder: Path, env: dict[str, str]) -> None:
    subprocess.run([str(BIN / "evalkit"), "keygen", "--out", str(folder / "bench")], check=True, env=env,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    plain = [str(BIN / "evalkit"), "eval", "samples", "--out", str(folder / "r.jsonl")]
    signed = [*plain[:-1], str(folder / "s.jsonl"), "--sign", str(folder / "bench.key")]
    python = str(BIN / "python")
    print("2. what --sign adds to `evalkit eval samples` (31 submissions):", flush=True)
    cases = [
        ("unsigned (the floor)", plain, env),
        ("--sign KEY", signed, env),
        ("bare `python -c pass`", [python, "-c", "pass"], env),
        ("`python -c 'import cryptography.hazmat.bindings._rust'`", [python, "-c", _RUST], env),
    ]
    times = timed_runs(cases, runs)
    unsigned, with_sign, bare, rust = (
        _line(label, measured) for (label, _, _), measured in zip(cases, times, strict=True)
    )
    print(
        f"    --sign adds {(with_sign[0] - unsigned[0]) * 1000:.1f} ms wall, "
        f"{(with_sign[1] - unsigned[1]) * 1000:.1f} ms CPU (medians' difference); loading cryptography's "
        f"native module alone costs {(rust[0] - bare[0]) * 1000:.1f} ms wall, "
        f"{(rust[1] - bare[1]) * 1000:.1f} ms CPU"
    )
    signing_breakdown(runs, folder, env)


_RUST = "import cryptography.hazmat.bindings._rust"
_BREAKDOWN = """
import sys, time
from pathlib import Path
import evalkit.commands._eval_run  # what an eval has imported by the time it signs
stages, last = [], time.process_time()
def stage(name):
    global last
    now = time.process_time()
    stages.append(f"{name}={now - last}")
    last = now
import cryptography.hazmat.bindings._rust
stage("cryptography's native module")
from cryptography.hazmat.primitives.asymmetric import ec
stage("its ec module")
from cryptography.hazmat.primitives import hashes
ec.ECDSA(hashes.SHA256())
stage("its OpenSSL backend (ECDSA() imports it)")
from cryptography.hazmat.primitives import serialization
stage("its serialization (PEM keys; it imports its SSH module)")
from evalkit.commands._signing import config_folder, expanded
from evalkit.services.signing import summaries
from evalkit.services.signing.sign import prepare, signed_bundle
from evalkit.services.signing.statement import RunRecord, statement
from evalkit.services.outputs.atomic import write_text_atomic
import json
stage("evalkit's signing modules")
results = Path(sys.argv[2])
signer = prepare(sys.argv[1], None, [str(results)])
stage("reading the key")
record = RunRecord("eval", [], {"out": str(results)}, config_folder(None))
record.inputs = expanded(["samples"])()
stage("listing the inputs again")
record.summary = summaries.results(results)
stage("the summary (results read again)")
payload = json.dumps(statement(record, results.parent), separators=(",", ":")).encode()
stage("the statement (every digest)")
document = signed_bundle(signer.key, None, payload)
stage("the signature")
write_text_atomic(signer.bundle, json.dumps(document, indent=2) + "\\n")
stage("writing the bundle (fsync)")
print("\\n".join(stages))
"""


def signing_breakdown(runs: int, folder: Path, env: dict[str, str]) -> None:
    """In fresh processes after eval's imports, the CPU of each step of signing. Each import stage counts
    what the stages before it had not loaded: cryptography's serialization comes last, so its line is what
    it adds to what signing cannot do without (the native module, ec, and the backend ECDSA imports); a
    run imports it first, which moves time between the lines, not their sum."""
    stages: dict[str, list[float]] = {}
    for _ in range(runs):
        done = subprocess.run(
            [str(BIN / "python"), "-c", _BREAKDOWN, str(folder / "bench.key"), str(folder / "s.jsonl")],
            check=True, env=env, capture_output=True, text=True, cwd=ROOT,
        )  # fmt: skip
        for line in done.stdout.splitlines():
            name, _, seconds = line.rpartition("=")
            stages.setdefault(name, []).append(float(seconds))
    medians = {name: statistics.median(values) * 1000 for name, values in stages.items()}
    print(
        f"    in process, after eval's imports ({runs} runs, CPU medians; "
        f"total {sum(medians.values()):.1f} ms):"
    )
    for name, value in medians.items():
        print(f"      {value:5.1f} ms  {name}")


def _big_results(path: Path, gigabytes: float) -> None:
    line = (ROOT / "samples" / "sample_submission.json").read_bytes().replace(b"\n", b" ") + b"\n"
    block = line * max(1, (8 << 20) // len(line))
    with path.open("wb") as handle:
        while handle.tell() < gigabytes * (1 << 30):
            handle.write(block)


def verify_speed(gigabytes: float, runs: int, folder: Path, env: dict[str, str]) -> None:
    results = folder / "big.jsonl"
    _big_results(results, gigabytes)
    key = folder / "bench.key"
    subprocess.run([str(BIN / "python"), "-c", _SIGN_ONE, str(key), str(results)], check=True, env=env)
    size = results.stat().st_size / 1e6
    verify = [str(BIN / "evalkit"), "verify", f"{results}.sigstore.json", "--key", str(folder / "bench.pub")]
    cases = [("sha256sum (anchor)", ["sha256sum", str(results)], env), ("evalkit verify", verify, env)]
    print(f"3. verifying a {size:.0f} MB results file:", flush=True)
    times = timed_runs(cases, runs, warmup=1)
    for (label, _, _), measured in zip(cases, times, strict=True):
        wall, cpu = _line(label, measured)
        print(f"    {size / wall:.0f} MB/s wall, {size / cpu:.0f} MB/s CPU")


_SIGN_ONE = """
import sys
from pathlib import Path
from evalkit.services.signing.sign import prepare, sign_run
from evalkit.services.signing.statement import RunRecord
signer = prepare(sys.argv[1], None, [sys.argv[2]])
sign_run(signer, RunRecord(command="eval", arguments=[], outputs={"out": sys.argv[2]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--parts", default="123", help="which figures to measure (default 123: all three)")
    parser.add_argument(
        "--against", metavar="REV", help="compare the cold start with this revision's (wheels)"
    )
    args = parser.parse_args()
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "EVALKIT_KEY_PASSWORD")
    }
    os.chdir(ROOT)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-sign-") as temporary:
        folder = Path(temporary)
        env["XDG_CACHE_HOME"] = str(folder / "cache")
        if "1" in args.parts:
            cold_start(args.runs, args.against, folder, env)
        if "2" in args.parts or "3" in args.parts:
            signing_cost(args.runs if "2" in args.parts else 1, folder, env)
        if "3" in args.parts:
            verify_speed(args.gigabytes, max(3, args.runs // 4), folder, env)
    print(f"({time.monotonic() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
