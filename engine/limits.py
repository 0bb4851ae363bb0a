"""Safety limits, in one place. Rule files and submissions come from many hands; each limit here has a
test that proves its guard holds (tests/engine/test_limits.py)."""

MAX_YAML_BYTES = 1_000_000
"""A config file larger than this is refused before parsing."""

MAX_YAML_DEPTH = 64
"""Nesting deeper than this is refused while scanning events, before any tree is built."""

MAX_YAML_NODES = 200_000
"""Nodes after alias expansion; stops "billion laughs" files that are tiny on disk."""

MAX_SUBMISSION_BYTES = 50_000_000
"""A submission file, or one line of a JSONL file, larger than this is refused (a JSONL file is streamed
and may be of any size)."""

MAX_TEMPLATE_OUTPUT = 4_000
"""A rendered comment template is cut to this many characters."""

MAX_TEMPLATE_SEQUENCE = 10_000
"""No value a template builds (by an operator, `~`, a filter or a string method) may be a string longer
than this, or a list holding more characters and items than this."""

MAX_TEMPLATE_INTEGER_DIGITS = 1_000
"""`*` and `**` in a template may not produce an integer with more digits than this."""

MAX_TEMPLATE_WORK = 200_000
"""All the values one render of a template builds may hold this many characters and items in all."""

MAX_TEMPLATE_NESTING = 32
"""Brackets, blocks (`if`) and operators (`1+1+1`, a chain of filters) in a template may nest this deep;
Jinja's parser and Python's compiler recurse on each level."""

MAX_TEMPLATE_SOURCE = 20_000
"""A template longer than this many characters is refused at load."""

MAX_REGEX_PROGRAM = 100_000
"""RE2's memory budget for one compiled pattern, in bytes."""

MAX_GLOB_FOLDERS = 20_000
"""Folders a journals glob (`check --journals`, the language server's `journals`) may walk: `/**` stops."""
