"""Suite-wide settings. Hypothesis explores new examples on every local run; in CI (`CI` set, as .ci/run
and most CI services do) it is derandomized, so a red build always reproduces, and prints the failing
example's blob for `@reproduce_failure`."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
