"""File fingerprints (`services/inputs/fingerprints.py`): the language server's caches and the reviewer app's
config watcher notice a file written, added or removed, and nothing else."""

from __future__ import annotations

import os
from pathlib import Path

from evalkit.services.inputs.fingerprints import fingerprint
from evalkit.tui.watcher import config_fingerprint


def test_a_file_written_added_or_removed_changes_the_fingerprint(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("{}", encoding="utf-8")
    before = fingerprint([first, second])
    assert before == fingerprint([first, second]) == ((str(first), 2, first.stat().st_mtime_ns),)
    second.write_text("[]", encoding="utf-8")
    added = fingerprint([first, second])
    assert added != before
    os.utime(first, ns=(0, first.stat().st_mtime_ns + 1_000_000))
    touched = fingerprint([first, second])
    assert touched != added
    second.unlink()
    assert fingerprint([first, second]) not in (added, touched)


def test_the_config_watcher_sees_only_the_folders_yaml_files(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text("version: 1\n", encoding="utf-8")
    before = config_fingerprint(tmp_path)
    (tmp_path / "notes.txt").write_text("unrelated", encoding="utf-8")
    assert config_fingerprint(tmp_path) == before
    (tmp_path / "ranking.yml").write_text("{}\n", encoding="utf-8")
    assert [Path(path).name for path, _, _ in config_fingerprint(tmp_path)] == ["ranking.yml", "rules.yaml"]
    (tmp_path / "ranking.yml").unlink()
    assert config_fingerprint(tmp_path) == before
