"""``python -m nondet_lint``."""

import os
import sys

# ``python -m`` puts the working folder first on ``sys.path``. Inside a checkout being
# linted, a file named like a module this tool imports later (``libcst.py``) would then be
# imported, that is run: drop the entry before importing anything else.
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

try:
    from nondet_lint.cli import console  # noqa: E402
except KeyboardInterrupt:  # Ctrl-C while starting up: no traceback either
    sys.stderr.write("nondet-lint: interrupted\n")
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(console())
