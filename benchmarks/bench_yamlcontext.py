"""Benchmark the language server's text index (lsp/yamlcontext.py's StructureIndex), which every
completion, hover and code lens reads and which is rebuilt from the first changed line after each edit.

It indexes two long rules files whole (the cost of opening one, or of an edit on its first line): the
language server tests' rules.yaml (block style, with one-line flow values such as `{ accuracy: 4.5 }`)
and the same rules in flow style (`- {id: a, when: {...}, actions: {...}}`, a rule over several lines),
each repeated to about 10,000 lines. It prints the processor time (best of N: the machine may be busy)
and, with `--against REV`, the same for the module as it was at that git revision, side by side.

Run: `.venv/bin/python benchmarks/bench_yamlcontext.py [--runs N] [--against REV]`.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
BLOCK = ROOT / "tests" / "lsp" / "fixtures" / "project" / "config" / "rules.yaml"
FLOW_RULE = (
    "  - {id: rule_N, description: A rule in flow style., when: {preferred_rewrite_missing_substring: "
    '["ejemplo", "example"], dimension_gt: {accuracy: 4.5}}, actions: {adjust_dimension: {dimension: '
    "accuracy, delta: -0.5}, set_flag: low_accuracy}}\n"
    "  - {\n      id: rule_N_b,  # a rule over several lines\n"
    '      when: {response_contains_any: ["negative weight"], not_contains_any: ["Bellman-Ford"]},\n'
    "      actions: {set_flag: low_accuracy, assign_label: needs_review}\n    }\n"
)
LINES = 10_000


def block_lines() -> list[str]:
    lines = BLOCK.read_text(encoding="utf-8").splitlines()
    return (lines * (LINES // len(lines) + 1))[:LINES]


def flow_lines() -> list[str]:
    rules = "".join(FLOW_RULE.replace("_N", f"_{n}") for n in range(LINES // 7))
    return ["version: 2", "rating_rules:", *rules.splitlines()]


def module_at(revision: str | None) -> ModuleType:
    """lsp/yamlcontext.py as it is in the worktree, or as it was at `revision`."""
    source = ROOT / "lsp" / "yamlcontext.py"
    if revision is not None:
        text = subprocess.run(
            ["git", "show", f"{revision}:lsp/yamlcontext.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        source = Path(tempfile.mkdtemp()) / "yamlcontext.py"
        source.write_text(text, encoding="utf-8")
    name = f"yamlcontext_{revision or 'worktree'}"
    spec = importlib.util.spec_from_file_location(name, source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def cpu_ms(module: ModuleType, lines: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        _ = module.StructureIndex(lines).keys
        best = min(best, time.process_time() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--against", metavar="REV", help="also measure the module at this git revision")
    args = parser.parse_args()
    modules = {"worktree": module_at(None)}
    if args.against:
        modules[args.against] = module_at(args.against)
    for title, lines in (("block style", block_lines()), ("flow style", flow_lines())):
        figures = ", ".join(f"{name} {cpu_ms(m, lines, args.runs):.1f} ms" for name, m in modules.items())
        print(f"{title}, {len(lines):,} lines, CPU best of {args.runs}: {figures}")


if __name__ == "__main__":
    main()
