"""Benchmark: each qydomain scorer against a plain pure-Python implementation of the same spec.

Both sides score the same generated inputs and must agree on every score. Targets: unscrambling on
40-sentence plots at least 500 times faster; typos and connections at least as fast. Exits 1 when a target
is missed.

With --rows: CPU µs per row of each data source in bench_score_cli.py's mix (typos with a 150-word passage,
16-word connections, plots of 10 to 40 sentences), for the scorer alone (`score`) and for the whole line as
`evalkit score` handles it (`score_json_line`: parse, validate, score, encode); best of several rounds. Also
plots answered backwards, which score 0 (a pair scored 0 was once split into sentences twice, to say
whether it was too large to score).

With --instructions: the instructions `score_json_line` costs a row of each data source, counted by
valgrind's callgrind (the same from run to run however loaded the machine is): a process scoring 2,000 of
the mix's rows less one scoring 2, over the 1,998 between. Needs valgrind; about a minute.

    .venv/bin/python benchmarks/bench_qydomain.py [--rows | --instructions]
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalkit.qydomain import (
    connections_process_results,
    plot_unscrambling_process_results,
    typos_process_results,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' plain reference
from tests.qydomain.reference import reference_connections, reference_typos, reference_unscrambling

Pair = tuple[str, str]
OUR_ROUNDS = 30
THINKING = "Thinking...\n" * 10
Scorer = Callable[[str, str], float]
Times = tuple[float, float]  # seconds per call: ours, the reference's

# ---------------------------------------------------------------- inputs


def make_words(rng: random.Random, count: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(count)]


def misspell(rng: random.Random, text: str) -> str:
    index = rng.randrange(len(text))
    return text[:index] + text[index + 1 :]


def typos_pairs(rng: random.Random, vocabulary: list[str], count: int, tagged: bool) -> list[Pair]:
    pairs = []
    for _ in range(count):
        passage = " ".join(rng.choice(vocabulary) for _ in range(150))
        fixed = passage if rng.random() < 0.5 else misspell(rng, passage)
        thinking = "Let me fix the typos one by one.\n" * 20
        answer = f"{thinking}<solution>{fixed}</solution>" if tagged else f"Corrected:\n\n{fixed}\n"
        pairs.append((passage, answer))
    return pairs


def connections_pairs(rng: random.Random, vocabulary: list[str], count: int) -> list[Pair]:
    pairs = []
    for _ in range(count):
        words = rng.sample(vocabulary, 16)
        guess = words[:]
        for _ in range(rng.randint(0, 3)):
            i, j = rng.randrange(16), rng.randrange(16)
            guess[i], guess[j] = guess[j], guess[i]
        listed = ", ".join(word.upper() for word in guess)
        form = rng.choice(["<solution>{}</solution>", THINKING + "<solution>{}</solution>", "\\boxed{{{}}}"])
        pairs.append((",".join(words), form.format(listed)))
    return pairs


def sentence(rng: random.Random, vocabulary: list[str]) -> str:
    return " ".join(rng.choice(vocabulary) for _ in range(rng.randint(10, 20))).capitalize()


def unscrambling_pairs(rng: random.Random, vocabulary: list[str], count: int, reworded: float) -> list[Pair]:
    pairs = []
    for _ in range(count):
        plot = [sentence(rng, vocabulary) for _ in range(40)]
        answer = [misspell(rng, sentence) if rng.random() < reworded else sentence for sentence in plot]
        for _ in range(5):
            i, j = rng.randrange(40), rng.randrange(40)
            answer[i], answer[j] = answer[j], answer[i]
        pairs.append((". ".join(plot) + ".", "<PLOT_SUMMARY>" + ". ".join(answer) + ".</PLOT_SUMMARY>"))
    return pairs


# ---------------------------------------------------------------- measuring


def seconds_per_call(scorer: Scorer, pairs: list[Pair]) -> float:
    """CPU seconds per call: unlike wall time, it does not grow with other work on the machine."""
    started = time.process_time()
    for ground_truth, answer in pairs:
        scorer(ground_truth, answer)
    return (time.process_time() - started) / len(pairs)


def best_times(ours: Scorer, reference: Scorer, pairs: list[Pair], reference_rounds: int) -> Times:
    """The best of several runs of each, alternating: interference only ever adds time."""
    fast = slow = float("inf")
    for round_ in range(max(OUR_ROUNDS, reference_rounds)):
        fast = min(fast, seconds_per_call(ours, pairs))
        if round_ < reference_rounds:
            slow = min(slow, seconds_per_call(reference, pairs))
    return fast, slow


def compare(
    name: str, ours: Scorer, reference: Scorer, pairs: list[Pair], target: float, rounds: int
) -> bool:
    """Check that both agree on every pair, then time them; True when `target` speedup is reached."""
    for ground_truth, answer in pairs:
        assert ours(ground_truth, answer) == reference(ground_truth, answer), (name, ground_truth, answer)
    fast, slow = best_times(ours, reference, pairs, rounds)
    speedup = slow / fast
    verdict = "ok" if speedup >= target else f"BELOW TARGET {target:g}x"
    timings = f"ours {fast * 1e6:8.1f} us  reference {slow * 1e6:12.1f} us"
    print(f"{name:<42} {timings}  {speedup:9.1f}x  {verdict}")
    return speedup >= target


def per_row() -> int:
    """CPU µs per row of bench_score_cli.py's rows, per data source: the scorer, and the whole line."""
    import json

    from bench_score_cli import KINDS, make_rows

    from evalkit.qydomain import score
    from evalkit.qydomain.records import score_json_line

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work slows it)")
    rows = make_rows(30_000)
    kinds = {kind: [row for row in rows if row["data_source"] == kind] for kind in KINDS}
    kinds["plot scoring 0"] = scoring_zero(len(kinds["unscrambling"]))
    for name, mine in kinds.items():
        data_source = mine[0]["data_source"]
        lines = [json.dumps(row).encode() for row in mine]
        scorer = best = float("inf")
        for _ in range(7):
            started = time.process_time()
            for row in mine:
                score(data_source, row["model_output"], row["extra_info"])
            scorer = min(scorer, (time.process_time() - started) / len(mine))
            started = time.process_time()
            for line in lines:
                score_json_line(line)
            best = min(best, (time.process_time() - started) / len(mine))
        print(f"{name:<14} scorer {scorer * 1e6:6.1f} us a row   whole line {best * 1e6:6.1f} us a row")
    return 0


