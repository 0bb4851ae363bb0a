"""`evalkit check` without the command line: the checks, their reporters, the sample dry run."""
