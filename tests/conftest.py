"""Suite-wide settings.

Hypothesis explores new examples on every local run, with no per-example deadline: a deadline is a timing
assertion, and on a loaded 2-core machine examples that take 20 ms idle took 230 ms and failed the run
(speed is measured by benchmarks/, not by tests). In CI (`CI` set, as .ci/run and most CI services do)
it is derandomized, so a red build always reproduces, and prints the failing example's blob for
`@reproduce_failure`. The profile `pure-pass` (the same, with fewer examples: tests/budget.py) is the pure
pass's, which tasks.py chooses with `--hypothesis-profile=pure-pass`.

The engine's and the scorers' hot modules are compiled by mypyc when evalkit is installed (setup.py). The
suite refuses to run against compiled modules older than their source, and with EVALKIT_PURE=1 it imports
them from their Python source instead, so that both builds are tested (`python3 tasks.py test` runs both).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import settings

from tests.budget import PURE_PASS, pure_pass_examples

settings.register_profile("evalkit", deadline=None)
settings.register_profile("ci", parent=settings.get_profile("evalkit"), derandomize=True, print_blob=True)
BASE_PROFILE = "ci" if os.environ.get("CI") else "evalkit"
settings.register_profile(
    PURE_PASS,
    parent=settings.get_profile(BASE_PROFILE),
    max_examples=pure_pass_examples(settings.get_profile(BASE_PROFILE).max_examples),
)
settings.load_profile(BASE_PROFILE)

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
QYDOMAIN = ROOT / "qydomain"
BUILT = {"evalkit.engine": ENGINE, "evalkit.qydomain": QYDOMAIN}
"""The packages whose hot modules setup.py compiles, by the folder that holds their source."""


def compiled_modules(folder: Path) -> dict[Path, Path]:
    """Each module of `folder` compiled in place (an editable install), by its source."""
    compiled = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for library in folder.glob(f"*{suffix}"):
            source = folder / (library.name.removesuffix(suffix) + ".py")
            if source.exists():
                compiled[source] = library
    return compiled


class _BuiltFromSource(importlib.abc.MetaPathFinder):
    """Imports `evalkit.engine.X` from engine/X.py (and `evalkit.qydomain.X` from qydomain/X.py) even where
    a compiled X sits beside it."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, module = name.rpartition(".")
        folder = BUILT.get(package)
        if folder is None or not (folder / f"{module}.py").exists():
            return None
        return importlib.util.spec_from_file_location(name, folder / f"{module}.py")


if os.environ.get("EVALKIT_PURE") == "1":  # before any conftest below imports the engine or the scorers
    sys.meta_path.insert(0, _BuiltFromSource())


def pytest_configure(config: pytest.Config) -> None:
    _refuse_another_checkouts_install()
    if os.environ.get("EVALKIT_PURE") == "1":
        return
    stale = sorted(
        f"{folder.name}/{source.name}"
        for folder in BUILT.values()
        for source, library in compiled_modules(folder).items()
        if source.stat().st_mtime > library.stat().st_mtime
    )
    if stale:
        pytest.exit(
            f"{', '.join(stale)} changed after it was compiled: rebuild with `python3 tasks.py test` (it "
            "reinstalls when the engine or the scorers change) or `.venv/bin/pip install -e .`, or test the "
            "source with EVALKIT_PURE=1",
            returncode=2,
        )


def _refuse_another_checkouts_install() -> None:
    """Stop when evalkit is imported from another checkout than this one: a second clone or worktree run
    with the first one's venv (its editable install maps evalkit.engine to the first one's engine/)
    would test the other checkout's engine and say nothing."""
    import evalkit
    import evalkit.engine

    imported = {
        "evalkit": Path(evalkit.__file__ or "").resolve().parent,
        "evalkit.engine": Path(evalkit.engine.__file__ or "").resolve().parent,
    }
    expected = {"evalkit": ROOT / "evalkit", "evalkit.engine": ENGINE}
    wrong = [f"{name} from {imported[name]}" for name in imported if imported[name] != expected[name]]
    if wrong:
        pytest.exit(
            f"this checkout is {ROOT}, but the tests would import {' and '.join(wrong)}: another "
            "checkout's install. Run them with this checkout's own venv: python3 tasks.py test",
            returncode=2,
        )


FIRST = (
    "ray/test_ray_local_cli.py",
    "tui/",
    "stats/test_stats_html.py",
    "cli/test_hostile_inputs.py",
    "services/test_fast_json.py",
)
"""Tests run before the rest, in this order: `evalkit eval --ray` starting a local Ray (a long test that
mostly waits for Ray's processes: started early, its waits overlap the rest of the suite), then the review
app's (the longest tests of the suite that keep a core busy), then the longest of the others (a headless
Chromium drawing the stats page, 150 MB lines, the JSON writer's properties), which came among the last and
kept one worker busy seconds after the others had ended. The suite's last tests are then short ones, and
pytest-xdist's workers end close together. (The xdist groups, the language servers' and the Ray cluster's,
go first anyway, the largest first.)"""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).resolve().parent

    def rank(item: pytest.Item) -> int:
        where = Path(str(item.fspath)).resolve()
        if not where.is_relative_to(tests):
            return len(FIRST)
        path = where.relative_to(tests).as_posix()
        return next((number for number, start in enumerate(FIRST) if path.startswith(start)), len(FIRST))

    items.sort(key=rank)  # stable: each part keeps its order


@pytest.fixture(scope="session", autouse=True)
def _config_cache_of_the_suite(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`evalkit eval` caches checked configs in the user's cache folder (services/config/cache.py): the suite
    gets one of its own, which the commands it runs inherit, and never writes the user's."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


def _read_terminal(descriptor: int) -> str:
    """Everything a program wrote to a pseudo-terminal (the controller's `descriptor`), which is closed."""
    chunks = []
    while True:
        try:
            chunk = os.read(descriptor, 65536)
        except OSError:  # the terminal's other end is closed: everything has been read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(descriptor)
    return b"".join(chunks).decode(errors="replace")


@pytest.fixture
def compiled_engine() -> dict[Path, Path]:
    return compiled_modules(ENGINE)


@pytest.fixture
def compiled_qydomain() -> dict[Path, Path]:
    return compiled_modules(QYDOMAIN)


@pytest.fixture
def read_terminal() -> Callable[[int], str]:
    return _read_terminal


@pytest.fixture
def in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """in_process(*args, cwd=ROOT, command="evalkit"): what `evalkit ARGS` (or `oai-eval ARGS`) run from
    `cwd` exits with and writes, as `evalkit.cli.main` (or `oai_eval_main`), which the console scripts call,
    in the test's own process. It is for the usage errors that stop a command before any work: a process of
    its own costs 40-70 ms of CPU, the call under 1 ms. Each test using it names one that runs the same path
    through the console script."""
    from evalkit.cli import main, oai_eval_main  # here: the pure pass's finder comes first (see above)

    def run(
        *args: str | Path, cwd: Path = ROOT, command: str = "evalkit"
    ) -> subprocess.CompletedProcess[str]:
        argv = [str(arg) for arg in args]
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = oai_eval_main(argv) if command == "oai-eval" else main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in err, err
        return subprocess.CompletedProcess([command, *argv], code, out, err)

    return run
