"""`UsageProblem`: what every command raises when its arguments leave nothing to do (exit code 2).

Its own small module, so a command that needs nothing else of evalkit's services (`evalkit score`) does not
import the engine to say so. The command prints the message, prefixed with its name, and exits 2.
"""


class UsageProblem(Exception):
    """A PATH, option or input that leaves nothing to do (exit code 2); the message names it and says why."""
