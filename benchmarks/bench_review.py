"""Benchmark `evalkit review` on a large queue: time to a usable screen, and moving to the next submission.

    .venv/bin/python benchmarks/bench_review.py [--count 10000] [--presses 50]

It writes COUNT varied submissions to one JSONL file in a temporary folder, opens the app headless (Textual's
test driver, 120x40) with the shipped config, and reports:

- import: loading Textual and the app's modules (a fresh interpreter pays it once);
- open to usable screen: from reading the config and journal to the first submission drawn with its
  proposals, while the rest of the file is still being read;
- next submission, what the reviewer sees: `j` is posted to the app as the terminal driver posts it, and
  the frames the app draws are timed (`App._display` runs once per frame, headless too). "drawn" is the
  first frame showing the next submission; "settled" is the last frame before the screen stays unchanged
  for 100 ms;
- within that, the app's own work (`show`: evaluate if needed, fill the proposals, draw the active tab),
  the rest being Textual's layout and rendering;
- Pilot's round trip for `j` (`await pilot.press`, the figure earlier versions reported): an upper bound,
  since Pilot waits for the process to look idle in 20 ms sleeps; a key bound to nothing gives that
  overhead alone;
- background: how long reading and evaluating the whole queue takes behind the screen.

Moves are measured idle (the whole queue evaluated), then while the background evaluation runs: the rules
are reloaded whenever it finishes, so the app evaluates the queue again, and each press waits until the
evaluation, which pauses while the reviewer moves, has resumed. On a shared or throttled machine the
spread is wide: the minimum is the cost without interference, the median what a busy machine gives.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "sample_submission.json"
QUIET = 0.1  # the screen has settled once no frame was drawn for this long
GIVE_UP = 5.0  # a press that draws nothing for this long is a failure
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
                "responses": [{"id": i, "text": t} for i, t in zip(ids, texts, strict=False)],
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


@dataclass
class Moves:
    """Timings of repeated presses of `j`, in seconds."""

    drawn: list[float] = field(default_factory=list)  # key posted -> first frame with the next submission
    settled: list[float] = field(default_factory=list)  # key posted -> last frame before the screen rests
    pilot: list[float] = field(default_factory=list)  # `await pilot.press("j")`
    show: list[float] = field(default_factory=list)  # the app's own work, per `show` call


class Frames:
    """When the app drew each frame and when each `show` call ended, by wrapping the two methods."""

    def __init__(self, app: Any) -> None:
        self.frames: list[float] = []
        self.shows: list[float] = []
        self.show_seconds: list[float] = []
        _wrap(app, "_display", lambda started: self.frames.append(time.perf_counter()))
        _wrap(app, "show", self._showed)

    def _showed(self, started: float) -> None:
        self.shows.append(time.perf_counter())
        self.show_seconds.append(self.shows[-1] - started)

    def drawn(self) -> float:
        """When the first frame after the first `show` was drawn (infinity before it is)."""
        shown = self.shows[0] if self.shows else math.inf
        return next((frame for frame in self.frames if frame >= shown), math.inf)

    def settled(self) -> bool:
        """The next submission was drawn and no frame came for QUIET seconds since the last one."""
        return self.drawn() < math.inf and time.perf_counter() - self.frames[-1] >= QUIET

    def clear(self) -> None:
        self.frames.clear()
        self.shows.clear()


def _wrap(app: Any, name: str, after: Callable[[float], None]) -> None:
    """Call `after(started)` each time app.<name> returns."""
    method = getattr(app, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            after(started)

    setattr(app, name, wrapped)


async def measure(path: Path, presses: int) -> dict[str, Any]:
    from evalkit.commands.review import open_session
    from evalkit.engine.config import analyze
    from evalkit.tui.app import INTERACTION_PAUSE, ReviewApp

    started = time.perf_counter()
    config = analyze(ROOT / "config_samples")
    session, journal, _ = open_session(config, path.with_suffix(".decisions.jsonl"))
    export = path.with_suffix(".reviewed.jsonl")
    app = ReviewApp(session, [path], journal, export, live_rules=False, blink=False)
    frames = Frames(app)
    during, idle = Moves(), Moves()

    def keep_evaluating() -> None:
        """Once the queue is evaluated, reload the rules: the app evaluates the whole queue again."""
        if session.evaluation_finished:
            app.post_message(ReviewApp.ConfigChanged(config))

    async with app.run_test(size=(120, 40)) as pilot:
        while app.first_shown_at is None:
            await pilot.pause(0.005)
        usable = app.first_shown_at - started
        while app.loading or not session.evaluation_finished:
            await pilot.pause(0.05)
        background = time.perf_counter() - started
        await _moves(app, pilot, frames, presses, idle, lambda: None, 0.0)
        # while the reviewer moves the evaluation sleeps in steps of INTERACTION_PAUSE: after two it runs
        await _moves(app, pilot, frames, presses, during, keep_evaluating, 2 * INTERACTION_PAUSE)
        baseline = [await _pilot_press(pilot, "f12") for _ in range(presses)]
        loaded = len(session.items)
    return {
        "usable": usable,
        "during": during,
        "idle": idle,
        "background": background,
        "loaded": loaded,
        "baseline": baseline,
    }


async def _moves(
    app: Any, pilot: Any, frames: Frames, presses: int, into: Moves, before: Callable[[], None], rest: float
) -> None:
    """Press `j` `presses` times each way (watched, then by Pilot); before each, `before()` and a rest."""
    frames.show_seconds.clear()
    for _ in range(presses):
        before()
        await asyncio.sleep(rest)
        drawn, settled = await _watched_press(app, frames)
        into.drawn.append(drawn)
        into.settled.append(settled)
        before()
        await asyncio.sleep(rest)
        into.pilot.append(await _pilot_press(pilot))
    into.show = frames.show_seconds[:]


async def _watched_press(app: Any, frames: Frames) -> tuple[float, float]:
    """Post `j` and wait until the screen rests: seconds to the first frame after `show`, to the last one."""
    from textual import events

    frames.clear()
    key = events.Key("j", "j")
    key.set_sender(app)
    started = time.perf_counter()
    app.post_message(key)
    while not frames.settled():
        if time.perf_counter() - started > GIVE_UP:
            raise RuntimeError(f"no frame showed the next submission within {GIVE_UP} s")
        await asyncio.sleep(0.005)
    return frames.drawn() - started, frames.frames[-1] - started


async def _pilot_press(pilot: Any, key: str = "j") -> float:
    started = time.perf_counter()
    await pilot.press(key)
    return time.perf_counter() - started


def report(figures: dict[str, Any], count: int, imports: float) -> str:
    def spread(values: list[float]) -> str:
        ordered = sorted(values)
        p95 = ordered[max(int(len(ordered) * 0.95) - 1, 0)]
        median, worst = statistics.median(ordered), ordered[-1]
        best = ordered[0]
        return (
            f"median {median * 1000:.0f} ms, min {best * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {worst * 1000:.0f} ms"
        )

    lines = [
        f"submissions:                       {count:,} in one JSONL file ({figures['loaded']:,} read)",
        f"import Textual and the app:        {imports:.2f} s",
        f"open to usable screen:             {figures['usable']:.2f} s",
    ]
    for name, moves in (("evaluating", figures["during"]), ("idle", figures["idle"])):
        lines += [
            f"next submission ({name}):",
            f"  key to next submission drawn:    {spread(moves.drawn)}",
            f"  key to screen settled:           {spread(moves.settled)}",
            f"  of which the app's own work:     {spread(moves.show)}",
            f"  Pilot round trip (upper bound):  {spread(moves.pilot)}",
        ]
    lines += [
        f"Pilot round trip, key bound to nothing: {spread(figures['baseline'])}",
        f"whole queue read and evaluated:    {figures['background']:.1f} s (behind the screen)",
    ]
    return "\n".join(lines)


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
