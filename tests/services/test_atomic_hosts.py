"""A write removes only its own machine's orphaned temporary files, also when another machine sharing the
folder is named after this one plus `-NUMBER` (`worker` and `worker-42`: pods, build agents)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from evalkit.services.outputs.atomic import write_text_atomic


def _gone_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_machine_named_this_ones_name_and_a_number_keeps_its_temporary_file(tmp_path: Path) -> None:
    host = os.uname().nodename
    # `<host>-<N>`'s live writer, N not a pid on this machine: read as this host's pid N, it was removed
    neighbour = tmp_path / f".out.jsonl.{host}-{_gone_pid()}-{os.getpid()}-0badcafe.tmp"
    neighbour.write_text("half", encoding="utf-8")
    write_text_atomic(tmp_path / "out.jsonl", "whole\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.jsonl", neighbour.name])
