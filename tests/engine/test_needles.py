"""Needle search (engine/needles.py) finds exactly what `needle.lower() in text.lower()` finds, for any text
and needles: through the search itself, and through `evalkit eval` on long texts."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.engine.needles import (
    FOLDS_TO_ASCII,
    SHORT_TEXT,
    WINDOW,
    Needles,
    SearchedText,
    TextPart,
    ascii_folded,
    found_by_folding,
    found_by_lowering,
)
from tests.budget import examples

Search = Callable[[list[TextPart], Needles], AbstractSet[str]]

# Case rules that look beyond one character or change a length (the final sigma, 'İ' -> 'i̇'), letters
# whose lower case is ASCII from outside it (Kelvin sign), or that no simple fold maps back (ß, dotless ı,
# long s ſ, micro µ), combining marks, Latin-1, Greek, CJK and an emoji (the string's three widths), and a
# lone surrogate, which JSON can carry.
ALPHABET = (
    "aAkKiIsS ?.\n\u03a3\u03c3\u03c2\u0391\u0130\u0131\u212a\u00df\u017f\u00b5\u03bc\u0301\u0307"
    "\u0345\u00e9\u00c9\u4e00\U0001f600\ud800"
)
TEXTS = st.text(alphabet=ALPHABET, max_size=12)
SETTINGS = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(parts: list[str], needles: list[str]) -> set[str]:
    text = "\n".join(parts).lower()
    return {needle for needle in needles if needle.lower() in text}


def found(parts: list[str], needles: list[str], search: Search | None = None) -> set[str]:
    """What the engine finds: through SearchedText, which picks the search by length, or through `search`."""
    compiled = Needles.of(needles)
    text_parts = [TextPart(part) for part in parts]
    seen = search(text_parts, compiled) if search else SearchedText(text_parts).found(compiled)
    return {needle for needle, low in zip(needles, compiled.lowered, strict=True) if low in seen}


def slices(parts: list[str]) -> st.SearchStrategy[str]:
    """Pieces of the text, so that needles occur in it, overlap and hold one another."""
    text = "\n".join(parts)
    return st.tuples(st.integers(0, len(text)), st.integers(0, 6)).map(lambda at: text[at[0] : at[0] + at[1]])


@SETTINGS
@given(st.data(), st.lists(TEXTS, min_size=1, max_size=4), st.lists(TEXTS, max_size=3))
def test_search_finds_what_lower_case_containment_finds(
    data: st.DataObject, parts: list[str], others: list[str]
) -> None:
    needles = data.draw(st.lists(slices(parts), max_size=5)) + others
    expected = reference(parts, needles)
    assert found(parts, needles) == expected
    assert found(parts, needles, found_by_folding) == expected  # the long texts' search, on short ones
    assert found(parts, needles, found_by_lowering) == expected


@SETTINGS
@given(st.lists(st.tuples(TEXTS, st.integers(1, 1500)), min_size=1, max_size=3), st.lists(TEXTS, max_size=6))
def test_long_texts_are_searched_across_every_window(
    pieces: list[tuple[str, int]], needles: list[str]
) -> None:
    parts = [text * times for text, times in pieces]  # up to 18,000 characters: several windows
    assert found(parts, needles) == reference(parts, needles)


def test_a_needle_across_a_window_boundary_is_found() -> None:
    for start in range(WINDOW - 12, WINDOW + 2):
        text = "x" * start + "Bellman-Ford" + "y" * (3 * WINDOW)
        assert found([text], ["bellman-FORD", "x"]) == {"bellman-FORD", "x"}


def test_a_needle_inside_or_across_another_s_match_is_found() -> None:
    needles = ["bellman-ford", "man", "ford", "n-f"]
    assert found(["Bellman-Ford"], needles, found_by_folding) == set(needles)


def test_a_needle_on_every_line_does_not_hide_a_rare_one() -> None:
    text = "heap\n" * 50_000 + "Priority Queue"
    assert found([text], ["heap", "priority queue", "missing"]) == {"heap", "priority queue"}


def test_searches_asked_one_after_another_agree_with_one_search() -> None:
    for times in (1, 1000):  # searched as written, and folded
        searched = SearchedText([TextPart("Cola de PRIORIDAD " * times), TextPart("ΟΔΟΣ")])
        assert "ος" in searched.found(Needles.of(["ΟΣ"]))  # the final sigma, found through the lower case
        assert "cola" in searched.found(Needles.of(["COLA", "ΟΣ"]))
        assert "heap" not in searched.found(Needles.of(["heap", "cola"]))


@SETTINGS
@given(
    st.data(),
    st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=12), min_size=2, max_size=3),
    st.booleans(),
)
def test_a_part_shared_by_two_texts_answers_both(
    data: st.DataObject, parts: list[str], rewrite_first: bool
) -> None:
    """As Signals shares the rewrite between the text and the rewrite alone: whichever is asked first, each
    finds what its own lower case holds (the parts long enough to be folded and searched)."""
    parts = [part * (SHORT_TEXT // len(part) + 1) for part in parts]
    first, second = (data.draw(st.lists(slices(parts[-1:]) | slices(parts), max_size=4)) for _ in range(2))
    shared = TextPart(parts[-1])
    text = SearchedText([*[TextPart(part) for part in parts[:-1]], shared])
    alone = SearchedText([shared])
    asked = [(alone, first, parts[-1:]), (text, second, parts)]
    for searched, needles, where in asked if rewrite_first else asked[::-1]:
        compiled = Needles.of(needles)
        seen = searched.found(compiled)
        found_here = {n for n, low in zip(needles, compiled.lowered, strict=True) if low in seen}
        assert found_here == reference(where, needles)


@SETTINGS
@given(st.data(), st.lists(TEXTS, min_size=1, max_size=3), TEXTS, st.integers(1, 400))
def test_signals_search_the_text_and_the_rewrite_as_written(
    data: st.DataObject, texts: list[str], rewrite: str, times: int
) -> None:
    """Signals, short (lower-cased as written) or long (folded): the responses and rewrite joined by
    newlines, and the rewrite alone, whichever is asked first."""
    from evalkit.engine import DIMENSIONS, parse_submission
    from evalkit.engine.context import Signals

    texts, rewrite = [text * times for text in texts], rewrite * times
    signals = Signals.of(
        parse_submission(
            {
                "prompt": "P",
                "responses": [{"id": str(i), "text": t} for i, t in enumerate(texts)],
                "ranking": [],
                "ratings": dict.fromkeys(DIMENSIONS, 3.0),
                "rewrite_preferred": rewrite,
            }
        )
    )
    whole = [*texts, rewrite]
    asked = [(signals.rewrite, [rewrite]), (signals.text, whole)]
    for searched, where in asked if data.draw(st.booleans()) else asked[::-1]:
        needles = data.draw(st.lists(slices(where) | TEXTS, max_size=5))
        compiled = Needles.of(needles)
        seen = searched.found(compiled)
        found_here = {n for n, low in zip(needles, compiled.lowered, strict=True) if low in seen}
        assert found_here == reference(where, needles)
    assert signals.length_total == len("\n".join(texts) + "\n" + rewrite)


def test_only_the_listed_characters_fold_to_ascii() -> None:
    folding = [
        chr(c)
        for c in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= c < 0xE000 and any(x.isascii() for x in chr(c).lower())
    ]
    assert tuple(folding) == FOLDS_TO_ASCII


@SETTINGS
@given(TEXTS)
def test_folded_bytes_are_the_lower_case_where_it_is_ascii(text: str) -> None:
    folded = ascii_folded(text)
    lowered = text.lower()
    ascii_runs = [run for run in "".join(c if c.isascii() else "\0" for c in lowered).split("\0") if run]
    folded_runs = [run.decode() for run in bytes(b if b < 0x80 else 0 for b in folded).split(b"\0") if run]
    assert folded_runs == ascii_runs


def test_eval_on_a_long_text_fires_what_the_lower_case_holds(tmp_path: Path) -> None:
    """Through the CLI: a 60,000-character submission whose needles occur once, late, behind a Kelvin sign
    and a final sigma."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "rules.yaml").write_text(
        "rating_rules:\n"
        "  - {id: kelvin, when: {response_contains_any: ['HEAP K']}, actions: {set_flag: kelvin}}\n"
        "  - {id: sigma, when: {response_contains_any: ['ΟΔΟΣ ']}, actions: {set_flag: sigma}}\n"
        "  - {id: absent, when: {response_contains_any: ['οδοσ ']}, actions: {set_flag: absent}}\n"
        "  - {id: example, when: {preferred_rewrite_missing_substring: [Ejemplo]},"
        " actions: {set_flag: nox}}\n",
        encoding="utf-8",
    )
    text = "montículo " * 6000 + "heap \u212a, ΟΔΟΣ end"
    submission = {
        "prompt": "P",
        "responses": [{"id": "a", "text": text}],
        "ranking": ["a"],
        "ratings": {"instructions": 4, "accuracy": 4, "optimality": 4, "presentation": 4, "freshness": 4},
        "rewrite_preferred": "sin EJEMPLO" + "é" * 30_000,
    }
    path = tmp_path / "long.json"
    path.write_text(json.dumps(submission), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", str(path), "--config-dir", str(config)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["flags"] == {"kelvin": True, "sigma": True}
