r"""The content of the last `\boxed{…}` in a text, as math-style answers give it.

Only the last `\boxed` counts, and it must open a brace at once; its content ends at the brace that balances
it. Anything else (no `\boxed`, `\boxed` not followed by `{`, braces that never balance) has no content.

>>> last_boxed_content(r"first \boxed{a} then \boxed{\text{b, {c}}} done")
'\\text{b, {c}}'
>>> last_boxed_content(r"\boxed{never closed") is None
True
"""

from __future__ import annotations

import re

_BOXED = "\\boxed"
_BRACE = re.compile(r"[{}]")


def last_boxed_content(text: str) -> str | None:
    """The text inside the last `\\boxed{…}`, or None when it is missing or unbalanced."""
    start = text.rfind(_BOXED)
    opening = start + len(_BOXED)
    if start == -1 or not text.startswith("{", opening):
        return None
    depth = 0
    for brace in _BRACE.finditer(text, opening):  # jump from brace to brace: long texts stay cheap
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return text[opening + 1 : brace.start()]
    return None
