"""ND401 candidates from a ``setup.py``: the ``install_requires`` and ``extras_require`` of
its ``setup(...)`` call.

Only what the file spells out is read: a literal list (or tuple) of strings, a name
bound at the top level of the module to one (``REQUIRED = [...]``; ``setup(...,
install_requires=REQUIRED)``), or a sum of those (``REQUIRED + ["timm"]``); for
``extras_require``, a literal dict (or a top-level name bound to one) of such lists,
each entry belonging to its extra's group.  A list read from a file or built at run
time is not guessed at.  Each tracked requirement becomes a candidate with the payload requirement
files give, of the package-metadata kind (an exact pin in an environment file of the
project covers it), decided with them in pass 2 by ``check.UnpinnedFramework``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from nondet_lint.check import Check
from nondet_lint.context import FileContext
from nondet_lint.families.environment.candidates import CODE, RequirementCandidate, is_tracked, tracked_patterns
from nondet_lint.families.environment.requirements import parse_requirement

KIND = "setup.py"
SETUP_CALLS = frozenset(("setuptools.setup", "distutils.core.setup"))


class SetupRequires(Check):
    """ND401 candidates from ``setup.py`` (see the module docstring)."""

    codes = (CODE,)
    decides = ()  # decided by check.UnpinnedFramework with the requirement files' candidates

    @classmethod
    def runs_on(cls, ctx: FileContext) -> bool:
        return os.path.basename(ctx.path) == "setup.py"

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.lists: Dict[str, cst.BaseExpression] = {}
        self.calls: List[cst.Call] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        parent = self.ctx.parent(node)
        if parent is not None and isinstance(self.ctx.parent(parent), cst.Module):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.lists[target.target.value] = node.value

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualname(node.func) in SETUP_CALLS:
            self.calls.append(node)

    def finish(self) -> None:
        patterns = tracked_patterns(self.ctx.rules, self.ctx.config)
        for call in self.calls:
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "install_requires":
                    self._defer_strings(self._strings(arg.value), patterns, "")
                elif arg.keyword is not None and arg.keyword.value == "extras_require":
                    for group, value in self._extras(arg.value):
                        self._defer_strings(self._strings(value), patterns, group)

    def _extras(self, value: Optional[cst.BaseExpression]) -> List[Tuple[str, cst.BaseExpression]]:
        """``(extra name, its list)`` of a literal dict, or of a top-level name bound to one."""
        if isinstance(value, cst.Name):
            value = self.lists.get(value.value)
        if not isinstance(value, cst.Dict):
            return []
        out = []
        for element in value.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                key = element.key.evaluated_value
                if isinstance(key, str):
                    out.append((key, element.value))
        return out

    def _strings(self, value: Optional[cst.BaseExpression], depth: int = 0) -> List[cst.BaseExpression]:
        """The elements of a literal list, of a top-level name bound to one, or of a sum of them."""
        if value is None or depth > 4:
            return []
        if isinstance(value, cst.Name):
            return self._strings(self.lists.get(value.value), depth + 1)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
            return self._strings(value.left, depth + 1) + self._strings(value.right, depth + 1)
        if isinstance(value, (cst.List, cst.Tuple)):
            return [element.value for element in value.elements if isinstance(element, cst.Element)]
        return []

    def _defer_strings(self, strings: List[cst.BaseExpression], patterns: Any, group: str) -> None:
        for string in strings:
            if not isinstance(string, cst.SimpleString) or not isinstance(string.evaluated_value, str):
                continue
            requirement = parse_requirement(string.evaluated_value, self.ctx.path, kind=KIND)
            if requirement is None or not is_tracked(requirement.name, patterns):
                continue
            candidate = RequirementCandidate(requirement.name, requirement.raw, bool(requirement.pinned), False, KIND, group)
            self.ctx.defer(string, CODE, **candidate.to_json())
