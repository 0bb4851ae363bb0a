"""Incremental edits give the text the protocol's reference model gives (vscode-languageserver-textdocument's
`FullTextDocument.update`): a property test over random edit sequences against a transcription of that
model on UTF-16 code units, and the server's text held to it over stdio."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from evalkit.engine.config import analyze
from evalkit.lsp.edits import apply_change
from tests.lsp.rawclient import RawClient

EOL = (0x0A, 0x0D)


class ReferenceDocument:
    """`FullTextDocument` of vscode-languageserver-textdocument, line for line, on UTF-16 code units."""

    def __init__(self, text: str) -> None:
        self.units = _units(text)

    def line_offsets(self) -> list[int]:  # computeLineOffsets(text, isAtLineStart=true)
        result, i = [0], 0
        while i < len(self.units):
            ch = self.units[i]
            if ch in EOL:
                if ch == 0x0D and i + 1 < len(self.units) and self.units[i + 1] == 0x0A:
                    i += 1
                result.append(i + 1)
            i += 1
        return result

    def offset_at(self, line: int, character: int) -> int:
        offsets = self.line_offsets()
        if line >= len(offsets):
            return len(self.units)
        line_offset = offsets[line]
        if character <= 0:
            return line_offset
        next_line = offsets[line + 1] if line + 1 < len(offsets) else len(self.units)
        offset = min(line_offset + character, next_line)
        while offset > line_offset and self.units[offset - 1] in EOL:  # ensureBeforeEOL
            offset -= 1
        return offset

    def update(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        if start > end:  # getWellformedRange
            start, end = end, start
        begin, finish = self.offset_at(*start), self.offset_at(*end)
        self.units = self.units[:begin] + _units(text) + self.units[finish:]

    def text(self) -> str:
        data = b"".join(u.to_bytes(2, "little") for u in self.units)
        return data.decode("utf-16-le", "surrogatepass")


def _units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


PIECES = st.sampled_from(["a", "é", "😀", "\r\n", "\n", "\r", " ", "- id: x\n", "\u2028", "\ud83d", "\ude00"])
TEXTS = st.lists(PIECES, max_size=12).map("".join)
POSITIONS = st.tuples(st.integers(0, 6), st.integers(0, 12))
EDITS = st.lists(st.tuples(POSITIONS, POSITIONS, TEXTS), min_size=1, max_size=12)


def change_range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(types.Position(*start), types.Position(*end))


@settings(max_examples=400, deadline=None)
@given(TEXTS, EDITS)
def test_random_edit_sequences_give_the_reference_models_text(text: str, edits: list) -> None:
    reference, ours = ReferenceDocument(text), text
    for start, end, new in edits:
        reference.update(start, end, new)
        ours = apply_change(ours, change_range(start, end), new)
        assert _units(ours) == reference.units


def test_the_edits_the_hostile_round_found() -> None:
    lf, crlf = "ab\ncd\n", "ab\r\ncd\r\n"
    assert apply_change(lf, change_range((1, 2), (0, 1)), "X") == "aX\n"  # reversed across lines
    assert apply_change(lf, change_range((0, 2), (0, 0)), "X") == "X\ncd\n"  # reversed on one line
    assert apply_change(lf, change_range((0, 3), (0, 3)), "X") == "abX\ncd\n"  # len+1 on an LF line
    assert apply_change(crlf, change_range((0, 3), (0, 3)), "X") == "abX\r\ncd\r\n"  # between \r and \n
    assert apply_change(lf, change_range((9, 0), (9, 5)), "X") == "ab\ncd\nX"  # past the last line
    assert apply_change("ab", change_range((0, 9), (0, 9)), "X") == "abX"  # past the last line's end


def test_utf8_positions_inside_a_character_go_to_its_start() -> None:
    edit = change_range((0, 2), (0, 2))
    assert apply_change("é!", edit, "X", types.PositionEncodingKind.Utf8) == "éX!"
    assert apply_change("😀!", change_range((0, 3), (0, 3)), "X", types.PositionEncodingKind.Utf8) == "X😀!"


def test_the_servers_text_follows_the_clients_after_hostile_edits(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    rules = config / "rules.yaml"
    text = "rating_rules:\r\n  - id: a\r\n    when: {always: true}\r\n    actions: []\r\n"
    rules.write_text(text, encoding="utf-8", newline="")
    edits = [
        ((1, 99), (1, 99), "b"),
        ((2, 40), (1, 8), "c"),
        ((4, 0), (3, 99), "\r\n# end"),
        ((0, 13), (0, 14), ""),
    ]
    client = RawClient()
    try:
        client.initialize(tmp_path)
        uri = client.open(rules, text)
        reference = ReferenceDocument(text)
        for version, (start, end, new) in enumerate(edits, start=2):
            reference.update(start, end, new)
            where = {
                "start": {"line": start[0], "character": start[1]},
                "end": {"line": end[0], "character": end[1]},
            }
            client.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": where, "text": new}],
                },
            )
        expected = sorted(
            (d.span.line - 1, d.code) for d in analyze(config, {str(rules): reference.text()}).diagnostics
        )
        assert expected  # the edited text has problems to show
        while True:
            found = sorted((d["range"]["start"]["line"], d["code"]) for d in client.diagnostics(uri))
            if found == expected:
                break
    finally:
        client.close()
