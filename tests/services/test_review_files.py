"""The names of `evalkit review`'s files (`services/review/files.py`), and the folder listing that leaves
them out of the submissions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evalkit.services.inputs.read import TOOL_OUTPUTS, expand_inputs
from evalkit.services.review.files import EXPORT_SUFFIX, JOURNAL_SUFFIX, REVIEW_OUTPUTS, default_path

SEED = Path(__file__).parents[2] / "samples" / "sample_submission.json"


def test_a_folders_listing_leaves_out_exactly_what_review_writes_beside_it(tmp_path: Path) -> None:
    assert set(TOOL_OUTPUTS) == set(REVIEW_OUTPUTS)
    shutil.copy(SEED, tmp_path / "a.json")
    for name in ("batch.jsonl", f"batch.jsonl{JOURNAL_SUFFIX}", f"batch.jsonl{EXPORT_SUFFIX}"):
        (tmp_path / name).write_text(json.dumps({"prompt": "p"}) + "\n", encoding="utf-8")
    files, _ = expand_inputs([tmp_path])
    assert [path.name for path in files] == ["a.json", "batch.jsonl"]


def test_the_defaults_sit_beside_the_first_input_and_beside_a_folder() -> None:
    assert default_path("data/batch.jsonl", EXPORT_SUFFIX) == Path("data/batch.jsonl.reviewed.jsonl")
    assert default_path("data/submissions/", JOURNAL_SUFFIX) == Path("data/submissions.decisions.jsonl")
