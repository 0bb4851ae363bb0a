"""`evalkit check` on odd input a rule author meets: each problem reported once, where it is, in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EVALKIT = Path(sys.executable).parent / "evalkit"


def check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EVALKIT), "check", *args, str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def problems(result: subprocess.CompletedProcess[str], folder: Path) -> list[str]:
    """The diagnostics' lines, with the folder's path left out."""
    return [
        line.removeprefix(f"{folder}/") for line in result.stdout.splitlines() if line.startswith(str(folder))
    ]


def test_a_bad_merge_is_one_error_without_a_warning_about_the_mapping_it_left_empty(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "version: 2\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: 5\n"
        "  - id: b\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: [1]\n",
        encoding="utf-8",
    )
    result = check(tmp_path)
    message = "error[yaml-syntax] a merge key '<<' takes a mapping or a list of mappings"
    assert problems(result, tmp_path) == [f"rules.yaml:6:7: {message}", f"rules.yaml:10:7: {message}"]
    assert result.returncode == 1


def test_a_config_file_that_is_no_mapping_is_marked_from_its_first_token_to_its_last(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text("# the rules, as a list\n- id: a\n- id: b  \n\n# the end\n")
    (tmp_path / "dimensions.yaml").write_text("just some text\n")
    result = check(tmp_path, "--format", "json")
    found = [
        (Path(d["path"]).name, d["line"], d["column"], d["end_line"], d["end_column"], d["message"])
        for d in json.loads(result.stdout)["diagnostics"]
    ]
    assert found == [
        ("dimensions.yaml", 1, 1, 1, 15, "dimensions.yaml must be a mapping of keys, not a string"),
        ("rules.yaml", 2, 1, 3, 8, "rules.yaml must be a mapping of keys, not a list"),
    ]
    assert result.returncode == 1
    assert problems(check(tmp_path), tmp_path)[1].startswith("rules.yaml:2:1: error[wrong-type] ")


def test_a_problem_in_a_node_that_aliases_bring_to_several_places_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "version: 2\n"
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
        encoding="utf-8",
    )
    assert problems(check(tmp_path), tmp_path) == [
        "rules.yaml:2:23: error[duplicate-key] duplicate key 'set_flag' (first at line 2:10)",
        "rules.yaml:16:7: error[yaml-syntax] a merge key '<<' takes a mapping or a list of mappings; "
        "it merges the value at line 3:16",
    ]


def test_a_named_pipe_where_the_only_config_file_belongs_is_named_unreadable(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "rules.yaml")
    result = check(tmp_path)
    assert problems(result, tmp_path) == [
        "rules.yaml:1:1: error[unreadable] cannot read the file: it is a named pipe"
    ]
    assert result.returncode == 1


def test_nesting_too_deep_is_named_where_it_passes_the_limit_however_deep_it_goes(tmp_path: Path) -> None:
    for depth in (70, 1_000, 5_000):  # libyaml's scanner refuses 1,000 levels on its own, further right
        (tmp_path / "rules.yaml").write_text(f"version: 2\nx-a: {'[' * depth}{']' * depth}\n")
        assert problems(check(tmp_path), tmp_path) == [
            "rules.yaml:2:69: error[yaml-too-deep] nesting deeper than 64 levels is refused"
        ]


def test_infinity_where_an_integer_belongs_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "version: 2\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: .inf}\n"
        "    actions: {increment_score: .nan}\n"
    )
    assert problems(check(tmp_path), tmp_path) == [
        "rules.yaml:4:30: error[wrong-type] expected an integer in rating_rules[0].when.max_total_length, "
        "found the number inf",
        "rules.yaml:5:32: error[not-finite] expected a finite number, found .nan",
    ]


def test_yamls_own_types_are_named_in_words(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text("version: !!binary aGVsbG8=\n")
    (tmp_path / "dimensions.yaml").write_text("2001-12-14t21:59:43.10-05:00\n")
    assert problems(check(tmp_path), tmp_path) == [
        "dimensions.yaml:1:1: error[wrong-type] dimensions.yaml must be a mapping of keys, "
        "not a date and time",
        "rules.yaml:1:10: error[wrong-type] expected an integer or a string in version, found binary data "
        "(b'hello')",
    ]


def test_a_schema_error_in_a_node_that_aliases_bring_to_several_places_is_reported_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "rules.yaml").write_text(
        "version: 2\n"
        "x-a: &a {set_flg: x}\n"
        "rating_rules:\n"
        "  - id: a\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *a\n"
        "  - id: b\n"
        "    when: {max_total_length: 80}\n"
        "    actions:\n"
        "      <<: *a\n"
    )
    assert problems(check(tmp_path), tmp_path) == [
        "rules.yaml:2:10: error[unknown-key] unknown key 'set_flg' in rating_rules[0].actions; "
        "did you mean 'set_flag'?"
    ]


def test_a_rule_that_aliases_bring_twice_is_said_to_be_brought_twice(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "version: 2\n"
        "x-r: &r {id: r, when: {max_total_length: 80}, actions: {set_flag: x}}\n"
        "rating_rules: [*r, *r, *r]\n"
        "ranking_rules: [*r]\n"
    )
    assert problems(check(tmp_path), tmp_path) == [
        "rules.yaml:2:14: error[duplicate-rule-id] duplicate rule id 'r' "
        "(aliases bring this rule into rating_rules twice)",
        "rules.yaml:2:14: warning[duplicate-rule-id] rule id 'r' is also used in rating_rules "
        "(aliases bring this rule into both); results would name two rules alike",
    ]
