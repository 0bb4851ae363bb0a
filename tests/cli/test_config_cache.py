"""`evalkit eval`'s compiled-config cache (services/config/cache.py), through the real command: a warm cache
gives the same outputs without parsing YAML; a tampered or forged entry is ignored and written anew; a
changed config misses; concurrent first runs leave one valid entry; EVALKIT_NO_CACHE=1 and a key file
others may read turn it off."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
DEFAULT_CONFIG = ROOT / "config_samples"


def run_eval(cache: Path, *args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`evalkit eval`, importing as it goes (-X importtime): what it imported is in stderr."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache), **env}
    if "EVALKIT_NO_CACHE" not in env:
        environment.pop("EVALKIT_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "evalkit", "eval", *map(str, args)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    return done


def parsed_yaml(done: subprocess.CompletedProcess[str]) -> bool:
    """Whether the config files were parsed and checked: the schema checks were imported (submissions in
    YAML import the YAML parser themselves)."""
    return any(line.rstrip().endswith(" evalkit.engine.schema_check") for line in done.stderr.splitlines())


def outputs(cache: Path, out: Path, config: Path = DEFAULT_CONFIG, **env: str) -> tuple[str, bool]:
    """The results, explanations and report of the samples folder, and whether YAML was parsed."""
    done = run_eval(
        cache,
        SAMPLES,
        "--config-dir",
        config,
        "--out",
        out / "results.jsonl",
        "--explain-json",
        out / "explain.jsonl",
        "--report-md",
        out / "report.md",
        **env,
    )
    names = ("results.jsonl", "explain.jsonl", "report.md")
    texts = [(out / name).read_text(encoding="utf-8") for name in names]
    return "\n".join(texts), parsed_yaml(done)


def entries(cache: Path) -> list[Path]:
    folder = cache / "evalkit" / "configs"
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    shutil.copytree(DEFAULT_CONFIG, folder, ignore=shutil.ignore_patterns("tests", "__*"))
    return folder


def test_a_warm_cache_gives_the_same_outputs_without_parsing_yaml(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    uncached, parsed = outputs(cache, tmp_path, config, EVALKIT_NO_CACHE="1")
    assert parsed and not entries(cache)
    first, parsed = outputs(cache, tmp_path, config)
    assert parsed and len(entries(cache)) == 1
    second, parsed = outputs(cache, tmp_path, config)
    assert not parsed
    assert first == second == uncached


def test_the_default_config_is_cached_too(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run_eval(cache, SAMPLES / "sample_submission.json")
    second = run_eval(cache, SAMPLES / "sample_submission.json")
    assert parsed_yaml(first) and not parsed_yaml(second)
    assert first.stdout == second.stdout


def test_a_forged_entry_is_ignored_and_written_anew(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    honest, _ = outputs(cache, tmp_path, config)
    [entry] = entries(cache)
    signed = entry.read_bytes()
    signature, _, payload = signed.partition(b"\n")
    data = json.loads(payload)
    for rule in data["rules"]["rating_rules"]:
        rule.get("actions", {}).pop("increment_score", None)  # what a forger might want: no score
    entry.write_bytes(signature + b"\n" + json.dumps(data).encode())
    again, parsed = outputs(cache, tmp_path, config)
    assert parsed and again == honest
    assert entry.read_bytes() == signed


def test_a_truncated_entry_is_ignored(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    honest, _ = outputs(cache, tmp_path, config)
    [entry] = entries(cache)
    entry.write_bytes(entry.read_bytes()[:100])
    assert outputs(cache, tmp_path, config) == (honest, True)
    assert outputs(cache, tmp_path, config) == (honest, False)


def test_a_changed_config_misses(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    before, _ = outputs(cache, tmp_path, config)
    rules = config / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace("increment_score: 2", "increment_score: 3"),
        encoding="utf-8",
    )
    after, parsed = outputs(cache, tmp_path, config)
    assert parsed and after != before
    assert len(entries(cache)) == 2
    assert outputs(cache, tmp_path, config, EVALKIT_NO_CACHE="1")[0] == after


def test_a_renamed_config_file_misses(tmp_path: Path) -> None:
    """The config hash covers the files' bytes, not their names: the same bytes as another file mean
    something else."""
    cache, config = tmp_path / "cache", tmp_path / "config"
    config.mkdir()
    (config / "dimensions.yaml").write_text("{}\n", encoding="utf-8")
    first = run_eval(cache, SAMPLES / "sample_submission.json", "--config-dir", config)
    (config / "dimensions.yaml").rename(config / "prompt.yaml")
    second = run_eval(cache, SAMPLES / "sample_submission.json", "--config-dir", config)
    assert parsed_yaml(second)
    assert len(entries(cache)) == 2 and first.stdout == second.stdout


def test_concurrent_first_runs_leave_one_valid_entry(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    environment.pop("EVALKIT_NO_CACHE", None)
    command = [
        sys.executable,
        "-m",
        "evalkit",
        "eval",
        str(SAMPLES / "sample_submission.json"),
        "--config-dir",
        str(config),
    ]
    runs = [
        subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=ROOT
        )
        for _ in range(6)
    ]
    results = [run.communicate(timeout=120) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err for _, err in results]
    assert len({out for out, _ in results}) == 1
    folder = cache / "evalkit"
    assert sorted(p.name for p in folder.iterdir()) == ["configs", "key"]  # no temporary file left
    assert stat.S_IMODE((folder / "key").stat().st_mode) == 0o600
    assert len(entries(cache)) == 1
    warm = run_eval(cache, SAMPLES / "sample_submission.json", "--config-dir", config)
    assert not parsed_yaml(warm) and warm.stdout == results[0][0]


def test_no_cache_when_asked(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    outputs(cache, tmp_path, config, EVALKIT_NO_CACHE="1")
    assert not (cache / "evalkit").exists()


def test_a_key_others_may_read_turns_the_cache_off(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    honest, _ = outputs(cache, tmp_path, config)
    (cache / "evalkit" / "key").chmod(0o644)
    assert outputs(cache, tmp_path, config) == (honest, True)
    assert outputs(cache, tmp_path, config) == (honest, True)


def test_a_config_with_errors_is_not_cached(tmp_path: Path, config: Path) -> None:
    cache = tmp_path / "cache"
    (config / "rules.yaml").write_text("rating_rules: [{id: x, when: {nope: 1}}]\n", encoding="utf-8")
    for _ in range(2):
        command = [
            sys.executable,
            "-m",
            "evalkit",
            "eval",
            str(SAMPLES / "sample_submission.json"),
            "--config-dir",
            str(config),
        ]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
            env={**os.environ, "XDG_CACHE_HOME": str(cache)},
            timeout=120,
        )
        assert done.returncode == 2 and "rules.yaml:1:" in done.stderr
    assert not entries(cache)


def test_an_entry_names_the_build_of_the_code_that_checked_it() -> None:
    """The build in an entry's name reads the files of the folders holding the checks (names, sizes, times):
    an engine changed in place (an editable install rebuilt) never trusts what the one before passed."""
    from evalkit.engine import schema_check, semantic, validator, yamlsource
    from evalkit.services.config.cache import checker_folders

    folders = checker_folders()
    for module in (schema_check, semantic, validator, yamlsource):
        assert Path(str(module.__file__)).parent in folders
    assert (folders[1] / "rules.schema.json").is_file()


def _replace(path: Path, kind: str) -> None:
    """Put `kind` where `path` is: a named pipe nothing writes to, a 3 GB sparse file, a link to /dev/zero."""
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(3 << 30)
        path.chmod(0o600)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["fifo", "sparse", "zero"])
@pytest.mark.parametrize("which", ["entry", "key"])
def test_a_cache_file_that_is_no_file_of_ours_is_a_miss(
    tmp_path: Path, config: Path, which: str, kind: str
) -> None:
    """A named pipe would block forever, a 3 GB sparse file or /dev/zero would be read whole: each is a
    miss (or, at the key, no cache), in bounded memory (RLIMIT_AS), and the run gives the same outputs."""
    cache = tmp_path / "cache"
    honest, _ = outputs(cache, tmp_path, config)
    [entry] = entries(cache)
    _replace(entry if which == "entry" else cache / "evalkit" / "key", kind)
    prefix = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({1 << 30}, {1 << 30}))"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{prefix}; import sys; from evalkit.cli import main; sys.exit(main())",
            *("eval", str(SAMPLES), "--config-dir", str(config), "--out", str(tmp_path / "again.jsonl")),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert (tmp_path / "again.jsonl").read_text(encoding="utf-8") == (tmp_path / "results.jsonl").read_text(
        encoding="utf-8"
    )
    assert honest


def test_a_signed_entry_holding_malformed_data_is_a_miss_written_anew(tmp_path: Path, config: Path) -> None:
    """An entry that verifies (signed with the user's key) but holds what no build writes: a miss, never a
    TypeError; the next run writes a good entry over it."""
    from evalkit.services.config import cache as config_cache

    cache = tmp_path / "cache"
    honest, _ = outputs(cache, tmp_path, config)
    [entry] = entries(cache)
    signature, _, payload = entry.read_bytes().partition(b"\n")
    secret = (cache / "evalkit" / "key").read_bytes()
    name = _entry_name(config)
    assert config_cache._signature(secret, name, payload).encode() == signature
    for malformed in ({"rules": {"rating_rules": 7}}, {"rules": {"rating_rules": [{"id": []}]}}):
        body = json.dumps(malformed).encode()
        entry.write_bytes(config_cache._signature(secret, name, body).encode() + b"\n" + body)
        assert outputs(cache, tmp_path, config) == (honest, True)
        assert outputs(cache, tmp_path, config) == (honest, False)  # written anew


def _entry_name(config: Path) -> str:
    from evalkit.engine.config import _yaml_bytes, config_files
    from evalkit.services.config.cache import entry_name

    files = config_files(config)
    return entry_name(config, files, _yaml_bytes(config, files, {})[0])


def test_a_relative_cache_home_is_ignored(tmp_path: Path, config: Path) -> None:
    """XDG: a relative XDG_CACHE_HOME is invalid and ignored; the cache goes to ~/.cache, never into the
    folder the command runs from."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", str(SAMPLES), "--config-dir", str(config)],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": "relative-cache", "HOME": str(home)},
        cwd=work,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert list(work.iterdir()) == []
    assert list((home / ".cache" / "evalkit" / "configs").iterdir())
