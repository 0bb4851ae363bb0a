"""Loading a config folder: the shipped default, `.yml` files, ConfigError with positioned diagnostics,
the config_hash definition, and `analyze(folder, overrides=...)` for unsaved editor buffers."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalkit.engine import CONFIG_NAMES, Config, ConfigError, Evaluator, analyze, load_config
from evalkit.engine import config as config_module

Writer = Callable[..., Path]
Factory = Callable[..., dict[str, Any]]
FORMAT = re.compile(
    r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+): "
    r"error\[(?P<code>[a-z0-9-]+)\] (?P<message>.+)$"
)
SHIPPED = Path(__file__).resolve().parents[2] / "config_samples"


def sha256_of(folder: Path, names: list[str]) -> str:
    return hashlib.sha256(b"".join((folder / name).read_bytes() for name in names)).hexdigest()


def errors(config_or_exc: Config | ConfigError) -> list[Any]:
    return [d for d in config_or_exc.diagnostics if d.severity == 1]


# --- the shipped default ----------------------------------------------------------------------------


def test_load_config_without_a_path_loads_the_shipped_default() -> None:
    config = load_config()
    assert config.plan is not None
    assert config.folder.resolve() == SHIPPED
    assert config.plan.rule_version == 2
    assert [r.id for r in config.plan.rating_rules][:2] == [
        "lower_accuracy_if_no_example",
        "scoring_positive_signal",
    ]
    assert errors(config) == []


def test_shipped_config_hash_follows_the_definition() -> None:
    names = sorted(p.name for p in SHIPPED.iterdir() if p.suffix in (".yaml", ".yml"))
    assert names == ["dimensions.yaml", "prompt.yaml", "ranking.yaml", "rewrite.yaml", "rules.yaml"]
    assert load_config().config_hash == sha256_of(SHIPPED, names)


def test_load_config_accepts_str_and_path(write_config: Writer) -> None:
    folder = write_config(rules="version: 7\n")
    assert load_config(str(folder)).plan.rule_version == 7
    assert load_config(folder).plan.rule_version == 7


def test_an_empty_folder_is_a_valid_config_with_every_default(write_config: Writer) -> None:
    config = load_config(write_config())
    assert config.config_hash == hashlib.sha256(b"").hexdigest()
    assert config.plan.scale == (0.0, 5.0)
    assert config.plan.pull_fraction == 0.4
    assert config.plan.dimensions == {
        "instructions": (4.0, 1.5),
        "accuracy": (4.2, 1.2),
        "optimality": (3.8, 1.4),
        "presentation": (4.0, 1.2),
        "freshness": (3.5, 1.5),
    }
    assert config.plan.rating_rules == []
    assert config.plan.default_label is None


def test_config_names() -> None:
    assert CONFIG_NAMES == ("dimensions", "ranking", "prompt", "rewrite", "rules")


# --- .yml and the hash --------------------------------------------------------------------------


def test_yml_files_are_loaded(write_config: Writer, make_submission: Factory) -> None:
    folder = write_config(
        **{
            "rules.yml": "rating_rules:\n  - id: from_yml\n    actions: { set_flag: yml }\n",
            "dimensions.yml": "adjustment:\n  pull_fraction: 0.5\n",
        }
    )
    result = Evaluator(load_config(folder)).evaluate(make_submission(ratings={"accuracy": 0.0})).to_dict()
    assert result["flags"] == {"yml": True}
    assert result["corrected_ratings"]["accuracy"]["updated"] == pytest.approx(2.1)


def test_config_hash_is_sha256_of_the_yaml_bytes_in_sorted_file_name_order(
    write_config: Writer, make_submission: Factory
) -> None:
    folder = write_config(
        **{
            "rules.yml": "version: 3\n",
            "ranking.yaml": "allow_duplicates: true\n",
            "dimensions.yaml": "# ideals\nscale: [0, 5]\n",
        }
    )
    expected = sha256_of(folder, ["dimensions.yaml", "ranking.yaml", "rules.yml"])
    config = load_config(folder)
    assert config.config_hash == expected
    assert Evaluator(config).evaluate(make_submission()).to_dict()["meta"]["config_hash"] == expected


def test_config_hash_is_of_raw_bytes(write_config: Writer) -> None:
    lf = write_config(rules="version: 3\n")
    crlf = write_config()
    (crlf / "rules.yaml").write_bytes(b"version: 3\r\n")
    assert load_config(lf).plan.rule_version == load_config(crlf).plan.rule_version == 3
    assert load_config(crlf).config_hash == hashlib.sha256(b"version: 3\r\n").hexdigest()
    assert load_config(lf).config_hash != load_config(crlf).config_hash


def test_config_hash_changes_with_a_comment(write_config: Writer) -> None:
    first = load_config(write_config(rules="version: 3\n")).config_hash
    second = load_config(write_config(rules="version: 3\n# reviewed\n")).config_hash
    assert first != second


# --- ConfigError ---------------------------------------------------------------------------------

MISSPELT_CONDITION = """\
rating_rules:
  - id: r1
    when:
      respons_contains_any: [x]
    actions:
      set_flag: f
