r"""The answer inside the last `\boxed`, read as LiveBench's `last_boxed_only_string` and `remove_boxed`
read it (livebench/process_results/util.py), for the connections scorer.

Two forms, tried in this order:

1. the space form: where the text holds `\boxed ` (a space after it) anywhere, the answer is what follows
   the last `\boxed `, up to the first `$` after it (or the end), whatever braces come later;
2. the brace form: from the last `\boxed`, braces are counted (`{` up, `}` down, escaped or not) and the
   boxed text ends at the first `}` that brings the count back to 0. Its `$` are removed and any `fbox` in
   it becomes `boxed` (as LiveBench does), and it must then start with `\boxed{`: its content is what lies
   between that and the closing brace, nested braces included.

Where LiveBench raises instead (no brace closes the count, or the brace form does not start with
`\boxed{`, as in `\boxed\n{a}`), there is no answer: None, which scores 0.

>>> last_boxed_answer(r"first \boxed{a} then \boxed{\text{b, {c}}} done")
'\\text{b, {c}}'
>>> last_boxed_answer(r"so $\boxed a,b,c,d$ is it")
'a,b,c,d'
>>> last_boxed_answer(r"\boxed{never closed") is None
True
"""

from __future__ import annotations

import re

_BOXED = "\\boxed"
_SPACED = "\\boxed "
_OPENING = "\\boxed{"
_BRACE = re.compile(r"[{}]")


def last_boxed_answer(text: str) -> str | None:
    """The answer in the last `\\boxed` as LiveBench reads it, or None where it finds none."""
    if _SPACED in text:
        return text.rpartition(_SPACED)[2].partition("$")[0]
    start = text.rfind(_BOXED)
    if start == -1:
        return None
    end = _balancing_brace(text, start)
    if end == -1:
        return None
    boxed = text[start : end + 1].replace("$", "").replace("fbox", "boxed")
    if _SPACED in boxed:  # made by the replacements: LiveBench's remove_boxed takes the space form
        return boxed[len(_SPACED) :] if boxed.startswith(_SPACED) else None
    return boxed[len(_OPENING) : -1] if boxed.startswith(_OPENING) else None


def _balancing_brace(text: str, start: int) -> int:
    """The index of the first `}` after `start` that brings the count of braces from `start` back to 0,
    else -1. A `}` before any `{` counts down too (to -1, which is not 0)."""
    depth = 0
    for brace in _BRACE.finditer(text, start):  # brace to brace: long texts stay cheap
        if brace.group() == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return brace.start()
    return -1
