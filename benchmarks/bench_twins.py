"""The engine's twin implementations, each fast path against the careful one it stands beside, measured as
installed (compiled by mypyc where the install found a C compiler). A twin is kept only while its fast
path pays; ARCHITECTURE.md lists them and the property test that holds each pair together.

    .venv/bin/python benchmarks/bench_twins.py [--repeat 7]

Each row: the fast path, the careful one, and the ratio (median of the repeats, per call).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def per_call(step: Callable[[], Any], repeat: int, budget: float = 0.2) -> float:
    """Median seconds per call, each repeat running about `budget` seconds."""
    number = 1
    while timeit.timeit(step, number=number) < budget / 4:
        number *= 4
    return statistics.median(t / number for t in timeit.repeat(step, number=number, repeat=repeat))


def validator_twin(repeat: int) -> tuple[str, float, float]:
    import jsonschema

    from evalkit import schemas
    from evalkit.engine.validator import Validator
    from evalkit.engine.yamlsource import parse_yaml

    text = (ROOT / "config_samples/rules.yaml").read_text(encoding="utf-8")
    document, _ = parse_yaml(text, "rules.yaml")
    assert document is not None
    schema = schemas.load("rules")
    ours, theirs = Validator(schema), jsonschema.Draft202012Validator(schema)
    fast = per_call(lambda: list(ours.iter_errors(document.data)), repeat)
    careful = per_call(lambda: list(theirs.iter_errors(document.data)), repeat)
    return "validate rules.yaml: engine/validator.py vs jsonschema", fast, careful


def validator_import() -> tuple[str, float, float]:
    """What `evalkit check` would add to its start by validating with jsonschema: its import, once the
    engine (which holds engine/validator.py) is loaded."""
    code = "import time, evalkit.engine; t = time.perf_counter(); import {}; print(time.perf_counter() - t)"

    def imported(module: str) -> float:
        return statistics.median(
            float(
                subprocess.run(
                    [sys.executable, "-c", code.format(module)], capture_output=True, text=True, check=True
                ).stdout
            )
            for _ in range(5)
        )

    return (
        "import beside the engine: (nothing more) vs jsonschema",
        imported("evalkit.engine.validator"),
        imported("jsonschema"),
    )


def submission_twin(repeat: int) -> tuple[str, float, float]:
    from evalkit.engine.submission import _checked, _well_typed

    data = json.loads((ROOT / "samples/sample_submission.json").read_text(encoding="utf-8"))
    assert _well_typed(data) is not None
    return (
        "parse the seed sample: _well_typed vs _checked",
        per_call(lambda: _well_typed(data), repeat),
        per_call(lambda: _checked(data), repeat),
    )


def template_twin(repeat: int) -> tuple[str, float, float]:
    from evalkit.engine.templates import _through_jinja, compile_template

    source = "Accuracy {{ corrected.accuracy }} after {{ signals.length_total }} characters"
    context = {"corrected": {"accuracy": 4.5}, "signals": {"length_total": 1234}, "detail": {}}
    lookups, jinja = compile_template(source), _through_jinja(source)
    assert lookups(context) == jinja(context)
    return (
        "render a lookup template: lookups vs Jinja",
        per_call(lambda: lookups(context), repeat),
        per_call(lambda: jinja(context), repeat),
    )


def verdict_twin(repeat: int, rules: int | None = None, chars: int = 0) -> tuple[str, float, float]:
    """The shipped config's rules, or `rules` generated ones (the language server's stress config, 250), on
    the seed sample or on it stretched to `chars` characters. Each call reads fresh signals: a text's
    searches are remembered in its signals, and a submission is tested once."""
    from evalkit.engine import load_config
    from evalkit.engine.conditions import compile_verdicts
    from evalkit.engine.context import Signals
    from evalkit.engine.submission import parse_submission

    with tempfile.TemporaryDirectory() as folder:
        if rules is None:
            plan = load_config().plan
        else:
            sys.path.insert(0, str(ROOT / "benchmarks"))
            from bench_lsp import make_workspace

            plan = load_config(make_workspace(Path(folder), 0, length=8 * rules).parent).plan
    assert plan is not None
    blocks = [rule.when for rule in [*plan.rating_rules, *plan.ranking_rules]]
    data = json.loads((ROOT / "samples/sample_submission.json").read_text(encoding="utf-8"))
    if chars:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_engine import stretched

        data = stretched(data, chars)
    submission = parse_submission(data)
    generated = compile_verdicts(blocks)
    assert generated(Signals.of(submission)) == tuple(block.test(Signals.of(submission)) for block in blocks)
    which = "shipped" if rules is None else "generated"
    on = f" on {chars:,} chars" if chars else ""
    return (
        f"{which} {len(blocks)} rules{on}: needles at once vs rule by rule",
        per_call(lambda: generated(Signals.of(submission)), repeat),
        per_call(
            lambda: tuple(block.test(signals) for signals in [Signals.of(submission)] for block in blocks),
            repeat,
        ),
    )


def yaml_twin(repeat: int, lines: int | None = None) -> tuple[str, float, float]:
    """The shipped rules.yaml, or a generated one of `lines` lines (the language server's stress config)."""
    from evalkit.engine.yamlsource import _parse_careful, _parse_fast

    if lines is None:
        text = (ROOT / "config_samples/rules.yaml").read_text(encoding="utf-8")
    else:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_lsp import rules_text

        text = rules_text(random.Random(2024), lines)
    assert _parse_fast(text, "rules.yaml") == _parse_careful(text, "rules.yaml")
    return (
        f"parse a {len(text.splitlines()):,}-line rules.yaml: compose at once vs scan first",
        per_call(lambda: _parse_fast(text, "rules.yaml"), repeat),
        per_call(lambda: _parse_careful(text, "rules.yaml"), repeat),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    import evalkit.engine.evaluator as evaluator

    print(f"engine: {'compiled (mypyc)' if evaluator.__file__.endswith('.so') else 'pure Python'}")
    print(f"{'twin':<72} {'fast':>10} {'careful':>10} {'ratio':>7}")
    rows = [
        validator_twin(repeat),
        validator_import(),
        submission_twin(repeat),
        template_twin(repeat),
        verdict_twin(repeat),
        verdict_twin(repeat, chars=100_000),
        verdict_twin(repeat, rules=250),
        yaml_twin(repeat),
        yaml_twin(repeat, lines=2_000),
    ]
    for name, fast, careful in rows:
        print(f"{name:<72} {fast * 1e6:>8.1f}us {careful * 1e6:>8.1f}us {careful / fast:>6.1f}x")


if __name__ == "__main__":
    main()
