"""nondet-lint: find sources of run-to-run non-determinism in Python ML code."""

__version__ = "0.2.0"
