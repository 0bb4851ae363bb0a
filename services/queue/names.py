"""Reviewer names: what a queue accepts as one. A name becomes a journal's file name in `queue export` and
shows in every report, so it is letters, digits and `.`, `_`, `-`, `@`, `+` (no path separator, no control
character, no leading dot), at most 64 characters."""

from __future__ import annotations

import re

from evalkit.services.queue import QueueError

_NAME = re.compile(r"\w[\w.@+-]{0,63}")


def check_reviewer_name(name: str) -> str:
    if _NAME.fullmatch(name) and name.isprintable():
        return name
    if any(not ch.isprintable() for ch in name):
        raise QueueError(f"reviewer name {name!r}: it holds control characters; choose a plain name")
    raise QueueError(
        f"reviewer name {name!r}: use letters, digits and . _ - @ + (at most 64, starting with a letter "
        "or digit)"
    )
