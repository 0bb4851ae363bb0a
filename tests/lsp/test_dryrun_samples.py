"""The language server's part of the dry run (`lsp/dryrun.py`) over the shared sample dry run: it stops
between samples when a newer edit makes it stale, and names each sample as the editor shows it."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from evalkit.engine import Evaluator
from evalkit.engine.config import analyze
from evalkit.engine.result import Result
from evalkit.lsp.dryrun import evaluate_samples
from evalkit.services.check.samples import read_samples

REPO = Path(__file__).parents[2]


EVALUATE = Evaluator(analyze(REPO / "config_samples")).evaluate


def stopping(stop: threading.Event) -> Callable[[object], Result]:
    """An evaluation during which a newer edit arrives."""

    def evaluate(submission: object) -> Result:
        stop.set()
        return EVALUATE(submission)

    return evaluate


def test_the_dry_run_stops_between_samples_when_told(tmp_path: Path) -> None:
    for name in ("a.json", "b.json", "c.json"):
        shutil.copy(REPO / "samples" / "sample_submission.json", tmp_path / name)
    samples, stop = read_samples(tmp_path), threading.Event()
    outcomes = evaluate_samples(stopping(stop), samples, tmp_path, stop)
    assert [outcome.source for outcome in outcomes] == ["a.json"]
    assert evaluate_samples(stopping(stop), samples, tmp_path, stop) == []
