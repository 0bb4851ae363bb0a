"""What counting positions as the protocol does costs: PyYAML's marks count U+2028, U+2029 and U+0085 as
line breaks, so in a text that has one, every span is computed from a mark's offset
(`engine.positions.LineMap`); in any other, the marks' own line and column are read as before.

On the 2,000-line rules.yaml of bench_lsp.py (and on the same file with a U+2028 in every rule's
`add_comment`), it times `parse_yaml` as a whole, then, on one composed tree, turning every node's marks
into spans from the marks alone (the old way, wrong after a U+2028), from their offsets, and as
`parse_yaml` does now; and `split_lines` against `str.splitlines`.

Run: `.venv/bin/python benchmarks/bench_positions.py [--runs 30]`; figures are medians in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import yaml
from bench_lsp import rules_text

from evalkit.engine.positions import LineMap, split_lines
from evalkit.engine.yamlsource import _Loader, parse_yaml


def median_ms(function: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def marks(root: yaml.Node) -> list[Any]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found += [node.start_mark, node.end_mark]
        if isinstance(node, yaml.MappingNode):
            stack += [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return found


def from_offsets(text: str, every: list[Any]) -> list[tuple[int, int]]:
    lines = LineMap(text)
    return [lines.position(m.index) for m in every]


def as_parse_yaml_does(text: str, every: list[Any]) -> list[tuple[int, int]]:
    lines = LineMap(text)
    return [lines.mark(m) for m in every]


def measure(name: str, text: str, runs: int) -> None:
    every = marks(yaml.compose(text, Loader=_Loader))
    print(f"{name}: {len(split_lines(text)):,} lines, {len(every):,} marks")
    parse = median_ms(lambda: parse_yaml(text, "r"), runs)
    print(f"  parse_yaml                                {parse:7.2f} ms")
    print(
        f"  marks -> (line, column) from their own    "
        f"{median_ms(lambda: [(m.line + 1, m.column + 1) for m in every], runs):7.2f} ms"
    )
    offsets = median_ms(lambda: from_offsets(text, every), runs)
    print(f"  marks -> (line, column) from offsets      {offsets:7.2f} ms")
    print(
        f"  marks -> (line, column) as parse_yaml     "
        f"{median_ms(lambda: as_parse_yaml_does(text, every), runs):7.2f} ms"
    )
    print(f"  split_lines                               {median_ms(lambda: split_lines(text), runs):7.2f} ms")
    print(f"  str.splitlines                            {median_ms(lambda: text.splitlines(), runs):7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    text = rules_text(random.Random(7))
    measure("rules.yaml", text, args.runs)
    measure(
        "with a U+2028 in every add_comment",
        text.replace('add_comment: "Rule', 'add_comment: "\u2028Rule'),
        args.runs,
    )


if __name__ == "__main__":
    main()
