"""The verdicts the live dry run keeps across edits (`lsp/verdicts.py`): after any sequence of edits to
the rules' conditions, ids and order, evaluating with the kept verdicts gives exactly the engine's result,
and a stale run stops testing."""

from __future__ import annotations

import copy
import threading
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine import Evaluator
from evalkit.engine.config import analyze
from evalkit.lsp.verdicts import VerdictCache
from evalkit.services.check.samples import read_samples

REPO = Path(__file__).parents[2]
CONFIG = REPO / "config_samples"
RULES = yaml.safe_load((CONFIG / "rules.yaml").read_text(encoding="utf-8"))
SUBMISSIONS = [s.submission for s in read_samples(REPO / "samples") if s.submission is not None]
WHENS = [
    {"response_contains_any": ["heap", "queue"]},
    {"min_total_length": 0},
    {"max_total_length": 0},
    {"dimension_gt": {"accuracy": 3.5}},
    {"any_of": [{"response_contains_any": ["dijkstra"]}, {"dimension_lt": {"optimality": 3}}]},
]
EDITS = st.tuples(
    st.sampled_from(["when", "swap", "drop", "copy"]), st.integers(0, 50), st.sampled_from(WHENS)
)


def edited(rules: dict[str, Any], edit: tuple[str, int, Any], step: int) -> dict[str, Any]:
    kind, at, when = edit
    rules = copy.deepcopy(rules)
    listed = rules["rating_rules"]
    index = at % len(listed)
    if kind == "when":
        listed[index]["when"] = when
    elif kind == "swap":
        listed[index], listed[-1] = listed[-1], listed[index]
    elif kind == "drop" and len(listed) > 1:
        del listed[index]
    elif kind == "copy":
        listed.append({**copy.deepcopy(listed[index]), "id": f"copy_{step}", "when": when})
    return rules


@settings(max_examples=25, deadline=None)
@given(st.lists(EDITS, min_size=1, max_size=4))
def test_kept_verdicts_give_the_engines_results_after_any_edits(edits: list[tuple[str, int, Any]]) -> None:
    cache, rules = VerdictCache(), RULES
    for step, edit in enumerate(edits):
        rules = edited(rules, edit, step)
        config = analyze(CONFIG, {str(CONFIG / "rules.yaml"): yaml.safe_dump(rules, allow_unicode=True)})
        assert config.ok, config.diagnostics
        evaluate = cache.evaluator(config, SUBMISSIONS, "samples", threading.Event())
        engine = Evaluator(config)
        for submission in SUBMISSIONS:
            assert evaluate(submission).explain() == engine.evaluate(submission).explain()


class EditArrives(threading.Event):
    """Set from its `checks`-th look on: a newer edit arriving while the samples are being tested."""

    def __init__(self, checks: int) -> None:
        super().__init__()
        self.checks = checks

    def is_set(self) -> bool:
        self.checks -= 1
        return self.checks < 0


def test_a_run_stopped_while_testing_leaves_nothing_half_tested() -> None:
    config = analyze(CONFIG)
    cache, engine = VerdictCache(), Evaluator(config)
    stale = cache.evaluator(config, SUBMISSIONS, "samples", EditArrives(3))
    assert stale(SUBMISSIONS[0]).explain() == engine.evaluate(SUBMISSIONS[0]).explain()
    evaluate = cache.evaluator(config, SUBMISSIONS, "samples", threading.Event())  # the next run
    assert [evaluate(s).explain() for s in SUBMISSIONS] == [engine.evaluate(s).explain() for s in SUBMISSIONS]
