"""A DiffReport for people and programs: a terminal table (`text`), a pull-request comment or GitHub step
summary (`markdown`: the short tables first, the details folded in `<details>`), and `json_text`, the
JSON of `DiffReport.to_dict` laid out one change a line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from evalkit.engine.untrusted_text import shown_as
from evalkit.services.diff.impact import DiffReport, ItemDiff, signed

SHORT_HASH = 12
MARKDOWN_CHANGES = 100
"""Changed submissions listed in Markdown (a GitHub comment holds 65,536 characters); the rest are counted."""
LONG_TEXT = 60
CONTEXT = 12
"""Characters of a rewrite shown before the place where the base's and the head's start to differ."""


def headline(report: DiffReport) -> str:
    errors = report.errors
    tail = f"; errors: base {errors[0]}, head {errors[1]}" if any(errors) else ""
    return (
        f"{report.changed} of {report.submissions} submission{'s' if report.submissions != 1 else ''} "
        f"changed{tail}"
    )


def rule_change(entry: dict[str, Any]) -> str:
    """`+3`, `-1`, `added`, `removed`, or `` for a rule that fired as often on both sides."""
    if "status" in entry:
        return str(entry["status"])
    delta = entry["head"] - entry["base"]
    return signed(delta) if delta else ""


class Ours(str):
    """A cell evalkit wrote (a count, `-` for none): shown as it is, where a submission's text is escaped."""


def _count(value: int | None) -> str:
    return Ours("-") if value is None else str(value)


def shown(value: Any) -> str:
    """A field's value in one short line (a line break written ⏎; each format escapes the rest)."""
    if isinstance(value, list):
        text = "[" + ", ".join(map(shown, value)) + "]"
    elif isinstance(value, float):
        text = f"{value:g}"
    elif value is None:
        text = "none"
    else:
        text = str(value).replace("\r\n", "⏎").replace("\r", "⏎").replace("\n", "⏎")
    return text if len(text) <= LONG_TEXT else text[: LONG_TEXT - 1] + "…"


def field_lines(item: ItemDiff, arrow: str = "->") -> list[tuple[str, str]]:
    """(field, change) for each change of one submission: `a -> b`, a rating per dimension, and for
    flags and fired rules what the head gained (+) and lost (-)."""
    rows = []
    for name, values in item.fields().items():
        if name == "corrected_ratings":
            rows += [
                (f"rating {dim}", f"{shown(a)} {arrow} {shown(b)}") for dim, (a, b) in sorted(values.items())
            ]
        elif name in ("flags", "fired_rules"):
            rows.append((name, _set_change(values[0], values[1], arrow)))
        elif name in ("rewrite_final", "ranking_feedback", "prompt_feedback"):
            rows.append((name, _text_change(values[0], values[1], arrow)))
        else:
            rows.append((name, f"{shown(values[0])} {arrow} {shown(values[1])}"))
    return rows


def _text_change(before: str, after: str, arrow: str) -> str:
    """Two long texts from where they start to differ (a few characters before), so that a change at the
    end of a rewrite shows."""
    same = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
        min(len(before), len(after)),
    )
    start = max(0, same - CONTEXT)
    cut = "…" if start else ""
    return f"{shown(cut + before[start:])} {arrow} {shown(cut + after[start:])}"


def _set_change(before: list[str], after: list[str], arrow: str) -> str:
    gained = [f"+{x}" for x in after if x not in before]
    lost = [f"-{x}" for x in before if x not in after]
    if not gained and not lost:  # the same rules in another order
        return f"{shown(before)} {arrow} {shown(after)}"
    return " ".join([*gained, *lost])


def json_text(report: DiffReport) -> str:
    """The report as indented JSON, each change on one line: readable, and as fast to write as compact
    JSON (Python's indenting encoder is ten times slower than its C one, which writes each change)."""
    return "".join(indented_json(report.to_dict(), "", ONE_LINE_ITEMS)) + "\n"


ONE_LINE_ITEMS = "changes"
"""The list whose items `json_text` writes one to a line."""

_one_line = json.JSONEncoder(ensure_ascii=False).encode


