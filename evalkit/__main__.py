"""`python -m evalkit`: the same as the `evalkit` command."""

import sys

from evalkit.cli import main

sys.exit(main())
