"""Benchmark `evalkit review` on a large queue: time to a usable screen, and moving to the next submission.

    .venv/bin/python benchmarks/bench_review.py [--count 10000] [--presses 50]

It writes COUNT varied submissions to one JSONL file in a temporary folder, opens the app headless (Textual's
test driver, 120x40) with the shipped config, and reports:

- import: loading Textual and the app's modules (a fresh interpreter pays it once);
- open to usable screen: from reading the config and journal to the first submission drawn with its
  proposals, while the rest of the file is still being read;
- next submission: pressing `j` until the screen is idle again (Pilot's round trip, an upper bound), both
  while the background evaluation is still running and after it finished; and, within that, the app's own
  work (`show`: evaluate if needed, fill the proposals, draw the active tab), the rest being Textual's
  layout and rendering; a key bound to nothing gives Pilot's own round trip. On a shared or throttled
  machine the spread is wide: the minimum is the cost without interference, the median what a busy
  machine gives;
- background: how long reading and evaluating the whole queue takes behind the screen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "sample_submission.json"
WORDS = (
    "heap",
    "cola de prioridad",
    "O(E log V)",
    "Bellman-Ford",
    "pesos negativos",
    "[/INST]",
    "[bold]",
    "{{ x }}",
    "ejemplo",
    "lista",
    "grafo",
    "arista",
    "nodo",
    "distancia",
)


def submissions(count: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    base = json.loads(SAMPLE.read_text(encoding="utf-8"))
    out = []
    for number in range(count):
        texts = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 120))) for _ in range(rng.randint(2, 4))
        ]
        ids = [f"resp_{chr(97 + i)}" for i in range(len(texts))]
        ranking = ids[:]
        rng.shuffle(ranking)
        out.append(
            {
                **base,
                "prompt": f"{base['prompt']} (#{number})",
                "responses": [{"id": i, "text": t} for i, t in zip(ids, texts)],
                "ranking": ranking[: rng.randint(1, len(ranking))],
                "ratings": {
                    **{d: round(rng.uniform(0, 5), 1) for d in base["ratings"] if d != "justification"},
                    "justification": "",
                },
                "rewrite_preferred": " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 40))),
            }
        )
    return out


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import evalkit.tui.app; print(time.perf_counter() - t)"
    return float(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )


async def measure(path: Path, presses: int) -> dict[str, Any]:
    from evalkit.commands.review import open_session
    from evalkit.engine.config import analyze
    from evalkit.tui.app import ReviewApp

    started = time.perf_counter()
    show_times: list[float] = []
    session, journal, _ = open_session(analyze(ROOT / "config_samples"), path.with_suffix(".decisions.jsonl"))
    export = path.with_suffix(".reviewed.jsonl")
    app = ReviewApp(session, [path], journal, export, live_rules=False, blink=False)
    _time_calls(app, "show", show_times)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.first_shown_at is None:
            await pilot.pause(0.005)
        usable = app.first_shown_at - started
        during = [await _press_next(pilot) for _ in range(presses)]
        while app.loading or not session.evaluation_finished:
            await pilot.pause(0.05)
        background = time.perf_counter() - started
        show_times.clear()
        after = [await _press_next(pilot) for _ in range(presses)]
        baseline = [await _press_next(pilot, "f12") for _ in range(presses)]
        loaded = len(session.items)
    return {"usable": usable, "during": during, "after": after, "background": background, "loaded": loaded,
            "show": show_times, "baseline": baseline}


def _time_calls(app: Any, name: str, into: list[float]) -> None:
    """Record how long each call of app.<name> takes (the app's own work, without Textual's rendering)."""
    method = getattr(app, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - started)

    setattr(app, name, timed)


async def _press_next(pilot: Any, key: str = "j") -> float:
    started = time.perf_counter()
    await pilot.press(key)
    return time.perf_counter() - started


def report(figures: dict[str, Any], count: int, imports: float) -> str:
    def spread(values: list[float]) -> str:
        ordered = sorted(values)
        p95 = ordered[max(int(len(ordered) * 0.95) - 1, 0)]
        median, worst = statistics.median(ordered), ordered[-1]
        best = ordered[0]
        return (f"median {median * 1000:.0f} ms, min {best * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
                f"max {worst * 1000:.0f} ms")

    return "\n".join(
        [
            f"submissions:                       {count:,} in one JSONL file ({figures['loaded']:,} read)",
            f"import Textual and the app:        {imports:.2f} s",
            f"open to usable screen:             {figures['usable']:.2f} s",
            f"next submission (evaluating):      {spread(figures['during'])}",
            f"next submission (idle):            {spread(figures['after'])}",
        f"  of which the app's own work:     {spread(figures['show'])}",
        f"a key bound to nothing (baseline): {spread(figures['baseline'])}",
            f"whole queue read and evaluated:    {figures['background']:.1f} s (behind the screen)",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--presses", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch.jsonl"
        path.write_text(
            "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in submissions(args.count)),
            encoding="utf-8",
        )
        imports = import_seconds()
        figures = asyncio.run(measure(path, args.presses))
    print(report(figures, args.count, imports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
