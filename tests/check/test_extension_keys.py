"""Top-level `x-` keys (extension keys, as docker-compose allows them) hold YAML anchors the rest of a
config file merges: every config file's schema allows them (patternProperties), so `check` passes them,
`eval` ignores them and evaluates what merged them, and any other unknown key is still refused, with
the extension keys named among the valid ones."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit import schemas

REPO = Path(__file__).parents[2]
EVALKIT = Path(sys.executable).parent / "evalkit"
SAMPLE = REPO / "samples" / "sample_submission.json"
CONFIG_FILES = ("dimensions", "prompt", "ranking", "rewrite", "rules")

ANCHORED_RULES = """\
version: 2
x-needs-review: &needs_review
  set_flag: looked_at
  assign_label: needs_review
x-length: &any_length { max_total_length: 1000000 }
rating_rules:
  - id: anchored
    when: *any_length
    actions:
      <<: *needs_review
      set_flag: merged_and_overridden
"""


def evalkit(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(EVALKIT), *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "rules.yaml").write_text(ANCHORED_RULES, encoding="utf-8")
    return folder


def test_check_passes_an_anchor_held_in_an_x_key_and_eval_evaluates_what_merged_it(config: Path) -> None:
    checked = evalkit("check", str(config))
    assert (checked.returncode, checked.stdout) == (0, "1 config folder, 1 file: no problems\n")
    evaluated = evalkit("eval", str(SAMPLE), "--config-dir", str(config))
    assert evaluated.returncode == 0, evaluated.stderr
    (fired,) = json.loads(evaluated.stdout)["fired_rules"]
    assert fired["actions"] == [{"set_flag": "merged_and_overridden"}, {"assign_label": "needs_review"}]


@pytest.fixture(scope="module")
def x_keys_everywhere(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """`evalkit check` of the shipped config with an `x-notes` key holding an anchor atop every file."""
    folder = tmp_path_factory.mktemp("x-keys") / "config"
    shutil.copytree(REPO / "config_samples", folder, ignore=shutil.ignore_patterns("tests", "__*"))
    for name in CONFIG_FILES:
        path = folder / f"{name}.yaml"
        path.write_text(
            f"x-notes: &notes {{owner: rules team}}\n{path.read_text(encoding='utf-8')}", encoding="utf-8"
        )
    return evalkit("check", str(folder))


@pytest.mark.xdist_group("check-x-keys")  # on one worker: x_keys_everywhere runs once
@pytest.mark.parametrize("name", CONFIG_FILES)
def test_every_config_file_takes_x_keys(
    x_keys_everywhere: subprocess.CompletedProcess[str], name: str
) -> None:
    done = x_keys_everywhere
    assert (done.returncode, done.stdout) == (0, "1 config folder, 5 files: no problems\n")
    assert "^x-" in schemas.load(name)["patternProperties"]


def test_another_unknown_top_level_key_is_refused_naming_the_extension_keys(config: Path) -> None:
    rules = config / "rules.yaml"
    rules.write_text(ANCHORED_RULES.replace("x-length:", "common-length:"), encoding="utf-8")
    done = evalkit("check", str(config))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        f"{rules}:5:1: error[unknown-key] unknown key 'common-length' at the top level; valid keys: "
        "version, options, decision, rating_rules, ranking_rules, rewrite_rules, "
        "or x-NAME (an extension key, ignored)"
    )
    refused = evalkit("eval", str(SAMPLE), "--config-dir", str(config))
    assert refused.returncode == 2


def test_x_keys_are_allowed_only_at_the_top_level(config: Path) -> None:
    rules = config / "rules.yaml"
    rules.write_text(ANCHORED_RULES.replace("  - id: anchored\n", "  - id: anchored\n    x-owner: me\n"))
    done = evalkit("check", str(config))
    assert done.returncode == 1
    assert "unknown key 'x-owner' in rating_rules[0]" in done.stdout
