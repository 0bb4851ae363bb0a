"""`evalkit eval --jobs` and `evalkit score --jobs` as a supervisor, a shell or the kernel end them: SIGTERM,
SIGKILL, Ctrl+C, a worker killed (by the OOM killer, say). The workers never outlive the command nor hold
the caller's pipes, SIGTERM leaves no temporary file, and a dead worker ends the run in one message.

The input is a named pipe the test feeds, so the command is caught mid-run at a known point: its workers
started, its output's temporary file open, and its main thread waiting for more lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED_LINE = json.dumps(json.loads((ROOT / "samples" / "sample_submission.json").read_text(encoding="utf-8")))
SCORE_LINE = json.dumps({"data_source": "typos", "extra_info": {"label": "hello"}, "model_output": "hello"})
DEADLINE_S = 20.0  # catastrophe scale: a worker left behind lives forever


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def all_pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _as_a_terminal_would() -> None:
    """Ctrl+C's default action, as a shell in a terminal starts a command with it: a suite started with
    SIGINT ignored (`nohup`, `cmd &` in a script) would hand the command an ignored Ctrl+C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Run:
    """The command reading from a named pipe the test writes to."""

    def __init__(self, tmp_path: Path, command: list[str], line: str) -> None:
        self.fifo = tmp_path / "feed.jsonl"
        os.mkfifo(self.fifo)
        self.folder = tmp_path
        self.process = subprocess.Popen(
            [sys.executable, "-m", "evalkit", *command, str(self.fifo)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_as_a_terminal_would,
        )
        self.feed = open(self.fifo, "w", encoding="utf-8")  # noqa: SIM115 - opens once the command reads
        self.line = line
        self.seen: list[int] = []  # every worker seen, to kill should a test fail with one left behind

    def write(self, count: int) -> None:
        try:
            self.feed.write((self.line + "\n") * count)
            self.feed.flush()
        except BrokenPipeError:  # the command ended already (what some tests check)
            pass

    def workers(self, jobs: int = 2) -> list[int]:
        wait_for(lambda: len(children(self.process.pid)) >= jobs, f"{jobs} worker processes")
        self.seen = children(self.process.pid)
        return self.seen

    def temporary_files(self) -> list[str]:
        return [p.name for p in self.folder.iterdir() if p.name.endswith(".tmp")]

    def finish(self) -> tuple[int, str, str]:
        """Exit code, stdout and stderr; the pipes reach their end only once no process holds them."""
        with_feed_closed = threading.Thread(target=self._close_feed, daemon=True)
        with_feed_closed.start()
        out, err = self.process.communicate(timeout=DEADLINE_S)
        return self.process.returncode, out, err

    def _close_feed(self) -> None:
        with contextlib.suppress(OSError):  # nobody reads any more
            self.feed.close()


def _end_left_behind(process: subprocess.Popen[Any], workers: list[int]) -> None:
    """Kill the command and its workers should a test leave them running on big.jsonl, and reap it."""
    for pid in [process.pid, *workers]:
        if alive(pid) and _runs_on(pid, Path("big.jsonl")):
            os.kill(pid, signal.SIGKILL)
    process.wait()


def _runs_on(pid: int, fifo: Path) -> bool:
    try:
        return str(fifo).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.fixture
def eval_run(tmp_path: Path) -> Iterator[Run]:
    run = Run(tmp_path, ["eval", "--jobs", "2", "--out", "results.jsonl"], SEED_LINE)
    yield run
    _cleanup(run)


@pytest.fixture
def score_run(tmp_path: Path) -> Iterator[Run]:
    run = Run(tmp_path, ["score", "--jobs", "2", "--out", "scored.jsonl"], SCORE_LINE)
    yield run
    _cleanup(run)


def _cleanup(run: Run) -> None:
    for pid in {run.process.pid, *children(run.process.pid), *run.seen}:
        if alive(pid) and _runs_on(pid, run.fifo):  # a pid number may have been reused since
            os.kill(pid, signal.SIGKILL)
    run.process.wait()


def started(run: Run, lines: int) -> list[int]:
    """Feed `lines`, then return the workers once the output's temporary file exists."""
    run.write(lines)
    workers = run.workers()
    wait_for(lambda: run.temporary_files(), "the output's temporary file")
    return workers


@pytest.mark.parametrize(("fixture", "lines"), [("eval_run", 600), ("score_run", 2500)])
def test_sigterm_stops_the_workers_and_removes_the_temporary_file(
    request: pytest.FixtureRequest, fixture: str, lines: int
) -> None:
    run: Run = request.getfixturevalue(fixture)
    workers = started(run, lines)
    run.process.send_signal(signal.SIGTERM)
    code, _, err = run.finish()
    assert code == 128 + signal.SIGTERM
    assert err.endswith("terminated\n") and "Traceback" not in err
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to end")
    assert run.temporary_files() == []
    assert not (run.folder / "results.jsonl").exists() and not (run.folder / "scored.jsonl").exists()


@pytest.mark.parametrize(("fixture", "lines"), [("eval_run", 600), ("score_run", 2500)])
def test_workers_die_with_a_parent_killed_outright(
    request: pytest.FixtureRequest, fixture: str, lines: int
) -> None:
    run: Run = request.getfixturevalue(fixture)
    workers = started(run, lines)
    run.process.kill()
    assert run.process.wait(timeout=DEADLINE_S) == -signal.SIGKILL
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to end")
    # nothing of the command is left (its forked workers share its command line), so nothing of it holds
    # the caller's stdout and stderr; reading them to their end could also wait on a process the test run
    # forked elsewhere at the wrong moment, which is no part of the command
    wait_for(
        lambda: not any(alive(pid) and _runs_on(pid, run.fifo) for pid in all_pids()), "the command to end"
    )


def test_ctrl_c_reaches_the_process_group_and_ends_the_run_once(eval_run: Run) -> None:
    workers = started(eval_run, 600)
    os.killpg(eval_run.process.pid, signal.SIGINT)
    code, _, err = eval_run.finish()
    assert code == 130
    assert err == "interrupted\n"  # the workers ignore Ctrl+C: no traceback of theirs
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to end")
    assert eval_run.temporary_files() == []


@pytest.mark.parametrize(
    ("fixture", "lines", "message"),
    [
        (
            "eval_run",
            600,
            "evalkit eval: a worker process died (killed, or out of memory?); try fewer --jobs\n",
        ),
        (
            "score_run",
            2500,
            "feed.jsonl: a worker process died (killed, or out of memory?); try fewer --jobs\n",
        ),
    ],
)
def test_a_killed_worker_ends_the_run_in_one_message(
    request: pytest.FixtureRequest, fixture: str, lines: int, message: str
) -> None:
    run: Run = request.getfixturevalue(fixture)
    workers = started(run, lines)
    os.kill(workers[0], signal.SIGKILL)
    wait_for(lambda: not alive(workers[0]), "the worker to die")
    more = threading.Thread(target=run.write, args=(lines,), daemon=True)  # more work for a pool that is
    more.start()  # broken, if it has not seen it yet; written aside, as the command may no longer read
    code, _, err = run.finish()
    assert code == 2
    assert err.endswith(message) and "Traceback" not in err
    wait_for(lambda: not any(alive(pid) for pid in workers), "the other worker to end")
    assert run.temporary_files() == []


@pytest.mark.parametrize("command", [["eval"], ["score"]])
def test_jobs_beyond_the_cores_are_capped_and_said_once(tmp_path: Path, command: list[str]) -> None:
    cores = len(os.sched_getaffinity(0))
    line = SEED_LINE if command == ["eval"] else SCORE_LINE
    (tmp_path / "in.jsonl").write_text((line + "\n") * 3, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", *command, "in.jsonl", "--jobs", str(cores + 50)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    said = f"evalkit {command[0]}: --jobs {cores + 50} is more than the {cores} cores here; using {cores}\n"
    assert done.stderr.count(said) == 1
    assert len(done.stdout.splitlines()) == 3


def _gone_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("command", [["eval"], ["score"]])
def test_a_spool_folder_left_by_a_run_killed_outright_is_removed_by_the_next(
    tmp_path: Path, command: list[str]
) -> None:
    host = os.uname().nodename
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    dead = temporary / f"evalkit-spool-{host}-{_gone_pid()}-0badcafe"  # what `kill -9` of a run leaves
    dead.mkdir()
    (dead / "tmpk2v9_chunk").write_bytes(b"x" * 70_000)
    kept = [
        temporary / f"evalkit-spool-{host}-{os.getpid()}-0badcafe",  # a run still going
        temporary / f"evalkit-spool-{host}x-{_gone_pid()}-0badcafe",  # another machine sharing the folder
    ]
    for folder in kept:
        folder.mkdir()
    line = SEED_LINE if command == ["eval"] else SCORE_LINE
    (tmp_path / "in.jsonl").write_text((line + "\n") * 3, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "evalkit", *command, "in.jsonl", "--jobs", "2", "--out", "out.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    assert done.returncode == 0, done.stderr
    assert sorted(temporary.iterdir()) == sorted(kept)


def test_workers_writing_their_chunks_into_the_outputs_give_one_process_bytes(tmp_path: Path) -> None:
    """With --out and --explain-json the workers write each chunk into the output files themselves, where
    the parent says; between them the parent writes the small chunks (of single files) it was sent: the
    outputs are one process's, byte for byte, and nothing is left in the temporary folder."""
    samples = sorted((ROOT / "samples").glob("*.json"))
    lines = [json.dumps(json.loads(path.read_text(encoding="utf-8"))) for path in samples]
    (tmp_path / "big.jsonl").write_text("".join(f"{lines[i % len(lines)]}\n" for i in range(2500)))
    (tmp_path / "small.jsonl").write_text(f"{lines[0]}\n\n{lines[1]}\n")
    inputs = [str(samples[0]), "big.jsonl", str(samples[1]), "small.jsonl", "big.jsonl"]
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "evalkit",
                "eval",
                *inputs,
                "--jobs",
                jobs,
                "--out",
                f"results-{jobs}.jsonl",
                "--explain-json",
                f"explain-{jobs}.jsonl",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "TMPDIR": str(temporary)},
        )
        assert (done.returncode, done.stderr) == (0, "")
        outputs.append([(tmp_path / f"{kind}-{jobs}.jsonl").read_bytes() for kind in ("results", "explain")])
    assert outputs[1] == outputs[0]
    assert len(outputs[0][0].splitlines()) == 2 + 2 + 2 * 2500
    assert list(temporary.iterdir()) == []


def test_ranges_of_every_length_give_one_process_bytes(tmp_path: Path) -> None:
    """A file long enough to be cut into ranges of every length (768 KB while much is left, then an eighth
    of what is left down to 32 KB: inputs.guided_size), its lines of every sample and a few blank ones:
    `--jobs 2` writes the bytes one process writes, every line numbered as its own."""
    samples = sorted((ROOT / "samples").glob("*.json"))
    lines = [json.dumps(json.loads(path.read_text(encoding="utf-8"))) for path in samples]
    body = "".join(f"{lines[i % len(lines)]}\n" + ("\n" if i % 997 == 0 else "") for i in range(9000))
    (tmp_path / "big.jsonl").write_text(body, encoding="utf-8")
    assert (tmp_path / "big.jsonl").stat().st_size > 7 * 768 * 1024
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "evalkit",
                "eval",
                "big.jsonl",
                "--jobs",
                jobs,
                "--out",
                f"out-{jobs}.jsonl",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert (done.returncode, done.stderr) == (0, "")
        outputs.append((tmp_path / f"out-{jobs}.jsonl").read_bytes())
    assert outputs[1] == outputs[0]
    sources = [json.loads(line)["source"] for line in outputs[0].splitlines()]
    numbers = [number for number, line in enumerate(body.split("\n"), 1) if line]
    assert sources == [f"big.jsonl:{number}" for number in numbers]


def _big_batch(folder: Path) -> None:
    """big.jsonl in `folder`: 2,500 lines of the samples, in turn."""
    samples = sorted((ROOT / "samples").glob("*.json"))
    lines = [json.dumps(json.loads(path.read_text(encoding="utf-8"))) for path in samples]
    (folder / "big.jsonl").write_text("".join(f"{lines[i % len(lines)]}\n" for i in range(2500)))


def _eval_into(stdout_path: Path, mode: str, jobs: str, cwd: Path) -> bytes:
    """`evalkit eval big.jsonl --jobs JOBS` with stdout a file opened in `mode`, between a line written
    before and one after: the file's bytes."""
    with open(stdout_path, mode, encoding="utf-8") as stdout:
        stdout.write("a line before\n")
        stdout.flush()
        done = subprocess.run(
            [sys.executable, "-m", "evalkit", "eval", "big.jsonl", "--jobs", jobs],
            cwd=cwd,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
        assert (done.returncode, done.stderr) == (0, "")
        stdout.write("a line after\n")
    return stdout_path.read_bytes()


@pytest.fixture(scope="module")
def one_process_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """What one process (--jobs 1) writes into a file redirected from stdout, between the two lines: one
    process writes in order, from where the file is, whether it was opened to append or not."""
    folder = tmp_path_factory.mktemp("one-process")
    _big_batch(folder)
    return _eval_into(folder / "stdout.jsonl", "w", "1", folder)


@pytest.mark.xdist_group("one-process-bytes")  # on one worker: one_process_bytes runs once
@pytest.mark.parametrize("mode", ["w", "a"])
def test_stdout_redirected_to_a_file_gets_one_process_bytes_after_what_it_held(
    tmp_path: Path, mode: str, one_process_bytes: bytes
) -> None:
    """`> file` (mode w): the workers write their chunks into stdout's file at the offsets the parent gives,
    after what the file held at its position; `>> file` (mode a, where every write goes to the end): they
    spool them and the parent copies them on. Either way the bytes are one process's."""
    _big_batch(tmp_path)
    written = _eval_into(tmp_path / "stdout.jsonl", mode, "2", tmp_path)
    assert written == one_process_bytes
    assert written.startswith(b"a line before\n{") and written.endswith(b"}\na line after\n")
    assert len(written.splitlines()) == 2500 + 2


def _written_into(folder: Path) -> bool:
    """Whether a temporary output file in `folder` holds bytes yet."""
    for path in folder.iterdir():
        with contextlib.suppress(OSError):  # renamed or removed meanwhile
            if path.name.endswith(".tmp") and path.stat().st_size > 0:
                return True
    return False


def test_sigterm_while_workers_write_into_the_output_removes_it(tmp_path: Path) -> None:
    # a regular file read by the workers themselves, who write their chunks into --out's temporary file
    (tmp_path / "big.jsonl").write_text((SEED_LINE + "\n") * 30_000, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "eval", "big.jsonl", "--jobs", "2", "--out", "results.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    workers: list[int] = []
    try:
        wait_for(lambda: _written_into(tmp_path), "a worker writing into the output")
        workers = children(process.pid)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=DEADLINE_S)
    finally:
        _end_left_behind(process, workers)
    assert process.returncode == 128 + signal.SIGTERM
    assert err.endswith("terminated\n") and "Traceback" not in err
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to end")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["big.jsonl"]


def _whole_run(tmp_path: Path, command: str, line: str, lines: int) -> tuple[list[str], bytes]:
    """`evalkit COMMAND big.jsonl --jobs 2` (LINES copies of LINE) and what it writes to stdout when left to
    finish, redirected to a file."""
    (tmp_path / "big.jsonl").write_text((line + "\n") * lines, encoding="utf-8")
    args = [sys.executable, "-m", "evalkit", command, "big.jsonl", "--jobs", "2"]
    with (tmp_path / "whole.jsonl").open("wb") as whole_out:
        subprocess.run(
            args, cwd=tmp_path, stdout=whole_out, stderr=subprocess.DEVNULL, timeout=120, check=True
        )
    return args, (tmp_path / "whole.jsonl").read_bytes()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize(
    ("command", "line", "lines"), [("eval", SEED_LINE, 20_000), ("score", SCORE_LINE, 400_000)]
)
def test_a_run_into_redirected_stdout_interrupted_half_way_leaves_a_prefix_without_holes(
    tmp_path: Path, command: str, line: str, lines: int, signum: int
) -> None:
    """`evalkit eval|score --jobs 2 > file`, Ctrl+C (to the process group, as a terminal sends it) or SIGTERM
    half-way: the workers write their chunks into the file at offsets, and a chunk placed but never
    written was a hole of NUL bytes (1.7 MB of them in a 160 MB file). What is left is a prefix of the
    whole run's output, ending after a whole line, and stderr says where it ends."""
    args, whole = _whole_run(tmp_path, command, line, lines)
    cut_path = tmp_path / "cut.jsonl"
    with cut_path.open("wb") as cut_out:
        process = subprocess.Popen(
            args,
            cwd=tmp_path,
            stdout=cut_out,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_as_a_terminal_would,
        )
    workers: list[int] = []
    try:
        wait_for(lambda: cut_path.stat().st_size > len(whole) // 3, "a third of the output")
        workers = children(process.pid)
        if signum == signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=DEADLINE_S)
    finally:
        _end_left_behind(process, workers)
    assert process.returncode == (130 if signum == signal.SIGINT else 128 + signal.SIGTERM), err
    cut = cut_path.read_bytes()
    assert b"\0" not in cut and cut.endswith(b"\n") and whole.startswith(cut)
    assert len(whole) // 3 < len(cut) < len(whole)
    assert f"evalkit {command}: stdout ends at byte {len(cut):,}, after a whole line" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("command", "line", "lines"), [("eval", SEED_LINE, 20_000), ("score", SCORE_LINE, 400_000)]
)
def test_a_worker_killed_while_writing_into_redirected_stdout_leaves_a_prefix_without_holes(
    tmp_path: Path, command: str, line: str, lines: int
) -> None:
    """A worker killed outright (the OOM killer) may leave chunks it was told to write unwritten: stdout is
    cut before the first of them, and what is left is a prefix of the whole run's output."""
    args, whole = _whole_run(tmp_path, command, line, lines)
    cut_path = tmp_path / "cut.jsonl"
    with cut_path.open("wb") as cut_out:
        process = subprocess.Popen(
            args, cwd=tmp_path, stdout=cut_out, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
    workers: list[int] = []
    try:
        wait_for(lambda: cut_path.stat().st_size > len(whole) // 3, "a third of the output")
        workers = children(process.pid)
        os.kill(workers[0], signal.SIGKILL)
        _, err = process.communicate(timeout=DEADLINE_S)
    finally:
        _end_left_behind(process, workers)
    assert process.returncode == 2 and "a worker process died" in err and "Traceback" not in err, err
    cut = cut_path.read_bytes()
    assert b"\0" not in cut and whole.startswith(cut) and (cut == b"" or cut.endswith(b"\n"))
