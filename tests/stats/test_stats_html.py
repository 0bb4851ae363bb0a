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

from evalkit.services.proposals import Proposal

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


def html_report(tmp_path: Path, reviewer: Any, evalkit: Any) -> Path:
    ana = reviewer("ana", lambda p: ("accept", None))
    ben = reviewer("ben", review_policy)
    strange = ben.with_name("<b>ben&co.decisions.jsonl")  # a name that must be escaped, not markup
    ben.rename(strange)
    out = tmp_path / "stats.html"
    done = evalkit("stats", str(ana), str(strange), "--format", "html", "--out", str(out))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    return out


def test_the_page_is_self_contained_and_escapes_what_it_shows(
    tmp_path: Path, reviewer: Any, evalkit: Any
) -> None:
    page = html_report(tmp_path, reviewer, evalkit).read_text()
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


def test_headless_chromium_renders_the_charts(tmp_path: Path, reviewer: Any, evalkit: Any) -> None:
    page = html_report(tmp_path, reviewer, evalkit)
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
            page.as_uri(),
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
    out = bytearray()
    previous = bytearray(stride)
    for row in range(height):
        kind = raw[row * (stride + 1)]
        line = bytearray(raw[row * (stride + 1) + 1 : (row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            line[i] = (line[i] + _predict(kind, left, up, corner)) & 0xFF
        out += line
        previous = line
    return bytes(out)


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    if kind == 4:
        estimate = left + up - corner
        distances = (abs(estimate - left), abs(estimate - up), abs(estimate - corner))
        return (left, up, corner)[distances.index(min(distances))]
    return 0
