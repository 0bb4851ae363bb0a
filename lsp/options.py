"""The server's initialization options: a typed dataclass with safe defaults.

Editors pass them as `initializationOptions` (JSON, camelCase keys):

    {"samples": "path/to/samples", "dryRun": true, "diagnosticsDelayMs": 0, "dryRunDelayMs": 50,
     "journals": "reviews/*.decisions.jsonl", "impactBase": "saved"}

A missing key keeps its default; a key of the wrong type or out of range is reported in `problems`
(the server logs them) and keeps its default too, so a typo in an editor's settings never stops the
server.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

# camelCase JSON key -> dataclass field
_KEYS = {
    "samples": "samples",
    "dryRun": "dry_run",
    "diagnosticsDelayMs": "diagnostics_delay_ms",
    "dryRunDelayMs": "dry_run_delay_ms",
    "maxSamples": "max_samples",
    "journals": "journals",
    "impactBase": "impact_base",
}
IMPACT_BASES = ("saved", "HEAD")
_DELAY_LIMIT_MS = 10_000


@dataclass(frozen=True, slots=True)
class InitOptions:
    samples: str | None = None
    """Folder of sample submissions for the dry run; relative paths start at the workspace root.
    None: `samples/` beside the config folder, else at the workspace root."""

    dry_run: bool = True
    """Run the rules on the samples after each edit and show the results as code lenses."""

    diagnostics_delay_ms: int = 0
    """Quiet time after an edit before the folder is re-checked. Even at 0, edits that arrive while a
    check runs are coalesced: only the newest text is checked next."""

    dry_run_delay_ms: int = 50
    """Further quiet time after a check before the dry run starts; a new edit cancels it."""

    max_samples: int = 500
    """At most this many sample submissions are evaluated (the first, by file name)."""

    journals: str | None = None
    """A glob of review journals (`evalkit review`'s decisions), relative to the workspace root: the hover
    on a rule id adds what reviewers decided on its proposals. None: no reviewers' verdicts."""
    impact_base: str = "saved"
    """What the live impact compares the edited config with: the files as saved (`saved`), or the config
    folder at git HEAD (`HEAD`)."""


def _valid(name: str, value: Any) -> bool:
    if name in ("samples", "journals"):
        return value is None or isinstance(value, str)
    if name == "impact_base":
        return value in IMPACT_BASES
    if name == "dry_run":
        return isinstance(value, bool)
    if name == "max_samples":
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100_000
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _DELAY_LIMIT_MS


def parse_options(raw: Any) -> tuple[InitOptions, list[str]]:
    """The options in `raw` (the client's initializationOptions) and a message for each one ignored."""
    options = InitOptions()
    if raw is None:
        return options, []
    if not isinstance(raw, dict):
        return options, [f"initializationOptions must be an object, not {type(raw).__name__}; using defaults"]
    problems = []
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        name = _KEYS.get(key)
        if name is None:
            problems.append(f"unknown initialization option {key!r}; known: {', '.join(_KEYS)}")
        elif not _valid(name, value):
            default = getattr(options, name)
            problems.append(f"initialization option {key!r} = {value!r} is not valid; using {default!r}")
        else:
            changes[name] = value
    return replace(options, **changes), problems
