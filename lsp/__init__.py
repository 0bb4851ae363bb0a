"""The evalkit language server: `evalkit lsp` (pygls, stdio).

`server` holds the thin LSP handlers; `session` the live pipeline (debounced checks, diagnostics, the
dry run); `yamlcontext`, `schemanav`, `completion`, `hover`, `symbols`, `quickfix`, `lenses`, `dryrun`
and `convert` the pure translations between the engine, the schemas and LSP. Importing this package
imports nothing else; pygls is loaded by `evalkit.lsp.server`.
"""
