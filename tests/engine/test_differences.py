"""Every deliberate difference from the original tool (oai_code_evaluator) and the reference scorers
(LiveBench's), one test a row of the table in docs/differences.md ("Where evalkit differs from the
original"): the test `test_row_<id>` holds the row whose first cell is `<id>` (dashes as underscores), and
`test_every_row_of_the_readme_table_has_its_test` holds the table and this module together.

Each test shows evalkit's side of its row on an input where the original's answer would differ (the
original's answer, worked out by hand from its behaviour, in a comment or beside the assertion)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalkit.engine import ConfigError, Evaluator, analyze, load_config
from evalkit.engine.submission import SubmissionError
from evalkit.qydomain import (
    connections_process_results,
    plot_unscrambling_process_results,
    typos_process_results,
)

README = Path(__file__).resolve().parents[2] / "docs" / "differences.md"  # the README links to it
TABLE_HEADING = "# Where evalkit differs from the original"

Evaluate = Callable[..., dict[str, Any]]
Factory = Callable[..., dict[str, Any]]
Writer = Callable[..., Path]
Rules = Callable[..., str]


def table_ids() -> list[str]:
    """The first cell of each row of the README's table of differences (a code span: `id`)."""
    section = README.read_text(encoding="utf-8").split(TABLE_HEADING, 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([a-z0-9-]+)` \|", section, flags=re.MULTILINE)


def test_every_row_of_the_readme_table_has_its_test() -> None:
    ids = table_ids()
    assert len(ids) == len(set(ids)) >= 19
    tests = sorted(name.removeprefix("test_row_") for name in globals() if name.startswith("test_row_"))
    assert sorted(row.replace("-", "_") for row in ids) == tests


def codes(error: pytest.ExceptionInfo[ConfigError]) -> list[str]:
    return [d.code for d in error.value.diagnostics if d.severity == 1]


# ------------------------------------------------------------ the engine (the original: oai_code_evaluator)


def test_row_regex_re2(write_config: Writer, make_submission: Factory) -> None:
    rules = (
        "rating_rules:\n  - id: r\n    when: { rewrite_regex_any: ['(a+)+$'] }\n"
        + "    actions: { set_flag: m }\n"
    )
    evaluator = Evaluator(load_config(write_config(rules=rules)))
    # Python's re backtracks for minutes on this rewrite; RE2 answers at once
    assert evaluator.evaluate(make_submission(rewrite_preferred="a" * 5_000 + "b")).flags == {}
    assert evaluator.evaluate(make_submission(rewrite_preferred="aaa")).flags == {"m": True}
    lookahead = rules.replace("(a+)+$", "a(?=b)")
    with pytest.raises(ConfigError) as refused:
        load_config(write_config(rules=lookahead))
    assert codes(refused) == ["bad-regex"]
    # \w is ASCII in RE2 (Python's re matches é); $ does not match before a final newline
    for pattern, rewrite in ((r"^\w+$", "café"), ("done$", "done\n")):
        evaluator = Evaluator(load_config(write_config(rules=rules.replace("(a+)+$", pattern))))
        assert evaluator.evaluate(make_submission(rewrite_preferred=rewrite)).flags == {}


def test_row_scale_clamp(evaluate: Evaluate, make_submission: Factory, rules_text: Rules) -> None:
    # the original pulls 7 by 0.4 toward 4.2 and leaves 5.88 on a [0, 5] scale
    result = evaluate(make_submission(ratings={"accuracy": 7.0}))
    assert result["corrected_ratings"]["accuracy"]["updated"] == 5.0
    assert result["meta"]["warnings"] == [
        "ratings.accuracy = 7 is outside the scale [0, 5]; pulled and clamped"
    ]
    # and adds a delta past the scale: 5.0 + 1.0 = 6.0
    raise_it = {"id": "up", "actions": {"adjust_dimension": {"dimension": "accuracy", "delta": 1.0}}}
    result = evaluate(make_submission(ratings={"accuracy": 5.0}), rules=rules_text(raise_it))
    assert result["corrected_ratings"]["accuracy"]["updated"] == 5.0


def test_row_tolerance_edge(evaluate: Evaluate, make_submission: Factory) -> None:
    # |3.0 - 4.2| is 1.2000000000000002 in binary floating point, which the original finds outside 1.2
    assert abs(3.0 - 4.2) > 1.2
    accuracy = evaluate(make_submission(ratings={"accuracy": 3.0}))["corrected_ratings"]["accuracy"]
    assert accuracy["updated"] == 3.0
    assert accuracy["rationale"].startswith("within tolerance")


def test_row_empty_responses(load: Callable[..., Any], make_submission: Factory) -> None:
    evaluator = Evaluator(load())
    with pytest.raises(SubmissionError) as refused:
        evaluator.evaluate(make_submission(responses=[], ranking=[]))
    assert refused.value.where == "responses"
    assert refused.value.reason == "expected at least one response"


def test_row_missing_substring(evaluate: Evaluate, make_submission: Factory, rules_text: Rules) -> None:
    rule = {
        "id": "no_example",
        "when": {"preferred_rewrite_missing_substring": ["example", "ejemplo"]},
        "actions": {"set_flag": "no_example"},
    }
    # the original fires the rule on both
    assert evaluate(make_submission(rewrite_preferred="no sample"), rules=rules_text(rule))["flags"] == {
        "no_example": True
    }
    with_one = make_submission(rewrite_preferred="For EXAMPLE, a heap.")
    assert evaluate(with_one, rules=rules_text(rule))["flags"] == {}


def test_row_default_label(evaluate: Evaluate, rules_text: Rules) -> None:
    # the original leaves the label null when no rule assigns one
    assert evaluate(rules=rules_text(options={"default_label": "neutral"}))["label"] == "neutral"


def test_row_postprocessors(evaluate: Evaluate, make_submission: Factory) -> None:
    # the original returns the rewrite with its double spaces and without the period
    rewrite = "postprocessors:\n  - type: trim_spaces\n  - type: ensure_period\n"
    submission = make_submission(rewrite_preferred="Use  a   heap")
    assert evaluate(submission, rewrite=rewrite)["rewrite_final"] == "Use a heap."


def test_row_missing_ids_feedback(evaluate: Evaluate, make_submission: Factory) -> None:
    ranking = "corrections:\n  append_missing: false\nfeedback_templates:\n  complete: C\n  missing_ids: M\n"
    result = evaluate(make_submission(ranking=["b"]), ranking=ranking)
    assert (result["corrected_ranking"], result["ranking_feedback"]) == (["b"], "M")


def test_row_unknown_ids_text(evaluate: Evaluate, make_submission: Factory) -> None:
    ranking = "feedback_templates:\n  complete: C\n"
    submission = make_submission(ranking=["a", "zz", "b"])
    assert evaluate(submission, ranking=ranking)["ranking_feedback"] == "C"  # as the original says
    given = evaluate(submission, ranking=ranking + "  unknown_ids: U\n")
    assert (given["corrected_ranking"], given["ranking_feedback"]) == (["a", "b"], "U")


def test_row_any_of_explained(evaluate: Evaluate, rules_text: Rules) -> None:
    # the original stops at the first block that holds: the second is not in its explanation
    blocks = [{"response_contains_any": ["alpha"]}, {"response_contains_any": ["beta", "zeta"]}]
    rule = {"id": "either", "when": {"any_of": blocks}, "actions": {"set_flag": "f"}}
    detail = evaluate(rules=rules_text(rule))["fired_rules"][0]["detail"]["any_of"]
    assert detail["blocks"][1] == {"response_contains_any": {"held": True, "found": ["beta"]}}


def test_row_unknown_keys(write_config: Writer) -> None:
    # the original ignores the misspelt condition, and the rule fires on every submission
    rules = (
        "rating_rules:\n  - id: r\n    when: { response_contain_any: [heap] }\n    actions: { set_flag: f }\n"
    )
    (problem,) = analyze(write_config(rules=rules)).diagnostics
    assert (problem.code, problem.line, problem.column) == ("unknown-key", 3, 13)
    assert "response_contains_any" in problem.message


def test_row_templates_sandboxed(write_config: Writer) -> None:
    for template in ("{{ signals.__class__.__mro__ }}", "{% for x in signals %}{{ x }}{% endfor %}"):
        rules = f"rating_rules:\n  - id: r\n    actions:\n      add_comment_template: {template!r}\n"
        with pytest.raises(ConfigError) as refused:
            load_config(write_config(rules=rules))
        assert codes(refused) == ["bad-template"]


def test_row_yaml_limits(write_config: Writer) -> None:
    duplicate = "options:\n  dedupe_comments: true\n  dedupe_comments: false\n"
    with pytest.raises(ConfigError) as refused:
        load_config(write_config(rules=duplicate))
    assert codes(refused) == ["duplicate-key"]
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n"
        for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
    with pytest.raises(ConfigError) as refused:
        load_config(write_config(rules=laughs))  # 10**9 nodes once expanded
    assert codes(refused) == ["yaml-too-large"]


# ---------------------------------------------------------------- the scorers (the reference: LiveBench's)


def test_row_malformed_scores_zero() -> None:
    # LiveBench raises on each: a non-string answer, a \boxed whose brace never closes
    assert typos_process_results("word", None) == 0
    assert connections_process_results("a,b,c,d", r"\boxed{a, b, c, d") == 0.0
    assert plot_unscrambling_process_results(3, "<PLOT_SUMMARY>A.</PLOT_SUMMARY>") == 0.0


def test_row_blank_answer_key() -> None:
    # LiveBench's typos scorer finds "" in every answer: 1
    assert "" in "anything"
    assert typos_process_results("", "<solution>anything</solution>") == 0
    assert typos_process_results("  ", "<solution>  </solution>") == 0


def test_row_connections_repeat_once() -> None:
    # LiveBench counts each repeat: 2 groups found of 1, a score of 2.0
    assert connections_process_results("a,b,c,d", "<solution>a,b,c,d,a,b,c,d</solution>") == 1.0
    assert connections_process_results("a,b,c,d,e,f,g,h", "<solution>a,b,c,d,d,c,b,a</solution>") == 0.5


def test_row_connections_truth_repeat() -> None:
    # LiveBench divides by the ground truth's groups, repeats included: 1 of 2, 0.5
    assert connections_process_results("a,b,c,d,a,b,c,d", "<solution>a,b,c,d</solution>") == 1.0


def test_row_unscrambling_levenshtein() -> None:
    # difflib's similarity ratio, which LiveBench matches by, takes "ccbaccc" for "caa" (ordering [1, 1]:
    # a score of 0.5); the smallest edit distance is "ab"'s (2 against 5): ordering [0, 1]
    assert difflib.get_close_matches("caa", ["ab", "ccbaccc"], n=1, cutoff=0.0) == ["ccbaccc"]
    answer = "<PLOT_SUMMARY>ab. ccbaccc.</PLOT_SUMMARY>"
    assert plot_unscrambling_process_results("caa. ccbaccc.", answer) == 1.0


def test_row_unscrambling_work_bound() -> None:
    from evalkit.qydomain import unscrambling

    plot = [f"sentence number {i} of a long plot" for i in range(3_000)]
    answer = [f"{sentence} retold" for sentence in reversed(plot)]  # none verbatim: every one is matched
    truth, told = unscrambling.sentences(". ".join(plot) + ".", ". ".join(answer) + ".")
    assert unscrambling.matching_work(truth, told) > unscrambling.MAX_MATCHING_WORK
    assert plot_unscrambling_process_results(". ".join(plot) + ".", ". ".join(answer) + ".") == 0.0
