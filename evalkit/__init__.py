"""evalkit: tooling for judging LLM output with declarative rules.

The public API lives in `evalkit.engine` (load_config, Evaluator, ConfigError, Diagnostic) and
`evalkit.qydomain` (the scorers). They are re-exported here lazily so that importing `evalkit`
costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "load_config": "evalkit.engine",
    "Evaluator": "evalkit.engine",
    "ConfigError": "evalkit.engine",
    "Diagnostic": "evalkit.engine",
    "score": "evalkit.qydomain",
    "compute_score": "evalkit.qydomain",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
