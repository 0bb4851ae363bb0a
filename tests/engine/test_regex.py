"""`rewrite_regex_any` runs in RE2: linear time whatever the pattern, and a pattern RE2 cannot compile
is a config error at the pattern's file:line."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine import ConfigError, Evaluator, analyze, load_config
from evalkit.engine.regex import PatternError, compile_pattern
from tests.budget import examples

Writer = Callable[..., Path]
Factory = Callable[..., dict[str, Any]]
Fires = Callable[..., bool]


def regex_rules(pattern: str) -> str:
    # the pattern sits on line 4, column 27 (the quoted scalar)
    quoted = pattern.replace("'", "''")
    return (
        "rating_rules:\n"
        "  - id: pattern\n"
        "    when:\n"
        f"      rewrite_regex_any: ['{quoted}']\n"
        "    actions: { set_flag: matched }\n"
    )


@pytest.mark.parametrize("subject", ["a" * 100_000 + "b", "a" * 100_000, "ab" * 50_000 + "!"])
def test_catastrophic_pattern_stays_fast(
    write_config: Writer, make_submission: Factory, subject: str
) -> None:
    evaluator = Evaluator(load_config(write_config(rules=regex_rules("(a+)+$"))))
    started = time.perf_counter()
    result = evaluator.evaluate(make_submission(rewrite_preferred=subject))
    assert time.perf_counter() - started < 5.0  # backtracking would take hours; noisy machines seconds
    assert result.flags == ({"matched": True} if subject.endswith("a") else {})


def test_nested_quantifiers_on_a_long_subject_stay_fast() -> None:
    regex = compile_pattern("^(a|aa)*(b|c)*(x+x+)+y$")
    started = time.perf_counter()
    assert regex.first(("a" * 200_000 + "x" * 5000).encode()) is None
    assert time.perf_counter() - started < 5.0  # backtracking would take hours; noisy machines seconds


@pytest.mark.parametrize("pattern", ["(?=x)abc", "(?<!x)abc", r"(a)\1", "a++", "(?>a)", "abc("])
def test_patterns_re2_refuses_are_config_errors_at_file_line(write_config: Writer, pattern: str) -> None:
    folder = write_config(rules=regex_rules(pattern))
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    (problem,) = [d for d in caught.value.diagnostics if d.severity == 1]
    assert (problem.path, problem.line, problem.column, problem.code) == (
        str(folder / "rules.yaml"),
        4,
        27,
        "bad-regex",
    )
    assert problem.format().startswith(f"{folder / 'rules.yaml'}:4:27: error[bad-regex] ")


def test_bad_pattern_inside_any_of_is_positioned(write_config: Writer) -> None:
    rules = (
        "rating_rules:\n"
        "  - id: ok\n"
        "    when: { rewrite_regex_any: ['fine'] }\n"
        "    actions: { set_flag: a }\n"
        "  - id: nested\n"
        "    when:\n"
        "      any_of:\n"
        "        - { response_contains_any: [x] }\n"
        "        - rewrite_regex_any:\n"
        "            - 'good'\n"
        "            - '(?<=x)bad'\n"
        "    actions: { set_flag: b }\n"
    )
    config = analyze(write_config(rules=rules))
    assert config.plan is None
    (problem,) = [d for d in config.diagnostics if d.severity == 1]
    assert (problem.line, problem.column, problem.code) == (11, 15, "bad-regex")


def test_every_bad_pattern_is_reported(write_config: Writer) -> None:
    rules = (
        "rating_rules:\n"
        "  - id: one\n"
        "    when: { rewrite_regex_any: ['(?=a)', 'ok', '(b)\\1'] }\n"
        "    actions: { set_flag: a }\n"
        "  - id: two\n"
        "    when: { rewrite_regex_any: ['(?!c)'] }\n"
        "    actions: { set_flag: b }\n"
    )
    config = analyze(write_config(rules=rules))
    assert [(d.line, d.code) for d in config.diagnostics if d.severity == 1] == [
        (3, "bad-regex"),
        (3, "bad-regex"),
        (6, "bad-regex"),
    ]


def test_compile_pattern_raises_pattern_error() -> None:
    with pytest.raises(PatternError):
        compile_pattern("(?=lookahead)")


# RE2 semantics that differ from Python's `re` (documented for rule authors): these prove RE2 is in use.


def test_dollar_matches_only_at_the_very_end(fires: Fires, make_submission: Factory) -> None:
    assert not fires({"rewrite_regex_any": ["end$"]}, make_submission(rewrite_preferred="the end\n"))
    assert fires({"rewrite_regex_any": ["(?m)end$"]}, make_submission(rewrite_preferred="the end\n"))
    assert fires({"rewrite_regex_any": ["end$"]}, make_submission(rewrite_preferred="the end"))


def test_digit_class_is_ascii_only(fires: Fires, make_submission: Factory) -> None:
    assert not fires({"rewrite_regex_any": [r"\d"]}, make_submission(rewrite_preferred="٣"))
    assert fires({"rewrite_regex_any": [r"\d"]}, make_submission(rewrite_preferred="3"))


def test_a_pattern_finds_its_match_in_utf8_text_as_python_characters() -> None:
    regex = compile_pattern(r"O\([^)]*\)")
    text = "ñandú — O(n log n) ✓".encode()
    assert regex.found(text)
    assert regex.first(text) == "O(n log n)"
    assert regex.first(b"sin coincidencia") is None
    assert not regex.found(b"")


@settings(max_examples=examples(300))
@given(
    st.sampled_from([r"é+\w", r"O\([^)]*\)", r"(?i)straße", r"\bß", r"\d+", "^a", "b$", "(?m)^b", "", "."]),
    st.text(alphabet="abéßSTRAE ()\n9٣", max_size=12),
)
def test_bytes_find_what_google_re2_finds_in_the_text(pattern: str, text: str) -> None:
    """Searched as UTF-8 bytes, a pattern finds the match google-re2's own `str` search finds."""
    import re2

    expected = re2.search(pattern, text)
    regex = compile_pattern(pattern)
    assert regex.found(text.encode()) == (expected is not None)
    assert regex.first(text.encode()) == (None if expected is None else expected.group())


def test_a_lone_surrogate_in_a_pattern_finds_itself_in_the_text() -> None:
    """YAML refuses a lone surrogate's escape, but the Python API takes one (google-re2's `str` path raised
    UnicodeEncodeError): it matches where the text, encoded as the engine encodes it, holds the same."""
    regex = compile_pattern("a\ud800")
    assert regex.found("xa\ud800y".encode("utf-8", "surrogatepass"))
    assert not regex.found(b"xa")
