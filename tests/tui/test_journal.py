"""The decisions journal: appended and synced, read back, and tolerant of a torn last line after a kill."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from evalkit.tui.journal import Journal, JournalError, parse_journal
from evalkit.tui.journal_lock import JournalLocked, lock_journal, lock_path


def entry(step: int) -> dict[str, object]:
    return {
        "ts": "t",
        "source": "s.json",
        "target": "label",
        "action": "accept",
        "value": "good",
        "note": None,
        "step": step,
    }


def test_no_file_until_the_first_decision(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    assert journal.read().entries == []
    assert not journal.path.exists()


def test_appended_entries_are_on_disk_before_append_returns(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    journal.append([entry(1), entry(1)])
    journal.append([entry(2)])
    # read through a separate handle, as a new process after a kill would
    lines = (tmp_path / "j.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["step"] for line in lines] == [1, 1, 2]
    journal.close()


def test_torn_last_line_is_skipped_then_cut_off_by_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps(entry(1)) + "\n" + '{"ts": "t", "sour', encoding="utf-8")
    contents = Journal(path).read()
    assert [e["step"] for e in contents.entries] == [1]
    assert contents.torn and not contents.problems
    journal = Journal(path)
    journal.append([entry(2)])
    journal.close()
    again = Journal(path).read()
    assert [e["step"] for e in again.entries] == [1, 2]
    assert not again.problems and not again.torn


def test_a_broken_line_in_the_middle_is_reported_not_fatal(tmp_path: Path) -> None:
    raw = (json.dumps(entry(1)) + "\nnot json\n" + json.dumps(entry(2)) + "\n").encode()
    contents = parse_journal(raw)
    assert [e["step"] for e in contents.entries] == [1, 2]
    assert len(contents.problems) == 1 and contents.problems[0].startswith("line 2:")
    assert not contents.torn


def test_unicode_is_kept_as_written(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    journal.append([{**entry(1), "note": "revisar [/INST] — ñ"}])
    journal.close()
    assert "revisar [/INST] — ñ" in (tmp_path / "j.jsonl").read_text(encoding="utf-8")
    assert Journal(tmp_path / "j.jsonl").read().entries[0]["note"] == "revisar [/INST] — ñ"


def test_a_journal_in_a_missing_folder_raises_journal_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="cannot write the journal"):
        Journal(tmp_path / "missing" / "j.jsonl").append([entry(1)])


def test_a_failed_append_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer is told "not saved": the entry must not come back on the next start."""
    journal = Journal(tmp_path / "j.jsonl")
    journal.append([entry(1)])

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("evalkit.tui.journal.os.fsync", full_disk)
    with pytest.raises(JournalError, match="No space left"):
        journal.append([entry(2), entry(2)])
    monkeypatch.undo()
    assert [e["step"] for e in Journal(journal.path).read().entries] == [1]
    journal.append([entry(3)])
    journal.close()
    again = Journal(journal.path).read()
    assert [e["step"] for e in again.entries] == [1, 3]
    assert not again.problems and not again.torn


def test_a_writable_journal_passes_the_check_and_is_left_as_it_was(tmp_path: Path) -> None:
    absent = Journal(tmp_path / "absent.jsonl")
    absent.check_writable()
    assert not absent.path.exists()
    path = tmp_path / "j.jsonl"
    path.write_text('{"step": 1}\n{"ste', encoding="utf-8")  # a torn line, which an append would cut off
    before = path.stat()
    Journal(path).check_writable()
    after = path.stat()
    assert path.read_text(encoding="utf-8") == '{"step": 1}\n{"ste'
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_read_only_journal_is_reported(tmp_path: Path, read_only: Callable[[Path], None]) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"step": 1}\n', encoding="utf-8")
    read_only(path)
    with pytest.raises(JournalError, match=r"j\.jsonl: cannot write the journal: Permission denied"):
        Journal(path).check_writable()
    assert path.read_text(encoding="utf-8") == '{"step": 1}\n'


def test_an_absent_journal_in_a_read_only_folder_is_reported_and_not_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("evalkit.tui.journal.os.access", lambda path, mode: Path(path) != tmp_path)
    journal = Journal(tmp_path / "j.jsonl")
    with pytest.raises(JournalError, match=f"cannot create the journal: the folder {tmp_path} is not"):
        journal.check_writable()
    assert not journal.path.exists()


def test_a_whole_last_entry_without_its_newline_is_ended_not_cut(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps(entry(1)) + "\n" + json.dumps(entry(2)), encoding="utf-8")
    assert [e["step"] for e in Journal(path).read().entries] == [1, 2]
    journal = Journal(path)
    journal.append([entry(3)])
    journal.close()
    again = Journal(path).read()
    assert [e["step"] for e in again.entries] == [1, 2, 3]
    assert not again.problems and not again.torn


def test_a_long_torn_line_is_found_reading_backwards(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    torn = '{"ts": "t", "note": "' + "x" * 200_000  # longer than a block: the search crosses blocks
    path.write_text(json.dumps(entry(1)) + "\n" + torn, encoding="utf-8")
    journal = Journal(path)
    journal.append([entry(2)])
    journal.close()
    assert [e["step"] for e in Journal(path).read().entries] == [1, 2]


def test_a_second_lock_on_a_journal_is_refused_naming_the_holder(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    held = lock_journal(journal)
    try:
        with pytest.raises(JournalLocked, match=rf"open \(pid {os.getpid()}, user .* since "):
            lock_journal(journal)
    finally:
        held.release()
    assert not lock_path(journal).exists()
    again = lock_journal(journal)  # released: free to take, and nobody's left behind
    assert again.stale_holder is None
    again.release()


def test_a_lock_file_holding_no_lock_is_taken_over(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    lock_path(journal).write_text("pid 1, user gone on elsewhere, since then\n", encoding="utf-8")
    lock = lock_journal(journal)
    try:
        assert lock.stale_holder == "pid 1, user gone on elsewhere, since then"
        assert f"pid {os.getpid()}," in lock_path(journal).read_text(encoding="utf-8")
    finally:
        lock.release()


def test_a_journal_named_through_a_link_shares_the_lock(tmp_path: Path) -> None:
    journal = tmp_path / "real.decisions.jsonl"
    journal.write_text("", encoding="utf-8")
    (tmp_path / "link.decisions.jsonl").symlink_to(journal)
    held = lock_journal(journal)
    try:
        with pytest.raises(JournalLocked):
            lock_journal(tmp_path / "link.decisions.jsonl")
        with pytest.raises(JournalLocked):
            lock_journal(tmp_path / "." / "real.decisions.jsonl")
    finally:
        held.release()
