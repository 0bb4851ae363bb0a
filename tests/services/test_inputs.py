"""Which files a folder input stands for."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.services.inputs.read import expand_inputs

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "sample_submission.json"


def test_a_folder_lists_submissions_sorted_and_skips_the_review_files_kept_beside_them(
    tmp_path: Path,
) -> None:
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

    from evalkit.services.inputs.read import read_file

    texts = ["one\u2028two", "next\u0085line", "form\x0cfeed"]  # JSON allows these raw inside a string
    rows = [json.dumps({"prompt": text}, ensure_ascii=False) for text in texts]
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(("\r\n".join(rows) + "\r\n\n").encode("utf-8"))
    loaded = list(read_file(batch))
    assert [item.source for item in loaded] == [f"{batch}:1", f"{batch}:2", f"{batch}:3"]
    assert [item.data["prompt"] for item in loaded] == texts


def test_a_file_that_is_not_utf8_is_named_with_its_line_and_column(tmp_path: Path) -> None:
    from evalkit.services.inputs.read import read_file

    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{\n  "prompt": "café"\n}\n'.encode("latin-1"))
    utf16 = tmp_path / "utf16.json"
    utf16.write_text('{"prompt": "x"}', encoding="utf-16")
    assert [item.error for item in read_file(latin1)] == [
        "line 2:17: the file is not UTF-8 text (byte 18: 0xe9)"
    ]
    assert [item.error for item in read_file(utf16)] == [
        "line 1:1: the file is UTF-16 text; save it as UTF-8"
    ]


def test_a_jsonl_file_is_streamed_and_only_its_lines_have_a_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from evalkit.engine import limits
    from evalkit.services.run.batch import Outcome, RawItem, count_items, raw_items

    monkeypatch.setattr(limits, "MAX_SUBMISSION_BYTES", 100)
    short = json.dumps({"prompt": "p"})
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join([short] * 20 + [json.dumps({"prompt": "x" * 200}), short]), encoding="utf-8")
    assert batch.stat().st_size > limits.MAX_SUBMISSION_BYTES
    items = list(raw_items([str(batch)]))
    assert [type(item) for item in items] == [RawItem] * 20 + [Outcome, RawItem]
    assert items[20] == Outcome(f"{batch}:21", error="the line is longer than 100 bytes")
    assert count_items([str(batch)]) == len(items)


@pytest.mark.parametrize("size", [0, 99, 100, 101, 250, 10_000])
def test_capped_lines_give_every_line_or_none_past_the_limit_and_count_every_byte(
    tmp_path: Path, size: int
) -> None:
    from evalkit.engine.text import capped_lines

    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"first\n" + b"x" * size + b"\nlast")
    with open(path, "rb") as handle:
        lines = list(capped_lines(handle, 100))
    middle = b"x" * size + b"\n"
    assert lines == [(6, b"first\n"), (len(middle), middle if len(middle) <= 100 else None), (4, b"last")]


def test_capped_lines_stop_a_stream_at_its_first_line_past_the_limit() -> None:
    from evalkit.engine.text import capped_lines

    with open("/dev/zero", "rb") as handle:  # no newline, ever
        assert list(capped_lines(handle, 100)) == [(101, None)]


def test_read_capped_refuses_past_the_limit_whatever_the_size_on_disk_says(tmp_path: Path) -> None:
    from evalkit.engine.text import TooLarge, read_capped

    (tmp_path / "f").write_bytes(b"x" * 100)
    assert read_capped(tmp_path / "f", 100) == b"x" * 100
    with pytest.raises(TooLarge):
        read_capped(tmp_path / "f", 99)
    with pytest.raises(TooLarge):
        read_capped("/dev/zero", 1000)  # its size on disk is 0


def test_not_a_regular_file_names_what_a_path_is_without_opening_it(tmp_path: Path) -> None:
    import os

    from evalkit.engine.text import not_a_regular_file

    os.mkfifo(tmp_path / "pipe")  # opening it would block: nothing writes to it
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to("/dev/zero")
    assert [not_a_regular_file(tmp_path / name) for name in ("pipe", "file", "link", ".", "gone")] == [
        "a named pipe",
        None,
        "a device",
        "a folder",
        None,
    ]


def test_read_file_of_a_device_that_never_ends_is_one_error_entry() -> None:
    # what `evalkit review /dev/zero` and a rule test's submission read through; it ended in MemoryError
    from evalkit.services.inputs.read import read_file

    (loaded,) = read_file(Path("/dev/zero"))
    assert (loaded.source, loaded.submission) == ("/dev/zero", None)
    assert loaded.error == "cannot read the file: the file is larger than 50,000,000 bytes"


def test_a_folder_lists_links_that_lead_nowhere_for_the_read_to_name_them(tmp_path: Path) -> None:
    """A dangling link or a loop named as a submission was passed over without a word: it is listed, and
    reading it says why it cannot be read. A link to nothing that is not named as a submission stays out."""
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "loop.jsonl").symlink_to(tmp_path / "loop.jsonl")
    (tmp_path / "notes.txt").symlink_to(tmp_path / "nowhere.txt")
    files, missing = expand_inputs([tmp_path])
    assert [p.name for p in files] == ["a.json", "dangling.json", "loop.jsonl"]
    assert missing == []


def test_eval_names_each_link_that_leads_nowhere_and_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "a.json")
    (folder / "b.json").symlink_to(tmp_path / "gone.json")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", str(folder), "--out", str(tmp_path / "r.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [line["source"].rsplit("/", 1)[1] for line in lines] == ["a.json", "b.json"]
    assert lines[1]["error"] == {"message": "cannot read the file: No such file or directory"}
    assert done.stderr.endswith("b.json: error: cannot read the file: No such file or directory\n")
