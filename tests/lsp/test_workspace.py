"""Which open documents belong to a config folder: its config files and its rule test files, whatever
else the editor has open."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from pygls.uris import from_fs_path

from evalkit.lsp.workspace import Buffer, folder_buffers


def test_a_folder_s_buffers_are_its_config_files_and_rule_tests_among_every_open_document(
    tmp_path: Path,
) -> None:
    paths = []
    for project in ("a", "b"):
        config = tmp_path / project / "config"
        (config / "tests").mkdir(parents=True)
        paths += [config / "rules.yaml", config / "tests" / "cases.yaml", config / "notes.yaml"]
    (tmp_path / "other" / "tests").mkdir(parents=True)  # no config beside it: it belongs to no folder
    paths += [tmp_path / "other" / "tests" / "cases.yaml", tmp_path / "rules.yaml"]
    for path in paths:
        path.write_text("version: 2\n", encoding="utf-8")
    documents = [
        (from_fs_path(str(p)) or "", SimpleNamespace(version=n, source=p.name)) for n, p in enumerate(paths)
    ]
    documents.append(("untitled:Untitled-1", SimpleNamespace(version=1, source="")))
    a = tmp_path / "a" / "config"
    assert folder_buffers(documents, a) == {
        str(path): Buffer(from_fs_path(str(path)) or "", paths.index(path), path.name)
        for path in (a / "rules.yaml", a / "tests" / "cases.yaml")
    }
    assert list(folder_buffers(documents, tmp_path)) == [str(tmp_path / "rules.yaml")]
    assert folder_buffers(documents, tmp_path / "other") == {}
