"""The reviewer TUI (`evalkit review`): a thin Textual layer over the engine.

Pure modules (no Textual): `proposals` and `decisions` (re-exported from the services, where `evalkit
stats` reads them too), `journal`, `filters`, `edits`, `export`, `changes`, `model`, `watcher`, `render`
(Rich only). Textual modules: `app`, `queue_view`, `proposals_table`, `detail`, `screens`, `commands`,
with styles in `app.tcss`.
"""
