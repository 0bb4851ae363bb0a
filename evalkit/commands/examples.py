"""What each subcommand's `--help` ends with: two or three examples to copy, and its exit codes.

The examples run as written from a checkout of evalkit (its `samples/` and `config_samples/`), with the
few files they name besides made first: `rows.jsonl` (score rows), `me.decisions.jsonl` (a review journal),
a key pair `me.key`/`me.pub` with `results.jsonl` signed by it, and a git repository for `diff --base`
(tests/cli/test_help_examples.py makes them and runs every example, a command's examples in order).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Help:
    examples: tuple[tuple[str, str], ...]
    """(command line, what it does)"""
    exit_codes: tuple[str, str, str]
    """what 0, 1 and 2 mean for this command"""

    def epilog(self) -> str:
        lines = ["examples:"]
        for command, what in self.examples:
            lines += [f"  {command}", f"      {what}"]
        lines += ["", "exit codes:"]
        lines += [f"  {code}  {meaning}" for code, meaning in enumerate(self.exit_codes)]
        return "\n".join(lines)


NOTHING_DONE = "nothing could be done: bad usage, or a config or file that cannot be read (said on stderr)"

HELP: dict[str, Help] = {
    "eval": Help(
        (
            (
                "evalkit eval samples/sample_submission.json",
                "one result as JSON on stdout (the shipped rules)",
            ),
            (
                "evalkit eval samples --config-dir config_samples --out results.jsonl --report-md report.md",
                "a folder of submissions: one JSON line each, in input order, and a Markdown report",
            ),
            (
                "cat samples/sample_submission.json | evalkit eval - --explain-json explain.json",
                "from standard input, with why each rule fired or not",
            ),
        ),
        (
            "every submission evaluated",
            "some submission could not be read or is invalid (its line says why)",
            "nothing evaluated: bad usage, or the config is invalid (its diagnostics are printed)",
        ),
    ),
    "check": Help(
        (
            ("evalkit check config_samples", "every problem as file:line:col, for people and pre-commit"),
            (
                "evalkit check config_samples --samples samples --strict",
                "also run the rules on the samples; warnings fail too",
            ),
            ("evalkit check config_samples --format github", "annotations for GitHub Actions"),
        ),
        (
            "clean (infos allowed)",
            "findings: errors, and warnings under --strict",
            "nothing could be checked: bad usage, a PATH that is not there",
        ),
    ),
    "test": Help(
        (
            ("evalkit test config_samples", "run the rule tests in config_samples/tests/"),
            ("evalkit test config_samples --coverage", "and list the rules no test case fires"),
        ),
        ("every case passed", "some case failed (each is shown with what differed)", NOTHING_DONE),
    ),
    "diff": Help(
        (
            (
                "evalkit diff samples --base HEAD --config-dir config_samples",
                "what your uncommitted rule edits change on the samples",
            ),
            (
                "evalkit diff samples --base main --config-dir config_samples --format markdown",
                "the same against a branch, as Markdown for a pull request comment",
            ),
            (
                "evalkit diff samples --base HEAD --config-dir config_samples --max-label-changes 5%",
                "a CI gate: fail when more than 5% of the submissions change label",
            ),
        ),
        (
            "compared",
            "a gate failed (--fail-on-change, --max-label-changes) or some submission could not be read",
            "nothing compared: bad usage, a revision git does not know, an invalid config on either side",
        ),
    ),
    "stats": Help(
        (
            ("evalkit stats me.decisions.jsonl", "per rule: proposals accepted, discarded, edited"),
            (
                "evalkit stats me.decisions.jsonl --format html --out stats.html",
                "the same as a page with charts, one self-contained file",
            ),
        ),
        ("the report was made", "(not used)", NOTHING_DONE),
    ),
    "review": Help(
        (
            ("evalkit review samples", "step through the samples in the terminal; decisions are journalled"),
            (
                "evalkit review samples --decisions me.decisions.jsonl --export decisions.jsonl",
                "no screen: write the reviewed results as JSON Lines, for a pipeline",
            ),
        ),
        ("the reviewer quit, every decision saved", "some input could not be read", NOTHING_DONE),
    ),
    "lsp": Help(
        (
            ("evalkit lsp", "the language server on stdio: your editor starts it (see the README's editors)"),
            ("evalkit lsp --log-file lsp.log --verbose", "the same, logging each message to lsp.log"),
        ),
        (
            "the client asked the server to exit after its shutdown request",
            "the client asked it to exit without a shutdown request (the protocol's rule)",
            "the log file cannot be opened",
        ),
    ),
    "score": Help(
        (
            ("evalkit score rows.jsonl", "score each row; a summary per scorer on stderr"),
            (
                "evalkit score rows.jsonl --out scores.jsonl --jobs 2",
                "the same on two processes, one score line per row, in order",
            ),
        ),
        ("every row scored", "some row could not be read or scored (each is named)", NOTHING_DONE),
    ),
    "schema": Help(
        (
            ("evalkit schema", "the names of the file formats"),
            ("evalkit schema rules > rules.schema.json", "the JSON Schema of rules.yaml, for an editor"),
        ),
        ("printed", "(not used)", "no schema of that name"),
    ),
    "queue": Help(
        (
            (
                "evalkit queue init team.db --config-dir config_samples --per-item 2",
                "a queue on SQLite where each submission gets two reviewers (postgresql://... for a server)",
            ),
            ("evalkit queue add team.db samples", "add submissions; one already queued is skipped"),
            ("evalkit queue status team.db", "progress per reviewer and item, and agreement so far"),
        ),
        ("done", "(not used)", "nothing done: bad usage, a URL that is no queue or cannot be reached"),
    ),
    "keygen": Help(
        (
            ("evalkit keygen --out team", "a key pair: team.key (private, mode 0600) and team.pub"),
            (
                "EVALKIT_KEY_PASSWORD=secret evalkit keygen --out ci",
                "the same with the private key encrypted (a terminal asks for the passphrase instead)",
            ),
        ),
        ("written", "(not used)", "nothing written: a file of that name exists, or bad usage"),
    ),
    "verify": Help(
        (
            (
                "evalkit verify results.jsonl.sigstore.json --key me.pub",
                "check a signed run: the signature, and every file it names against its digest",
            ),
            ("evalkit verify me.decisions.jsonl", "check a review journal's hash chain"),
        ),
        (
            "verified",
            "a check failed, each named: a file changed, the wrong key, a bad timestamp, a broken chain",
            "bad usage or unreadable files",
        ),
    ),
}
"""Each subcommand's help, by its name in `evalkit.cli.COMMANDS`."""
