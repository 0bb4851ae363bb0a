"""The live impact's base (`lsp/impact.py`): when the saved config is the one the dry run just ran (on
opening, after a save), its results are the dry run's, not worked out a second time; otherwise the base is
evaluated, and either way its results are the engine's."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from evalkit.engine import Evaluator
from evalkit.engine.config import analyze
from evalkit.lsp import dryrun, impact
from evalkit.services.check.samples import read_samples
from evalkit.services.diff.impact import side_of

REPO = Path(__file__).parents[2]


def dry_run(folder: Path, samples_dir: Path, overrides: dict[str, str] | None = None) -> dryrun.DryRunReport:
    config = analyze(folder, overrides)
    samples = read_samples(samples_dir)
    outcomes = dryrun.evaluate_samples(Evaluator(config).evaluate, samples, samples_dir, threading.Event())
    return dryrun.DryRunReport.of(config, samples_dir, outcomes)


def test_the_saved_config_just_dry_run_is_not_evaluated_again(tmp_path: Path) -> None:
    folder = shutil.copytree(REPO / "config_samples", tmp_path / "config")
    samples_dir, samples = REPO / "samples", read_samples(REPO / "samples")
    head = dry_run(folder, samples_dir)
    base = impact.run_base(folder, "saved", samples, "samples", None, head)
    assert all(b is o.snapshot for b, o in zip(base.sides, head.outcomes, strict=True))
    engine = Evaluator(analyze(folder))
    assert list(base.sides) == [side_of(engine, s.submission) for s in samples if s.submission is not None]


def test_an_edited_config_has_its_base_evaluated(tmp_path: Path) -> None:
    folder = shutil.copytree(REPO / "config_samples", tmp_path / "config")
    rules = folder / "rules.yaml"
    edited = rules.read_text(encoding="utf-8").replace("increment_score: 2", "increment_score: 7")
    samples_dir, samples = REPO / "samples", read_samples(REPO / "samples")
    head = dry_run(folder, samples_dir, {str(rules): edited})
    base = impact.run_base(folder, "saved", samples, "samples", None, head)
    engine = Evaluator(analyze(folder))
    assert list(base.sides) == [side_of(engine, s.submission) for s in samples if s.submission is not None]
    assert list(base.sides) != [o.snapshot for o in head.outcomes]
