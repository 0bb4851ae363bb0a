"""`evalkit test --update`: the actual outcomes of failed cases written back into their test files, through
a ruamel.yaml round trip that keeps the files' comments and layout, their line ends (CRLF stays CRLF) and
byte order mark, atomically (services/outputs/atomic.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalkit.engine.positions import line_end
from evalkit.engine.result import Result
from evalkit.services.outputs.atomic import write_text_atomic
from evalkit.services.ruletests.run import CaseOutcome, expects_anything, fired_ids

BOM = "\ufeff"
RECORDED = ("fired", "label", "score", "flags")
"""What --update records for a case that has no expectations yet."""


def recorded_values(outcome: CaseOutcome) -> dict[str, Any]:
    """What --update writes into the case's `expect`: the actual value of each mismatched key (for
    must_fire and must_not_fire, the ids that now hold), or the usual keys for a case without any."""
    result = outcome.result
    if result is None:
        return {}
    if not expects_anything(outcome.case):
        return {key: _actual(key, result, None) for key in RECORDED}
    return {m.key: _actual(m.key, result, m.expected) for m in outcome.mismatches}


def _actual(key: str, result: Result, expected: Any) -> Any:
    fired = fired_ids(result)
    values: dict[str, Callable[[], Any]] = {
        "fired": lambda: fired,
        "must_fire": lambda: [i for i in expected if i in fired],
        "must_not_fire": lambda: [i for i in expected if i not in fired],
        "label": lambda: result.label,
        "score": lambda: _plain_number(result.score),
        "flags": lambda: sorted(name for name, on in result.flags.items() if on),
        "corrected_ratings": lambda: {
            dim: _plain_number(result.corrected_ratings[dim]["updated"]) for dim in expected
        },
        "ranking": lambda: list(result.corrected_ranking),
        "rewrite_final": lambda: result.rewrite_final,
    }
    return values[key]()


def _plain_number(value: float | None) -> float | int | None:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def update_file(path: Path, changes: list[tuple[int, dict[str, Any]]]) -> None:
    """Write the values recorded for failed cases of one test file (case index, `recorded_values`) back
    into it; raises OSError naming the file."""
    from io import StringIO

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.util import load_yaml_guess_indent

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.representer.add_representer(type(None), _represent_null)  # ruamel would write `score:` for null
    yaml.width = 4096  # never re-wrap long strings the author wrote on one line
    original = path.read_bytes().decode("utf-8")
    text = original.removeprefix(BOM)
    # ruamel keeps a CR in comments (CRLF comment lines came back `\r\r\n`): LF in, the file's end out
    data, indent, block_seq_indent = load_yaml_guess_indent(_lf(text), yaml=yaml)
    yaml.indent(mapping=2, sequence=indent or 4, offset=2 if block_seq_indent is None else block_seq_indent)
    shared = _shared_nodes(data)
    for index, values in changes:
        case = data["cases"][index]
        if id(case) in shared:  # the whole case an alias (`- *first`): this one gets its own copy
            case = data["cases"][index] = _unanchored(case)
        if case.get("expect") is None:
            case["expect"] = CommentedMap()
        elif _holds_any(case["expect"], shared):  # an alias of an anchor: this case gets its own copy
            case["expect"] = _unanchored(case["expect"])
        for key, value in values.items():
            _assign(case["expect"], key, value)
    out = StringIO()
    yaml.dump(data, out)
    # as the author saved it: ruamel writes LF and drops a byte order mark
    updated = BOM * original.startswith(BOM) + out.getvalue().replace("\n", line_end(text))
    try:
        write_text_atomic(path, updated)  # a full disk or SIGTERM leaves the old file whole
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # named after the test file


def _lf(text: str) -> str:
    """`text` with every line ending LF (CRLF and a lone CR, as YAML reads them)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _shared_nodes(data: Any) -> set[int]:
    """The ids of the mappings and sequences reached more than once (an anchor and its aliases): writing
    into one would change every case that names it."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        stack.extend(node.values() if isinstance(node, dict) else node)
    return shared


def _holds_any(node: Any, shared: set[int]) -> bool:
    if not isinstance(node, (dict, list)):
        return False
    if id(node) in shared:
        return True
    return any(_holds_any(child, shared) for child in (node.values() if isinstance(node, dict) else node))


def _unanchored(node: Any) -> Any:
    """A deep copy of `node` whose mappings and sequences carry no anchor (the original keeps its own)."""
    import copy

    copied = copy.deepcopy(node)
    stack = [copied]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            anchor = getattr(item, "anchor", None)
            if anchor is not None and getattr(anchor, "value", None) is not None:
                anchor.value = None
            stack.extend(item.values() if isinstance(item, dict) else item)
    return copied


def _represent_null(representer: Any, _: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def _assign(expect: Any, key: str, value: Any) -> None:
    """Set expect[key], keeping the existing node (and so its flow or block style) where the kinds match."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import LiteralScalarString

    current = expect.get(key)
    if current == value and key in expect:
        return  # equal already (4.0 against 4): leave the author's spelling alone
    if isinstance(current, CommentedSeq) and isinstance(value, list):
        current[:] = value
    elif isinstance(current, CommentedMap) and isinstance(value, dict):
        current.update({k: v for k, v in value.items() if current.get(k) != v})
    elif isinstance(value, (list, dict)):
        node = CommentedSeq(value) if isinstance(value, list) else CommentedMap(value)
        node.fa.set_flow_style()
        expect[key] = node
    else:
        expect[key] = LiteralScalarString(value) if isinstance(value, str) and "\n" in value else value
