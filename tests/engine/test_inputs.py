"""Which files a folder input stands for."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.engine.inputs import expand_inputs


def test_a_folder_lists_submissions_sorted_and_skips_the_review_files_kept_beside_them(tmp_path: Path) -> None:
    for name in ("b.json", "a.yaml", "c.jsonl", "c.jsonl.decisions.jsonl", "c.reviewed.jsonl", "notes.txt"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    files, missing = expand_inputs([tmp_path, tmp_path / "gone.json"])
    assert [f.name for f in files] == ["a.yaml", "b.json", "c.jsonl"]
    assert missing == [str(tmp_path / "gone.json")]


def test_a_file_named_explicitly_is_read_whatever_its_name(tmp_path: Path) -> None:
    journal = tmp_path / "x.decisions.jsonl"
    journal.write_text("", encoding="utf-8")
    assert expand_inputs([journal]) == ([journal], [])


def test_jsonl_lines_end_at_newlines_only(tmp_path: Path) -> None:
    import json

    from evalkit.engine.inputs import read_file

    texts = ["one\u2028two", "next\u0085line", "form\x0cfeed"]  # JSON allows these raw inside a string
    rows = [json.dumps({"prompt": text}, ensure_ascii=False) for text in texts]
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(("\r\n".join(rows) + "\r\n\n").encode("utf-8"))
    loaded = list(read_file(batch))
    assert [item.source for item in loaded] == [f"{batch}:1", f"{batch}:2", f"{batch}:3"]
    assert [item.data["prompt"] for item in loaded] == texts


def test_a_file_that_is_not_utf8_is_named_with_its_line_and_column(tmp_path: Path) -> None:
    from evalkit.engine.inputs import read_file

    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{\n  "prompt": "café"\n}\n'.encode("latin-1"))
    utf16 = tmp_path / "utf16.json"
    utf16.write_text('{"prompt": "x"}', encoding="utf-16")
    assert [item.error for item in read_file(latin1)] == ["line 2:17: the file is not UTF-8 text (byte 18: 0xe9)"]
    assert [item.error for item in read_file(utf16)] == ["line 1:1: the file is UTF-16 text; save it as UTF-8"]


def test_a_jsonl_file_is_streamed_and_only_its_lines_have_a_size_limit(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from evalkit.engine import limits
    from evalkit.engine.batch import Outcome, RawItem, count_items, raw_items

    monkeypatch.setattr(limits, "MAX_SUBMISSION_BYTES", 100)
    short = json.dumps({"prompt": "p"})
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join([short] * 20 + [json.dumps({"prompt": "x" * 200}), short]), encoding="utf-8")
    assert batch.stat().st_size > limits.MAX_SUBMISSION_BYTES
    items = list(raw_items([str(batch)]))
    assert [type(item) for item in items] == [RawItem] * 20 + [Outcome, RawItem]
    assert items[20] == Outcome(f"{batch}:21", error="the line is longer than 100 bytes")
    assert count_items([str(batch)]) == len(items)
