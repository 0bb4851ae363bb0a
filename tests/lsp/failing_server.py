"""The language server with an evaluation that raises on a sample whose prompt starts with `RAISE`:
how the editor shows a sample the engine failed on (which a bug could cause, and nothing in the shipped
engine should), apart from one it could not read. Run as `python failing_server.py`."""

from __future__ import annotations

import sys
from typing import Any

from evalkit.engine import Evaluator
from evalkit.engine.result import Result
from evalkit.lsp import verdicts
from evalkit.lsp.server import serve


class FailingEvaluator:
    def __init__(self, config: Any) -> None:
        self.evaluator = Evaluator(config)

    def evaluate(self, submission: Any, held: tuple[bool, ...] | None = None) -> Result:
        if submission.prompt.startswith("RAISE"):
            raise ZeroDivisionError("division by zero")
        return self.evaluator.evaluate(submission, held)


if __name__ == "__main__":
    verdicts.Evaluator = FailingEvaluator  # type: ignore[misc,assignment]
    sys.exit(serve())
