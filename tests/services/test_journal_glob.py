"""The journals glob (services/review/glob.py) that `check --journals` and the language server's `journals`
option share: the glob module's matches on a plain tree, an end over folders that link to themselves, and
a bound on the folders a pattern may walk."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.services.review.glob import TooManyFolders, journal_files

NAMES = st.sampled_from(["a", "b", ".hidden", "x.decisions.jsonl", "y.jsonl", "reviews"])
TREES = st.lists(st.lists(NAMES, min_size=1, max_size=4), max_size=12)
PATTERNS = ["**/*.jsonl", "*/*.decisions.jsonl", "reviews/**/*.jsonl", "**", "a/**/x.*", "[ab]/*", "?/**/*"]


def build(root: Path, tree: list[list[str]]) -> None:
    """Each path's last name a file, the names before it folders (skipped where a file stands already)."""
    for parts in tree:
        folder = root.joinpath(*parts[:-1])
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / parts[-1]).touch()
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=TREES, pattern=st.sampled_from(PATTERNS))
def test_a_plain_tree_matches_what_the_glob_module_matches(
    tmp_path_factory: pytest.TempPathFactory, tree: list[list[str]], pattern: str
) -> None:
    root = tmp_path_factory.mktemp("tree")
    build(root, tree)
    expected = sorted(
        os.path.relpath(path, root)
        for path in glob.glob(str(root / pattern), recursive=True)
        if os.path.isfile(path)
    )
    assert journal_files(pattern, root) == expected
    absolute = journal_files(str(root / pattern))
    assert absolute == [str(root / path) for path in expected]


def test_folders_that_link_to_themselves_end(tmp_path: Path) -> None:
    """Two links to itself in a folder: the glob module walked 2^depth paths; here each folder once."""
    reviews = tmp_path / "reviews" / "2026"
    reviews.mkdir(parents=True)
    (reviews / "ana.decisions.jsonl").touch()
    (reviews / "loop1").symlink_to(reviews)
    (reviews / "loop2").symlink_to(reviews)
    (tmp_path / "reviews" / "up").symlink_to(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from evalkit.services.review.glob import journal_files; "
            "print(journal_files(sys.argv[1]))",
            "reviews/**/*.decisions.jsonl",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    assert done.stdout.strip() == "['reviews/2026/ana.decisions.jsonl']"


def test_a_link_to_a_folder_elsewhere_is_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "ben.decisions.jsonl").touch()
    (tmp_path / "reviews").mkdir()
    (tmp_path / "reviews" / "linked").symlink_to(elsewhere)
    assert journal_files("reviews/**/*.jsonl", tmp_path) == ["reviews/linked/ben.decisions.jsonl"]


def test_a_pattern_that_reaches_too_many_folders_stops_with_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalkit.services.review import glob as journal_glob

    for number in range(30):
        (tmp_path / "x" / f"d{number}").mkdir(parents=True)
    monkeypatch.setattr(journal_glob, "MAX_GLOB_FOLDERS", 20)
    with pytest.raises(TooManyFolders, match=r"^x/\*\*/\*\.jsonl: the pattern reaches more than 20 folders"):
        journal_files("x/**/*.jsonl", tmp_path)
    assert journal_files("x/d1/**/*.jsonl", tmp_path) == []


def test_the_language_server_finds_journals_with_the_same_function(tmp_path: Path) -> None:
    from evalkit.lsp.reviewers import journal_paths

    reviews = tmp_path / "reviews"
    reviews.mkdir()
    (reviews / "ana.decisions.jsonl").touch()
    (reviews / "self").symlink_to(reviews)
    assert journal_paths("reviews/**/*.decisions.jsonl", tmp_path) == [str(reviews / "ana.decisions.jsonl")]
