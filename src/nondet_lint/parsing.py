"""Parsing source with libcst, without validating again what its parser just built.

Every libcst node checks its own fields when it is constructed (``CSTNode.__post_init__``
calls ``_validate``).  That protects trees that people build by hand; a tree built by the
parser from real source is valid by construction, and libcst's own comment on
``__post_init__`` suggests skipping the work when parsing.  On timm the checks cost about
a tenth of ``parse_module``.  Code generation, and so every position and fix, is the same.

The switch is a class attribute of libcst, so parsing here is not safe to run while
another thread of the same process builds libcst nodes (ours never do: the CLI and its
workers are single-threaded, and flake8 runs plugins in processes).
"""

from __future__ import annotations

from typing import Union

import libcst as cst
from libcst._nodes.base import CSTNode

_VALIDATING = CSTNode.__dict__.get("__post_init__")


def _trusted(self: CSTNode) -> None:
    """Stands in for ``CSTNode.__post_init__`` while the parser builds a tree."""


def parse_module(source: Union[str, bytes]) -> cst.Module:
    """``libcst.parse_module`` without per-node validation (see the module docstring)."""
    if _VALIDATING is None:  # a libcst without the hook: parse as it does
        return cst.parse_module(source)
    CSTNode.__post_init__ = _trusted  # type: ignore[method-assign]
    try:
        return cst.parse_module(source)
    finally:
        CSTNode.__post_init__ = _VALIDATING  # type: ignore[method-assign]
