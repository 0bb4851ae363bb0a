"""Reading what a command is given: submission files, JSONL, folders, standard input; fingerprints."""
