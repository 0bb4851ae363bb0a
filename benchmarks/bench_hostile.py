"""What refusing hostile inputs costs: the billion-laughs YAML file and one just past the node limit parsed
in-process (CPU time, peak traced memory), then each hostile input through the installed `evalkit` command
(wall time, CPU time and peak resident memory of that one process, from wait4): the billion-laughs config,
a template doubling a string with `set`, `eval /dev/zero`, a JSONL file with a 300 MB line (sparse: no disk
spent) and `score /dev/zero`. A plain `evalkit check config_samples` is the baseline; CPU time is the
steadier figure on a busy machine.

Run: `.venv/bin/python benchmarks/bench_hostile.py [--runs 5]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVALKIT = str(Path(sys.executable).parent / "evalkit")
SAMPLE = REPO / "samples" / "sample_submission.json"

BILLION_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{name}: &{name} [{','.join([f'*{previous}'] * 9)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
)


TOO_MANY_NODES = "a:\n" + "- 1\n" * 200_001


def in_process(name: str, text: str, runs: int) -> str:
    from evalkit.engine.yamlsource import parse_yaml

    times = []
    for _ in range(runs):
        started = time.process_time()
        parse_yaml(text, "rules.yaml")
        times.append(time.process_time() - started)
    tracemalloc.start()
    document, diagnostics = parse_yaml(text, "rules.yaml")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert document is None and diagnostics[0].code == "yaml-too-large"
    cpu, label = statistics.median(times) * 1000, f"parse_yaml({name}), in process"
    return f"{label:<44} cpu median {cpu:7.2f} ms   peak traced {peak / 1024:8.1f} KB"


def measured(command: list[str]) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak resident KB and exit status of one run of `command`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, process.returncode


def hostile_commands(folder: Path) -> dict[str, list[str]]:
    laughs = folder / "laughs"
    laughs.mkdir()
    (laughs / "rules.yaml").write_text(BILLION_LAUGHS)
    doubling = folder / "doubling"
    doubling.mkdir()
    template = "{% set a = 'x' %}" + "{% set a = a ~ a %}" * 17 + "{{ a|length }}"
    (doubling / "rules.yaml").write_text(
        "rating_rules:\n  - id: t\n    when: { min_total_length: 0 }\n"
        f"    actions:\n      add_comment_template: {json.dumps(template)}\n"
    )
    huge = folder / "huge.jsonl"
    with open(huge, "wb") as handle:
        handle.write(SAMPLE.read_bytes().replace(b"\n", b"") + b"\n")
        handle.seek(300_000_000, os.SEEK_CUR)
        handle.write(b"\n")
    return {
        "evalkit check config_samples (baseline)": [EVALKIT, "check", "config_samples"],
        "evalkit check <billion laughs>": [EVALKIT, "check", str(laughs)],
        "evalkit check <set a = a ~ a, x17>": [EVALKIT, "check", str(doubling)],
        "evalkit eval /dev/zero": [EVALKIT, "eval", "/dev/zero"],
        "evalkit eval <JSONL with a 300 MB line>": [EVALKIT, "eval", str(huge)],
        "evalkit score /dev/zero": [EVALKIT, "score", "/dev/zero"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(in_process("billion laughs", BILLION_LAUGHS, max(args.runs, 20)))
    print(in_process("200,001 nodes", TOO_MANY_NODES, args.runs))
    with tempfile.TemporaryDirectory() as temp:
        for name, command in hostile_commands(Path(temp)).items():
            runs = [measured(command) for _ in range(args.runs)]
            wall, cpu, rss, status = (statistics.median(values) for values in zip(*runs, strict=True))
            print(
                f"{name:<44} wall median {wall * 1000:6.0f} ms   cpu median {cpu * 1000:6.0f} ms   "
                f"peak RSS {rss / 1024:6.1f} MB   exit {status:.0f}"
            )


if __name__ == "__main__":
    main()