"""


def test_config_error_carries_positioned_diagnostics(write_config: Writer) -> None:
    folder = write_config(rules=MISSPELT_CONDITION)
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    (problem,) = errors(caught.value)
    assert (problem.path, problem.line, problem.column, problem.code) == (
        str(folder / "rules.yaml"),
        4,
        7,
        "unknown-key",
    )
    assert "respons_contains_any" in problem.message
    assert "response_contains_any" in problem.message
    assert FORMAT.match(problem.format())
    assert str(caught.value) == problem.format()


def test_every_problem_in_every_file_is_reported(write_config: Writer) -> None:
    folder = write_config(
        dimensions="dimensions:\n  acuracy: {ideal: 4}\n",
        rules=(
            "rating_rules:\n  - id: r\n    actions:\n"
            "      adjust_dimension: { dimension: acuracy, delta: 1 }\n"
        ),
        ranking="allow_duplicates: sometimes\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    found = [(Path(d.path).name, d.line, d.code) for d in errors(caught.value)]
    assert found == [
        ("dimensions.yaml", 2, "unknown-key"),
        ("ranking.yaml", 1, "wrong-type"),
        ("rules.yaml", 4, "unknown-dimension"),
    ]
    lines = str(caught.value).splitlines()
    assert len(lines) == 3 and all(FORMAT.match(line) for line in lines)


@pytest.mark.parametrize(
    ("rules", "line", "code"),
    [
        (
            "rating_rules:\n  - id: a\n    actions: {set_flag: x}\n  - id: a\n    actions: {set_flag: y}\n",
            4,
            "duplicate-rule-id",
        ),
        ("rating_rules:\n  - actions: {set_flag: x}\n", 2, "missing-key"),
        ("version: 1\nversion: 2\n", 2, "duplicate-key"),
        ("rating_rules: [\n", 1, "yaml-syntax"),  # where the flow sequence that is never closed began
        ("options:\n  dedupe_comments: 3\n", 2, "wrong-type"),
        (
            "rating_rules:\n  - id: r\n    when: {min_total_length: 9, max_total_length: 3}\n"
            "    actions: {set_flag: x}\n",
            3,
            "impossible-length",
        ),
    ],
)
def test_config_errors_have_a_code_and_a_line(write_config: Writer, rules: str, line: int, code: str) -> None:
    folder = write_config(rules=rules)
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    assert (line, code) in [(d.line, d.code) for d in errors(caught.value)]
    assert all(d.path == str(folder / "rules.yaml") for d in errors(caught.value))


def test_a_file_that_is_not_a_mapping_is_an_error(write_config: Writer) -> None:
    with pytest.raises(ConfigError):
        load_config(write_config(rules="- a\n- b\n"))


def test_a_missing_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_config(tmp_path / "nowhere")
    config = analyze(tmp_path / "nowhere")
    assert config.plan is None and errors(config)


def test_evaluator_refuses_an_invalid_config(write_config: Writer) -> None:
    config = analyze(write_config(rules=MISSPELT_CONDITION))
    with pytest.raises(ConfigError):
        Evaluator(config)


# --- analyze ----------------------------------------------------------------------------------


def test_analyze_never_raises_and_reports_everything(write_config: Writer) -> None:
    config = analyze(write_config(rules=MISSPELT_CONDITION))
    assert config.plan is None
    assert not config.ok
    assert [(d.line, d.code) for d in errors(config)] == [(4, "unknown-key")]


def test_analyze_without_a_folder_is_the_shipped_default() -> None:
    config = analyze()
    assert config.ok
    assert config.config_hash == load_config().config_hash


def test_overrides_replace_the_file_on_disk(write_config: Writer, make_submission: Factory) -> None:
    folder = write_config(rules="version: 1\n")
    path = folder / "rules.yaml"
    config = analyze(folder, overrides={str(path): MISSPELT_CONDITION})
    assert [(d.path, d.line, d.code) for d in errors(config)] == [(str(path), 4, "unknown-key")]
    assert path.read_text() == "version: 1\n"
    assert analyze(folder).ok


def test_a_valid_override_is_compiled_and_hashed(write_config: Writer, make_submission: Factory) -> None:
    folder = write_config(rules="version: 1\n", ranking="allow_duplicates: true\n")
    override = "version: 9\nrating_rules:\n  - id: unsaved\n    actions: { set_flag: buffer }\n"
    config = analyze(folder, overrides={str(folder / "rules.yaml"): override})
    assert config.ok
    assert config.plan.rule_version == 9
    assert config.config_hash == hashlib.sha256(b"allow_duplicates: true\n" + override.encode()).hexdigest()
    assert Evaluator(config).evaluate(make_submission()).flags == {"buffer": True}


def test_an_override_that_fixes_a_broken_file(write_config: Writer) -> None:
    folder = write_config(rules=MISSPELT_CONDITION)
    config = analyze(
        folder, overrides={str(folder / "rules.yaml"): MISSPELT_CONDITION.replace("respons_", "response_")}
    )
    assert config.ok
    assert [r.id for r in config.plan.rating_rules] == ["r1"]


def test_an_unreadable_config_file_is_an_error_not_an_empty_file(
    write_config: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = write_config(rules="version: 1\n", ranking="allow_duplicates: true\n")
    locked = folder / "rules.yaml"
    read_capped = config_module.read_capped  # the tests run as root, whom file modes do not stop

    def refuse(path: Path, limit: int) -> bytes:
        if path == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return read_capped(path, limit)

    monkeypatch.setattr(config_module, "read_capped", refuse)
    config = analyze(folder)
    assert config.plan is None
    assert [(d.path, d.line, d.code, d.message) for d in errors(config)] == [
        (str(locked), 1, "unreadable", "cannot read the file: Permission denied")
    ]


def test_an_unsaved_config_file_is_read_from_its_buffer(tmp_path: Path) -> None:
    path = tmp_path / "ranking.yaml"  # open in an editor, never saved: no such file on disk
    config = analyze(tmp_path, overrides={str(path): "require_all_ids: maybe\n"})
    assert config.files == {"ranking": path}
    assert [(d.path, d.code) for d in errors(config)] == [(str(path), "wrong-type")]


def test_an_unreadable_config_folder_is_an_error(
    write_config: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    folder = write_config(rules="version: 1\n")
    listdir = os.listdir

    def refuse(path: Any) -> list[str]:
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return listdir(path)

    monkeypatch.setattr(os, "listdir", refuse)
    assert [(d.path, d.code, d.message) for d in errors(analyze(folder))] == [
        (str(folder), "unreadable", "cannot read the folder: Permission denied")
    ]


def test_a_file_given_as_the_config_folder_is_named_as_a_file(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# not a config\n")
    assert [(d.path, d.code, d.message) for d in errors(analyze(readme))] == [
        (str(readme), "no-config-dir", "not a folder (a config is a folder of YAML files)")
    ]


def test_an_id_shared_by_two_rule_lists_is_a_warning_and_the_config_loads(write_config: Writer) -> None:
    rules = (
        "rating_rules:\n  - id: same\n    actions: {set_flag: a}\n"
        "ranking_rules:\n  - id: same\n    actions: {set_flag: b}\n"
    )
    config = analyze(write_config(rules=rules))
    assert config.ok
    assert [(d.line, d.code, int(d.severity)) for d in config.diagnostics] == [(5, "duplicate-rule-id", 2)]
