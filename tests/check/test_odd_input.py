"""`evalkit check` on odd input a rule author meets: each problem reported once, where it is, in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

EVALKIT = Path(sys.executable).parent / "evalkit"


def check(*folders: Path, options: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALKIT), "check", *options, *map(str, folders)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def problems(result: subprocess.CompletedProcess[str], folder: Path) -> list[str]:
    """The diagnostics' lines about files in `folder`, with the folder's path left out."""
    return [
        line.removeprefix(f"{folder}/")
        for line in result.stdout.splitlines()
        if line.startswith(f"{folder}/")
    ]


PIPE = None
"""In FOLDERS: a named pipe instead of a file."""
FOLDERS: dict[str, dict[str, str | None]] = {
    "bad-merge": {
        "rules.yaml": "version: 2\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: 5\n"
        "  - id: b\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: [1]\n",
    },
    "no-mapping": {
        "rules.yaml": "# the rules, as a list\n- id: a\n- id: b  \n\n# the end\n",
        "dimensions.yaml": "just some text\n",
    },
    "aliased-problem": {
        "rules.yaml": "version: 2\n"
        "x-a: &a {set_flag: x, set_flag: y}\n"
        "x-list: &list [1, 2]\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *a\n"
        "  - id: b\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *a\n"
        "  - id: c\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *list\n"
        "      set_flag: z\n",
    },
    "pipe": {"rules.yaml": PIPE},
    # libyaml's scanner refuses 1,000 levels on its own, further right
    **{
        f"nested-{depth}": {"rules.yaml": f"version: 2\nx-a: {'[' * depth}{']' * depth}\n"}
        for depth in (70, 1_000, 5_000)
    },
    "infinity": {
        "rules.yaml": "version: 2\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: .inf}\n"
        "    actions: {increment_score: .nan}\n",
    },
    "yaml-types": {
        "rules.yaml": "version: !!binary aGVsbG8=\n",
        "dimensions.yaml": "2001-12-14t21:59:43.10-05:00\n",
    },
    "aliased-schema-error": {
        "rules.yaml": "version: 2\n"
        "x-a: &a {set_flg: x}\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *a\n"
        "  - id: b\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *a\n",
    },
    "rule-brought-twice": {
        "rules.yaml": "version: 2\n"
        "x-r: &r {id: r, when: {max_total_length: 80}, actions: {set_flag: x}}\n"
        "rating_rules: [*r, *r, *r]\n"
        "ranking_rules: [*r]\n",
    },
}
"""Each test's config folder. `evalkit check` runs once over all of them (`odd`): a folder's diagnostics are
its own, whatever is checked beside it."""


class Checked(NamedTuple):
    root: Path
    text: subprocess.CompletedProcess[str]
    json: subprocess.CompletedProcess[str]

    def problems(self, name: str) -> list[str]:
        return problems(self.text, self.root / name)


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    root = tmp_path_factory.mktemp("odd")
    for name, files in FOLDERS.items():
        (root / name).mkdir()
        for file, text in files.items():
            if text is PIPE:
                os.mkfifo(root / name / file)
            else:
                (root / name / file).write_text(text, encoding="utf-8")
    folders = [root / name for name in FOLDERS]
    return Checked(root, check(*folders), check(root / "no-mapping", options=("--format", "json")))


pytestmark = pytest.mark.xdist_group("check-odd-input")  # on one worker: `odd` runs once


def test_a_bad_merge_is_one_error_without_a_warning_about_the_mapping_it_left_empty(odd: Checked) -> None:
    message = "error[yaml-syntax] a merge key '<<' takes a mapping or a list of mappings"
    assert odd.problems("bad-merge") == [f"rules.yaml:6:7: {message}", f"rules.yaml:10:7: {message}"]
    assert odd.text.returncode == 1


def test_a_config_file_that_is_no_mapping_is_marked_from_its_first_token_to_its_last(odd: Checked) -> None:
    found = [
        (Path(d["path"]).name, d["line"], d["column"], d["end_line"], d["end_column"], d["message"])
        for d in json.loads(odd.json.stdout)["diagnostics"]
    ]
    assert found == [
        ("dimensions.yaml", 1, 1, 1, 15, "dimensions.yaml must be a mapping of keys, not a string"),
        ("rules.yaml", 2, 1, 3, 8, "rules.yaml must be a mapping of keys, not a list"),
    ]
    assert odd.json.returncode == 1
    assert odd.problems("no-mapping")[1].startswith("rules.yaml:2:1: error[wrong-type] ")


def test_a_problem_in_a_node_that_aliases_bring_to_several_places_is_reported_once(odd: Checked) -> None:
    assert odd.problems("aliased-problem") == [
        "rules.yaml:2:23: error[duplicate-key] duplicate key 'set_flag' (first at line 2:10)",
        "rules.yaml:16:7: error[yaml-syntax] a merge key '<<' takes a mapping or a list of mappings; "
        "it merges the value at line 3:16",
    ]


def test_a_named_pipe_where_the_only_config_file_belongs_is_named_unreadable(odd: Checked) -> None:
    assert odd.problems("pipe") == [
        "rules.yaml:1:1: error[unreadable] cannot read the file: it is a named pipe"
    ]
    assert odd.text.returncode == 1


def test_nesting_too_deep_is_named_where_it_passes_the_limit_however_deep_it_goes(odd: Checked) -> None:
    for depth in (70, 1_000, 5_000):
        assert odd.problems(f"nested-{depth}") == [
            "rules.yaml:2:69: error[yaml-too-deep] nesting deeper than 64 levels is refused"
        ]


def test_infinity_where_an_integer_belongs_is_one_error(odd: Checked) -> None:
    assert odd.problems("infinity") == [
        "rules.yaml:4:30: error[wrong-type] expected an integer in rating_rules[0].when.max_total_length, "
        "found the number inf",
        "rules.yaml:5:32: error[not-finite] expected a finite number, found .nan",
    ]


def test_yamls_own_types_are_named_in_words(odd: Checked) -> None:
    assert odd.problems("yaml-types") == [
        "dimensions.yaml:1:1: error[wrong-type] dimensions.yaml must be a mapping of keys, "
        "not a date and time",
        "rules.yaml:1:10: error[wrong-type] expected an integer or a string in version, found binary data "
        "(b'hello')",
    ]


def test_a_schema_error_in_a_node_that_aliases_bring_to_several_places_is_reported_once(odd: Checked) -> None:
    assert odd.problems("aliased-schema-error") == [
        "rules.yaml:2:10: error[unknown-key] unknown key 'set_flg' in rating_rules[0].actions; "
        "did you mean 'set_flag'?"
    ]


def test_a_rule_that_aliases_bring_twice_is_said_to_be_brought_twice(odd: Checked) -> None:
    assert odd.problems("rule-brought-twice") == [
        "rules.yaml:2:14: error[duplicate-rule-id] duplicate rule id 'r' "
        "(aliases bring this rule into rating_rules twice)",
        "rules.yaml:2:14: warning[duplicate-rule-id] rule id 'r' is also used in rating_rules "
        "(aliases bring this rule into both); results would name two rules alike",
    ]


def test_every_folder_is_counted_in_the_summary(odd: Checked) -> None:
    assert odd.text.stderr == ""
    assert odd.text.stdout.splitlines()[-1].startswith(f"{len(FOLDERS)} config folders, ")
