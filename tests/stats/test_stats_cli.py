"""`evalkit stats` through the console script, on journals written by the review session's real journal
writer: per rule, per kind, per dimension, labels, throughput, agreement between reviewers, every format,
and the errors that stop it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from evalkit.services.review.proposals import Proposal

PENALTY = "low_optimality_penalty"  # moves the label and a flag on 4 of the 8 samples


def discard_penalty(proposal: Proposal) -> tuple[str, Any]:
    return ("discard", None) if PENALTY in proposal.rules else ("accept", None)


def label_poor(proposal: Proposal) -> tuple[str, Any]:
    return ("edit", "poor") if proposal.kind == "label" else ("accept", None)


def stats_json(evalkit: Any, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    done = evalkit("stats", *args, "--format", "json", **({"cwd": cwd} if cwd else {}))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def decision_lines(journal: Path) -> int:
    return sum(1 for line in journal.read_text().splitlines() if json.loads(line)["target"] != "status")


def test_rules_reviewers_overrule_most_come_first_with_their_counts(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("accept", None))
    ben = reviewer("ben", discard_penalty)
    report = stats_json(evalkit, str(ana), str(ben))
    first = report["rules"][0]
    assert first["rule"] == PENALTY
    assert first["moved"] == {"label": 4, "flag": 4}
    assert (first["decided"], first["accepted"], first["discarded"], first["edited"]) == (16, 8, 8, 0)
    assert first["discarded_rate"] == 0.5
    overruled = [1 - rule["accepted_rate"] for rule in report["rules"]]
    assert overruled == sorted(overruled, reverse=True)
    assert report["submissions"] == 8 and report["missing_submissions"] == []
    assert report["unmatched_decisions"] == 0


def test_every_kind_of_proposal_is_tallied(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("discard", None))
    kinds = stats_json(evalkit, str(ana))["kinds"]
    assert {kind for kind, tally in kinds.items() if tally["decided"]} == {
        "rating",
        "ranking",
        "rewrite",
        "label",
        "flag",
    }
    assert all(tally["decided"] == tally["discarded"] for tally in kinds.values())
    assert sum(tally["decided"] for tally in kinds.values()) == decision_lines(ana)


def test_ratings_drift_from_the_proposed_and_the_original_value(reviewer: Any, evalkit: Any) -> None:
    keeps_original = reviewer("ana", lambda p: ("discard", None))
    takes_proposal = reviewer("ben", lambda p: ("accept", None))
    edits_to_3 = reviewer("cy", lambda p: ("edit", 3.0) if p.kind == "rating" else None)
    kept = stats_json(evalkit, str(keeps_original))["dimensions"]
    taken = stats_json(evalkit, str(takes_proposal))["dimensions"]
    assert {d["dimension"] for d in kept} == {"accuracy", "instructions", "optimality", "presentation"}
    for keep, take in zip(kept, taken, strict=True):
        assert keep["mean_abs_final_minus_original"] == 0 and keep["mean_abs_final_minus_proposed"] > 0
        assert take["mean_abs_final_minus_proposed"] == 0
        assert take["mean_abs_final_minus_original"] == keep["mean_abs_final_minus_proposed"]
    edited = stats_json(evalkit, str(edits_to_3))
    assert edited["kinds"]["rating"]["edited"] == 8 and edited["kinds"]["label"]["decided"] == 0
    accuracy = next(d for d in edited["dimensions"] if d["dimension"] == "accuracy")
    assert accuracy["decided"] == 3  # samples 01, 18 and 21


def test_labels_engine_against_final_as_a_confusion_matrix(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("accept", None))
    ben = reviewer("ben", label_poor)
    labels = stats_json(evalkit, str(ana), str(ben))["labels"]
    assert labels["decided"] == 16 and labels["agreement"] == 0.5
    cells = {(c["engine"], c["final"]): c["count"] for c in labels["matrix"]}
    assert cells == {
        ("needs_review", "needs_review"): 5,
        ("neutral", "neutral"): 3,
        ("needs_review", "poor"): 5,
        ("neutral", "poor"): 3,
    }


def test_discarding_a_label_leaves_none(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("discard", None) if p.kind == "label" else None)
    cells = {(c["engine"], c["final"]) for c in stats_json(evalkit, str(ana))["labels"]["matrix"]}
    assert cells == {("needs_review", "(none)"), ("neutral", "(none)")}


def test_throughput_counts_active_time_without_breaks(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("accept", None), step=timedelta(seconds=30), pause_after=4)
    journal = stats_json(evalkit, str(ana))["journals"][0]
    decisions = decision_lines(ana)
    gaps = decisions - 2  # one step per decision; the step after the two-hour break is not counted
    assert journal["decisions"] == decisions and journal["submissions"] == 8
    assert journal["active_hours"] == pytest.approx(gaps * 30 / 3600)
    assert journal["decisions_per_hour"] == pytest.approx(decisions / (gaps * 30 / 3600))
    assert journal["first"] == "2026-11-20T09:00:30+00:00"


def test_undone_decisions_do_not_count(workspace: Path, reviewer: Any, evalkit: Any) -> None:
    from evalkit.engine.config import analyze
    from evalkit.services.inputs.read import read_inputs
    from evalkit.tui.journal import Journal
    from evalkit.tui.model import ReviewSession

    journal = Journal(workspace / "undo.decisions.jsonl")
    session = ReviewSession(analyze(Path(__file__).parents[2] / "config_samples"), sink=journal.append)
    session.add(read_inputs([str(workspace / "samples")]))
    session.decide(0, "label", "discard")
    session.decide(0, "rewrite", "discard")
    session.undo()
    journal.close()
    report = stats_json(evalkit, str(journal.path))
    assert report["kinds"]["label"]["discarded"] == 1 and report["kinds"]["rewrite"]["decided"] == 0
    assert report["journals"][0]["decisions"] == 2  # made, even if one was taken back


def test_agreement_between_reviewers_over_the_items_they_share(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("accept", None))
    ben = reviewer("ben", lambda p: ("accept", None))
    same = stats_json(evalkit, str(ana), str(ben))["agreement"]
    assert same["nominal"] == {"level": "nominal", "items": 8, "alpha": 1.0, "note": None}
    assert same["interval"]["items"] == 8 and same["interval"]["alpha"] == pytest.approx(1.0)

    partial = reviewer("cy", label_poor, only=3)
    shared = stats_json(evalkit, str(ana), str(partial))["agreement"]
    assert shared["nominal"]["items"] == 3 and shared["nominal"]["alpha"] < 0.5
    assert shared["interval"]["items"] == 1  # one rating proposal among the first three samples
    assert shared["interval"]["alpha"] is None and "same value" in shared["interval"]["note"]
    assert stats_json(evalkit, str(ana))["agreement"] == {}
    twice = stats_json(evalkit, str(ana), str(ana.parent / ".." / ana.parent.name / ana.name))
    assert twice["agreement"] == {} and [j["journal"] for j in twice["journals"]] == [str(ana)]


def test_the_agreement_needs_no_numpy(tmp_path: Path, reviewer: Any) -> None:
    """Alpha is computed from sums over the decisions (services/stats/agreement.py): with numpy and the
    krippendorff package unimportable, `evalkit stats` gives the same figures, and imports neither."""
    ana, ben = reviewer("ana", accept), reviewer("ben", label_poor)
    blocker = tmp_path / "blocked"
    blocker.mkdir()
    for name in ("krippendorff", "numpy"):
        (blocker / f"{name}.py").write_text("raise ImportError('not installed')\n")
    code = "import sys; from evalkit.cli import main; main(sys.argv[1:]); print('numpy' in sys.modules)"
    args = ["stats", str(ana), str(ben), "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(blocker), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    *report, imported = done.stdout.splitlines()
    assert imported == "False"
    agreement = json.loads("\n".join(report))["agreement"]
    assert agreement["nominal"]["items"] == 8 and isinstance(agreement["nominal"]["alpha"], float)


def accept(proposal: Proposal) -> tuple[str, Any]:
    return "accept", None


def test_sources_resolve_from_the_journal_folder_and_from_inputs(
    workspace: Path, reviewer: Any, evalkit: Any
) -> None:
    ana = reviewer("ana", accept)
    elsewhere = stats_json(evalkit, str(ana))  # run from the repository: sources are relative to workspace
    given = stats_json(evalkit, str(ana), "--input", str(workspace / "samples"))
    assert elsewhere["submissions"] == given["submissions"] == 8
    assert elsewhere["rules"] == given["rules"] and elsewhere["missing_submissions"] == []
    (workspace / "samples" / "30_long_single_response.json").unlink()
    gone = stats_json(evalkit, str(ana), cwd=workspace)  # not from the repository: it has that sample too
    assert gone["missing_submissions"] == ["samples/30_long_single_response.json"]
    assert gone["unmatched_decisions"] == 1  # its one proposal, the label


def test_sources_in_a_jsonl_file_keep_their_line(tmp_path: Path, evalkit: Any) -> None:
    samples = Path(__file__).parents[2] / "samples"
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        "".join(
            json.dumps(json.loads((samples / name).read_text())) + "\n"
            for name in ("05_data_sql_complete.json", "01_algorithms_graphs_complete.json")
        )
    )
    journal = tmp_path / "j.decisions.jsonl"
    journal.write_text(
        json.dumps(
            {
                "ts": "2026-11-20T09:00:00Z",
                "source": f"{batch}:2",
                "target": "label",
                "action": "edit",
                "value": "poor",
                "note": None,
                "step": 1,
            }
        )
        + "\n"
    )
    cells = stats_json(evalkit, str(journal))["labels"]["matrix"]
    assert cells == [{"engine": "neutral", "final": "poor", "count": 1}]  # line 2 is sample 01: neutral


def test_text_report(reviewer: Any, evalkit: Any) -> None:
    ana, ben = reviewer("ana", accept), reviewer("ben", discard_penalty)
    done = evalkit("stats", str(ana), str(ben))
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0].startswith("2 journals, 8 submissions reviewed, ")
    rules = lines.index("Rules, most overruled first (moved: its proposals on the reviewed submissions)")
    assert lines[rules + 2].split() == [
        PENALTY,
        "16",
        "8",
        "50%",
        "8",
        "50%",
        "0",
        "0%",
        "4",
        "label,",
        "4",
        "flag",
    ]
    for heading in (
        "Proposals by kind",
        "Ratings: how far the final ratings are",
        "Reviewers",
        "Agreement between reviewers (Krippendorff's alpha)",
    ):
        assert heading in lines
    assert any(line.startswith("Labels: the reviewers kept the engine's label 12/16 (75%)") for line in lines)


def test_out_writes_the_report_to_a_file(tmp_path: Path, reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", accept)
    out = tmp_path / "stats.json"
    done = evalkit("stats", str(ana), "--format", "json", "--out", str(out))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert json.loads(out.read_text())["submissions"] == 8


def test_stats_imports_no_textual_nor_pygls(reviewer: Any) -> None:
    ana = reviewer("ana", accept)
    code = (
        "import sys; from evalkit.cli import main; main(['stats', sys.argv[1], '--format', 'json']); "
        "print(sorted(m for m in ('textual', 'pygls') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(ana)], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_config_checked_before_is_read_from_evals_cache(tmp_path: Path, reviewer: Any) -> None:
    """stats evaluates as eval does: a config checked before is compiled from the cache, without the YAML
    parser and the schema checks (services/config/cache.py), and the report is the same."""
    ana = reviewer("ana", accept)
    environment = {k: v for k, v in os.environ.items() if k != "EVALKIT_NO_CACHE"}
    environment["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    runs = [
        subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "evalkit", "stats", str(ana), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
        )
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0]
    checked = [
        any(line.endswith(" evalkit.engine.schema_check") for line in run.stderr.splitlines()) for run in runs
    ]
    assert checked == [True, False]
    assert runs[0].stdout == runs[1].stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.decisions.jsonl"], "evalkit stats: missing.decisions.jsonl: no such journal"),
        (["."], "evalkit stats: .: a folder, not a journal (name the .decisions.jsonl files in it)"),
        (["{journal}", "--input", "nowhere"], "evalkit stats: --input nowhere: no such file or folder"),
        (["{journal}", "--config-dir", "nowhere"], "evalkit stats: --config-dir nowhere: no such folder"),
        (
            ["{journal}", "--out", "no/such/folder/out.txt"],
            "evalkit stats: no/such/folder/out.txt: cannot write",
        ),
    ],
)
def test_what_cannot_be_done_exits_2_with_one_line(
    tmp_path: Path, reviewer: Any, in_process: Any, args: list[str], message: str
) -> None:
    # through the console script: tests/cli/test_bad_input.py's NAMED_IN_MESSAGES (stats, stats --input)
    journal = reviewer("ana", accept)
    done = in_process("stats", *[arg.format(journal=journal) for arg in args], cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1


def test_an_invalid_config_prints_its_diagnostics_and_exits_2(
    tmp_path: Path, reviewer: Any, evalkit: Any
) -> None:
    journal = reviewer("ana", accept)
    config = tmp_path / "broken"
    config.mkdir()
    (config / "rules.yaml").write_text("rating_rules:\n  - id: x\n    when: {nope: 1}\n")
    done = evalkit("stats", str(journal), "--config-dir", str(config))
    assert done.returncode == 2 and done.stdout == ""
    *diagnostics, last = done.stderr.splitlines()
    assert diagnostics and all(line.startswith(f"{config / 'rules.yaml'}:") for line in diagnostics)
    assert last == "evalkit stats: the config has errors; no statistics made"


def test_lines_that_are_not_decisions_are_skipped_and_counted(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", accept)
    with journal.open("a") as handle:
        handle.write('not json\n{"source": 3}\n')
    report = stats_json(evalkit, str(journal))
    assert report["journals"][0]["skipped_entries"] == 2
    assert report["kinds"]["label"]["accepted"] == 8


def test_each_skipped_line_is_a_warning_diagnostic_at_its_line(reviewer: Any, evalkit: Any) -> None:
    """`path:line:col: warning[code] message`, as DESIGN.md's diagnostics; the column where the JSON
    stopped, else 1."""
    journal = reviewer("ana", accept)
    lines = len(journal.read_text().splitlines())
    with journal.open("ab") as handle:
        handle.write(b'{"source": nope}\n{"source": 3}\n{"\xc3\xa9": \xff}\n')
    done = evalkit("stats", str(journal))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"{journal}:{lines + 1}:12: warning[journal-not-json] not a JSON entry (Expecting value); skipped",
        f"{journal}:{lines + 2}:1: warning[journal-not-decision] not a decision entry (a field is missing "
        "or has the wrong type); skipped",
        f"{journal}:{lines + 3}:7: warning[journal-not-json] not a JSON entry (byte 0xff is not UTF-8); "
        "skipped",
    ]


NOT_FINITE = {"NaN": "nan", "Infinity": "inf", "-Infinity": "minus-inf", "1e400": "overflow"}
"""Ratings that are not finite numbers as a journal may hold them, by the reviewer whose journal does."""


class NotFiniteRuns(NamedTuple):
    journals: dict[str, Path]
    json: subprocess.CompletedProcess[str]
    text: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def not_finite(module_reviewer: Any, evalkit: Any) -> NotFiniteRuns:
    """A journal for each value of NOT_FINITE, whose last entry edits a rating to it, and `evalkit stats`
    over all of them, in JSON and in text."""
    journals = {}
    for value, name in NOT_FINITE.items():
        journal = module_reviewer(name, accept)
        decided = [json.loads(line) for line in journal.read_text().splitlines()]
        rating = next(entry for entry in decided if entry["target"].startswith("rating."))
        edit = {**rating, "action": "edit", "step": decided[-1]["step"] + 1, "value": 12345.5}
        with journal.open("a") as handle:
            handle.write(json.dumps(edit).replace("12345.5", value) + "\n")
        journals[value] = journal
    paths = [str(journal) for journal in journals.values()]
    return NotFiniteRuns(journals, evalkit("stats", *paths, "--format", "json"), evalkit("stats", *paths))


@pytest.mark.xdist_group("stats-not-finite")  # on one worker: not_finite runs once
@pytest.mark.parametrize("value", NOT_FINITE)
def test_a_rating_that_is_not_a_finite_number_is_skipped_not_averaged(
    not_finite: NotFiniteRuns, value: str
) -> None:
    done = not_finite.json
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    (journal,) = (
        entry for entry in report["journals"] if entry["journal"] == str(not_finite.journals[value])
    )
    assert journal["skipped_entries"] == 1
    assert all(dim["mean_abs_final_minus_proposed"] < 10 for dim in report["dimensions"])
    text = not_finite.text.stdout
    assert not_finite.text.returncode == 0 and " nan" not in text and " inf" not in text


def test_a_time_without_an_offset_is_taken_as_utc_beside_the_apps_own(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", accept, step=timedelta(minutes=1))
    before = stats_json(evalkit, str(journal))["journals"][0]
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    last = next(entry for entry in reversed(entries) if entry["target"] == "label")
    # one minute after the app's last entry (`...T09:41:00.000Z`), written by hand without the `Z`
    minute = datetime.fromisoformat(entries[-1]["ts"]) + timedelta(minutes=1)
    naive = minute.replace(tzinfo=None).isoformat(timespec="seconds")
    with journal.open("a") as handle:
        handle.write(json.dumps({**last, "ts": naive, "step": entries[-1]["step"] + 1}) + "\n")
    after = stats_json(evalkit, str(journal))["journals"][0]
    assert after["decisions"] == before["decisions"] + 1
    assert round((after["active_hours"] - before["active_hours"]) * 60, 6) == 1
    checked = evalkit("check", "config_samples", "--journals", str(journal))
    assert (checked.returncode, checked.stderr) == (0, "")


def test_an_entry_the_replay_skips_is_not_counted_as_a_decision(reviewer: Any, evalkit: Any) -> None:
    journal = reviewer("ana", accept)
    before = stats_json(evalkit, str(journal))["journals"][0]
    last = json.loads(journal.read_text().splitlines()[-1])
    with journal.open("a") as handle:  # a decision in every field but its source, which is no path
        handle.write(json.dumps({**last, "source": ["x"], "target": "label", "action": "accept"}) + "\n")
    after = stats_json(evalkit, str(journal))["journals"][0]
    assert after["skipped_entries"] == before["skipped_entries"] + 1
    assert after["decisions"] == before["decisions"]


def test_under_a_minute_of_activity_gives_no_rate(reviewer: Any, evalkit: Any) -> None:
    ana = reviewer("ana", lambda p: ("accept", None), step=timedelta(seconds=1))
    journal = stats_json(evalkit, str(ana))["journals"][0]
    assert journal["decisions"] > 2 and 0 < journal["active_hours"] < 1 / 60
    assert journal["decisions_per_hour"] is None  # not thousands an hour from a few seconds
