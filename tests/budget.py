"""How many examples a Hypothesis property explores, in each of `python3 tasks.py test`'s two passes.

The main pass explores every property at its full count, against the build users run (the engine's and the
scorers' hot modules compiled by mypyc). The pure pass runs tests/engine and tests/qydomain again against
the Python source of the same modules (EVALKIT_PURE=1): it has the laws already explored at full strength on
that code, compiled, and checks the source keeps them, with the Hypothesis profile `pure-pass` (tasks.py
passes `--hypothesis-profile=pure-pass`): a quarter of each property's examples, never fewer than
`PURE_PASS_FLOOR`. A property at Hypothesis' default count gets that from the profile; one that sets its
own count says `settings(max_examples=examples(N))`, which is N in every other run.
"""

from __future__ import annotations

from hypothesis import settings

PURE_PASS = "pure-pass"
PURE_PASS_SHARE = 4
"""The pure pass explores one example in PURE_PASS_SHARE of a property's count..."""
PURE_PASS_FLOOR = 25
"""...and never fewer than this (nor more than the property's own count)."""


def pure_pass_examples(full: int) -> int:
    """The examples the pure pass explores of a property that explores `full` in the main pass."""
    return min(full, max(PURE_PASS_FLOOR, full // PURE_PASS_SHARE))


def examples(full: int) -> int:
    """`max_examples` for a property that explores `full` examples: fewer in the pure pass (see above)."""
    return pure_pass_examples(full) if settings.get_current_profile_name() == PURE_PASS else full
