"""The scorers as verl's custom reward function: loaded from a file path the way verl loads one, and called
with the keyword arguments its reward managers pass."""

from __future__ import annotations

import inspect
import subprocess
import sys

from evalkit.qydomain import compute_score


def test_compute_score_has_the_signature_verl_calls() -> None:
    parameters = inspect.signature(compute_score).parameters
    assert list(parameters) == ["data_source", "solution_str", "ground_truth", "extra_info"]
    assert parameters["extra_info"].default is None


def test_the_reward_function_file_loads_by_path_as_a_lone_module_and_scores() -> None:
    # in a fresh interpreter, as verl's get_custom_reward_fn does: spec_from_file_location("custom_module",
    # path)
    program = """
import importlib.util, sys
import evalkit.qydomain.reward_function as shipped
spec = importlib.util.spec_from_file_location("custom_module", shipped.__file__)
module = importlib.util.module_from_spec(spec)
sys.modules["custom_module"] = module
spec.loader.exec_module(module)
print(module.compute_score(data_source="typos", solution_str="<solution>extraordinary</solution>",
                           ground_truth="extraordinary", extra_info={"split": "train"}))
print(module.compute_score(data_source="typos", solution_str="<solution>extraordinary</solution>",
                           ground_truth=None, extra_info={"label": "extraordinary"}))
"""
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1.0", "1.0"]


def test_the_reward_function_file_takes_verls_batch_call_extra_arguments_and_unknown_sources() -> None:
    # loaded by path as verl's get_custom_reward_fn does, then called as its batch reward manager calls it
    # (with a reward_kwargs entry of a user's), and row by row as its reward-loop managers do (with more
    # keyword arguments): a gsm8k row in a mixed batch scores 0.0 with one note, and the step goes on
    program = """
import importlib.util, json, sys
import evalkit.qydomain.reward_function as shipped
spec = importlib.util.spec_from_file_location("custom_module", shipped.__file__)
module = importlib.util.module_from_spec(spec)
sys.modules["custom_module"] = module
spec.loader.exec_module(module)
good = "<solution>extraordinary</solution>"
batch = module.compute_score(
    data_sources=["typos", "gsm8k", "typos", "gsm8k"],
    solution_strs=[good, "#### 4", "<solution>extraordinry</solution>", "#### 5"],
    ground_truths=["extraordinary", "4", None, "5"],
    extra_infos=[{}, {}, {"label": "extraordinary"}, None],
    format_penalty=0.5,
)
row = module.compute_score(data_source="typos", solution_str=good, ground_truth="extraordinary",
                           extra_info={"index": 3}, reward_router_address="127.0.0.1:1", tokenizer=None)
print(json.dumps([batch, row]))
"""
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[[1.0, 0.0, 0.0, 0.0], 1.0]"
    assert run.stderr.splitlines() == [
        "unknown data_source 'gsm8k' scores 0.0 (the scorers know connections, typos, unscrambling)"
    ]
