"""Which files a folder input stands for."""

from __future__ import annotations

from pathlib import Path

from evalkit.engine.inputs import expand_inputs


def test_a_folder_lists_submissions_sorted_and_skips_the_review_files_kept_beside_them(tmp_path: Path) -> None:
    for name in ("b.json", "a.yaml", "c.jsonl", "c.jsonl.decisions.jsonl", "c.reviewed.jsonl", "notes.txt"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    files, missing = expand_inputs([tmp_path, tmp_path / "gone.json"])
    assert [f.name for f in files] == ["a.yaml", "b.json", "c.jsonl"]
    assert missing == [str(tmp_path / "gone.json")]


def test_a_file_named_explicitly_is_read_whatever_its_name(tmp_path: Path) -> None:
    journal = tmp_path / "x.decisions.jsonl"
    journal.write_text("", encoding="utf-8")
    assert expand_inputs([journal]) == ([journal], [])
