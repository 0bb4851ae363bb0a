"""Text between literal tags on one line, found with string searches instead of a lazy regex.

`blocks_between(text, "<solution>", "</solution>")` returns what
`re.findall(r"<solution>(.*?)</solution>", text)` returns (no DOTALL: a block never spans a newline), but
jumps from tag to tag with `str.find` where the regex tests every character of every block for a closing
tag. The scorers run millions of times, and this is most of the typos scorer's time.

>>> blocks_between("<s>a</s> <s>b\\n</s> <s>c</s>", "<s>", "</s>")
['a', 'c']
"""

from __future__ import annotations


def blocks_between(text: str, opening: str, closing: str) -> list[str]:
    """Every non-overlapping `opening…closing` on one line, left to right: the text between the tags."""
    blocks = []
    position = 0
    end = -1
    while (start := text.find(opening, position)) != -1:
        content_start = start + len(opening)
        if end < content_start:
            # Else an earlier opening's closing tag is this one's too (none lies between them): searching
            # again from every opening (one a line, say) would make long answers quadratic.
            end = text.find(closing, content_start)
            if end == -1:
                break
        newline = text.find("\n", content_start, end)
        if newline != -1:
            # No closing tag on this line: nor for any later opening tag on it, as for the regex.
            position = newline + 1
            continue
        blocks.append(text[content_start:end])
        position = end + len(closing)
    return blocks
