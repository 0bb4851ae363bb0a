"""evalkit's application services: what the commands, the language server and the reviewer app do with the
engine, and the files they read and write.

The engine (`evalkit.engine`) is the pure core: load, validate, compile, evaluate, the result. Everything
here sits on top of it and imports only downward (services → engine; never lsp, tui or the commands):

- evaluating without raising: `evaluation` (a `Result` or an `EvaluationFailure`, for every face that
  evaluates many submissions), `samples` (the sample dry run of `check --samples` and the language server);
- `usage`: `UsageProblem`, what a command raises when its arguments leave nothing to do (exit code 2);
  `config_files`: the one refusal of a config folder without config files;
- reading inputs and writing outputs: `inputs` (files, JSON Lines, folders, pipes), `atomic` (outputs that
  appear whole or not at all), `report_md` (the Markdown report);
- `evalkit eval`: `batch` (streamed, ordered evaluation), `workers` (process pools that die with the
  command), `config_cache` (the signed compiled-config cache);
- `evalkit check` and `evalkit test`: `check`, `check_reporters`, `ruletest_load`, `ruletest_run`,
  `ruletest_explain`, `ruletest_update`;
- `evalkit diff`: `diff`, `diffrender`, `gitrev`;
- reviewers' work: `proposals`, `decisions`, `journal`, `reviews`, `review_files` (the names of review's
  journal and export), and `evalkit stats` (`stats`, `agreement`, `stats_report`, `stats_html`);
- `fingerprints`: has a file changed since we last looked (the language server's caches, the reviewer
  app's config watcher).
"""
