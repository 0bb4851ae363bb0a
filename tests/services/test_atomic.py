"""Outputs are written atomically, and a target that is not a regular file is written in place."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.services.outputs.atomic import atomic_output, write_text_atomic


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


def _gone_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_next_write_removes_what_a_killed_writer_left_and_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    host = os.uname().nodename
    orphan = tmp_path / f".out.jsonl.{host}-{_gone_pid()}-0badcafe.tmp"
    alive = tmp_path / f".out.jsonl.{host}-{os.getpid()}-0badcafe.tmp"  # a writer still at work
    elsewhere = tmp_path / f".out.jsonl.another-machine-{_gone_pid()}-0badcafe.tmp"  # a shared folder
    other_target = tmp_path / f".other.jsonl.{host}-{_gone_pid()}-0badcafe.tmp"
    for path in (orphan, alive, elsewhere, other_target):
        path.write_text("half", encoding="utf-8")
    write_text_atomic(target, "whole\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [target.name, alive.name, elsewhere.name, other_target.name]
    )


def test_a_writer_killed_mid_write_leaves_a_temporary_file_the_next_run_removes(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from evalkit.services.outputs.atomic import atomic_output\n"
            f"with atomic_output({str(target)!r}) as handle:\n"
            "    handle.write('half'); handle.flush(); print('writing', flush=True); time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
    )
    assert writer.stdout is not None and writer.stdout.readline() == b"writing\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(".out.jsonl.") and left[0].endswith(".tmp")
    write_text_atomic(target, "whole\n")
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    assert target.read_text(encoding="utf-8") == "whole\n"


def test_a_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.jsonl"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "out.jsonl"
    link.symlink_to("real/out.jsonl")
    chained = tmp_path / "chained.jsonl"
    chained.symlink_to("out.jsonl")
    write_text_atomic(chained, "new\n")
    assert os.readlink(chained) == "out.jsonl" and os.readlink(link) == "real/out.jsonl"
    assert target.read_text(encoding="utf-8") == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["out.jsonl"]


def test_score_out_to_a_link_writes_its_target(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"data_source": "typos", "extra_info": {"label": "a"}, "model_output": "a"}\n')
    (tmp_path / "kept").mkdir()
    (tmp_path / "scored.jsonl").symlink_to("kept/scored.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "score", str(rows), "--out", "scored.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "scored.jsonl").is_symlink()
    assert '"score": 1.0' in (tmp_path / "kept" / "scored.jsonl").read_text(encoding="utf-8")
