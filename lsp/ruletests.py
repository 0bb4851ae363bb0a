"""Rule test files (`<config folder>/tests/*.yaml`) in the editor: which documents are rule tests, and
their diagnostics against the folder's config as the editor holds it (unsaved config buffers included).

The checks are `evalkit test`'s own (`engine.ruletest_load.check_test_text`): YAML, the ruletest schema,
rule ids the config lacks (with the closest one as a fix), and the cases whose submission cannot be read,
which `evalkit test` reports only when it runs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from evalkit.engine.config import Config, config_files
from evalkit.engine.diagnostics import Diagnostic
from evalkit.services.check.runner import rule_positions
from evalkit.services.ruletests.load import TESTS_FOLDER, case_problems, check_test_text

SCHEMA = "ruletest"  # the schema rule test files follow (schemas/ruletest.schema.json)


def is_rule_test(path: Path) -> bool:
    return path.suffix in (".yaml", ".yml") and path.parent.name == TESTS_FOLDER


def config_folder_of(path: Path) -> Path | None:
    """The config folder of a rule test file, or None for a YAML file in a `tests/` folder that has no
    config files beside it (it belongs to something else)."""
    folder = path.parent.parent
    return folder if is_rule_test(path) and config_files(folder) else None


def rule_ids(configs: Iterable[Config | None]) -> frozenset[str]:
    """The rule ids of the first config that could read its rules file: while rules.yaml does not parse
    (a rule being typed), the tests are checked against the ids it had before."""
    for config in configs:
        if config is not None and "rules" in config.documents:
            return frozenset(rule_id for rule_id, _, _ in rule_positions(config))
    return frozenset()


def check_tests(texts: Mapping[str, str], ids: frozenset[str]) -> dict[str, list[Diagnostic]]:
    """The diagnostics of each rule test file among `texts` (path -> text); other paths are passed over."""
    found = {}
    for raw, text in texts.items():
        path = Path(raw)
        if is_rule_test(path):
            checked = check_test_text(path, text, ids)
            found[raw] = sorted([*checked.diagnostics, *case_problems(checked)], key=Diagnostic.sort_key)
    return found
