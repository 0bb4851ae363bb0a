"""Comment templates: Jinja2's immutable sandbox, checked and compiled once at load, plain data only,
capped output; attribute escapes are config errors and resource abuse neither hangs nor eats memory."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jinja2 import TemplateSyntaxError, meta

from evalkit.engine import ConfigError, Evaluator, analyze, limits, load_config
from evalkit.engine.templates import TemplateProblem, _render, compile_template, environment
from tests.budget import examples

Evaluate = Callable[..., dict[str, Any]]
Factory = Callable[..., dict[str, Any]]
Writer = Callable[..., Path]


def template_rules(template: str) -> str:
    # a single-quoted YAML scalar: '' is a quote; the template sits on line 5, column 29
    quoted = template.replace("'", "''")
    return (
        "rating_rules:\n"
        "  - id: templated\n"
        "    when: { min_total_length: 0 }\n"
        "    actions:\n"
        f"      add_comment_template: '{quoted}'\n"
    )


def rendered(evaluate: Evaluate, template: str) -> str:
    (action,) = evaluate(rules=template_rules(template))["fired_rules"][0]["actions"]
    return action["add_comment_template"]


def test_renders_signals_detail_and_corrected(evaluate: Evaluate) -> None:
    text = rendered(
        evaluate,
        "{{ signals.length_total }}/{{ signals.response_count }} "
        "{{ detail.min_total_length.held }} {{ corrected.accuracy }}",
    )
    assert text == "18/2 True 4.2"


def test_harmless_filters_and_arithmetic_work(evaluate: Evaluate) -> None:
    assert (
        rendered(evaluate, "{{ (signals.length_total / 4) | round(1) }} {{ 'ab' | upper }} {{ 2 ** 10 }}")
        == "4.5 AB 1024"
    )


def test_context_is_plain_data(evaluate: Evaluate) -> None:
    assert rendered(evaluate, "{{ signals }}") == "{'length_total': 18, 'response_count': 2}"


@pytest.mark.parametrize(
    "template",
    [
        "{{ signals.__class__.__mro__ }}",
        "{{ signals.__class__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ detail['__class__'] }}",
        "{{ signals | attr('__class__') }}",
    ],
)
def test_attribute_escapes_are_refused_at_load(write_config: Writer, template: str) -> None:
    folder = write_config(rules=template_rules(template))
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    errors = [d for d in caught.value.diagnostics if d.severity == 1]
    assert errors, caught.value.diagnostics
    assert all(d.path == str(folder / "rules.yaml") for d in errors)
    assert all(d.line == 5 for d in errors)
    assert any(d.code == "bad-template" for d in errors)


def test_escape_is_a_positioned_config_error_through_analyze(write_config: Writer) -> None:
    config = analyze(write_config(rules=template_rules("{{ signals.__class__.__mro__ }}")))
    assert config.plan is None
    (problem,) = [d for d in config.diagnostics if d.severity == 1]
    assert problem.format().startswith(f"{config.folder / 'rules.yaml'}:5:29: error[bad-template] ")


def test_a_template_that_does_not_parse_is_a_config_error(write_config: Writer) -> None:
    config = analyze(write_config(rules=template_rules("{{ signals.length_total ")))
    assert config.plan is None
    (problem,) = [d for d in config.diagnostics if d.severity == 1]
    assert (problem.line, problem.code) == (5, "bad-template")


def test_a_multiline_template_error_points_at_its_line(write_config: Writer) -> None:
    rules = (
        "rating_rules:\n"
        "  - id: templated\n"
        "    actions:\n"
        "      add_comment_template: |\n"
        "        first line {{ signals.length_total }}\n"
        "        second line {{ signals.__class__ }}\n"
    )
    config = analyze(write_config(rules=rules))
    (problem,) = [d for d in config.diagnostics if d.severity == 1]
    assert (problem.line, problem.code) == (6, "bad-template")


def within_budget(
    write_config: Writer, make_submission: Factory, template: str
) -> tuple[list[str], float, int]:
    """Load (with a cold template cache) and evaluate; the comments, the seconds it took and the peak memory
    in bytes. A template refused at load gives no comments but its diagnostic codes."""
    warm = write_config(rules=template_rules("{{ 1 + 1 }}"))  # imports (Jinja, a pure engine) are not counted
    Evaluator(load_config(warm)).evaluate(make_submission())
    compile_template.cache_clear()
    folder = write_config(rules=template_rules(template))
    tracemalloc.start()
    started = time.perf_counter()
    try:
        try:
            texts = Evaluator(load_config(folder)).evaluate(make_submission()).comments
        except ConfigError as exc:
            texts = [f"refused: {d.code}" for d in exc.diagnostics]
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return texts, elapsed, peak


@pytest.mark.parametrize(
    "template",
    [
        "{{ 'x' * 10**8 }}",
        "{{ 10**8 * 'x' }}",
        "{{ ['x'] * 10**8 }}",
        "{{ 9 ** 50000000 }}",
        "{{ (10 ** 999) ** 999 }}",
        "{{ ('x' * 9000) + ('x' * 9000) }}",
        # the same abuse without `*` or `**`: string methods and formatting (10 MB here, to keep a failure
        # quick;
        # 10**10 would ask for 10 GB just as easily)
        "{{ 'x'.ljust(10**7) }}",
        "{{ '{:>10000000}'.format(1) }}",
        "{{ '%010000000d' % 1 }}",
        "{{ signals.length_total }}",
    ],
)
def test_resource_abuse_neither_hangs_nor_eats_memory(
    write_config: Writer, make_submission: Factory, template: str
) -> None:
    texts, elapsed, peak = within_budget(write_config, make_submission, template)
    assert elapsed < 10.0
    assert peak < 5_000_000
    (text,) = texts  # one comment, or one refusal at load (as good as refusing at render time)
    assert text == "refused: bad-template" or len(text) <= limits.MAX_TEMPLATE_OUTPUT


def test_output_is_capped(evaluate: Evaluate) -> None:
    text = rendered(evaluate, "{{ 'y' * 9000 }}")
    assert limits.MAX_TEMPLATE_OUTPUT < 9000 <= limits.MAX_TEMPLATE_SEQUENCE
    assert text == "y" * limits.MAX_TEMPLATE_OUTPUT


def test_templates_are_compiled_once_at_load(
    write_config: Writer, make_submission: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_config(write_config(rules=template_rules("n={{ signals.response_count }}")))
    evaluator = Evaluator(config)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a template was parsed or compiled during evaluation")

    sandbox = type(environment())
    for method in ("parse", "compile", "from_string", "_parse"):
        monkeypatch.setattr(sandbox, method, refuse)
    for _ in range(3):
        assert evaluator.evaluate(make_submission()).comments == ["n=2"]


def test_an_unknown_name_is_reported_at_the_line_that_uses_it() -> None:
    with pytest.raises(TemplateProblem) as caught:
        compile_template("{{ signals.length_total }}\nline two\n{{ scores.total }}")
    assert caught.value.line == 3
    assert "'scores'" in str(caught.value)


@pytest.mark.parametrize(
    "template, expected",
    [
        ("{{ '%5.2f|%s' % (3.14159, 'a') }}", " 3.14|a"),
        ("{{ '{:>5}'.format(1) }}", "    1"),
        ("{{ 'abc'.center(9, '*') }}", "***abc***"),
        ("{{ 'a-b'.replace('-', '+') }}", "a+b"),
    ],
)
def test_formatting_within_the_caps_still_works(template: str, expected: str) -> None:
    assert compile_template(template)({}) == expected


@pytest.mark.parametrize(
    "template",
    [
        "{{ 'ab'.replace('', 'y' * 9000) }}",
        "{{ ('x' * 9000).join(['y' * 9000] * 9000) }}",
        "{{ '%*d' % (10000000, 1) }}",
        "{{ 'x\tb'.expandtabs(10000000) }}",
        "{{ '{:{}}'.format(1, 10000000) }}",
    ],
)
def test_string_builders_beyond_the_cap_render_an_error_not_a_huge_string(template: str) -> None:
    text = compile_template(template)({})
    assert text.startswith("[template error:")


LOOKUP_KEYS = st.sampled_from(["length_total", "accuracy", "held", "missing", "items", "get", "x"])
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.dictionaries(st.sampled_from(["held", "found"]), st.booleans(), max_size=2),
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="ab %#{}\n\r-", max_size=6),
            st.tuples(st.sampled_from(["signals", "detail", "corrected"]), LOOKUP_KEYS),
        ),
        max_size=6,
    ),
    st.dictionaries(
        st.sampled_from(["signals", "detail", "corrected"]),
        st.one_of(st.none(), st.dictionaries(LOOKUP_KEYS, VALUES, max_size=4)),
        max_size=3,
    ),
)
@example(parts=["{", "{a}}"], context={})  # the free text spells `{{a}}`: a name no template has
def test_text_and_lookups_render_as_jinja_renders_them(parts: list[Any], context: dict[str, Any]) -> None:
    source = "".join(p if isinstance(p, str) else f"{{{{ {p[0]}.{p[1]} }}}}" for p in parts)
    try:
        jinja = environment().from_string(source)
    except TemplateSyntaxError:
        with pytest.raises(TemplateProblem):
            compile_template(source)
        return
    unknown = meta.find_undeclared_variables(environment().parse(source)) - {"signals", "detail", "corrected"}
    if unknown:  # Jinja would render it undefined; a config refuses it
        with pytest.raises(TemplateProblem, match="which its context lacks"):
            compile_template(source)
        return
    assert compile_template(source)(context) == _render(jinja, context)


NESTING = limits.MAX_TEMPLATE_NESTING


@pytest.mark.parametrize(
    "nest",
    [
        lambda n: "{{ " + "(" * n + "1" + ")" * n + " }}",
        lambda n: "{{ " + "[" * n + "]" * n + " }}",
        lambda n: "{% if 1 %}" * n + "x" + "{% endif %}" * n,
        lambda n: "{{ " + "not " * n + "1 }}",
        lambda n: "{{ 1" + "+1" * n + " }}",
        lambda n: "{{ 1" + "|abs" * n + " }}",
    ],
    ids=["parentheses", "brackets", "ifs", "nots", "terms", "filters"],
)
def test_nesting_is_allowed_up_to_the_limit_and_refused_beyond_it(nest: Callable[[int], str]) -> None:
    compile_template(nest(NESTING))({})
    with pytest.raises(TemplateProblem, match=f"nests deeper than {NESTING} levels"):
        compile_template(nest(3 * NESTING))


def test_a_refused_nesting_is_reported_at_its_line() -> None:
    with pytest.raises(TemplateProblem) as caught:
        compile_template("\n".join(["{% if 1 %}"] * 100 + ["x"] + ["{% endif %}"] * 100))
    assert caught.value.line == NESTING + 1


def test_a_template_longer_than_the_limit_is_refused() -> None:
    compile_template("{{ 1 }}" + "x" * (limits.MAX_TEMPLATE_SOURCE - 7))
    with pytest.raises(TemplateProblem, match="characters long"):
        compile_template("{{ 1 }}" + "x" * (limits.MAX_TEMPLATE_SOURCE - 6))


@pytest.mark.parametrize(
    "template, line",
    [
        ("{% set a = 1 %}{{ a }}", 1),
        ("x\n{% set a %}y{% endset %}{{ a }}", 2),
        ("{% with a = 1 %}{{ a }}{% endwith %}", 1),
    ],
)
def test_variables_are_refused(template: str, line: int) -> None:
    with pytest.raises(TemplateProblem) as caught:
        compile_template(template)
    assert caught.value.line == line
    assert str(caught.value) in (
        "'set' is not allowed in a comment template",
        "'with' is not allowed in a comment template",
    )


@pytest.mark.parametrize(
    "template",
    [
        "{{ ('x' * 9000) ~ ('x' * 9000) }}",
        "{{ ('x' * 9999) ~ signals }}",
        "{{ (10 ** 999) * (10 ** 999) }}",
        "{{ [['x' * 9000] * 10000] * 10000 }}",
        "{{ ['x' * 5000] * 3 }}",
        "{{ (['a'] * 9000) | join('x' * 9000) }}",
        "{{ 'x'.join(['y' * 5000] * 2) }}",
        "{{ {'a': [1, 2]} | tojson(10 ** 8) }}",
        "{{ [['x' * 4000, 'x' * 4000], ['x' * 4000]] | string }}",
        "{{ '%s%s' % ('x' * 9000, 'x' * 9000) }}",
        "{{ '{}{}'.format('x' * 9000, 'x' * 9000) }}",
        "{{ [" + ", ".join(["'y' * 9000"] * 30) + "] }}",
        "{{ 'x'.encode() * 10 ** 7 }}",
        "{{ 'x'.encode().ljust(10 ** 7) }}",
        "{{ ('a' * 9999).translate({97: 'x' * 9999}) }}",
        "{{ ('{0}' * 1666).format('x' * 5000) }}",
        "{{ ('%(a)s' * 1600) % {'a': 'x' * 9000} }}",
        "{{ ('x' * 9999).join('a' * 9999) }}",
        "{{ ('a' * 9999) | join('x' * 9999) }}",
    ],
)
def test_every_value_a_template_builds_is_capped(
    write_config: Writer, make_submission: Factory, template: str
) -> None:
    texts, _, peak = within_budget(write_config, make_submission, template)
    assert peak < 5_000_000
    (text,) = texts
    assert text.startswith("[template error:")


def test_one_render_builds_at_most_the_work_limit() -> None:
    share = limits.MAX_TEMPLATE_SEQUENCE - 10
    within = limits.MAX_TEMPLATE_WORK // (share + 1)
    render = compile_template(f"{{{{ 'y' * {share} }}}}" * within)
    assert render({}) == "y" * limits.MAX_TEMPLATE_OUTPUT
    beyond = compile_template(f"{{{{ 'y' * {share} }}}}" * (within + 1))
    assert beyond({}) == (
        f"[template error: the template builds more than {limits.MAX_TEMPLATE_WORK:,} characters in all]"
    )
    assert render({}) == "y" * limits.MAX_TEMPLATE_OUTPUT  # each render has the whole budget


def test_integers_are_capped_at_the_digit_limit() -> None:
    digits = limits.MAX_TEMPLATE_INTEGER_DIGITS
    assert compile_template(f"{{{{ (10 ** {digits // 2 - 1}) * (10 ** {digits // 2 - 1}) }}}}")({}) == (
        "1" + "0" * (digits - 2)
    )
    assert compile_template(f"{{{{ (10 ** {digits}) * (10 ** {digits}) }}}}")({}) == (
        "[template error: the product is too large]"
    )


@pytest.mark.parametrize(
    "template, expected",
    [
        ("{{ signals.a ~ ' and ' ~ signals.b }}", "1 and q"),
        ("{{ [1, 2, 3] | join(', ') }} {{ signals | tojson }}", '1, 2, 3 {"a": 1, "b": "q"}'),
        ("{{ detail.found | sort | join(',') }}", "a,b"),
        ("{{ corrected | tojson(2) }}", '{\n  "x": 1\n}'),
        ("{{ signals.a * 3 - 1 }} {{ 7 // 2 }} {{ 7 / 2 }} {{ 2 ** 10 }}", "2 3 3.5 1024"),
        ("{{ ['x'] * 3 }}", "['x', 'x', 'x']"),
        (
            "{{ '%s-%d' % ('a', 3) }} {{ '{}:{}'.format(1, 'b') }} {{ 'ab'.translate({97: 'z'}) }}",
            "a-3 1:b zb",
        ),
        (
            "{{ '-'.join('abc') }} {{ 'abc' | join('.') }} {{ ('x ' * 3).split() }}",
            "a-b-c a.b.c ['x', 'x', 'x']",
        ),
    ],
)
def test_templates_within_the_caps_render_as_before(template: str, expected: str) -> None:
    context = {"signals": {"a": 1, "b": "q"}, "detail": {"found": ["b", "a"]}, "corrected": {"x": 1}}
    assert compile_template(template)(context) == expected
