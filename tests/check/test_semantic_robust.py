"""The semantic checks guard every type they read, so they can run on a document the schema rejected and
one run can report schema and semantic problems together."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.engine.semantic import CHECKS, semantic_diagnostics
from evalkit.engine.yamlsource import YamlDocument

ANY = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 600) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
KEYS = [
    "rating_rules",
    "ranking_rules",
    "rewrite_rules",
    "options",
    "id",
    "when",
    "actions",
    "any_of",
    "min_total_length",
    "max_total_length",
    "rewrite_regex_any",
    "add_comment_template",
    "stop_after_first",
    "scale",
    "dimensions",
    "ideal",
    "tolerance",
    "feedback",
    "ok",
    "missing_field",
    "invalid_label",
]
SHAPED = st.recursive(
    ANY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(CHECKS)), SHAPED)
def test_semantic_checks_never_raise_on_data_the_schema_would_reject(name: str, data: Any) -> None:
    for found in semantic_diagnostics(name, YamlDocument(f"{name}.yaml", "", data)):
        assert found.line >= 1 and found.code


def test_a_duplicate_id_is_found_beside_schema_errors() -> None:
    data = {
        "rating_rules": [{"id": "a", "actions": "not a mapping", "when": [1]}, {"id": "a", "zzz": 1}],
        "options": ["stop_after_first"],
    }
    found = semantic_diagnostics("rules", YamlDocument("rules.yaml", "", data))
    assert [d.code for d in found] == ["duplicate-rule-id"]
