"""Benchmark `evalkit lsp` through a real client over stdio (pygls's LanguageClient).

It writes a config folder with a 2,000-line rules.yaml and a `samples/` folder beside it into a
temporary directory, starts `python -m evalkit lsp`, and measures what a rule author feels:

- didChange -> published diagnostics: an edit, then the diagnostics for that exact version;
- completion: requests at key and value positions, on a settled document and right after an edit
  (while the folder is being re-checked in the background);
- dry-run lenses: an edit that changes what a rule fires on, until the client has been asked to
  refresh its lenses and the lenses it fetches show the new count (with 4 and with 100 samples);
- live impact: the same with 1,000 samples, until the lenses show the count with its change against the
  saved config (`fires on 1000/1000 samples (+K)`) and the first line's `vs saved: ...` (the pause
  before the re-check and the dry run, `dryRunDelayMs`, is the default 50 ms and is counted); with the
  2,000-line rules.yaml (250 rules) and with ten rules, the shipped config's size.

Run: `.venv/bin/python benchmarks/bench_lsp.py [--edits N] [--completions N] [--lens-edits N]
[--impact-only]`.
The figures are printed as min / median / p95 / max in milliseconds; the lens figures also give the
server's processor time (user + system, from /proc) per edit, which a busy machine swings far less than
the wall clock; `--server-log FILE` also has the server log each re-check's analysis and publishing times.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
RULE_LINES = 2000
# A vocabulary large enough that each rule fires on a minority of samples, as real rules do.
WORDS = [f"term{number:04d}" for number in range(1000)]
DIMENSIONS = ["instructions", "accuracy", "optimality", "presentation", "freshness"]
PROBE_RULE = 7  # the rule whose condition the lens benchmark toggles


# --- the workspace -------------------------------------------------------------------------------


def rule_lines(number: int, rng: random.Random) -> list[str]:
    """Eight lines: one rule with two conditions and two actions, drawn from every kind the schema has."""
    words = json.dumps(rng.sample(WORDS, 2))
    dimension = rng.choice(DIMENSIONS)
    second = rng.choice(
        [
            f"dimension_gt: {{ {dimension}: {rng.choice([2.5, 3.5, 4.5])} }}",
            f"min_total_length: {rng.choice([50, 200, 400])}",
            f"not_contains_any: {json.dumps(rng.sample(WORDS, 1))}",
        ]
    )
    if number == PROBE_RULE:
        second = 'not_contains_any: ["never present"]'  # so that its first condition alone decides
    action = rng.choice(
        [
            f"set_flag: flag_{number % 9}",
            f"increment_score: {rng.choice([1, -1, 2])}",
            f"adjust_dimension: {{ dimension: {dimension}, delta: -0.25 }}",
        ]
    )
    return [
        f"  - id: rule_{number:04d}",
        f"    description: Generated rule {number} for the benchmark.",
        "    when:",
        f"      response_contains_any: {words}",
        f"      {second}",
        "    actions:",
        f'      add_comment: "Rule {number} matched."',
        f"      {action}",
    ]


def rules_text(rng: random.Random, length: int = RULE_LINES) -> str:
    lines = [
        "version: 3",
        "options:",
        "  dedupe_comments: true",
        "  default_label: neutral",
        "decision:",
        "  score_thresholds: { excellent: 5, good: 3, neutral: 0, weak: -1 }",
        "rating_rules:",
    ]
    number = 0
    while len(lines) < length:
        lines += rule_lines(number, rng)
        number += 1
    return "\n".join(lines) + "\n"


def sample(number: int, rng: random.Random) -> dict[str, Any]:
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(10, 40))) + "." for _ in range(2)]
    return {
        "prompt": f"Benchmark prompt {number}",
        "category": "algorithms",
        "subcategory": "graphs",
        "difficulty": "medium",
        "responses": [{"id": "resp_a", "text": texts[0]}, {"id": "resp_b", "text": texts[1]}],
        "ranking": ["resp_b", "resp_a"],
        "ratings": {name: round(rng.uniform(1, 5), 1) for name in DIMENSIONS} | {"justification": ""},
        "rewrite_preferred": " ".join(rng.choices(WORDS, k=20)),
    }


def make_workspace(root: Path, samples: int, length: int = RULE_LINES) -> Path:
    rng = random.Random(2024)
    config = root / "config"
    config.mkdir(parents=True)
    for name in ("dimensions", "ranking", "prompt", "rewrite"):
        shutil.copy(ROOT / "config_samples" / f"{name}.yaml", config)
    (config / "rules.yaml").write_text(rules_text(rng, length), encoding="utf-8")
    folder = root / "samples"
    folder.mkdir()
    for number in range(samples):
        (folder / f"sample_{number:03d}.json").write_text(json.dumps(sample(number, rng)), encoding="utf-8")
    return config / "rules.yaml"


# --- the client ------------------------------------------------------------------------------------


class BenchClient:
    """A pygls client that records when diagnostics (by version) and lens refreshes arrive."""

    def __init__(self, server_log: str | None = None) -> None:
        self.client = LanguageClient("evalkit-bench", "1")
        self.server_args = ["--log-file", server_log, "--verbose"] if server_log else []
        self.published: dict[tuple[str, int | None], float] = {}
        self.refreshes: list[float] = []
        self.arrived = asyncio.Event()  # set on every notification: waiting never polls (polling would
        # take processor time from the server being measured)

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published[(params.uri, params.version)] = time.perf_counter()
            self.arrived.set()

        @self.client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def on_refresh(params: None) -> None:
            self.refreshes.append(time.perf_counter())
            self.arrived.set()

    async def start(self, root: Path, options: dict[str, Any] | None = None) -> None:
        await self.client.start_io(sys.executable, "-m", "evalkit", "lsp", *self.server_args)
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                code_lens=types.CodeLensWorkspaceClientCapabilities(True)
            ),
            text_document=types.TextDocumentClientCapabilities(
                completion=types.CompletionClientCapabilities(
                    completion_item=types.ClientCompletionItemOptions(
                        snippet_support=True, documentation_format=["markdown"]
                    )
                )
            ),
        )
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=capabilities, root_uri=from_fs_path(str(root)), initialization_options=options
            )
        )
        self.client.initialized(types.InitializedParams())

    def server_cpu(self) -> float:
        """The server process's processor time so far (user + system, seconds); 0 where /proc is not."""
        server = self.client._server  # pygls keeps the process it started here
        try:
            fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (AttributeError, OSError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def wait_for(self, check: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.perf_counter() + timeout
        while True:
            self.arrived.clear()
            if check():
                return
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError("the server did not answer in time")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), remaining)


