"""The dry run's samples folder is listed once and followed: a dry run reads `maxSamples` samples and
checks only the files they came from, whatever the folder's size; a sample added, removed or edited
is seen at the next read."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evalkit.lsp import sample_files
from evalkit.lsp.sample_files import SampleFiles

SAMPLE = Path(__file__).parent / "fixtures" / "project" / "samples" / "a_dijkstra.json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for number in range(50):
        shutil.copy(SAMPLE, tmp_path / f"s{number:03}.json")
    return tmp_path


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders listed (a spy on the real listing)."""
    listed: list[Path] = []

    def listing(paths: list[Path]) -> tuple[list[Path], list[str]]:
        listed.extend(paths)
        return real(paths)

    real = sample_files.expand_inputs
    monkeypatch.setattr(sample_files, "expand_inputs", listing)
    return listed


def sources(read: sample_files.ReadSamples) -> list[str]:
    return [Path(sample.source).name for sample in read.samples]


def test_the_folder_is_listed_once_and_only_the_files_read_are_checked(
    folder: Path, listings: list[Path]
) -> None:
    files = SampleFiles()
    first = files.samples(folder, 3)
    assert sources(first) == ["s000.json", "s001.json", "s002.json"]
    assert [path.name for path in first.files] == ["s000.json", "s001.json", "s002.json"]
    (folder / "s040.json").write_text("{", encoding="utf-8")  # edited, but not read
    assert files.samples(folder, 3) is first
    assert listings == [folder]


def test_an_edit_to_a_sample_read_is_seen(folder: Path) -> None:
    files = SampleFiles()
    first = files.samples(folder, 3)
    (folder / "s001.json").write_text("{", encoding="utf-8")
    os.utime(folder / "s001.json", ns=(1, 1))  # a different modification time, whatever the clock
    again = files.samples(folder, 3)
    assert again.signature != first.signature
    assert again.samples[1].submission is None


def test_a_sample_added_or_removed_is_seen(folder: Path, listings: list[Path]) -> None:
    files = SampleFiles()
    files.samples(folder, 3)
    os.utime(folder, ns=(1, 1))  # as a file system with coarse times might leave it
    (folder / "a_first.json").write_text(json.dumps(json.loads(SAMPLE.read_text(encoding="utf-8"))))
    files.forget(folder)  # the client's file watcher said so
    assert sources(files.samples(folder, 3))[0] == "a_first.json"
    (folder / "a_first.json").unlink()
    assert sources(files.samples(folder, 3))[0] == "s000.json"  # the folder's modification time moved
    assert listings == [folder] * 3


def test_empty_files_before_the_last_sample_read_are_followed(folder: Path) -> None:
    (folder / "s000.json").write_text("", encoding="utf-8")
    (folder / "s000.jsonl").write_text("", encoding="utf-8")
    files = SampleFiles()
    first = files.samples(folder, 2)
    assert [path.name for path in first.files][:2] == ["s000.json", "s000.jsonl"]
    (folder / "s000.jsonl").write_text(SAMPLE.read_text(encoding="utf-8").replace("\n", "") + "\n")
    os.utime(folder / "s000.jsonl", ns=(1, 1))
    assert sources(files.samples(folder, 2))[1] == "s000.jsonl:1"
