"""Which config folders `evalkit check` finds in its PATHs, and which files' diagnostics it reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.services.check.runner import UsageProblem, check_paths, checked_folders

CONFIGS = Path(__file__).parent / "configs"
MIXED = CONFIGS / "invalid" / "mixed_files"
BAD_RULE = "rating_rules:\n  - id: x\n    actions: {add_coment: y}\n"


def test_a_tree_is_searched_for_every_config_folder_in_sorted_order() -> None:
    report = check_paths([str(CONFIGS / "valid")])
    assert [p.name for p in report.folders] == ["empty_files", "every_condition", "rules_only", "yml_suffix"]


def test_a_config_file_reports_only_its_own_diagnostics() -> None:
    rules_only = check_paths([str(MIXED / "rules.yaml")])
    assert rules_only.diagnostics == [] and rules_only.files == 1
    ranking = check_paths([str(MIXED / "ranking.yaml")])
    assert {Path(d.path).name for d in ranking.diagnostics} == {"ranking.yaml"}


def test_a_folder_named_with_one_of_its_files_is_checked_once_in_full() -> None:
    targets = checked_folders([str(MIXED / "rules.yaml"), str(MIXED)])
    assert len(targets) == 1 and targets[0].only is None


def test_two_files_of_one_folder_make_one_target_reporting_both() -> None:
    targets = checked_folders([str(MIXED / "rules.yaml"), str(MIXED / "ranking.yaml")])
    assert len(targets) == 1
    assert targets[0].only is not None and {p.name for p in targets[0].only} == {"rules.yaml", "ranking.yaml"}


def test_hidden_and_tool_folders_are_not_searched(tmp_path: Path) -> None:
    for folder in (".git", "node_modules", "__pycache__", "ok"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rules.yaml").write_text(BAD_RULE if folder != "ok" else "rating_rules: []\n")
    report = check_paths([str(tmp_path)])
    assert [p.name for p in report.folders] == ["ok"] and report.diagnostics == []


def test_the_default_path_is_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rules.yaml").write_text(BAD_RULE)
    monkeypatch.chdir(tmp_path)
    report = check_paths(["."])
    assert [d.format() for d in report.diagnostics] == [
        "rules.yaml:3:15: error[unknown-key] unknown key 'add_coment' in rating_rules[0].actions; "
        "did you mean 'add_comment'?"
    ]


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("missing", "no such file or folder"),
        ("notes.yaml", "not a config file"),
        ("empty", "no config files found here or below"),
    ],
)
def test_a_path_with_nothing_to_check_is_a_usage_problem(tmp_path: Path, name: str, says: str) -> None:
    (tmp_path / "notes.yaml").write_text("a: 1\n")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageProblem, match=says):
        checked_folders([str(tmp_path / name)])


def test_a_folder_that_cannot_be_read_is_an_error_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "rules.yaml").write_text("version: 1\n")
    locked = tmp_path / "b"
    scandir, listdir = os.scandir, os.listdir

    def refused(real):  # type: ignore[no-untyped-def]
        def call(path: object = ".") -> object:
            if Path(str(path)) == locked:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        return call

    monkeypatch.setattr(os, "scandir", refused(scandir))
    monkeypatch.setattr(os, "listdir", refused(listdir))
    report = check_paths([str(tmp_path)])
    assert [p.name for p in report.folders] == ["a", "b"]
    assert [(d.path, d.code) for d in report.diagnostics] == [(str(locked), "unreadable")]
    assert report.failed(strict=False)
