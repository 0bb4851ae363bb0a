"""An output that names one of the command's inputs: writing it would replace what was to be read (or,
for a log, append to it). `eval`, `review` and `stats` refuse such an output before reading (`score`
writes its input's rows back with their scores, so it may score a file in place).

Only os and stat at import (a one-file `evalkit eval` starts without more); a folder's listing
(services/inputs/read.py) is imported only for a folder named as an input.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable


def input_written_over(output: str, inputs: Iterable[str]) -> str | None:
    """The input file (named, or listed in a folder named) that `output` names, or None. Only an existing
    regular file can be one: a device or a pipe (`/dev/stdout`) is written in place."""
    try:
        written = os.stat(output)
    except OSError:
        return None
    if not stat.S_ISREG(written.st_mode):
        return None
    for name in inputs:
        for path in _files(name):
            try:
                if os.path.samestat(os.stat(path), written):
                    return path
            except OSError:
                continue
    return None


def _files(name: str) -> list[str]:
    if not os.path.isdir(name):
        return [name]
    from evalkit.services.inputs.read import expand_inputs

    return [str(path) for path in expand_inputs([name])[0]]
