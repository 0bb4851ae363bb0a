"""`evalkit diff`: the impact of a config change on a corpus, and its renderings."""
