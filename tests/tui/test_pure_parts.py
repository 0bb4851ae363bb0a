"""The small pure modules: the filter language, edit parsing, result changes, rendering, atomic export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalkit.engine.config import Config
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.submission import parse_submission
from evalkit.tui import filters, render
from evalkit.tui.changes import result_changes
from evalkit.tui.edits import EditError, edit_text, parse_edit
from evalkit.tui.export import write_jsonl_atomic
from evalkit.tui.proposals import LABEL, RANKING, RATING, Proposal, format_value, proposals_of


def row(index: int = 0, **fields: Any) -> filters.Row:
    base = {
        "status": "pending",
        "label": "good",
        "score": 1.0,
        "flags": frozenset({"low_accuracy"}),
        "haystack": "a.json\nexplain dijkstra",
        "evaluated": True,
    }
    return filters.Row(index, **{**base, **fields})


def test_query_terms_words_and_negation() -> None:
    query = filters.parse_query("label:Good -flag:too_short Dijkstra status:pend mystery:1")
    assert [(t.key, t.value, t.negate) for t in query.terms] == [
        ("label", "good", False),
        ("flag", "too_short", True),
        ("status", "pend", False),
    ]
    assert query.words == ("dijkstra",) and query.unknown == ("mystery:1",)
    assert filters.matches(query, row())
    assert not filters.matches(query, row(flags=frozenset({"too_short"})))
    assert not filters.matches(filters.parse_query("label:none"), row())
    assert filters.matches(filters.parse_query("label:none"), row(label=None))


def test_sorting_puts_unevaluated_rows_last() -> None:
    rows = [row(0, score=1.0), row(1, score=None, evaluated=False), row(2, score=3.0), row(3, score=None)]
    assert filters.select(rows, filters.Query(), "score") == [2, 0, 3, 1]
    assert filters.select(rows, filters.Query(), "input") == [0, 1, 2, 3]


@given(st.text(max_size=40))
def test_any_filter_text_parses_and_matches_without_error(text: str) -> None:
    assert filters.matches(filters.parse_query(text), row()) in (True, False)


@pytest.fixture
def sample_submission(sample_data: dict[str, Any]) -> Any:
    return parse_submission(sample_data)


def test_rating_edits_accept_a_decimal_comma_and_stay_on_the_scale(sample_submission: Any) -> None:
    rating = Proposal("rating.accuracy", RATING, 5.0, 4.5, "")
    assert parse_edit(rating, " 3,5 ", sample_submission, (0.0, 5.0)) == 3.5
    with pytest.raises(EditError, match="outside the scale"):
        parse_edit(rating, "7", sample_submission, (0.0, 5.0))
    with pytest.raises(EditError, match="expected a number from 0 to 5"):
        parse_edit(rating, "great", sample_submission, (0.0, 5.0))


def test_ranking_edits_must_name_every_response_once(sample_submission: Any) -> None:
    ranking = Proposal(RANKING, RANKING, ["resp_a", "resp_b"], ["resp_b", "resp_a"], "")
    assert edit_text(ranking, ["resp_b", "resp_a"]) == "resp_b, resp_a"
    assert parse_edit(ranking, "resp_a > resp_b", sample_submission, (0, 5)) == ["resp_a", "resp_b"]
    for text, message in (
        ("resp_a, resp_x", "unknown response id 'resp_x'"),
        ("resp_a resp_a resp_b", "only once"),
        ("resp_b", "missing resp_a"),
    ):
        with pytest.raises(EditError, match=message):
            parse_edit(ranking, text, sample_submission, (0, 5))


def test_ranking_edits_keep_integer_ids(sample_data: dict[str, Any]) -> None:
    data = {**sample_data, "responses": [{"id": 1, "text": "a"}, {"id": 2, "text": "b"}], "ranking": [1, 2]}
    ranking = Proposal(RANKING, RANKING, [1, 2], [2, 1], "")
    assert parse_edit(ranking, "2, 1", parse_submission(data), (0, 5)) == [2, 1]


def test_a_label_edit_needs_text(sample_submission: Any) -> None:
    with pytest.raises(EditError, match="type a label"):
        parse_edit(Proposal(LABEL, LABEL, None, "good", ""), "  ", sample_submission, (0, 5))


def test_changes_name_what_moved(config: Config, sample_data: dict[str, Any]) -> None:
    evaluator = Evaluator(config)
    before = evaluator.evaluate(sample_data)
    after = evaluator.evaluate({**sample_data, "ratings": {**sample_data["ratings"], "optimality": 1.0}})
    lines = result_changes(before, after)
    assert "flag added: low_optimality" in lines
    assert "rule now fires: low_optimality_penalty" in lines
    assert any(line.startswith("rating optimality: proposed") for line in lines)
    assert result_changes(before, before) == []


def test_submission_text_renders_literally(config: Config, sample_data: dict[str, Any]) -> None:
    tricky = "[/INST] [bold]x[/bold] {{ x }} [link=y]z[/link]"
    data = {
        **sample_data,
        "prompt": tricky,
        "rewrite_preferred": tricky,
        "responses": [{"id": "[/r]", "text": tricky}, {"id": "b", "text": "b"}],
        "ranking": ["[/r]", "b"],
    }
    submission = parse_submission(data)
    result = Evaluator(config).evaluate(submission)
    assert tricky in render.prompt_text(submission, result).plain
    assert tricky in render.rewrite_text(submission.rewrite_preferred, result.rewrite_final).plain
    assert "[/r] > b" in render.ranking_text(submission, result).plain


def test_the_rewrite_diff_marks_added_and_removed_words() -> None:
    diff, coarse = render.rewrite_diff("uses a list", "uses a heap.")
    assert not coarse
    assert diff.plain == "uses a listheap."
    styles = {diff.plain[span.start : span.end]: str(span.style) for span in diff.spans}
    assert styles == {"list": render.REMOVED, "heap.": render.ADDED}


def test_rules_explanation_shows_each_condition_and_what_it_saw(
    config: Config, sample_data: dict[str, Any]
) -> None:
    text = render.rules_text(Evaluator(config).evaluate(sample_data)).plain
    assert "✓ lower_accuracy_if_no_example" in text
    assert '✓ dimension_gt: values={"accuracy": 5.0}, thresholds={"accuracy": 4.5}' in text
    assert "→ adjust_dimension: accuracy 5 → 4.5" in text
    assert "✗ negative_weights_without_alternative" in text and 'found=["Bellman-Ford"]' in text


def test_proposals_cover_ranking_when_it_changes(config: Config, sample_data: dict[str, Any]) -> None:
    data = {**sample_data, "ranking": ["resp_a"]}
    submission = parse_submission(data)
    proposals = proposals_of(submission, Evaluator(config).evaluate(submission))
    ranking = next(p for p in proposals if p.target == RANKING)
    assert ranking.original == ["resp_a"] and ranking.proposed == ["resp_a", "resp_b"]
    assert format_value(RANKING, ranking.proposed) == "resp_a > resp_b"


def test_export_is_written_atomically(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text("old\n", encoding="utf-8")

    def records() -> Any:
        yield {"a": 1}
        raise RuntimeError("the export stopped half way")

    with pytest.raises(RuntimeError):
        write_jsonl_atomic(path, records())
    assert path.read_text(encoding="utf-8") == "old\n"
    assert write_jsonl_atomic(path, [{"a": "ñ"}, {"b": 2}]) == 2
    assert [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] == [
        {"a": "ñ"},
        {"b": 2},
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_watcher_fingerprint_changes_when_a_yaml_file_changes(config_copy: Path) -> None:
    from evalkit.tui.watcher import config_fingerprint

    before = config_fingerprint(config_copy)
    (config_copy / "rules.yaml").write_text("version: 2\n", encoding="utf-8")
    assert config_fingerprint(config_copy) != before
    assert config_fingerprint(config_copy / "missing") == ()


def test_command_module_imports_nothing_heavy() -> None:
    import subprocess
    import sys

    code = (
        "import sys, evalkit.commands.review; "
        "print(any(m.startswith(('textual', 'evalkit.engine', 'evalkit.tui')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
