"""The checks, one module per rule family. ``all_checks()`` lists every check class."""

from __future__ import annotations

from typing import List, Type

from nondet_lint.checks.base import Check


def all_checks() -> List[Type[Check]]:
    # imported here so that adding a family is one line and imports point one way
    from nondet_lint.analysis import entrypoints
    from nondet_lint.checks import data
    from nondet_lint.checks import environment
    from nondet_lint.checks import kernels
    from nondet_lint.checks import seeding

    return [*entrypoints.CHECKS, *kernels.CHECKS, *environment.CHECKS, *data.CHECKS, *seeding.CHECKS]
