"""Outputs are written atomically, and a target that is not a regular file is written in place."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from evalkit.services.atomic import atomic_output, write_text_atomic


def test_the_new_content_replaces_the_old_and_no_temporary_file_is_left(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    write_text_atomic(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_failure_mid_write_keeps_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_output(target) as handle:
        handle.write("half")
        raise RuntimeError("interrupted")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_an_existing_file_keeps_its_permissions_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("{}", encoding="utf-8")
    kept.chmod(0o640)
    write_text_atomic(kept, "[]")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "fresh.json", "[]")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "fresh.json").stat().st_mode) == 0o644


def test_a_named_pipe_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_text_atomic(pipe, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_dev_null_stays_a_device() -> None:
    write_text_atomic("/dev/null", "discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
