"""Laws of what no UTF-8 output can hold: lone surrogates in JSON text, file names of any bytes."""

from __future__ import annotations

import json
import os

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalkit.engine.text import SURROGATES, shown
from evalkit.services.inputs.read import parse_text

ANY_CHARACTERS = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF))  # lone surrogates included


@given(ANY_CHARACTERS, st.booleans())
@example("\ud83d\ude00 \\ud800", True)  # a pair of escapes is one character; an escaped backslash no escape
@example("x\udc80", True)
def test_a_json_string_is_refused_exactly_when_it_holds_a_lone_surrogate(text: str, ascii_only: bool) -> None:
    document = json.dumps({"prompt": text}, ensure_ascii=ascii_only)
    if not ascii_only and SURROGATES.search(text):
        return  # a raw surrogate cannot be in a file's text: it was decoded from UTF-8
    loaded = parse_text(document, "x.json", ".json")
    refused = "is a lone surrogate" in (loaded.error or "")
    assert refused == bool(SURROGATES.search(json.loads(document)["prompt"]))


@settings(deadline=None)  # 0.04 ms an example; a loaded machine stalled one for 255 ms (200 ms deadline)
@given(st.binary(min_size=1, max_size=40))
def test_any_file_name_is_shown_as_utf8_and_valid_names_are_shown_as_they_are(name: bytes) -> None:
    decoded = os.fsdecode(name)
    shown(decoded).encode("utf-8")  # never raises
    try:
        assert shown(decoded) == name.decode("utf-8")
    except UnicodeDecodeError:
        assert "\\x" in shown(decoded)
