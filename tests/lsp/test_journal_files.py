"""The `journals` option's glob, found with a bound: `**` does not follow links (a folder holding links
to itself ends), the search stops after a fixed number of entries, and the names match as `glob` would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalkit.lsp import journal_files
from evalkit.lsp.journal_files import find_journals


def make_tree(root: Path) -> None:
    (root / "reviews" / "team" / "a").mkdir(parents=True)
    (root / "reviews" / "x.decisions.jsonl").write_text("")
    (root / "reviews" / "team" / "a" / "y.decisions.jsonl").write_text("")
    (root / "reviews" / "team" / "notes.txt").write_text("")
    (root / "reviews" / "team" / "loop").symlink_to(root / "reviews")
    (root / "reviews" / "team" / "a" / "self").symlink_to(root / "reviews" / "team" / "a")


def test_a_recursive_glob_over_links_to_itself_ends_with_the_journals(tmp_path: Path) -> None:
    make_tree(tmp_path)
    found = find_journals("reviews/**/*.decisions.jsonl", tmp_path)
    assert [Path(p).relative_to(tmp_path).as_posix() for p in found.paths] == [
        "reviews/team/a/y.decisions.jsonl",
        "reviews/x.decisions.jsonl",
    ]
    assert not found.cut_short


def test_a_plain_glob_is_globs(tmp_path: Path) -> None:
    make_tree(tmp_path)
    found = find_journals(str(tmp_path / "reviews" / "*.jsonl"), None)
    assert found.paths == [str(tmp_path / "reviews" / "x.decisions.jsonl")]


def test_the_search_stops_after_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for number in range(30):
        (tmp_path / f"{number}.jsonl").write_text("")
    monkeypatch.setattr(journal_files, "MAX_VISITED", 10)
    found = find_journals("**", tmp_path)
    assert found.cut_short and len(found.paths) <= 10
    assert all(os.path.isfile(path) for path in found.paths)
