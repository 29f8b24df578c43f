"""Declarative rule data (TOML), installed as the ``nondet_lint.rules`` package."""