def indented_json(value: Any, indent: str, one_line_items: str | None = None) -> Iterator[str]:
    """`value` encoded as `json.dumps(value, ensure_ascii=False, indent=2)` encodes it, except the items
    of the top-level list named `one_line_items`, each encoded on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        yield "{"
        for n, (key, item) in enumerate(value.items()):
            yield f"{',' if n else ''}\n{inner}{_one_line(key)}: "
            if key == one_line_items and isinstance(item, list) and item:
                yield "[" + ",".join(f"\n{inner}  {_one_line(x)}" for x in item) + f"\n{inner}]"
            else:
                yield from indented_json(item, inner)
        yield f"\n{indent}}}"
    elif isinstance(value, list | tuple) and value:
        yield "["
        for n, item in enumerate(value):
            yield f"{',' if n else ''}\n{inner}"
            yield from indented_json(item, inner)
        yield f"\n{indent}]"
    else:
        yield _one_line(value)


# --- the terminal ---------------------------------------------------------------------------------


def _table(header: Sequence[Any], rows: Sequence[Sequence[Any]], left_last: bool = False) -> list[str]:
    """Columns padded to their widest cell; every column but the first aligned right (a last column
    of text, `left_last`, aligned left). Each cell shown as a terminal shows untrusted text."""
    shown_rows = [[shown_as(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in shown_rows) for i in range(len(header))]
    out = []
    for row in shown_rows:
        cells = [row[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True))]
        if left_last:
            cells[-1] = row[-1]
        out.append(("  " + "  ".join(cells)).rstrip())
    return out


def text(report: DiffReport) -> str:
    data = report.to_dict()
    lines = [
        f"base {shown_as(report.base.ref)} ({report.base.config_hash[:SHORT_HASH]})",
        f"head {shown_as(report.head.ref)} ({report.head.config_hash[:SHORT_HASH]})",
        headline(report),
    ]
    if data["labels"]:
        lines += ["", *_table(["label", "submissions"], [[k, n] for k, n in data["labels"].items()])]
    if data["scores"]:
        lines += ["", *_table(["score change", "submissions"], [[k, n] for k, n in data["scores"].items()])]
    if data["flags"]:
        lines += [
            "",
            *_table(
                ["flag", "gained", "lost"], [[k, v["gained"], v["lost"]] for k, v in data["flags"].items()]
            ),
        ]
    rules = [
        [rule, _count(e["base"]), _count(e["head"]), rule_change(e)] for rule, e in data["rules"].items()
    ]
    if rules:
        lines += ["", *_table(["rule", "base", "head", "change"], rules)]
    if data["dimensions"]:
        lines += [
            "",
            *_table(
                ["dimension", "changed", "mean change"],
                [[d, v["changed"], f"{v['mean_change']:+.2f}"] for d, v in data["dimensions"].items()],
            ),
        ]
    for item in report.changes:
        changes = _table(["field", "change"], field_lines(item), left_last=True)[1:]
        lines += ["", shown_as(item.source), *changes]
    return "\n".join(lines)


# --- Markdown -------------------------------------------------------------------------------------


class Code(str):
    """A cell shown as code (a rule id, a ref, a hash): a code span, whose text Markdown leaves alone."""


def _cell(value: Any) -> str:
    """Model output, sources, labels in a PR comment stay text: nothing a submission or a config holds
    renders as a link, an image, HTML, a mention, or ends the cell or the row (engine/untrusted_text.py)."""
    if isinstance(value, Ours):
        return value
    return shown_as(value, "markdown-code" if isinstance(value, Code) else "markdown")


def _md_table(header: Sequence[str], rows: Sequence[Sequence[Any]], right_from: int = 1) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(align) + " |",
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows),
    ]


def _folded(summary: str, body: list[str]) -> list[str]:
    return ["", "<details>", f"<summary>{_cell(summary)}</summary>", "", *body, "", "</details>"]


def markdown(report: DiffReport) -> str:
    data = report.to_dict()
    lines = [f"### evalkit diff: {headline(report)}", ""]
    lines += _md_table(
        ["", "base", "head"],
        [
            ["config", Code(report.base.ref), Code(report.head.ref)],
            [
                "config hash",
                Code(report.base.config_hash[:SHORT_HASH]),
                Code(report.head.config_hash[:SHORT_HASH]),
            ],
            ["errors", *report.errors],
        ],
        right_from=3,
    )
    if data["labels"]:
        lines += [
            "",
            *_md_table(
                ["label change", "submissions"],
                [[k.replace(" -> ", " → "), n] for k, n in data["labels"].items()],
            ),
        ]
    moved = [
        [Code(r), _count(e["base"]), _count(e["head"]), rule_change(e)]
        for r, e in data["rules"].items()
        if rule_change(e)
    ]
    if moved:
        lines += ["", *_md_table(["rule", "base", "head", "change"], moved)]
    lines += _folded(
        f"All rules ({len(data['rules'])})",
        _md_table(
            ["rule", "base", "head", "change"],
            [
                [Code(r), _count(e["base"]), _count(e["head"]), rule_change(e)]
                for r, e in data["rules"].items()
            ],
        ),
    )
    lines += _details(data)
    lines += _changed_submissions(report)
    return "\n".join(lines) + "\n"


def _details(data: dict[str, Any]) -> list[str]:
    body: list[str] = []
    if data["scores"]:
        body += [*_md_table(["score change", "submissions"], list(data["scores"].items())), ""]
    if data["flags"]:
        body += [
            *_md_table(
                ["flag", "gained", "lost"],
                [[Code(k), v["gained"], v["lost"]] for k, v in data["flags"].items()],
            ),
            "",
        ]
    if data["dimensions"]:
        body += _md_table(
            ["dimension", "ratings changed", "mean change"],
            [[d, v["changed"], f"{v['mean_change']:+.2f}"] for d, v in data["dimensions"].items()],
        )
    return _folded("Scores, flags and ratings", body) if body else []


def _changed_submissions(report: DiffReport) -> list[str]:
    if not report.changes:
        return []
    body: list[str] = []
    for item in report.changes[:MARKDOWN_CHANGES]:
        body += [
            f"**{_cell(item.source)}**",
            "",
            *_md_table(["field", "change"], field_lines(item, "→"), 2),
            "",
        ]
    if report.changed > MARKDOWN_CHANGES:
        body.append(f"… and {report.changed - MARKDOWN_CHANGES} more (`--format json` lists them all)")
    return _folded(f"Changed submissions ({report.changed})", body)


RENDERERS: dict[str, Callable[[DiffReport], str]] = {"text": text, "markdown": markdown, "json": json_text}
"""The report in each of `evalkit diff --format`'s formats (`evalkit.commands.diff.FORMATS`)."""
