"""`evalkit eval` (and its alias `oai-eval`) through the real entry points, as users and pipelines run it:
every flag, every exit code (0 all good, 1 some submissions invalid, 2 nothing could be done), JSONL in
and out, --jobs, atomic outputs, and never a traceback."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.cli import build_parser
from evalkit.commands.eval_ import parse_plain
from evalkit.engine import Evaluator, load_config

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SEED_SAMPLE = SAMPLES / "sample_submission.json"
OAI_EVAL = str(Path(sys.executable).with_name("oai-eval"))
InProcess = Callable[..., subprocess.CompletedProcess[str]]  # the `in_process` fixture (conftest.py)


def evalkit_eval(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "evalkit", "eval", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in completed.stderr, completed.stderr
    return completed


def oai_eval(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [OAI_EVAL, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in completed.stderr, completed.stderr
    return completed


def submission(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "prompt": "P",
        "category": "algorithms",
        "subcategory": "graphs",
        "difficulty": "easy",
        "responses": [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}],
        "ranking": ["a", "b"],
        "ratings": {
            "instructions": 4.0,
            "accuracy": 4.2,
            "optimality": 3.8,
            "presentation": 4.0,
            "freshness": 3.5,
            "justification": "",
        },
        "rewrite_preferred": "rewrite",
    }
    data.update(changes)
    return data


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def api_result(data: dict[str, Any], config_dir: Path | None = None) -> dict[str, Any]:
    return Evaluator(load_config(config_dir)).evaluate(data).to_dict()


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    shutil.copy(SEED_SAMPLE, tmp_path / "sample_submission.json")
    return tmp_path / "sample_submission.json"


# --- one submission -------------------------------------------------------------------------------


def test_one_submission_prints_the_result_object(tmp_path: Path, seed: Path) -> None:
    done = evalkit_eval(seed.name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result == api_result(json.loads(seed.read_text(encoding="utf-8")))
    assert (result["label"], result["score"]) == ("good", 3.0)
    assert "source" not in result


def test_out_writes_the_result_object(tmp_path: Path, seed: Path) -> None:
    done = evalkit_eval(seed.name, "--out", "result.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert json.loads((tmp_path / "result.json").read_text(encoding="utf-8")) == api_result(
        json.loads(seed.read_text(encoding="utf-8"))
    )


def test_oai_eval_is_the_same_command(tmp_path: Path, seed: Path) -> None:
    via_alias = oai_eval(seed.name, cwd=tmp_path)
    via_module = evalkit_eval(seed.name, cwd=tmp_path)
    assert via_alias.returncode == via_module.returncode == 0
    assert via_alias.stdout == via_module.stdout


def test_yaml_submission_with_integer_ids(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "16_integer_ids.yaml", tmp_path / "ids.yaml")
    done = evalkit_eval("ids.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["corrected_ranking"] == [2, 1]


def test_config_dir(tmp_path: Path) -> None:
    config = tmp_path / "rules_here"
    config.mkdir()
    (config / "rules.yml").write_text(
        "rating_rules:\n  - id: always\n    actions: { assign_label: mine }\n", encoding="utf-8"
    )
    write_json(tmp_path / "s.json", submission())
    done = evalkit_eval("s.json", "--config-dir", "rules_here", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["label"] == "mine"
    assert result["meta"]["config_hash"] == load_config(config).config_hash


# --- several submissions: JSONL ----------------------------------------------------------------


def test_several_inputs_give_jsonl_in_input_order(tmp_path: Path) -> None:
    write_json(tmp_path / "b.json", submission(prompt="second"))
    write_json(tmp_path / "a.json", submission(prompt="first", ranking=["b"]))
    done = evalkit_eval("b.json", "a.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = jsonl(done.stdout)
    assert [line["source"] for line in lines] == ["b.json", "a.json"]
    assert lines[1]["corrected_ranking"] == ["b", "a"]
    first = {k: v for k, v in lines[0].items() if k != "source"}
    assert first == api_result(submission(prompt="second"))


def test_a_folder_is_read_in_file_name_order(tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    write_json(folder / "2.json", submission())
    write_json(folder / "1.json", submission())
    (folder / "3.yaml").write_text(
        "prompt: P\nresponses: [{id: 1, text: x}]\nranking: [1]\nratings:\n"
        "  instructions: 4\n  accuracy: 4\n  optimality: 4\n  presentation: 4\n"
        "  freshness: 4\n",
        encoding="utf-8",
    )
    (folder / "notes.txt").write_text("not a submission", encoding="utf-8")
    done = evalkit_eval("batch", "--out", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = jsonl((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
    assert [line["source"] for line in lines] == [
        str(Path("batch") / n) for n in ("1.json", "2.json", "3.yaml")
    ]


def test_one_folder_with_one_file_is_still_jsonl(tmp_path: Path) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    write_json(folder / "only.json", submission())
    done = evalkit_eval("batch", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (line,) = jsonl(done.stdout)
    assert line["source"] == str(Path("batch") / "only.json")


BAD_JSONL_LINES = [
    json.dumps(submission(prompt="one")),
    "{not json",
    "",
    json.dumps({k: v for k, v in submission().items() if k != "ratings"}),
    json.dumps(
        submission(
            ratings={"instructions": "4", "accuracy": 4, "optimality": 4, "presentation": 4, "freshness": 4}
        )
    ),
    "[1, 2]",
    json.dumps(submission(prompt="six")),
]


def test_jsonl_with_bad_lines_reports_each_and_goes_on(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text("\n".join(BAD_JSONL_LINES) + "\n", encoding="utf-8")
    done = evalkit_eval("in.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    lines = jsonl(done.stdout)
    assert [line["source"] for line in lines] == [f"in.jsonl:{n}" for n in (1, 2, 4, 5, 6, 7)]
    assert [("error" in line) for line in lines] == [False, True, True, True, True, False]
    assert "corrected_ratings" in lines[0] and "corrected_ratings" in lines[5]
    assert "ratings" in lines[2]["error"]["message"]
    assert "ratings.instructions" in lines[3]["error"]["message"]
    for number in (2, 4, 5, 6):
        assert f"in.jsonl:{number}" in done.stderr


def test_some_invalid_submissions_exit_1_and_the_rest_are_evaluated(tmp_path: Path) -> None:
    write_json(tmp_path / "good.json", submission())
    write_json(tmp_path / "bad.json", submission(responses=[{"id": "a", "text": None}]))
    done = evalkit_eval("good.json", "bad.json", cwd=tmp_path)
    assert done.returncode == 1
    good, bad = jsonl(done.stdout)
    assert "corrected_ratings" in good
    assert bad["source"] == "bad.json"
    assert "responses[0].text" in bad["error"]["message"]
    assert "bad.json" in done.stderr


# --- bad input never gives a traceback -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("broken.json", b'{"prompt": "P", "responses": ['),
        ("empty.json", b""),
        ("list.json", b"[1, 2, 3]"),
        ("binary.json", b"\xff\xfe\x00\x01garbage\x80"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000),
        ("tabs.yaml", b"prompt: P\n\tresponses: []\n"),
        (
            "alias.yaml",
            b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            b"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
            b"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
        ),
        ("dupkey.yaml", b"prompt: P\nprompt: Q\n"),
    ],
    ids=lambda value: value if isinstance(value, str) else "content",
)
def test_a_bad_submission_gets_a_clear_message_naming_the_file(
    tmp_path: Path, name: str, content: bytes
) -> None:
    (tmp_path / name).write_bytes(content)
    done = evalkit_eval(name, "--out", "out.json", cwd=tmp_path)
    assert done.returncode == 1
    assert name in done.stderr
    error = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert error["source"] == name
    assert error["error"]["message"]


def test_an_empty_input_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_text(" \n", encoding="utf-8")
    done = evalkit_eval("empty.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "empty.json: error: the input is empty: no submission in it\n"


def test_a_named_pipe_is_read_like_a_file(tmp_path: Path, seed: Path) -> None:
    pipe = tmp_path / "fifo"  # what a shell's <(...) hands over
    os.mkfifo(pipe)
    writer = subprocess.Popen(["sh", "-c", f"cat '{seed}' > '{pipe}'"])
    done = evalkit_eval(str(pipe), "--out", "out.json", cwd=tmp_path)
    writer.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["label"] == "good"


def test_an_output_in_a_missing_folder_is_named_as_given(
    tmp_path: Path, seed: Path, in_process: InProcess
) -> None:
    # through the console script: test_seed_invocations.py's "output in a missing folder"
    done = in_process("eval", seed.name, "--out", "missing/out.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "evalkit eval: cannot write missing/out.json: No such file or directory\n"


def test_a_rating_too_large_for_a_float_is_no_traceback(tmp_path: Path) -> None:
    text = json.dumps(submission()).replace('"accuracy": 4.2', '"accuracy": 1' + "0" * 400)
    (tmp_path / "big.json").write_text(text, encoding="utf-8")
    done = evalkit_eval("big.json", cwd=tmp_path)
    assert done.returncode in (0, 1)


def test_a_rating_beyond_float_range_gives_valid_json(tmp_path: Path) -> None:
    text = json.dumps(submission()).replace('"accuracy": 4.2', '"accuracy": 1e400')
    (tmp_path / "inf.json").write_text(text, encoding="utf-8")
    done = evalkit_eval("inf.json", cwd=tmp_path)
    assert done.returncode in (0, 1)
    json.loads(done.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the output"))


# --- exit 2: nothing could be done ------------------------------------------------------------


def test_a_missing_input_path_exits_2(tmp_path: Path, seed: Path, in_process: InProcess) -> None:
    # through the console script: test_seed_invocations.py's "missing input"
    done = in_process("eval", seed.name, "nowhere.json", "--out", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    assert "nowhere.json" in done.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_no_inputs_is_bad_usage(tmp_path: Path, in_process: InProcess) -> None:
    # argparse's refusal through `python -m evalkit`: test_an_unknown_flag_is_bad_usage
    assert in_process("eval", cwd=tmp_path).returncode == 2


def test_an_unknown_flag_is_bad_usage(tmp_path: Path, seed: Path) -> None:
    assert evalkit_eval(seed.name, "--frobnicate", cwd=tmp_path).returncode == 2


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_bad_jobs_is_bad_usage(tmp_path: Path, seed: Path, jobs: str, in_process: InProcess) -> None:
    # through the console script: test_seed_invocations.py's "jobs 0"
    done = in_process("eval", seed.name, "--jobs", jobs, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""


def test_a_folder_without_submissions_exits_2(tmp_path: Path, in_process: InProcess) -> None:
    # through the console script: test_seed_invocations.py's "no submissions"
    (tmp_path / "empty").mkdir()
    assert in_process("eval", "empty", cwd=tmp_path).returncode == 2


def test_a_missing_config_dir_exits_2(tmp_path: Path, seed: Path, in_process: InProcess) -> None:
    # a config that cannot be used, through the console script: test_an_invalid_config_exits_2_...
    done = in_process("eval", seed.name, "--config-dir", "no_such_config", cwd=tmp_path)
    assert done.returncode == 2
    assert "no_such_config" in done.stderr


BAD_RULES = (
    "rating_rules:\n"
    "  - id: r1\n"
    "    when:\n"
    "      {condition}: [x]\n"
    "    actions: {{ set_flag: f }}\n"
    "  - id: r2\n"
    "    when: {{ rewrite_regex_any: ['(?=x)'] }}\n"
    "    actions: {{ add_comment_template: '{{{{ signals.__class__.__mro__ }}}}' }}\n"
)


def bad_config(tmp_path: Path, condition: str) -> Path:
    config = tmp_path / "bad_config"
    config.mkdir()
    (config / "rules.yaml").write_text(BAD_RULES.format(condition=condition), encoding="utf-8")
    (config / "dimensions.yaml").write_text("scale: [0, 5]\nscale: [0, 10]\n", encoding="utf-8")
    (config / "ranking.yaml").write_text("allow_duplicate: true\n", encoding="utf-8")
    return config


def test_an_invalid_config_exits_2_with_every_problem_positioned(tmp_path: Path, seed: Path) -> None:
    bad_config(tmp_path, "response_contains_any")
    done = evalkit_eval(seed.name, "--config-dir", "bad_config", "--out", "out.json", cwd=tmp_path)
    assert done.returncode == 2
    folder = Path("bad_config")
    problems = [line for line in done.stderr.splitlines() if ": error[" in line]
    assert [line.split(" ", 2)[:2] for line in problems] == [
        [f"{folder / 'dimensions.yaml'}:2:1:", "error[duplicate-key]"],
        [f"{folder / 'ranking.yaml'}:1:1:", "error[unknown-key]"],
        [f"{folder / 'rules.yaml'}:7:33:", "error[bad-regex]"],
        [f"{folder / 'rules.yaml'}:8:38:", "error[bad-template]"],
    ]
    assert "allow_duplicates" in problems[1]
    assert not (tmp_path / "out.json").exists()
    assert done.stdout == ""


def test_schema_and_semantic_problems_in_one_file_are_all_reported(tmp_path: Path, seed: Path) -> None:
    # "every problem": a misspelt condition must not hide the bad regex and template below it
    bad_config(tmp_path, "respons_contains_any")
    done = evalkit_eval(seed.name, "--config-dir", "bad_config", cwd=tmp_path)
    assert done.returncode == 2
    rules = Path("bad_config") / "rules.yaml"
    assert f"{rules}:4:7: error[unknown-key] " in done.stderr
    assert f"{rules}:7:33: error[bad-regex] " in done.stderr
    assert f"{rules}:8:38: error[bad-template] " in done.stderr


# --- --explain-json, --report-md, --log-file --------------------------------------------------


def test_explain_json_for_one_submission(tmp_path: Path, seed: Path) -> None:
    done = evalkit_eval(seed.name, "--explain-json", "explain.json", "--out", "result.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    explain = json.loads((tmp_path / "explain.json").read_text(encoding="utf-8"))
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert explain["fired_rules"] == result["fired_rules"]
    assert (explain["score"], explain["flags"], explain["label"]) == (
        result["score"],
        result["flags"],
        result["label"],
    )
    assert explain["meta"]["config_hash"] == result["meta"]["config_hash"]
    not_fired = {rule["id"]: rule for rule in explain["not_fired"]}
    assert set(not_fired) == {
        "negative_weights_without_alternative",
        "low_optimality_penalty",
        "very_short_answers",
    }
    assert not_fired["negative_weights_without_alternative"]["failed"] == "not_contains_any"
    assert not_fired["negative_weights_without_alternative"]["observed"]["found"] == ["Bellman-Ford"]
    assert not_fired["low_optimality_penalty"]["observed"]["values"] == {"optimality": 4.0}
    assert not_fired["very_short_answers"]["observed"]["max"] == 80


def test_explain_json_for_a_batch_is_jsonl(tmp_path: Path) -> None:
    write_json(tmp_path / "a.json", submission())
    write_json(tmp_path / "bad.json", {"prompt": "P"})
    done = evalkit_eval(
        "a.json", "bad.json", "--explain-json", "explain.jsonl", "--out", "out.jsonl", cwd=tmp_path
    )
    assert done.returncode == 1
    lines = jsonl((tmp_path / "explain.jsonl").read_text(encoding="utf-8"))
    assert [line["source"] for line in lines] == ["a.json", "bad.json"]
    assert "not_fired" in lines[0]
    assert "error" in lines[1]


def test_report_md(tmp_path: Path, seed: Path) -> None:
    write_json(tmp_path / "bad.json", {"prompt": "P"})
    done = evalkit_eval(seed.name, "bad.json", "--report-md", "report.md", "--out", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# evalkit report")
    assert load_config().config_hash in report
    assert "1 evaluated, 1 with errors" in report
    markdown_name = seed.name.replace("_", "\\_")  # Markdown's punctuation escaped (engine/untrusted_text.py)
    assert f"## {markdown_name}" in report and "## bad.json" in report
    assert "lower\\_accuracy\\_if\\_no\\_example" in report
    assert "| accuracy | 5 | 4.5 |" in report


def test_log_file(tmp_path: Path, seed: Path) -> None:
    write_json(tmp_path / "bad.json", {"prompt": "P"})
    done = evalkit_eval(seed.name, "bad.json", "--log-file", "run.log", "--out", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    log = (tmp_path / "run.log").read_text(encoding="utf-8")
    assert load_config().config_hash in log
    assert f"{seed.name}: label=good" in log
    assert "bad.json" in log


def test_a_log_file_that_cannot_be_opened_is_a_clear_error(
    tmp_path: Path, seed: Path, in_process: InProcess
) -> None:
    # through the console script: test_seed_invocations.py's "log in a missing folder"
    done = in_process("eval", seed.name, "--log-file", "missing/run.log", "--out", "out.json", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "evalkit eval: cannot write the log missing/run.log: No such file or directory\n"
    assert not (tmp_path / "out.json").exists()


# --- outputs are atomic ----------------------------------------------------------------------------


def test_outputs_replace_old_files_and_leave_no_temporary_files(tmp_path: Path, seed: Path) -> None:
    for name in ("result.json", "explain.json", "report.md"):
        (tmp_path / name).write_text("old content that is longer than nothing " * 1000, encoding="utf-8")
    done = evalkit_eval(
        seed.name,
        "--out",
        "result.json",
        "--explain-json",
        "explain.json",
        "--report-md",
        "report.md",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    json.loads((tmp_path / "explain.json").read_text(encoding="utf-8"))
    assert "old content" not in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "explain.json",
        "report.md",
        "result.json",
        "sample_submission.json",
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [("--out", "--report-md"), ("--explain-json", "--log-file"), ("--out", "--explain-json")],
)
def test_two_outputs_naming_one_file_exit_2_before_anything_is_written(
    tmp_path: Path, seed: Path, first: str, second: str, in_process: InProcess
) -> None:
    # through the console script: test_seed_invocations.py's "one output twice"
    (tmp_path / "keep.json").write_text("keep me\n", encoding="utf-8")
    done = in_process("eval", seed.name, first, "keep.json", second, "./keep.json", cwd=tmp_path)
    assert done.returncode == 2
    assert f"{first} and {second} both name ./keep.json" in done.stderr
    assert (tmp_path / "keep.json").read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json", "sample_submission.json"]


def test_devices_may_take_several_outputs(tmp_path: Path, seed: Path) -> None:
    done = evalkit_eval(seed.name, "--out", os.devnull, "--explain-json", os.devnull, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


# --- --jobs ------------------------------------------------------------------------------------------


def test_jobs_2_gives_the_same_outputs_as_jobs_1(tmp_path: Path) -> None:
    shutil.copytree(SAMPLES, tmp_path / "samples")
    lines = []
    for index in range(600):  # more than one chunk of work per worker
        if index % 97 == 5:
            lines.append("{broken")
        else:
            lines.append(
                json.dumps(
                    submission(
                        prompt=f"p{index}",
                        ranking=["b"] if index % 2 else ["a", "a"],
                        rewrite_preferred="x" * (index % 130),
                    )
                )
            )
    (tmp_path / "many.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    outputs = {}
    for jobs in ("1", "2"):
        done = evalkit_eval(
            "samples",
            "many.jsonl",
            "--jobs",
            jobs,
            "--out",
            f"out{jobs}.jsonl",
            "--explain-json",
            f"explain{jobs}.jsonl",
            "--report-md",
            f"report{jobs}.md",
            cwd=tmp_path,
        )
        assert done.returncode == 1
        outputs[jobs] = [
            (tmp_path / f"{kind}{jobs}.{ext}").read_text(encoding="utf-8")
            for kind, ext in (("out", "jsonl"), ("explain", "jsonl"), ("report", "md"))
        ]
    assert outputs["1"] == outputs["2"]
    sources = [line["source"] for line in jsonl(outputs["1"][0])]
    assert sources[:31] == [
        str(Path("samples") / p.name)
        for p in sorted(SAMPLES.iterdir())
        if p.suffix in (".json", ".yaml", ".yml", ".jsonl")
    ]
    assert sources[31:] == [f"many.jsonl:{n}" for n in range(1, 601)]


NUMERIC_CONFIG = {  # <n> stands for a whole number, written as the test asks
    "dimensions.yaml": """\
        scale: [<0>, <5>]
        dimensions:
          accuracy: {ideal: <4>, tolerance: <1>, weight: <1>}
        adjustment: {pull_fraction: <1>, round: <2>}
        validation: {require_justification_if_delta_ge: <1>}
        """,
    "rewrite.yaml": "min_length: <300>\n",
    "rules.yaml": """\
        decision: {score_thresholds: {good: <1>, bad: -<1>}}
        rating_rules:
          - id: numbers
            when: {dimension_gt: {accuracy: <4>}, dimension_lt: {optimality: <5>}, min_total_length: <10>,
                   max_total_length: <100000>}
            actions: {adjust_dimension: {dimension: accuracy, delta: -<1>}, increment_score: <1>}
        """,
}


@pytest.mark.parametrize("style", ["{}", "{}.0"], ids=["integers", "floats"])
def test_whole_numbers_are_read_the_same_written_either_way(tmp_path: Path, style: str) -> None:
    # YAML reads 4 as an int and 4.0 as a float; JSON Schema's integer and number accept both
    config = tmp_path / "config"
    config.mkdir()
    for name, text in NUMERIC_CONFIG.items():
        written = re.sub(r"<(\d+)>", lambda number: style.format(number[1]), textwrap.dedent(text))
        (config / name).write_text(written, encoding="utf-8")
    done = evalkit_eval(SEED_SAMPLE, "--config-dir", config, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["corrected_ratings"]["accuracy"]["updated"] == 4.0  # 5 - 1, then within 4 ± 1
    assert (result["score"], result["label"]) == (1.0, "good")
    assert result["flags"] == {"justification_required": True}
    assert result["rewrite_final"].endswith("\n\nExpand content.")  # shorter than 300


def test_jobs_2_workers_read_the_lines_themselves_and_every_output_and_message_is_jobs_1s(
    tmp_path: Path,
) -> None:
    """With --jobs, workers get a JSONL file's raw lines and render whole chunks; what the lines hold at their
    edges (a byte order mark, blank lines, bytes that are not UTF-8, a line too broken to parse) and the
    inputs around them (a UTF-16 file, a single .json) come out as in one process: results
    on stdout, stderr, the log (without its times) and the report."""
    good = json.dumps(submission(), ensure_ascii=False).encode("utf-8")
    lines = [b"\xef\xbb\xbf" + good, b"", b"   ", b'{"prompt": "\xff"}', b"{broken"]
    lines += [json.dumps(submission(prompt=f"p{n}")).encode() for n in range(700)] + [b"\r", good]
    (tmp_path / "a.jsonl").write_bytes(b"\n".join(lines))  # no newline after the last line
    (tmp_path / "b.jsonl").write_text(json.dumps(submission()), encoding="utf-16")
    (tmp_path / "c.json").write_text(json.dumps(submission(prompt="c")), encoding="utf-8")
    seen = {}
    for jobs in ("1", "2"):
        done = evalkit_eval(
            "a.jsonl",
            "b.jsonl",
            "c.json",
            "a.jsonl",
            "--jobs",
            jobs,
            "--log-file",
            f"log{jobs}",
            "--report-md",
            f"report{jobs}.md",
            cwd=tmp_path,
        )
        log = re.sub(r"^\S+ \S+ ", "", (tmp_path / f"log{jobs}").read_text(encoding="utf-8"), flags=re.M)
        seen[jobs] = (
            done.returncode,
            done.stdout,
            done.stderr,
            log,
            (tmp_path / f"report{jobs}.md").read_text(encoding="utf-8"),
        )
    assert seen["1"] == seen["2"]
    returncode, stdout, stderr, log, _ = seen["2"]
    assert returncode == 1
    sources = [line["source"] for line in jsonl(stdout)]
    assert sources[:4] == ["a.jsonl:1", "a.jsonl:4", "a.jsonl:5", "a.jsonl:6"]
    assert sources[703:708] == ["a.jsonl:707", "b.jsonl", "c.json", "a.jsonl:1", "a.jsonl:4"]
    assert len(sources) == 2 * 704 + 2
    assert "a.jsonl:4: error: column 13: the line is not UTF-8 text (byte 0xff)" in stderr
    assert log.count("label=") == 2 * 702 + 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_jsonl_file_read_by_ranges_gives_the_bytes_of_the_same_lines_read_one_at_a_time(
    tmp_path: Path, jobs: str
) -> None:
    """A regular file is rendered a range of lines at a time (one msgspec encode per line, straight to
    UTF-8); a pipe is read a line at a time. Both write the same results, explanations and errors, whatever
    the lines hold."""
    good = submission()
    lines = [
        "\ufeff" + json.dumps(good, ensure_ascii=False),
        "",
        json.dumps(submission(prompt='caf\u00e9 \u2028 \U0001f600 \\ " \x7f')),
        "{bad",
        "\u00a0",  # not blank to JSON Lines: an empty submission
        json.dumps(submission(prompt="x" * 10)).replace('"prompt"', '"prompt": NaN, "prompt"', 1),
        json.dumps(submission(ratings={**good["ratings"], "accuracy": 3e-05})),
        json.dumps(submission(prompt="\ud800"), ensure_ascii=True),
        json.dumps({"responses": []}),
        "[1, 2]\r",
        json.dumps(good),
    ]
    raw = ("\n".join(lines) + "\n" + json.dumps(good)).encode("utf-8")  # (not UTF-8: test_line_ranges.py)
    (tmp_path / "batch.jsonl").write_bytes(raw)
    os.mkfifo(tmp_path / "pipe.jsonl")
    outputs = []
    for source in ("batch.jsonl", "pipe.jsonl"):
        command = [
            sys.executable,
            "-m",
            "evalkit",
            "eval",
            source,
            "--jobs",
            jobs,
            "--explain-json",
            "x.jsonl",
        ]
        process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if source == "pipe.jsonl":
            with open(tmp_path / "pipe.jsonl", "wb") as feed:
                feed.write(raw)
        stdout, stderr = process.communicate(timeout=120)
        assert b"Traceback" not in stderr, stderr
        explained = (tmp_path / "x.jsonl").read_bytes()
        outputs.append(
            [
                process.returncode,
                *(out.replace(b"pipe.jsonl", b"batch.jsonl") for out in (stdout, stderr, explained)),
            ]
        )
    assert outputs[0] == outputs[1]
    returncode, results, _, _ = outputs[0]
    assert returncode == 1
    assert len(results.splitlines()) == 11


def test_jobs_2_spools_its_chunks_in_a_temporary_folder_it_removes(tmp_path: Path) -> None:
    """Workers write their chunks of output to files the parent copies on in order: the output is one
    process's, and nothing is left in the temporary folder."""
    samples = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(SAMPLES.glob("*.json"))]
    rows = [json.dumps(samples[i % len(samples)], ensure_ascii=False) for i in range(3000)]
    (tmp_path / "batch.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spool = tmp_path / "tmp"
    spool.mkdir()
    outputs = []
    for jobs in ("1", "2"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "evalkit",
                "eval",
                "batch.jsonl",
                "--jobs",
                jobs,
                "--out",
                f"{jobs}.jsonl",
            ],
            cwd=tmp_path,
            env={**os.environ, "TMPDIR": str(spool)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        outputs.append((tmp_path / f"{jobs}.jsonl").read_bytes())
    assert len(outputs[0]) > 4 * 1024 * 1024  # chunks of more than 64 KB: spooled
    assert outputs[1] == outputs[0]
    assert list(spool.iterdir()) == []


# --- the cold start ---------------------------------------------------------------------------------


def eval_importing(*args: str | Path, cache: Path) -> set[str]:
    """`evalkit eval ARGS` (evalkit.cli.main, as the console script runs it) and the modules it imported."""
    code = (
        "import sys; from evalkit.cli import main; code = main(['eval', *sys.argv[1:]]); "
        "print(*sorted(sys.modules), file=sys.stderr); sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split())


COLD_EVAL_MODULES = {
    "evalkit",
    "evalkit.cli",
    "evalkit.commands",
    "evalkit.commands.eval_",
    "evalkit.commands._eval_run",
    "evalkit.config_samples",
    "evalkit.engine",
    *(
        f"evalkit.engine.{name}"
        for name in (
            "actions",
            "conditions",
            "config",
            "context",
            "evaluator",
            "limits",
            "needles",
            "phases",
            "plan",
            "positions",
            "regex",
            "result",
            "submission",
            "templates",
            "text",
            "type_words",
        )
    ),
    "evalkit.services",
    *(f"evalkit.services.{room}" for room in ("config", "inputs", "outputs", "review", "run")),
    "evalkit.services.outputs.atomic",
    "evalkit.services.run.batch",
    "evalkit.services.config.cache",
    "evalkit.services.config.folders",
    "evalkit.services.inputs.read",
    "evalkit.services.outputs.over_input",
    "evalkit.services.run.progress",
    "evalkit.services.review.files",
    "evalkit.services.usage",
    "evalkit.services.run.workers",
}
"""What `evalkit eval FILE` imports of evalkit with its config cache warm (and the compiled engine's shared
library, `evalkit.engine._native__mypyc`, when it is compiled). hashlib and hmac are imported (the config
hash and the cache's MAC, through their public modules: OpenSSL's load, 2.5-4.6 ms of CPU of a 47-52 ms
start, `benchmarks/bench_startup.py --against`, 2026-12-04)."""
NEVER_IN_A_COLD_EVAL = {
    "argparse",  # the plain command line is parsed without it (eval_.parse_plain)
    "dataclasses",  # it writes each class's methods with exec, and imports inspect
    "inspect",
    "threading",  # imported where worker processes start
    "evalkit.engine.template_caps",  # caps what Jinja builds: the samples' template is text and lookups
    "gettext",
    "shutil",
    "yaml",
    "ruamel",
    "jinja2",
    "evalkit.engine.schema_check",
    "evalkit.engine.diagnostics",
    "evalkit.commands._ray_run",
    "textual",
    "pygls",
}


def test_a_cold_eval_with_its_config_cached_imports_only_what_it_needs(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = eval_importing(SEED_SAMPLE, "--out", tmp_path / "first.json", cache=cache)
    imported = eval_importing(SEED_SAMPLE, "--out", tmp_path / "second.json", cache=cache)
    assert "evalkit.engine.schema_check" in first  # checked once, then cached
    evalkit = {name for name in imported if name.startswith("evalkit.") or name == "evalkit"}
    assert evalkit - {"evalkit.engine._native__mypyc"} == COLD_EVAL_MODULES
    assert not imported & NEVER_IN_A_COLD_EVAL
    assert (tmp_path / "first.json").read_bytes() == (tmp_path / "second.json").read_bytes()


def argparse_args(argv: list[str]) -> dict[str, Any] | None:
    """What argparse's `evalkit eval` parser makes of the arguments, or None when it refuses them."""
    try:
        return vars(build_parser("eval", None, ["eval", *argv]).parse_args(["eval", *argv]))
    except SystemExit:
        return None


@pytest.mark.parametrize(
    "argv",
    [
        ["a.json"],
        ["a.json", "b.jsonl", "folder", "--out", "o", "--jobs", "2"],
        ["--config-dir=c", "--out", "o", "a.json", "--explain-json", "e", "--report-md", "r"],
        ["--log-file", "l", "--jobs=3", "--out", "o1", "a", "b", "--out=o2"],
        ["--out", "", "a b.json"],
    ],
)
def test_the_plain_command_lines_are_parsed_without_argparse_as_argparse_would(argv: list[str]) -> None:
    plain = parse_plain(argv)
    assert plain is not None
    assert vars(plain) == argparse_args(argv)


TOKENS = st.sampled_from(
    [
        "a.json",
        "b",
        "",
        "-",
        "--",
        "-1",
        "3",
        " 4",
        "x=y",
        "-h",
        "--help",
        "--version",
        "--out",
        "--ou",
        "--out=",
        "--out=-o",
        "--config-dir",
        "--config-dir=c",
        "--explain-json",
        "--report-md",
        "--log-file",
        "--jobs",
        "--jobs=2",
        "--jobs=x",
        "--ray",
        "--ray=auto",
        "--nope",
        "-o",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(TOKENS | st.text(max_size=3), max_size=8))
def test_the_plain_parse_is_argparses_or_leaves_it_to_argparse(argv: list[str]) -> None:
    plain = parse_plain(argv)
    if plain is not None:
        assert vars(plain) == argparse_args(argv)
