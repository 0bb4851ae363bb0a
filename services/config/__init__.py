"""A config folder: refused alike when missing, cached once compiled, read at a git revision."""
