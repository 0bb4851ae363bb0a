"""The editor's map of the schemas (`lsp/schemanav.py`) follows `$ref` as the validator does, and a
`$ref` that points nowhere allows any value instead of failing a completion or a hover."""

from __future__ import annotations

from evalkit.engine.validator import Validator
from evalkit.lsp.schemanav import resolve, root, type_words


def test_a_ref_is_followed_to_the_schema_the_validator_checks_with() -> None:
    top = root("rules")
    referring = {"$ref": "#/$defs/rule_id", "description": "the rule's own words"}
    followed = resolve(top, referring)
    assert followed == {**Validator(top).resolve("#/$defs/rule_id"), "description": "the rule's own words"}


def test_a_ref_that_points_nowhere_allows_any_value() -> None:
    top = {"$defs": {"name": "a string, not a schema"}}
    for ref in ("#/$defs/absent", "#/$defs/name", "#/$defs/name/deeper", 7):
        assert resolve(top, {"$ref": ref}) == {}
    assert type_words(top, resolve(top, {"$ref": "#/$defs/absent"})) == "any value"


def test_a_hover_names_types_in_the_words_of_the_messages_without_their_article() -> None:
    words = [
        type_words({}, node)
        for node in (
            {"type": "array", "items": {"type": "string"}},
            {"type": "array", "items": {"type": "object"}},
            {"type": ["integer", "null"]},
            {"type": "boolean"},
        )
    ]
    assert words == ["list of strings", "list of mappings", "integer or null", "true or false"]