class Document:
    """The open rules.yaml, mirrored here so that each edit can be sent as an incremental change."""

    def __init__(self, bench: BenchClient, path: Path) -> None:
        self.bench, self.uri = bench, from_fs_path(str(path)) or ""
        self.lines = path.read_text(encoding="utf-8").split("\n")
        self.version = 1

    async def open(self) -> None:
        self.bench.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(self.uri, "yaml", self.version, "\n".join(self.lines))
            )
        )
        await self.bench.wait_for(lambda: (self.uri, self.version) in self.bench.published, timeout=30)

    def replace_line(self, number: int, text: str) -> float:
        """Send one incremental change; returns when it was sent."""
        old = self.lines[number]
        self.lines[number] = text
        self.version += 1
        change = types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(number, 0), types.Position(number, len(old))), text=text
        )
        sent = time.perf_counter()
        self.bench.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.version, uri=self.uri), [change]
            )
        )
        return sent


# --- the measurements ----------------------------------------------------------------------------------


def rule_line(rule: int, offset: int) -> int:
    return 7 + rule * 8 + offset  # 7 header lines, then eight lines per rule


async def diagnostics_latency(document: Document, edits: int) -> list[float]:
    timings = []
    for edit in range(edits):
        line = rule_line(100 + edit % 50, 1)
        sent = document.replace_line(line, f"    description: Edited description number {edit}.")
        key = (document.uri, document.version)
        await document.bench.wait_for(lambda key=key: key in document.bench.published)
        timings.append(document.bench.published[key] - sent)
        await asyncio.sleep(0.25)  # a typist's pause: the dry run of the previous edit may run meanwhile
    return timings


# (line in the rule, column, the line's text after an edit): a condition key, an action key, a key and a
# dimension name inside a flow mapping. Every edit keeps the config valid; {n} makes each one a change.
COMPLETION_SPOTS = [
    (3, 6, '      response_contains_any: ["heap", "word{n}"]'),
    (6, 6, '      add_comment: "Edited {n}."'),
    (7, 26, "      adjust_dimension: {{ dimension: accuracy, delta: -0.{n} }}"),
    (7, 37, "      adjust_dimension: {{ dimension: accuracy, delta: -0.{n} }}"),
]


async def completion_latency(document: Document, requests: int, after_edit: bool) -> list[float]:
    timings = []
    for number in range(requests):
        rule = 50 + number % 150
        offset, column, text = COMPLETION_SPOTS[number % len(COMPLETION_SPOTS)]
        line = rule_line(rule, offset)
        if after_edit:
            document.replace_line(line, text.format(n=number + 1))
        started = time.perf_counter()
        result = await document.bench.client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(document.uri), types.Position(line, column))
        )
        timings.append(time.perf_counter() - started)
        if result is None:
            raise RuntimeError("no completion")
        await asyncio.sleep(0.02 if after_edit else 0.005)
    return timings


