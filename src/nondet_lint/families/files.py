"""The non-Python files some family reads, each with the checker that reads it: requirement
files (ND401) and CUDA sources (ND207).

Kept apart from ``registry``, and without libcst, so that the engine can read these files
in a run whose Python files all come from the cache without importing the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from nondet_lint.families.environment import candidates
from nondet_lint.families.kernels import atomics

if TYPE_CHECKING:
    from nondet_lint.check import FileChecker

FILE_CHECKERS: "Sequence[FileChecker]" = [*candidates.FILE_CHECKERS, *atomics.FILE_CHECKERS]
