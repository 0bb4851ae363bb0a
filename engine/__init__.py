"""The evalkit engine, the pure core: config loading, validation, compilation and evaluation; diagnostics;
the result. What the faces do with it (inputs, batches, check, rule tests, diff, stats) is `evalkit.services`.

Public API (README, "Evaluating submissions"; ARCHITECTURE.md): `load_config`, `analyze`, `Config`,
`ConfigError`, `Evaluator`, `Result`, `Submission`, `parse_submission`, `SubmissionError`, `Diagnostic`,
`Severity`.

Exceptions: `ConfigError` (an invalid config; carries its diagnostics) and `SubmissionError` (a submission
that cannot be evaluated; names the offending field).
"""

from typing import TYPE_CHECKING, Any

from evalkit.engine.config import CONFIG_NAMES, Config, ConfigError, analyze, load_config
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.result import Result
from evalkit.engine.submission import DIMENSIONS, Submission, SubmissionError, parse_submission

if TYPE_CHECKING:
    from evalkit.engine.diagnostics import Diagnostic, Fix, Severity, Span

_DIAGNOSTICS = ("Diagnostic", "Fix", "Severity", "Span")


def __getattr__(name: str) -> Any:
    """The diagnostics' names, imported when first asked for: `evalkit eval` with a valid config, its
    check cached, never needs them."""
    if name in _DIAGNOSTICS:
        from evalkit.engine import diagnostics

        return getattr(diagnostics, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CONFIG_NAMES",
    "DIMENSIONS",
    "Config",
    "ConfigError",
    "Diagnostic",
    "Evaluator",
    "Fix",
    "Result",
    "Severity",
    "Span",
    "Submission",
    "SubmissionError",
    "analyze",
    "load_config",
    "parse_submission",
]
