"""diff/impact.py: laws of a comparison. A config compared with itself changes nothing; swapping the sides
mirrors every change (transitions reversed, flags gained become lost, counts swapped); the sums agree with
the changes listed."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine.config import analyze
from evalkit.engine.submission import DIMENSIONS, parse_submission
from evalkit.services.diff.impact import DiffReport, DiffRunner, ItemDiff, Unchanged
from evalkit.services.diff.render import indented_json, json_text
from evalkit.services.inputs.read import read_inputs

ROOT = Path(__file__).parents[2]
BASE = analyze(ROOT / "config_samples")
RULES = (ROOT / "config_samples" / "rules.yaml").read_text(encoding="utf-8")
EDITS = [
    ("max_total_length: 80", "max_total_length: 400"),
    ("increment_score: 2\n", "increment_score: 4\n"),
    ("good: 3", "good: 1"),
    ("dimension_lt: { optimality: 2.5 }", "dimension_lt: { optimality: 4.5 }"),
    ("  - id: very_short_answers", "  - id: very_short_renamed"),
]
SAMPLES = [s.data for s in read_inputs([ROOT / "samples"]) if s.submission is not None]


def head_with(edits: list[tuple[str, str]]) -> Any:
    text = RULES
    for old, new in edits:
        text = text.replace(old, new, 1)
    config = analyze(ROOT / "config_samples", {str(ROOT / "config_samples" / "rules.yaml"): text})
    assert config.plan is not None
    return config


submissions = st.builds(
    lambda data, ratings: {**data, "ratings": {**data["ratings"], **ratings}},
    st.sampled_from(SAMPLES).map(copy.deepcopy),
    st.dictionaries(st.sampled_from(sorted(DIMENSIONS)), st.sampled_from([1.0, 2.0, 3.5, 4.6, 5.0])),
)
edit_sets = st.lists(st.sampled_from(EDITS), min_size=1, max_size=3, unique=True)


def report(base: Any, head: Any, corpus: list[dict[str, Any]]) -> DiffReport:
    runner = DiffRunner(base, head)
    out = DiffReport.between(base, head, "base", "head")
    return out.add_all(runner.compare(f"s{i}", parse_submission(data)) for i, data in enumerate(corpus))


@settings(max_examples=40, deadline=None)
@given(st.lists(submissions, min_size=1, max_size=8))
def test_a_config_compared_with_itself_changes_nothing(corpus: list[dict[str, Any]]) -> None:
    found = report(BASE, BASE, corpus)
    assert found.changed == 0 and found.to_dict()["changes"] == []
    assert all(entry["base"] == entry["head"] for entry in found.rule_counts().values())


@settings(max_examples=40, deadline=None)
@given(st.lists(submissions, min_size=1, max_size=8), edit_sets)
def test_swapping_the_sides_mirrors_the_report(corpus: list[dict[str, Any]], edits: list[Any]) -> None:
    head = head_with(edits)
    forward, backward = report(BASE, head, corpus).to_dict(), report(head, BASE, corpus).to_dict()
    assert forward["changed"] == backward["changed"]
    assert forward["labels"] == {" -> ".join(k.split(" -> ")[::-1]): n for k, n in backward["labels"].items()}
    assert forward["flags"] == {
        f: {"gained": v["lost"], "lost": v["gained"]} for f, v in backward["flags"].items()
    }
    for rule, counts in forward["rules"].items():
        assert (backward["rules"][rule]["base"], backward["rules"][rule]["head"]) == (
            counts["head"],
            counts["base"],
        )
    for one, other in zip(forward["changes"], backward["changes"], strict=True):
        assert one["source"] == other["source"]
        assert {k: v[::-1] for k, v in one.items() if k not in ("source", "corrected_ratings")} == {
            k: v for k, v in other.items() if k not in ("source", "corrected_ratings")
        }


@settings(max_examples=40, deadline=None)
@given(st.lists(submissions, min_size=1, max_size=8), edit_sets)
def test_the_sums_agree_with_the_changes(corpus: list[dict[str, Any]], edits: list[Any]) -> None:
    found = report(BASE, head_with(edits), corpus).to_dict()
    changes = found["changes"]
    assert sum(found["labels"].values()) == sum("label" in c for c in changes)
    assert sum(found["scores"].values()) == sum("score" in c for c in changes)
    for dimension, sums in found["dimensions"].items():
        assert sums["changed"] == sum(dimension in c.get("corrected_ratings", {}) for c in changes)
    for rule, counts in found["rules"].items():
        fired = [c["fired_rules"] for c in changes if "fired_rules" in c]
        gained = sum(rule in after and rule not in before for before, after in fired)
        lost = sum(rule in before and rule not in after for before, after in fired)
        assert (counts["head"] or 0) - (counts["base"] or 0) == gained - lost


def test_a_worker_sends_an_unchanged_submission_as_its_fired_rules_alone() -> None:
    from evalkit.services.run.batch import RawItem

    runner = DiffRunner(BASE, head_with([EDITS[0]]))
    sample = (ROOT / "samples" / "sample_submission.json").read_text(encoding="utf-8")
    assert runner.run(RawItem("seed", sample, ".json")) == Unchanged(
        (
            "lower_accuracy_if_no_example",
            "scoring_positive_signal",
            "optimality_or_accuracy_guard",
            "complexity_in_rewrite",
            "close_rewrite_with_period",
        )
    )
    short = (ROOT / "samples" / "13_markup_1.json").read_text(encoding="utf-8")
    changed = runner.run(RawItem("short", short, ".json"))
    assert isinstance(changed, ItemDiff) and changed.to_dict()["label"] == ["neutral", "needs_review"]
    assert runner.run(RawItem("bad", "{", ".json")) == ItemDiff(
        "bad", *["invalid JSON at column 2: Expecting property name enclosed in double quotes"] * 2
    )


def test_markdown_lists_the_first_hundred_changes_and_counts_the_rest() -> None:
    from evalkit.services.diff.render import markdown

    short = next(data for data in SAMPLES if data["prompt"].startswith("Repeat exactly: [/INST]"))
    found = report(BASE, head_with([EDITS[0]]), [short] * 130)
    assert found.changed == 130
    text = markdown(found)
    assert text.count("| label | neutral → needs\\_review |") == 100  # text escaped for Markdown
    assert "… and 30 more (`--format json` lists them all)" in text
    assert "<summary>Changed submissions (130)</summary>" in text


def test_markdown_shows_what_a_submission_holds_as_text() -> None:
    from evalkit.services.diff.render import markdown

    head = head_with([("max_total_length: 80", "max_total_length: 400")])
    runner = DiffRunner(BASE, head)
    hostile = "![x](http://tracker.invalid/p.png) <img src=x> | *bold* `code`"
    out = DiffReport.between(BASE, head, "main|`x`", "head")
    out = out.add_all(runner.compare(hostile, parse_submission(data)) for data in SAMPLES)
    assert out.changed > 0
    page = markdown(out)
    for raw in ("![x](", "<img", "*bold*", " | *", "`code`"):
        assert raw not in page
    # a bare URL is broken by a zero-width space so that no renderer links it (issue #30 point 2)
    shown = "\\!\\[x\\](http:\u200b//tracker.invalid/p.png) &lt;img src=x&gt; \\| \\*bold\\* \\`code\\`"
    assert shown in page
    assert "`` main\\|`x` ``" in page  # a ref stays code, its bar escaped for the table


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_the_json_writer_indents_as_the_json_module_does(value: Any) -> None:
    assert "".join(indented_json(value, "")) == json.dumps(value, ensure_ascii=False, indent=2)


@settings(max_examples=30, deadline=None)
@given(st.lists(submissions, max_size=6), edit_sets)
def test_the_json_report_is_the_report_indented_with_each_change_on_one_line(
    corpus: list[dict[str, Any]], edits: list[Any]
) -> None:
    found = report(BASE, head_with(edits), corpus).to_dict()
    written = json_text(report(BASE, head_with(edits), corpus))
    changes = found.pop("changes")
    assert json.loads(written) == {**found, "changes": changes}
    assert written.startswith(json.dumps(found, ensure_ascii=False, indent=2)[: -len("\n}")] + ",\n")
    lines = written.splitlines()
    listed = lines[lines.index('  "changes": [') + 1 : -2] if changes else []
    assert listed == [f"    {json.dumps(c, ensure_ascii=False)}," for c in changes[:-1]] + [
        f"    {json.dumps(c, ensure_ascii=False)}" for c in changes[-1:]
    ]
    assert written.endswith("  ]\n}\n" if changes else '  "changes": []\n}\n')
