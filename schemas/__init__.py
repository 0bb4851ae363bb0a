"""The JSON Schemas (draft 2020-12) of every evalkit file format: the single source of truth.

`load(name)` returns one parsed schema; `NAMES` lists them. The schemas are package data.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

NAMES = ("dimensions", "ranking", "prompt", "rewrite", "rules", "submission", "ruletest")


def text(name: str) -> str:
    """The schema file's text, as shipped."""
    if name not in NAMES:
        raise KeyError(name)
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed schema for NAME (one of NAMES)."""
    return json.loads(text(name))
