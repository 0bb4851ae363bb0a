"""Hostile values for the fuzz targets: text that would be live on a terminal, in a CI log or in Markdown,
values of the wrong type or beyond range, and file names holding any byte but `/` and NUL."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import strategies as st

PIECES = (
    "\x1b]52;c;SGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://x\x1b\\",  # OSC 8: a link
    "\x1b[2J",
    "\x9b31m",  # CSI as one C1 character
    "\r::error::forged",
    "\n::add-mask::secret",
    "##[error]x",
    "##vso[task.setvariable variable=a]b",
    "\u202e",
    "\u2028",
    "\x00",
    "\x7f",
    "`",
    "``",
    "|",
    "<img src=https://x/y.png>",
    "[l](https://x)",
    "@alice",
    "https://x.example",
    "www.example.com",
    "# h",
    "- ",
    "{{ x }}",
    "{missing}",
    "{value:>99}",
    "%s",
    "\\",
    '"',
    "'",
    ":",
    "é",
    "🔥",
)
HOSTILE_TEXT = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(max_size=6), st.characters(codec="utf-8")), max_size=8
).map("".join)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.7e308, -1.7e308, 5e-324, 10**400]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, HOSTILE_TEXT)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(HOSTILE_TEXT, inner, max_size=3)),
    max_leaves=8,
)
FILE_NAMES = (
    st.lists(
        st.one_of(
            st.sampled_from([p for p in PIECES if "/" not in p and "\x00" not in p]),
            st.binary(min_size=1, max_size=3).map(
                lambda raw: os.fsdecode(raw.replace(b"/", b"_").replace(b"\0", b"_"))
            ),
        ),
        min_size=1,
        max_size=4,
    )
    .map("".join)
    .filter(lambda name: name not in (".", "..") and len(os.fsencode(name)) < 120)
)


def replaced(value: Any, draw: st.DrawFn, rate: int = 3) -> Any:
    """`value` (plain JSON data) with about one leaf in `rate`, and one member in `rate`, drawn again."""
    if draw(st.integers(0, rate - 1)) == 0:
        return draw(VALUES)
    if isinstance(value, dict):
        return {key: replaced(item, draw, rate) for key, item in value.items()}
    if isinstance(value, list):
        return [replaced(item, draw, rate) for item in value]
    return value
