"""`-` among a command's INPUTs: standard input, read where it stands among them (services/inputs/read.py's
stdin_items says how: JSON Lines, or one JSON or YAML document), as the raw items `eval` and `diff` evaluate.
Imported only when `-` is named."""

from __future__ import annotations

import sys
from collections.abc import Generator

from evalkit.services.inputs.read import STDIN, stdin_items
from evalkit.services.run.batch import Outcome, RawItem, raw_items


def items_with_stdin(inputs: list[str]) -> Generator[RawItem | Outcome, None, None]:
    """raw_items of the inputs, in order, `-` read from standard input."""
    for name in inputs:
        if name != STDIN:
            yield from raw_items([name])
            continue
        for item in stdin_items(sys.stdin.buffer):
            if item.text is None:
                yield Outcome(item.source, error=item.problem)
            else:
                yield RawItem(item.source, item.text, item.suffix)


def stdin_problem(inputs: list[str]) -> str | None:
    """Why `-` among the inputs cannot be read (named twice; standard input closed), or None."""
    named = inputs.count(STDIN)
    if named > 1:
        return f"- (standard input) is named {named} times; it can be read once"
    if named and sys.stdin is None:  # started with it closed (`<&-`)
        return "- names standard input, which is closed"
    return None