def instructions_a_row(count: int = 2000) -> int:
    """Callgrind's count of `score_json_line` a row, per data source (see the module's docstring)."""
    import json
    import shutil
    import subprocess
    import tempfile

    from bench_score_cli import KINDS, make_rows

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("valgrind is not installed (apt-get install valgrind)")
        return 1
    rows = make_rows(30_000)
    kinds = {kind: [row for row in rows if row["data_source"] == kind] for kind in KINDS}
    with tempfile.TemporaryDirectory() as folder:
        for kind, mine in kinds.items():
            counts = []
            for size in (count, 2):
                path = Path(folder) / f"{kind}-{size}.jsonl"
                path.write_text("".join(json.dumps(row) + "\n" for row in mine[:size]), encoding="utf-8")
                done = subprocess.run(
                    [valgrind, "--tool=callgrind", f"--callgrind-out-file={folder}/callgrind.out",
                     sys.executable, __file__, "--score-file", str(path)],
                    check=True, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
                )  # fmt: skip
                counts.append(int(done.stderr.split("refs:")[-1].split()[0].replace(",", "")))
            a_row = (counts[0] - counts[1]) / (count - 2)
            print(f"{kind:<14} score_json_line: {a_row:,.0f} instructions a row")
    return 0


def score_file(path: str) -> int:
    """Scores each line of `path` (the process --instructions counts)."""
    from evalkit.qydomain.records import score_json_line

    for line in Path(path).read_bytes().splitlines(keepends=True):
        score_json_line(line)
    return 0


def scoring_zero(count: int) -> list[dict[str, Any]]:
    """Unscrambling rows whose answer is the plot backwards, an even number of sentences: each scores 0."""
    rng = random.Random(3)
    vocabulary = make_words(rng, 3000)
    rows = []
    for _ in range(count):
        plot = [sentence(rng, vocabulary) for _ in range(2 * rng.randint(5, 20))]
        answer = "<PLOT_SUMMARY>" + ". ".join(reversed(plot)) + ".</PLOT_SUMMARY>"
        rows.append({"data_source": "unscrambling", "extra_info": {"label": ". ".join(plot) + "."},
                     "model_output": answer})  # fmt: skip
    return rows


def main() -> int:
    if "--rows" in sys.argv[1:]:
        return per_row()
    if "--instructions" in sys.argv[1:]:
        return instructions_a_row()
    if sys.argv[1:2] == ["--score-file"]:
        return score_file(sys.argv[2])
    rng = random.Random(20240601)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work slows both sides)")
    vocabulary = make_words(rng, 5000)
    results = [
        compare("typos: <solution> after reasoning", typos_process_results, reference_typos,
                typos_pairs(rng, vocabulary, 200, tagged=True), target=1.0, rounds=7),
        compare("typos: untagged prose", typos_process_results, reference_typos,
                typos_pairs(rng, vocabulary, 50, tagged=False), target=1.0, rounds=3),
        compare("connections: 16 words, tags or boxed", connections_process_results, reference_connections,
                connections_pairs(rng, vocabulary, 300), target=1.0, rounds=7),
        # The reference takes seconds per plot: two plots, timed once.
        compare("unscrambling: 40 sentences, 10% reworded", plot_unscrambling_process_results,
                reference_unscrambling, unscrambling_pairs(rng, vocabulary, 2, reworded=0.1), 500, rounds=1),
        compare("unscrambling: 40 sentences, all reworded", plot_unscrambling_process_results,
                reference_unscrambling, unscrambling_pairs(rng, vocabulary, 2, reworded=1.0), 500, rounds=1),
    ]  # fmt: skip
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
