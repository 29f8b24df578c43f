"""Which checks can matter for a file, decided from its imports before the walk.

A rule whose data names only, say, ``torch`` APIs cannot match in a module that never
imports ``torch``: names are resolved through the module's imports (``ctx.qualname``),
never by spelling. Rule files declare this as ``requires`` (see ``ruledata``); a check
runs on a file when one of its enabled rules has no ``requires``, or the file imports one
of the required modules, or the file itself belongs to one of them (linting the
library's own source, where its names resolve through local definitions), or the file
star-imports a module whose bindings only the project knows.

Parsing is never skipped: the project analyses (entry points, calls between project
modules) need every module, and ND000 must see every syntax error.
"""

from __future__ import annotations

from functools import lru_cache
from typing import FrozenSet, Iterable, List, Optional, Set, Tuple, Type

from nondet_lint.check import Check
from nondet_lint.context import FileContext
from nondet_lint.names import ImportMap
from nondet_lint.ruledata import RuleSet


@lru_cache(maxsize=1024)
def check_requires(check: Type[Check], rules: RuleSet, enabled: FrozenSet[str]) -> Optional[Tuple[str, ...]]:
    """The modules a check needs, or None when it must run on every file (the same for
    every file of a run: cached)."""
    # the codes it decides say what it needs; codes it only feeds (ops listed in ND205's
    # message) count when none of its own is enabled
    codes = [code for code in check.decided_codes() if code in enabled and code in rules]
    codes = codes or [code for code in check.codes if code in enabled and code in rules]
    if not codes:
        return None
    needed: Set[str] = set()
    for code in codes:
        requires = rules[code].requires
        if not requires:
            return None
        needed.update(requires)
    return tuple(sorted(needed))


def wanted(requires: Optional[Tuple[str, ...]], imports: ImportMap, module_name: str) -> bool:
    """A module that star-imports a module no rule data describes may get any name from
    it (``from .common import *`` where ``common`` imports torch): every check runs."""
    if requires is None or imports.unknown_stars:
        return True
    top = module_name.split(".")[0]
    return top in requires or imports.mentions(*requires)


def active_checks(checks: Iterable[Type[Check]], rules: RuleSet, enabled: FrozenSet[str], ctx: FileContext) -> List[Type[Check]]:
    """The checks to run on one file: enabled, able to match given its imports, and
    not declining the file (``Check.runs_on``)."""
    out = []
    for check in checks:
        if check.codes and not any(code in enabled for code in check.codes):
            continue
        # a class is hashable: mypy checks the unbound ``__hash__`` of its instances
        if wanted(check_requires(check, rules, enabled), ctx.imports, ctx.module_name) and check.runs_on(ctx):  # type: ignore[arg-type]
            out.append(check)
    return out
