"""The JSON Schemas (draft 2020-12) of every evalkit file format: the single source of truth.

`load(name)` returns one parsed schema; `NAMES` lists them. The schemas are package data.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

NAMES = ("dimensions", "ranking", "prompt", "rewrite", "rules", "submission", "ruletest")


def text(name: str) -> str:
    """The schema file's text, as shipped."""
    if name not in NAMES:
        raise KeyError(name)
    file_name = f"{name}.schema.json"
    try:  # beside this module, where pip puts package data; importlib.resources imports zipfile and more
        return Path(__file__).with_name(file_name).read_text(encoding="utf-8")
    except OSError:  # (imported from a zip archive)
        from importlib import resources

        return resources.files(__name__).joinpath(file_name).read_text(encoding="utf-8")


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed schema for NAME (one of NAMES)."""
    return json.loads(text(name))
