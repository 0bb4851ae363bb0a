"""Bad input to `--sign`/`--tsa`: one clear message, exit 2, and never a bundle that claims outputs it does
not match; the outputs written unsigned are named."""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path

import pytest

from tests.signing.conftest import evalkit
from tests.signing.tsa_server import Authority
from tests.tui.test_tmux import Tmux, wait_for_file

EVALKIT = Path(sys.executable).with_name("evalkit")


def _eval(work: Path, key: str, *extra: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = evalkit("eval", "in", "--out", "out/results.jsonl", "--sign", key, *extra, cwd=work, env=env)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stderr


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("PUB", "is a public key; --sign needs the private key"),
        ("missing.key", "missing.key: cannot read the private key"),
        ("in/sample_submission.json", "not a PEM private key"),
    ],
)
def test_a_key_that_cannot_sign_stops_the_run_before_any_output(
    work: Path, keys: Path, key: str, message: str
) -> None:
    code, said = _eval(work, key.replace("PUB", f"{keys}.pub"))
    assert code == 2 and message in said and len(said.strip().splitlines()) == 1
    assert list((work / "out").iterdir()) == []


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An encrypted key pair (passphrase "open sesame")."""
    folder = tmp_path_factory.mktemp("locked")
    assert (
        evalkit(
            "keygen", "--out", "locked", cwd=folder, env={"EVALKIT_KEY_PASSWORD": "open sesame"}
        ).returncode
        == 0
    )
    return folder / "locked"


def test_an_encrypted_key_without_its_passphrase_is_refused(work: Path, locked: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "EVALKIT_KEY_PASSWORD"}
    done = evalkit("eval", "in", "--out", "out/r.jsonl", "--sign", f"{locked}.key", cwd=work, env=env)
    assert done.returncode == 2
    assert "is encrypted: give its passphrase in EVALKIT_KEY_PASSWORD or run on a terminal" in done.stderr


def test_a_wrong_passphrase_is_refused_and_the_right_one_signs(work: Path, locked: Path) -> None:
    code, said = _eval(work, f"{locked}.key", env={"EVALKIT_KEY_PASSWORD": "open sesam"})
    assert code == 2 and "locked.key: wrong passphrase" in said
    code, said = _eval(work, f"{locked}.key", env={"EVALKIT_KEY_PASSWORD": "open sesame"})
    assert code == 1 and (work / "out/results.jsonl.sigstore.json").exists()
    verified = evalkit("verify", "out/results.jsonl.sigstore.json", "--key", f"{locked}.pub", cwd=work)
    assert verified.returncode == 0


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("down", "cannot be reached"),
        ("slow", "cannot be reached: no answer in 1 s"),
        ("garbage", "did not answer a timestamp"),
        ("error", "answered HTTP 500"),
    ],
)
def test_a_tsa_that_fails_leaves_the_outputs_named_and_no_bundle(
    work: Path, keys: Path, authority: Authority, mode: str, message: str
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/tsa" if mode == "down" else authority.url
    authority.mode, authority.delay = mode, 3.0
    code, said = _eval(work, f"{keys}.key", "--tsa", url, env={"EVALKIT_TSA_TIMEOUT": "1"})
    assert code == 2
    assert "cannot sign:" in said and message in said
    assert said.rstrip().endswith("written unsigned: out/results.jsonl")
    assert not (work / "out/results.jsonl.sigstore.json").exists()


def test_a_bundle_of_an_earlier_run_is_removed_when_this_run_cannot_sign(
    work: Path, keys: Path, authority: Authority
) -> None:
    assert _eval(work, f"{keys}.key")[0] == 1
    assert (work / "out/results.jsonl.sigstore.json").exists()
    (work / "in/sample_submission.json").unlink()  # another corpus: other results, over the same file
    code, said = _eval(work, f"{keys}.key", "--tsa", f"http://127.0.0.1:{_closed_port()}/tsa")
    assert code == 2
    assert "removed out/results.jsonl.sigstore.json: it signed the outputs this run replaced" in said
    assert not (work / "out/results.jsonl.sigstore.json").exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["eval", "in", "--out", "o.jsonl", "--tsa", "http://127.0.0.1:9/"], "--tsa needs --sign KEY"),
        (["eval", "in", "--sign", "KEY.key"], "--sign needs --out FILE"),
        (["eval", "in", "--out", "/dev/null", "--sign", "KEY.key"], "/dev/null is not a regular file"),
        (["eval", "-", "--out", "o.jsonl", "--sign", "KEY.key"], "--sign cannot record standard input"),
        (["eval", "in", "--out", "o.jsonl", "--sign", "KEY.key", "--tsa", "ftp://x"], "expected an http://"),
        (["score", "in.jsonl", "--sign", "KEY.key"], "--sign needs --out FILE"),
        (
            ["diff", "in", "--base", "in", "--sign", "KEY.key", "--out", "d.txt"],
            "--sign signs the JSON report",
        ),
    ],
)
def test_bad_usage_of_sign_is_one_message_exit_2(
    work: Path, keys: Path, arguments: list[str], message: str
) -> None:
    done = evalkit(*[a.replace("KEY", str(keys)) for a in arguments], cwd=work, stdin="{}")
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not list(work.glob("**/*.sigstore.json"))


@pytest.fixture
def tmux() -> object:
    if shutil.which("tmux") is None:  # tasks.py installs it where it can (Debian, as root)
        pytest.fail("this test types a passphrase in a real terminal and needs tmux: apt-get install tmux")
    session = Tmux()
    yield session
    session.stop()


def test_on_a_terminal_keygen_and_sign_ask_for_the_passphrase(tmux: Tmux, work: Path) -> None:
    code = work / "exit-code"
    tmux.start(
        f"cd {work} && unset EVALKIT_KEY_PASSWORD; {EVALKIT} keygen --out asked; echo $? > {code}; sleep 60"
    )
    tmux.wait_for(lambda s: "Passphrase for the private key" in s, "the prompt")
    tmux.keys("typed secret", "Enter")
    tmux.wait_for(lambda s: "Passphrase again" in s, "the confirmation")
    tmux.keys("typed secret", "Enter")
    assert wait_for_file(code, lambda text: text.strip() != "").strip() == "0", tmux.screen()
    assert (work / "asked.key").read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    tmux.stop()
    again = Tmux()
    try:
        code.unlink()
        again.start(
            f"cd {work} && unset EVALKIT_KEY_PASSWORD; {EVALKIT} eval in --out out/r.jsonl --sign asked.key; "
            f"echo $? > {code}; sleep 60"
        )
        again.wait_for(lambda s: "Passphrase for the private key" in s, "the prompt")
        again.keys("typed secret", "Enter")
        assert wait_for_file(code, lambda text: text.strip() != "").strip() == "1", again.screen()
    finally:
        again.stop()
    assert (work / "out/r.jsonl.sigstore.json").exists()
