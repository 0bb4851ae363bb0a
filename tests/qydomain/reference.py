"""The seed's scorers written plainly from the spec (and the module docstrings' LiveBench details): regexes
where LiveBench has them, a Python dynamic programme for Levenshtein, one loop per step. Slow and obviously
right: tests/qydomain/test_qydomain_reference.py holds the optimised scorers to them, float for float, and
benchmarks/bench_qydomain.py times the scorers against them."""

from __future__ import annotations

import re


def reference_typos(ground_truth: str, answer: str) -> int:
    if not ground_truth.strip():  # a blank ground truth is malformed: 0 (guard.py)
        return 0
    solutions = re.findall(r"<solution>(.*?)</solution>", answer)
    if solutions:
        parsed = solutions[-1]
    else:
        parsed = answer.replace("<solution>", "").replace("</solution>", "")
        match = re.search(r".* --- (.*?) --- .*", parsed)
        parsed = match.group(1) if match else parsed
    parsed = " ".join(line for line in parsed.strip().split("\n") if line)
    return int(ground_truth in parsed)


def reference_boxed(answer: str) -> str | None:
    """LiveBench's last_boxed_only_string, then remove_boxed (None where either raises), then the
    connections scorer's replacements."""
    if "\\boxed " in answer:
        boxed: str | None = "\\boxed " + answer.split("\\boxed ")[-1].split("$")[0]
    elif "\\boxed" not in answer:
        return None
    else:
        boxed = None
        start, depth = answer.rfind("\\boxed"), 0
        for index in range(start, len(answer)):
            if answer[index] == "{":
                depth += 1
            if answer[index] == "}":
                depth -= 1
                if depth == 0:
                    boxed = answer[start : index + 1].replace("$", "").replace("fbox", "boxed")
                    break
    if boxed is None:
        return None
    if "\\boxed " in boxed:
        if not boxed.startswith("\\boxed "):
            return None
        content = boxed[len("\\boxed ") :]
    elif boxed.startswith("\\boxed{") and boxed.endswith("}"):
        content = boxed[len("\\boxed{") : -1]
    else:
        return None
    return content.replace("\\text{", "").replace("}", "").replace("\\", "").replace("\n", "")


def reference_groups(words: list[str]) -> list[frozenset[str]]:
    groups: list[set[str]] = [set()]
    for word in words:
        if len(groups[-1]) == 4:
            groups.append(set())
        groups[-1].add(word.strip().lower())
    return [frozenset(group) for group in groups]


def reference_connections(ground_truth: str, answer: str) -> float:
    if not ground_truth.strip():
        return 0.0
    matches: list[str] = []
    for pattern in (r"<solution>(.*?)</solution>", r"</solution>(.*?)</solution>"):
        matches = re.findall(pattern, answer) or re.findall(pattern, answer.replace("\n", ""))
        if matches:
            break
    if not matches:
        boxed = reference_boxed(answer)
        if boxed is None:
            return 0.0
        matches = [boxed]
    truth_words = ground_truth.split(",")
    words = matches[0].split(",") if len(matches) == 1 else ",".join(matches).split(",")[-len(truth_words) :]
    truth = reference_groups(truth_words)
    found = [group for group in reference_groups(words) if group in truth]
    return len(set(found)) / len(set(truth))


def reference_levenshtein(a: list[str] | str, b: list[str] | str) -> int:
    row = list(range(len(b) + 1))
    for i, item in enumerate(a, start=1):
        diagonal, row[0] = row[0], i
        for j, other in enumerate(b, start=1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (item != other))
    return row[-1]


def reference_unscrambling(ground_truth: str, answer: str) -> float:
    if not ground_truth.strip():
        return 0.0
    match = re.search(r"<PLOT_SUMMARY>(.*)</PLOT_SUMMARY>", answer, re.DOTALL) or re.search(
        r"<PLOT_SUMMARY>(.*)", answer, re.DOTALL
    )
    summary = match.group(1) if match else answer
    truth = [piece.strip() for piece in ground_truth.split(".") if piece.strip()]
    drop = ("</PLOT_SUMMARY>", "**End of Plot Summary**")
    candidates = [
        piece.strip() for piece in summary.split(".") if piece.strip() and piece.strip() not in drop
    ]
    if not truth or not candidates:
        return 0.0
    ordering = []
    for sentence in truth:
        distances = [reference_levenshtein(sentence, candidate) for candidate in candidates]
        ordering.append(str(distances.index(min(distances))))
    n = len(truth)
    return max(0.0, (n - reference_levenshtein([str(i) for i in range(n)], ordering)) / n)
