"""qydomain's score_text, what `evalkit score` runs on each range of a file, against the command's score_lines
(the lines of the range split with bytes.split, each a copy, read as any line is read): the same output, the
same scores, the same bad lines with the same messages, the same count of lines."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.qydomain.records import score_text
from evalkit.services.run.score import score_lines
from tests.budget import examples

ROWS = [
    {"data_source": "typos", "extra_info": {"label": "hi"}, "model_output": "<solution>hi</solution>"},
    {
        "data_source": "connections",
        "extra_info": {"label": "a,b,c,d"},
        "response": "<solution>A,B,C,D</solution>",
    },
    {"data_source": "unscrambling", "extra_info": {"label": "A. B. C."}, "model_output": "B. A. C."},
    {
        "data_source": "typos",
        "extra_info": {"label": "é"},
        "model_output": "é",
        "score": 3,
        "x": [1, {"y": 2}],
    },
]
TEXTS = [
    *(json.dumps(row) for row in ROWS),
    *(json.dumps(row, ensure_ascii=False) for row in ROWS),
    *(json.dumps(row, separators=(",", ":")) for row in ROWS),
    "\ufeff" + json.dumps(ROWS[0]),
    json.dumps(ROWS[2]) + "\r",
    "  " + json.dumps(ROWS[1]) + " \t",
    "",
    " ",
    "\t\r",
    "\x0b\x0c",
    '{"a": ',
    "not json",
    "[1, 2]",
    '{"data_source": "nope", "extra_info": {"label": "a"}, "model_output": "a"}',
    '{"data_source": "typos", "extra_info": {"label": 1}, "model_output": "a"}',
    '{"data_source": "typos", "extra_info": {"label": "\\ud800"}, "model_output": "a"}',
    '{"data_source": "typos", "extra_info": {"label": "a"}, "model_output": "a", "n": ' + "9" * 4400 + "}",
]
LINES = [
    *(text.encode("utf-8", "surrogatepass") for text in TEXTS),
    # not UTF-8 in a member the scorer does not read, then in one it reads
    b'{"data_source": "typos", "extra_info": {"label": "a"}, "model_output": "a", "x": "\xff"}',
    b'{"data_source": "typos", "extra_info": {"label": "a\xc3"}, "model_output": "a"}',
]


@settings(deadline=None, max_examples=examples(300))
@given(st.lists(st.sampled_from(LINES), max_size=12), st.booleans(), st.sampled_from([b"", b"\xff", b"\xc3"]))
def test_score_text_gives_what_score_lines_gives_the_lines_split(
    lines: list[bytes], terminated: bool, odd: bytes
) -> None:
    data = b"\n".join(lines) + odd + (b"\n" if terminated and lines else b"")
    pieces: list[bytes | None] = list(data.split(b"\n"))
    if data.endswith(b"\n") or not data:
        pieces.pop()
    output, scores, bad = score_lines(pieces, data.endswith(b"\n"))
    runs, text_scores, text_bad, count = score_text(data)
    assert runs[0] == output
    assert text_scores == scores
    assert [(*line, after) for line, after in zip(text_bad, runs[1:], strict=True)] == [tuple(b) for b in bad]
    assert count == len(pieces)
