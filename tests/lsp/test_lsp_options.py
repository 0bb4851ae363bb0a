"""The initialization options: defaults, camelCase keys, and a bad value ignored with a reason."""

from __future__ import annotations

from evalkit.lsp.options import InitOptions, parse_options


def test_no_options_means_the_defaults() -> None:
    assert parse_options(None) == (InitOptions(), [])
    assert InitOptions() == InitOptions(
        samples=None,
        dry_run=True,
        diagnostics_delay_ms=0,
        dry_run_delay_ms=50,
        max_samples=500,
        impact_base="saved",
    )


def test_options_are_read_from_their_json_names() -> None:
    raw = {
        "samples": "data/samples",
        "dryRun": False,
        "diagnosticsDelayMs": 0,
        "dryRunDelayMs": 200,
        "maxSamples": 20,
        "journals": "reviews/*.jsonl",
        "impactBase": "HEAD",
    }
    assert parse_options(raw) == (
        InitOptions("data/samples", False, 0, 200, 20, "reviews/*.jsonl", "HEAD"),
        [],
    )


def test_a_bad_option_keeps_its_default_and_says_why() -> None:
    options, problems = parse_options(
        {"dryRunDelayMs": -5, "dryRun": "yes", "impactBase": "head", "colour": "blue"}
    )
    assert options == InitOptions()
    assert problems == [
        "initialization option 'dryRunDelayMs' = -5 is not valid; using 50",
        "initialization option 'dryRun' = 'yes' is not valid; using True",
        "initialization option 'impactBase' = 'head' is not valid; using 'saved'",
        "unknown initialization option 'colour'; known: "
        "samples, dryRun, diagnosticsDelayMs, dryRunDelayMs, maxSamples, journals, impactBase",
    ]
    assert parse_options([1]) == (
        InitOptions(),
        ["initializationOptions must be an object, not list; using defaults"],
    )
