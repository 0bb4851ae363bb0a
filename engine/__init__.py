"""The evalkit engine: config loading, validation, compilation and evaluation; diagnostics; reports.

Public API (DESIGN.md): `load_config`, `analyze`, `Config`, `ConfigError`, `Evaluator`, `Result`,
`Submission`, `parse_submission`, `SubmissionError`, `Diagnostic`, `Severity`.

Exceptions: `ConfigError` (an invalid config; carries its diagnostics) and `SubmissionError` (a submission
that cannot be evaluated; names the offending field).
"""

from evalkit.engine.config import CONFIG_NAMES, Config, ConfigError, analyze, load_config
from evalkit.engine.diagnostics import Diagnostic, Fix, Severity, Span
from evalkit.engine.evaluator import Evaluator
from evalkit.engine.result import Result
from evalkit.engine.submission import DIMENSIONS, Submission, SubmissionError, parse_submission

__all__ = [
    "CONFIG_NAMES", "DIMENSIONS", "Config", "ConfigError", "Diagnostic", "Evaluator", "Fix", "Result",
    "Severity", "Span", "Submission", "SubmissionError", "analyze", "load_config", "parse_submission",
]