async def lens_titles(document: Document) -> dict[int, str]:
    lenses = await document.bench.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(document.uri))
    )
    return {lens.range.start.line: lens.command.title for lens in lenses or [] if lens.command}


async def lens_latency(
    document: Document, edits: int, samples: int, cpu: list[float] | None = None
) -> list[float]:
    """Toggle a rule between an always-true and a never-true condition; time until its lens shows it
    (and, in `cpu`, the server's processor time from each edit to the next)."""
    line = rule_line(PROBE_RULE, 3)
    id_line = rule_line(PROBE_RULE, 0)
    await document.bench.wait_for(lambda: bool(document.bench.refreshes), timeout=30)
    timings = []
    for edit in range(edits):
        condition = "min_total_length: 0" if edit % 2 == 0 else "max_total_length: 0"
        before = len(document.bench.refreshes)
        used = document.bench.server_cpu()
        sent = document.replace_line(line, f"      {condition}")
        await document.bench.wait_for(lambda before=before: len(document.bench.refreshes) > before)
        titles = await lens_titles(document)
        expected = f"fires on {samples if edit % 2 == 0 else 0}/{samples} samples"  # then the change, if any
        if not titles.get(id_line, "").startswith(expected):
            raise RuntimeError(f"lens after the edit: {titles.get(id_line)!r}, expected {expected!r}")
        if not any(title.startswith("vs saved: ") for title in await first_line_titles(document)):
            raise RuntimeError("no live impact lens on the first line")
        timings.append(time.perf_counter() - sent)
        await asyncio.sleep(0.3)
        if cpu is not None:
            cpu.append(document.bench.server_cpu() - used)
    return timings


async def first_line_titles(document: Document) -> list[str]:
    lenses = await document.bench.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(document.uri))
    )
    return [lens.command.title for lens in lenses or [] if lens.command and lens.range.start.line == 0]


def figures(name: str, seconds: list[float]) -> str:
    values = sorted(s * 1000 for s in seconds)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (
        f"{name:<44} n={len(values):<4} min {values[0]:6.1f}  median {statistics.median(values):6.1f}  "
        f"p95 {p95:6.1f}  max {values[-1]:6.1f} ms"
    )


async def run_session(
    samples: int,
    measure: Callable[[Document], Awaitable[list[str]]],
    server_log: str | None,
    options: dict[str, Any] | None = None,
    length: int = RULE_LINES,
) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-") as temp:
        root = Path(temp)
        rules = make_workspace(root, samples, length)
        bench = BenchClient(server_log)
        await bench.start(root, options)
        try:
            document = Document(bench, rules)
            await document.open()
            return await measure(document)
        finally:
            await bench.stop()


async def main(args: argparse.Namespace) -> None:
    async def four_samples(document: Document) -> list[str]:
        await asyncio.sleep(1.0)  # let the first dry run finish
        return [
            figures(
                "didChange -> diagnostics (2,000 lines)", await diagnostics_latency(document, args.edits)
            ),
            figures(
                "completion, settled document", await completion_latency(document, args.completions, False)
            ),
            figures(
                "completion, right after an edit", await completion_latency(document, args.completions, True)
            ),
            figures("dry-run lenses refreshed (4 samples)", await lens_latency(document, args.lens_edits, 4)),
        ]

    async def hundred_samples(document: Document) -> list[str]:
        return [
            figures(
                "dry-run lenses refreshed (100 samples)", await lens_latency(document, args.lens_edits, 100)
            )
        ]

    def thousand_samples(name: str) -> Callable[[Document], Awaitable[list[str]]]:
        async def measure(document: Document) -> list[str]:
            cpu: list[float] = []
            wall = await lens_latency(document, args.lens_edits, 1000, cpu)
            return [figures(name, wall), figures("  server processor time per edit", cpu)]

        return measure

    load_before = os.getloadavg()[0]
    lines = []
    if not args.impact_only:
        lines += await run_session(4, four_samples, args.server_log)
        lines += await run_session(100, hundred_samples, args.server_log)
    impact = {"maxSamples": 1000}
    lines += await run_session(
        1000, thousand_samples("live impact lenses (1,000 samples)"), args.server_log, impact
    )
    lines += await run_session(  # a config of the shipped one's size: ten rules
        1000, thousand_samples("live impact lenses (1,000 samples, 10 rules)"), args.server_log, impact, 87
    )
    print(
        f"evalkit lsp benchmark: {RULE_LINES:,}-line rules.yaml, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--completions", type=int, default=120)
    parser.add_argument("--lens-edits", type=int, default=12)
    parser.add_argument("--impact-only", action="store_true", help="only the live impact on 1,000 samples")
    parser.add_argument(
        "--server-log",
        metavar="FILE",
        help="the server logs every message and each re-check's analysis time to FILE",
    )
    asyncio.run(main(parser.parse_args()))
