"""Suite-wide settings. Hypothesis explores new examples on every local run; in CI (`CI` set, as .ci/run
and most CI services do) it is derandomized, so a red build always reproduces, and prints the failing
example's blob for `@reproduce_failure`."""

from __future__ import annotations

import os
from typing import Callable

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def _read_terminal(descriptor: int) -> str:
    """Everything a program wrote to a pseudo-terminal (the controller's `descriptor`), which is closed."""
    chunks = []
    while True:
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:  # the terminal's other end is closed: everything has been read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(descriptor)
    return b"".join(chunks).decode(errors="replace")


@pytest.fixture
def read_terminal() -> Callable[[int], str]:
    return _read_terminal
