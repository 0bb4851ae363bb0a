"""One module per `evalkit` subcommand, each with `configure(parser)` and `run(args) -> int`.

A module imports only argparse at import time; everything else is imported inside `run()`.
"""
