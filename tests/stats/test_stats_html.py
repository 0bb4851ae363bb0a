"""`evalkit stats --format html`: one self-contained page, rendered by a real headless Chromium (Debian's
package; `tasks.py` installs it when missing), whose screenshot must show the charts."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest

from evalkit.services.review.proposals import Proposal

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def review_policy(proposal: Proposal) -> tuple[str, Any]:
    if proposal.kind == "rating":
        return "edit", 3.0
    if proposal.kind == "flag":
        return "discard", None
    return "accept", None


@pytest.fixture(scope="module")
def html_report(module_reviewer: Any, evalkit: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`evalkit stats --format html --out` on two reviewers' journals, one with a name that must be escaped,
    not markup: the page, which both tests read."""
    ana = module_reviewer("ana", lambda p: ("accept", None))
    ben = module_reviewer("ben", review_policy)
    strange = ben.with_name("<b>ben&co.decisions.jsonl")
    ben.rename(strange)
    out = tmp_path_factory.mktemp("html") / "stats.html"
    done = evalkit("stats", str(ana), str(strange), "--format", "html", "--out", str(out))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    return out


ONE_WORKER = pytest.mark.xdist_group("stats-html")
"""Both tests on one xdist worker, which writes html_report once."""


@ONE_WORKER
def test_the_page_is_self_contained_and_escapes_what_it_shows(html_report: Path) -> None:
    page = html_report.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for fetching in ("<script", "<link", "src=", "href=", "url(", "@import"):
        assert fetching not in page
    assert re.findall(r"https?://[^'\"]+", page) == ["http://www.w3.org/2000/svg"] * page.count("<svg")
    assert page.count("<svg") == 4  # rules, kinds, the confusion matrix, the drift
    assert "&lt;b&gt;ben&amp;co" in page and "<b>" not in page
    for heading in (
        "Acceptance per rule",
        "Labels: engine (rows) vs final (columns)",
        "Rating drift per dimension",
        "Krippendorff",
    ):
        assert heading in page


@ONE_WORKER
def test_headless_chromium_renders_the_charts(tmp_path: Path, html_report: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is needed (python3 tasks.py test installs it when run as root)"
    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1000,1400",
            f"--screenshot={shot}",
            html_report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    width, height, pixels = read_png(shot.read_bytes())
    assert (width, height) == (1000, 1400)
    colours = {pixels[i : i + 3] for i in range(0, len(pixels), 4 * 7)}  # every 7th pixel
    accepted, discarded, drift = bytes((46, 125, 50)), bytes((198, 40, 40)), bytes((21, 101, 192))
    assert {accepted, discarded, drift} <= colours
    assert len(colours) > 50  # text, bars, the matrix's shades: not a blank or an error page


def read_png(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and RGBA pixels of an 8-bit RGB or RGBA PNG (what Chromium writes), unfiltered."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, b"", b""
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position : position + 8])
        body = data[position + 8 : position + 8 + length]
        header = body if kind == b"IHDR" else header
        chunks += body if kind == b"IDAT" else b""
        position += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour_type in (2, 6)
    channels = 4 if colour_type == 6 else 3
    rows = _unfiltered(zlib.decompress(chunks), width * channels, height, channels)
    if channels == 3:
        rows = b"".join(rows[i : i + 3] + b"\xff" for i in range(0, len(rows), 3))
    return width, height, rows


def _unfiltered(raw: bytes, stride: int, height: int, step: int) -> bytes:
    """The rows of `raw` with PNG's filters undone. Chromium's rows are mostly Up: done a row at a time
    (bytewise sums in one integer addition), Sub, Average and Paeth a byte at a time."""
    out = bytearray()
    previous = bytes(stride)
    low, high = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
    for row in range(height):
        start = row * (stride + 1) + 1
        kind, line = raw[start - 1], bytearray(raw[start : start + stride])
        if kind == 2:
            line = bytearray(_bytewise_sum(line, previous, low, high))
        elif kind == 1:
            for i in range(step, stride):
                line[i] = (line[i] + line[i - step]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - step] if i >= step else 0) + previous[i]) // 2) & 0xFF
        elif kind == 4:
            for i in range(step):  # no pixel on the left: Paeth predicts the one above
                line[i] = (line[i] + previous[i]) & 0xFF
            for i in range(step, stride):
                left, up, corner = line[i - step], previous[i], previous[i - step]
                # Paeth: of left, up and corner the nearest to left + up - corner, in that order on ties
                near_left, near_up, near_corner = (
                    abs(up - corner),
                    abs(left - corner),
                    abs(left + up - 2 * corner),
                )
                if near_left <= near_up and near_left <= near_corner:
                    line[i] = (line[i] + left) & 0xFF
                elif near_up <= near_corner:
                    line[i] = (line[i] + up) & 0xFF
                else:
                    line[i] = (line[i] + corner) & 0xFF
        out += line
        previous = bytes(line)
    return bytes(out)


def _bytewise_sum(first: bytes | bytearray, second: bytes, low: int, high: int) -> bytes:
    """Each byte of `first` plus the byte of `second` under it, modulo 256: the low seven bits of each add
    without reaching the next byte, the top bit is theirs and the carry XORed."""
    a, b = int.from_bytes(first, "big"), int.from_bytes(second, "big")
    return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(len(first), "big")
