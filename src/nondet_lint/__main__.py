"""``python -m nondet_lint``."""

import sys

from nondet_lint.cli import main

if __name__ == "__main__":
    sys.exit(main())
