"""Linear-time regular expressions for rules: RE2, compiled once at load.

RE2 differs from Python's `re`: `\\w`, `\\d`, `\\s` are ASCII-only, `$` without `(?m)` matches only at the
very end, and lookaround and backreferences are refused (a config error at the pattern's position).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evalkit.engine import limits


class PatternError(ValueError):
    """RE2 cannot compile the pattern; the message is RE2's reason."""


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Any:
    """Compiled once per distinct pattern (checking and compiling a config share the work)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = limits.MAX_REGEX_PROGRAM * 80
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternError(str(reason)) from None
