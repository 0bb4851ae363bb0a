"""The reward-function face: wrappers, think-stripping, `score`, `compute_score`, docstring examples."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

from evalkit import qydomain
from evalkit.qydomain import (
    UnknownDataSource,
    compute_score,
    connections_score_fn,
    score,
    strip_think,
    typos_score_fn,
    unscrambling_score_fn,
)


@pytest.mark.parametrize(
    "module",
    ["__init__", "boxed", "connections", "records", "summary", "typos", "unscrambling"],
)
def test_module_docstring_examples_hold(module: str) -> None:
    """The examples of each module's docstring, read from its source (a module mypyc compiled keeps no
    docstring), run against the module as imported."""
    name = "evalkit.qydomain" if module == "__init__" else f"evalkit.qydomain.{module}"
    path = Path(__file__).resolve().parents[2] / "qydomain" / f"{module}.py"
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
    assert docstring is not None
    examples = doctest.DocTestParser().get_doctest(
        docstring, vars(importlib.import_module(name)).copy(), name, str(path), 0
    )
    runner = doctest.DocTestRunner()
    runner.run(examples)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_seed_api_usage_returns_floats() -> None:
    results = [
        typos_score_fn(
            model_output="<solution>extraordinary</solution>", extra_info={"label": "extraordinary"}
        ),
        connections_score_fn(
            model_output="<solution>a,b,c,d,e,f,g,h</solution>", extra_info={"label": "a,b,c,d,e,f,g,h"}
        ),
        unscrambling_score_fn(
            model_output="<PLOT_SUMMARY>First. Second. Third.</PLOT_SUMMARY>",
            extra_info={"label": "First. Second. Third."},
        ),
    ]
    assert results == [1.0, 1.0, 1.0]
    assert all(type(result) is float for result in results)


def test_wrappers_ignore_what_the_model_thought() -> None:
    thought = "<think>is it extraordinary?</think>I cannot tell."
    assert qydomain.typos_process_results("extraordinary", thought) == 1
    assert typos_score_fn(thought, {"label": "extraordinary"}) == 0.0
    plot = "<think><PLOT_SUMMARY>B. A.</PLOT_SUMMARY></think><PLOT_SUMMARY>A. B.</PLOT_SUMMARY>"
    assert unscrambling_score_fn(plot, {"label": "A. B."}) == 1.0
    groups = "<think>\\boxed{w,x,y,z}</think>\\boxed{a,b,c,d}"
    assert connections_score_fn(groups, {"label": "a,b,c,d"}) == 1.0


def test_strip_think_removes_every_complete_block_and_keeps_an_unclosed_one() -> None:
    assert strip_think("a<think>x</think>b<think>y\nz</think>c") == "abc"
    assert strip_think("a<think>never closed") == "a<think>never closed"
    assert strip_think("a</think>b<think>c") == "a</think>b<think>c"
    assert typos_score_fn("<think>unfinished extraordinary", {"label": "extraordinary"}) == 1.0


@pytest.mark.parametrize(
    ("data_source", "output", "label", "expected"),
    [
        ("typos", "<solution>extraordinry</solution>", "extraordinary", 0.0),
        ("connections", "<solution>a,b,c,d,x,y,z,w</solution>", "a,b,c,d,e,f,g,h", 0.5),
        ("unscrambling", "B. A. C.", "A. B. C.", 0.3333333333333333),
    ],
)
def test_score_and_compute_score_dispatch_on_the_data_source(
    data_source: str, output: str, label: str, expected: float
) -> None:
    assert score(data_source, output, {"label": label}) == expected
    keywords = {"data_source": data_source, "solution_str": output, "ground_truth": label}
    assert compute_score(**keywords, extra_info={"index": 7}) == expected
    assert compute_score(data_source, output, label) == expected


def test_compute_score_reads_the_label_where_the_seed_stores_it() -> None:
    # A row in the seed's format has no other ground truth: trainers pass ground_truth=None (or "").
    extra_info = {"label": "extraordinary", "index": 7}
    answer = "<solution>extraordinary</solution>"
    for ground_truth in (None, ""):
        assert compute_score("typos", answer, ground_truth, extra_info) == 1.0  # type: ignore[arg-type]
    assert compute_score("typos", answer, "extraordinary", {"label": None}) == 1.0  # no label: ground_truth


def test_compute_score_prefers_the_ground_truth_it_is_given() -> None:
    answer = "<solution>extraordinary</solution>"
    assert compute_score("typos", answer, "ordinary", {"label": "extraordinary"}) == 1.0
    assert compute_score("typos", answer, "different", {"label": "extraordinary"}) == 0.0


@pytest.mark.parametrize("data_source", ["typo", "Typos", "", None, ["typos"]])
def test_an_unknown_data_source_is_a_clear_error(data_source: object) -> None:
    with pytest.raises(UnknownDataSource, match="expected one of connections, typos, unscrambling"):
        score(data_source, "x", {"label": "x"})  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        compute_score(data_source, "x", "x")  # type: ignore[arg-type]


@pytest.mark.parametrize("extra_info", [None, {}, {"label": None}, {"label": 3}, "extraordinary", ["label"]])
def test_wrappers_score_a_missing_or_malformed_label_zero(extra_info: object) -> None:
    for wrapper in (typos_score_fn, connections_score_fn, unscrambling_score_fn):
        assert wrapper("<solution>extraordinary</solution>", extra_info) == 0.0  # type: ignore[arg-type]


@pytest.mark.parametrize("output", [None, 42, b"<solution>extraordinary</solution>"])
def test_wrappers_score_a_non_string_output_zero(output: object) -> None:
    assert score("typos", output, {"label": "extraordinary"}) == 0.0  # type: ignore[arg-type]


def test_the_evalkit_package_re_exports_score_and_compute_score() -> None:
    import evalkit

    assert evalkit.score is score
    assert evalkit.compute_score is compute_score


def test_public_names_are_curated() -> None:
    assert set(qydomain.__all__) == {
        "DATA_SOURCES",
        "UnknownDataSource",
        "compute_score",
        "connections_process_results",
        "connections_score_fn",
        "plot_unscrambling_process_results",
        "score",
        "strip_think",
        "typos_process_results",
        "typos_score_fn",
        "unscrambling_score_fn",
    }
    assert qydomain.DATA_SOURCES == ("connections", "typos", "unscrambling")
