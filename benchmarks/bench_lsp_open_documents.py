"""Benchmark what every check of a config folder pays for the editor's other open documents.

    .venv/bin/python benchmarks/bench_lsp_open_documents.py [--repeat 200]

Before each check the language server gathers the folder's unsaved buffers from all the documents the
editor has open (lsp/workspace.py folder_buffers). It writes FOLDERS config folders into a temporary
directory, each with a rules.yaml and a rule test file in tests/, has 2 x FOLDERS documents open (as an
editor with several projects open, or a long session, has), and times gathering one folder's buffers:
processor time per check (user + system, best of 5 rounds of REPEAT checks; the best is what the code
costs, the others add the machine's other work).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pygls.uris import from_fs_path

from evalkit.lsp.workspace import folder_buffers


@dataclass
class Document:  # what folder_buffers reads of pygls's TextDocument
    version: int
    source: str


def open_documents(root: Path, folders: int) -> list[tuple[str, Document]]:
    documents = []
    for number in range(folders):
        config = root / f"project{number}" / "config"
        (config / "tests").mkdir(parents=True)
        for path in (config / "rules.yaml", config / "tests" / "cases.yaml"):
            path.write_text("version: 2\n", encoding="utf-8")
            documents.append((from_fs_path(str(path)) or "", Document(1, "version: 2\n")))
    return documents


def per_check_ms(documents: list[tuple[str, Document]], folder: Path, repeat: int) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        for _ in range(repeat):
            found = folder_buffers(documents, folder)
        best = min(best, time.process_time() - started)
        assert len(found) == 2, found
    return best / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    print("open documents   CPU ms per check")
    for folders in (1, 10, 50, 200):
        with tempfile.TemporaryDirectory() as raw:
            documents = open_documents(Path(raw), folders)
            folder = Path(raw) / "project0" / "config"
            print(f"{2 * folders:14d}   {per_check_ms(documents, folder, args.repeat):16.3f}")


if __name__ == "__main__":
    main()
