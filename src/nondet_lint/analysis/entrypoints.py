"""Which modules are entry points: programs that run, as opposed to library code.

An entry point (docs/contract.md) is a module with an ``if __name__ == "__main__":`` block, a module whose
top-level statements do the work (a script), or a notebook.  A script is recognised by
top-level loops, or top-level calls that are not the bookkeeping library modules also do
at import (logging setup, warnings filters, registries, ``sys.path`` edits).  Library
modules also fill registries in top-level loops, so a would-be script that another module
of the project imports is library code: the ``Project`` marks it ``imported`` once every
module is indexed (``mark_imported_scripts``).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping, Set

import libcst as cst

from nondet_lint.check import Check

FACT = "entry"

# top-level calls that library modules make at import time: not evidence of a script
_IMPORT_TIME_CALLS = (
    "logging.", "warnings.", "sys.path.", "os.environ.", "atexit.", "register",
    "setattr", "print", "_register", "__all__", "collections.namedtuple", "typing.",
    "dataclasses.", "functools.", "set_verbosity", "get_logger", "getLogger",
)


def is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` in either order."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    has_name = any(isinstance(side, cst.Name) and side.value == "__name__" for side in sides)
    has_main = any(
        isinstance(side, cst.SimpleString) and side.evaluated_value == "__main__" for side in sides
    )
    return has_name and has_main


def _call_name(call: cst.Call) -> str:
    func = call.func
    parts = []
    while isinstance(func, cst.Attribute):
        parts.append(func.attr.value)
        func = func.value
    if isinstance(func, cst.Name):
        parts.append(func.value)
    return ".".join(reversed(parts))


def _is_bookkeeping(call: cst.Call) -> bool:
    name = _call_name(call)
    return any(name.startswith(prefix) or name.endswith(prefix) for prefix in _IMPORT_TIME_CALLS)


def entry_facts(ctx: Any) -> Dict[str, Any]:
    """``facts["entry"]`` of the file: read from its top-level statements alone, so checks
    that only matter in entry points can decline other files before the walk."""
    found = ctx.shared.get(FACT)
    if found is not None:
        return found
    main_guard = False
    script = False
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.If) and is_main_guard(stmt.test):
            main_guard = True
        elif isinstance(stmt, (cst.For, cst.While)):
            script = True
        elif isinstance(stmt, cst.With) and not _with_is_bookkeeping(stmt):
            script = True
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                value = getattr(small, "value", None)
                if isinstance(small, cst.Expr) and isinstance(value, cst.Call) and not _is_bookkeeping(value):
                    script = True
    found = ctx.shared[FACT] = {
        "main_guard": main_guard,
        "script": script,
        # a notebook's code cells run top to bottom (``notebooks`` joins them)
        "notebook": ctx.path.endswith(".ipynb"),
        # what this module imports, to tell scripts from library modules project-wide
        "imports": sorted(ctx.imports.imported_modules),
    }
    return found


class EntryPoints(Check):
    """Records ``facts["entry"] = {"main_guard": bool, "script": bool, "notebook": bool, "imports": [...]}``."""

    def finish(self) -> None:
        self.ctx.facts[FACT] = entry_facts(self.ctx)


def _with_is_bookkeeping(stmt: cst.With) -> bool:
    return all(isinstance(item.item, cst.Call) and _is_bookkeeping(item.item) for item in stmt.items)


def is_entry_point(facts: Mapping[str, Any]) -> bool:
    """Whether a module's facts (``ModuleRecord.facts``) describe an entry point."""
    entry = facts.get(FACT, {})
    script = entry.get("script") and not entry.get("imported")
    return bool(entry.get("main_guard") or entry.get("notebook") or script)


def imported_names(all_facts: Iterable[Mapping[str, Any]]) -> Set[str]:
    """Every module name that some module of the project imports."""
    names: Set[str] = set()
    for facts in all_facts:
        names.update(facts.get(FACT, {}).get("imports", ()))
    return names


def mark_imported_scripts(records: Dict[str, Any], module_names: Mapping[str, str]) -> None:
    """Mark would-be scripts that other project modules import as library code.

    ``records`` maps path to facts (updated in place with copies); ``module_names`` maps
    path to dotted module name.  A module answers to every dotted suffix of its name
    (``pkg.layers.act`` is also ``layers.act``), as imports in ML repositories vary.
    """
    imported = imported_names(records.values())
    for path, facts in records.items():
        entry = facts.get(FACT)
        if not entry or not entry.get("script") or entry.get("main_guard"):
            continue
        parts = module_names[path].split(".")
        if any(".".join(parts[i:]) in imported for i in range(len(parts))):
            records[path] = {**facts, FACT: {**entry, "imported": True}}

