"""What showing untrusted text costs: `shown_as(text)` (engine/untrusted_text.py, every terminal output's
escaping) against `shown(text)` (engine/text.py, the byte escaping every output did before), in the same
run, alternated, CPU time; over the lines a check prints and the names and texts a diff shows (plain
ASCII, accented text, and hostile text holding control characters).

Run: `.venv/bin/python benchmarks/bench_untrusted_text.py [--rounds 7]`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from evalkit.engine.config import analyze
from evalkit.engine.text import shown
from evalkit.engine.untrusted_text import shown_as

REPO = Path(__file__).resolve().parents[1]


def corpus() -> dict[str, list[str]]:
    rules = (REPO / "config_samples" / "rules.yaml").read_text(encoding="utf-8").splitlines()
    config = analyze(REPO / "config_samples")
    names = [str(path) for path in sorted((REPO / "samples").iterdir())]
    plain = [line for line in rules + names if line.isascii()] + [f"{config.folder}/rules.yaml:1:1: ok"]
    return {
        "ascii": plain * 200,
        "accented": [line for line in rules if not line.isascii()] * 400,
        "hostile": [f"x\x1b]52;c;SGk=\x07{line}\r::error::y" for line in rules] * 100,
    }


def cpu(function: Callable[[str], str], texts: list[str]) -> float:
    start = time.process_time()
    for text in texts:
        function(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    for kind, texts in corpus().items():
        anchor, measured = [], []
        for _ in range(rounds):  # alternated, so that a slower moment of the machine hits both
            anchor.append(cpu(shown, texts))
            measured.append(cpu(shown_as, texts))
        per_anchor = statistics.median(anchor) / len(texts) * 1e9
        per_measured = statistics.median(measured) / len(texts) * 1e9
        print(
            f"{kind:9} {len(texts):6} texts: shown {per_anchor:6.0f} ns, "
            f"shown_as {per_measured:6.0f} ns a text "
            f"(x{per_measured / per_anchor:.2f}; spread {min(measured) / len(texts) * 1e9:.0f}-"
            f"{max(measured) / len(texts) * 1e9:.0f} ns)"
        )


if __name__ == "__main__":
    main()
