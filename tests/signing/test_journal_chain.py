"""The review journal's hash chain: written by the journal's writer, checked by `evalkit verify JOURNAL`,
which names the first broken line; old unchained journals load and are reported unchained."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from evalkit.services.review.chain import check_chain, line_digest
from evalkit.services.review.journal import parse_journal
from evalkit.tui.journal import Journal
from tests.signing.conftest import evalkit


def _entry(number: int) -> dict[str, object]:
    return {"ts": f"2026-01-01T00:00:{number:02d}Z", "source": "a.json", "target": "label",
            "action": "edit", "value": f"v{number}", "note": None, "step": number}  # fmt: skip


def _journal(path: Path, count: int) -> list[bytes]:
    journal = Journal(path)
    for number in range(1, count + 1):
        journal.append([_entry(number)])
    journal.close()
    return path.read_bytes().splitlines()


def test_each_entry_links_to_the_line_before_it(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 3)
    links = [json.loads(line)["prev"] for line in lines]
    assert links == [None, line_digest(lines[0]), line_digest(lines[1])]
    assert check_chain(b"\n".join(lines) + b"\n").ok


def test_a_journal_reopened_links_on_from_its_last_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    _journal(path, 2)
    journal = Journal(path)
    journal.append([_entry(3), _entry(4)])
    journal.close()
    lines = path.read_bytes().splitlines()
    assert json.loads(lines[2])["prev"] == line_digest(lines[1])
    assert check_chain(path.read_bytes()).lines == 4 and check_chain(path.read_bytes()).ok


def test_a_torn_last_line_is_cut_and_the_next_entry_links_to_the_line_before_it(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    lines = _journal(path, 2)
    with path.open("ab") as handle:
        handle.write(b'{"ts": "2026-01-01T00:00:09Z", "sour')
    journal = Journal(path)
    journal.append([_entry(3)])
    journal.close()
    assert json.loads(path.read_bytes().splitlines()[2])["prev"] == line_digest(lines[1])
    assert check_chain(path.read_bytes()).ok


def test_entries_with_links_replay_as_before(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    _journal(path, 2)
    contents = parse_journal(path.read_bytes())
    assert [entry["value"] for entry in contents.entries] == ["v1", "v2"] and not contents.problems


def _verify(tmp_path: Path, raw: bytes, *extra: str) -> tuple[int, str]:
    path = tmp_path / "edited.decisions.jsonl"
    path.write_bytes(raw)
    done = evalkit("verify", str(path), *extra, cwd=tmp_path)
    return done.returncode, done.stdout + done.stderr


def test_verify_journal_holds_for_an_untouched_journal(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 4)
    code, said = _verify(tmp_path, b"\n".join(lines) + b"\n")
    assert code == 0 and "chain holds: 4 lines, every link holds" in said


def test_an_edited_decision_breaks_the_next_line(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 4)
    lines[1] = lines[1].replace(b'"v2"', b'"v9"')
    code, said = _verify(tmp_path, b"\n".join(lines) + b"\n")
    assert code == 1
    assert "chain broken at line 3: line 3's link does not match line 2: line 2 was edited" in said


def test_a_removed_decision_breaks_the_chain_where_it_was(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 4)
    del lines[1]
    code, said = _verify(tmp_path, b"\n".join(lines) + b"\n")
    assert code == 1 and "chain broken at line 2" in said


def test_a_removed_first_line_is_found(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 3)
    code, said = _verify(tmp_path, b"\n".join(lines[1:]) + b"\n")
    assert code == 1 and "chain broken at line 1: line 1 links to a line before it" in said


def test_reordered_decisions_break_the_chain(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 4)
    lines[1], lines[2] = lines[2], lines[1]
    code, said = _verify(tmp_path, b"\n".join(lines) + b"\n", "--format", "json")
    report = json.loads(said)
    assert code == 1 and report["verified"] is False and report["broken_line"] == 2


def test_an_inserted_unlinked_line_breaks_the_chain(tmp_path: Path) -> None:
    lines = _journal(tmp_path / "j.jsonl", 3)
    lines.insert(2, json.dumps(_entry(7)).encode())
    code, said = _verify(tmp_path, b"\n".join(lines) + b"\n")
    assert code == 1 and "line 3 has no link to the line before it" in said


def test_an_old_unchained_journal_loads_and_is_reported_unchained(tmp_path: Path) -> None:
    raw = b"".join(json.dumps(_entry(n)).encode() + b"\n" for n in (1, 2))
    assert [e["value"] for e in parse_journal(raw).entries] == ["v1", "v2"]
    code, said = _verify(tmp_path, raw)
    assert code == 0 and "2 lines, unchained (written before the journal's hash chain)" in said


def test_an_old_journal_continued_is_chained_from_its_first_new_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"".join(json.dumps(_entry(n)).encode() + b"\n" for n in (1, 2)))
    journal = Journal(path)
    journal.append([_entry(3)])
    journal.close()
    code, said = _verify(tmp_path, path.read_bytes())
    assert code == 0 and "chained from line 3 (lines before it are unchained)" in said
    lines = path.read_bytes().splitlines()
    lines[0] = lines[0].replace(b'"v1"', b'"v5"')  # before the chain began: nothing can tell
    assert _verify(tmp_path, b"\n".join(lines) + b"\n")[0] == 0
    lines[1] = lines[1].replace(b'"v2"', b'"v5"')  # the line the chain's first link names
    assert _verify(tmp_path, b"\n".join(lines) + b"\n")[0] == 1


def test_verify_of_an_unreadable_journal_is_exit_2(tmp_path: Path) -> None:
    done = evalkit("verify", "nothing.decisions.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "nothing.decisions.jsonl: cannot read" in done.stderr


@given(count=st.integers(min_value=2, max_value=8), data=st.data())
def test_any_single_line_edit_is_found_at_the_line_after_it(count: int, data: st.DataObject) -> None:
    previous: bytes | None = None
    lines = []
    for number in range(1, count + 1):
        line = json.dumps(
            {**_entry(number), "prev": None if previous is None else line_digest(previous)}
        ).encode()
        lines.append(line)
        previous = line
    edited = data.draw(st.integers(min_value=0, max_value=count - 2))
    lines[edited] = lines[edited].replace(b'"edit"', b'"accept"')
    report = check_chain(b"\n".join(lines) + b"\n")
    assert report.broken_line == edited + 2
