"""What the seeding collector and its collaborators share while one module is walked.

``Scope`` is one function body being walked; ``Candidates`` holds the candidate findings
and the anchors (nodes pass 2 needs a position for) by index; ``WalkPosition`` is what
the collaborators (``values.ValueFlow``, ``callsites.CallSites``) may ask the collector
about the point the walk has reached.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Protocol, Sequence, Set, Tuple

import libcst as cst

from nondet_lint.context import PendingFix

FACT = "seeding"
MODULE, MAIN = "<module>", "<main>"


class Scope:
    """A function body (or the module body, or the main block) being walked."""

    def __init__(self, name: str, params: Sequence[str] = (), defaults: Optional[Dict[str, Any]] = None,
                 cls: Optional[str] = None, shared: Optional["Scope"] = None) -> None:
        self.name = name
        self.events: List[List[Any]] = []
        self.roots: List[Optional[str]] = []  # root name each event's resolution relied on
        self.params = list(params)
        self.defaults = defaults or {}
        self.cls = cls
        self.assigned: Set[str] = set()
        self.globals: Set[str] = set()
        self.guards: List[Dict[str, Any]] = []
        self.after: List[Dict[str, Any]] = []  # guards of early returns, for the rest
        self.sunk_params: Set[str] = set()
        self.assigned_attrs: Set[str] = set()  # ``args.seed = ...``: no longer the default
        self.trains = False
        if shared is not None:  # the main block shares the module's names
            self.types, self.taint, self.local_defs = shared.types, shared.taint, shared.local_defs
        else:
            self.types: Dict[str, str] = {}
            self.taint: Dict[str, int] = {}
            self.local_defs: Dict[str, str] = {}

    def add(self, event: List[Any], root: Optional[str] = None) -> int:
        self.events.append(event)
        self.roots.append(root)
        return len(self.events) - 1


class Candidates:
    """Candidate findings (``[node, code, payload, live, fix]``) and anchors, by index:
    events refer to them by index (``cid``), and they are handed to the engine at the end
    of the file (``Collector.emit``)."""

    def __init__(self) -> None:
        self.items: List[List[Any]] = []
        self.anchor_ids: Dict[int, int] = {}

    def add(self, node: cst.CSTNode, code: str, payload: Dict[str, Any], fix: Optional[PendingFix] = None) -> int:
        self.items.append([node, code, dict(payload), True, fix])
        return len(self.items) - 1

    def anchor(self, node: cst.CSTNode) -> int:
        """The index of a node whose position pass 2 needs (a seed, a guard, an option)."""
        key = id(node)
        found = self.anchor_ids.get(key)
        if found is None:
            found = self.add(node, "", {})
            self.anchor_ids[key] = found
        return found

    def payload(self, cid: int) -> Dict[str, Any]:
        return self.items[cid][2]

    def drop(self, cid: int) -> None:
        """The candidate turned out not to be what it seemed (a shadowed name)."""
        self.items[cid][3] = False


class WalkPosition(Protocol):
    """Where the collector's walk is: the scope, the guards around, and how it reads names."""

    module_scope: Scope

    @property
    def scope(self) -> Scope: ...

    def guards(self) -> List[List[Any]]: ...

    def describe(self, node: cst.BaseExpression) -> Optional[List[Any]]: ...

    def target(self, func: cst.BaseExpression) -> Tuple[Optional[str], Optional[str], bool]: ...

    def lookup(self, table: str, name: str) -> Any: ...
