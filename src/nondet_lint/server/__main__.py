"""``python -m nondet_lint.server``."""

import os
import sys

# as in ``nondet_lint/__main__.py``: ``python -m`` puts the working folder first on
# ``sys.path``, and a file of the project being linted must never shadow a module
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from nondet_lint.server import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
