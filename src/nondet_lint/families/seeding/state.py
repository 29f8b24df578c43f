"""What the seeding collector and its collaborators share while one module is walked.

``Scope`` is one function body being walked; ``Candidates`` holds the candidate findings
and the anchors (nodes pass 2 needs a position for) by index; ``WalkPosition`` is what
the collaborators (``values.ValueFlow``, ``callsites.CallSites``) may ask the collector
about the point the walk has reached.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Protocol, Sequence, Set, Tuple

import libcst as cst

from nondet_lint.context import PendingFix
from nondet_lint.families.seeding.conditions import Cond, Plain, ValueDesc
from nondet_lint.families.seeding.events import Guard, SeedingEvent, Trained
from nondet_lint.families.seeding.payloads import CandidateValues, Draw

MODULE, MAIN = "<module>", "<main>"


class Scope:
    """A function body (or the module body, or the main block) being walked."""

    def __init__(self, name: str, params: Sequence[str] = (), defaults: Optional[Dict[str, Plain]] = None,
                 cls: Optional[str] = None, shared: Optional["Scope"] = None) -> None:
        self.name = name
        self.events: List[SeedingEvent] = []
        self.roots: List[Optional[str]] = []  # root name each event's resolution relied on
        self.params = list(params)
        self.kwonly: List[str] = []  # keyword-only parameters
        self.varkw: Optional[str] = None  # the ``**kwargs`` parameter
        self.typed: Dict[str, str] = {}  # parameter -> the class its annotation names
        self.defaults = defaults or {}
        self.cls = cls
        self.assigned: Set[str] = set()
        self.globals: Set[str] = set()
        self.guards: List[Dict[str, Any]] = []
        self.after: List[Dict[str, Any]] = []  # guards of early returns, for the rest
        # what it looks up (``task = REGISTRY[name]``, ``builder = lookup(name)``): the locals
        # bound to such a value, the methods it calls on one (``REGISTRY[name].add_args(p)``),
        # and whether it may make one (calls one, passes one on, or returns a value)
        self.found: Set[str] = set()
        self.found_methods: Set[str] = set()
        self.makes_found = False
        self.sunk_params: Set[str] = set()
        self.assigned_attrs: Set[str] = set()  # ``args.seed = ...``: no longer the default
        self.names: Set[str] = set()  # the attribute names its code reads or calls (``obj.name``)
        self.trains = Trained.NOTHING  # the most its evidence of training trains
        # what each ``return`` gives (None where it cannot be described)
        self.returns: List[Optional[ValueDesc]] = []
        # the main block shares the module's names
        self.types: Dict[str, str] = shared.types if shared is not None else {}
        self.taint: Dict[str, int] = shared.taint if shared is not None else {}
        self.local_defs: Dict[str, str] = shared.local_defs if shared is not None else {}
        # locals bound once so far to a described value (``encoder_type = config.type``);
        # None once bound again: the value depends on the path taken
        self.values: Dict[str, Optional[ValueDesc]] = shared.values if shared is not None else {}
        # the branches (ids of ``guards`` entries) each of ``values`` was bound in
        self.value_guards: Dict[str, Tuple[Tuple[int, Optional[Cond]], ...]] = shared.value_guards if shared is not None else {}
        # locals bound to an object a project call made here (``memory = Memory(...)``), to
        # the targets of those calls, until their first read (``Collector.visit_Name``)
        self.held: Dict[str, List[str]] = {}
        self.loops: List[int] = []  # the read count at the start of each loop the walk is in

    def add(self, event: SeedingEvent, root: Optional[str] = None) -> int:
        self.events.append(event)
        self.roots.append(root)
        return len(self.events) - 1


@dataclass
class Candidate:
    """A finding pass 2 may report at ``node``, or (no ``code``) an anchor: a node whose
    position pass 2 needs to place a message or a fix."""

    node: cst.CSTNode
    code: str
    values: Optional[CandidateValues]  # None for an anchor
    fix: Optional[PendingFix] = None
    live: bool = True  # False: the name it relied on turned out to be shadowed


class Candidates:
    """Candidate findings and anchors, by index: events refer to them by index (``cid``),
    and they are handed to the engine at the end of the file (``collect.Collector._emit``)."""

    def __init__(self) -> None:
        self.items: List[Candidate] = []
        self.anchor_ids: Dict[int, int] = {}

    def add(self, node: cst.CSTNode, code: str, values: Optional[CandidateValues], fix: Optional[PendingFix] = None) -> int:
        self.items.append(Candidate(node, code, values, fix))
        return len(self.items) - 1

    def anchor(self, node: cst.CSTNode) -> int:
        """The index of a node whose position pass 2 needs (a seed, a guard, an option)."""
        key = id(node)
        found = self.anchor_ids.get(key)
        if found is None:
            found = self.add(node, "", None)
            self.anchor_ids[key] = found
        return found

    def mark_seed_value(self, cid: int) -> None:
        """The draw ``cid`` makes a value that reaches a seed."""
        item = self.items[cid]
        if isinstance(item.values, Draw):
            item.values = replace(item.values, seed_value=True)

    def drop(self, cid: int) -> None:
        """The candidate turned out not to be what it seemed (a shadowed name)."""
        self.items[cid].live = False


class WalkPosition(Protocol):
    """Where the collector's walk is: the scope, the guards around, and how it reads names."""

    module_scope: Scope

    @property
    def scope(self) -> Scope: ...

    def guards(self) -> List[Guard]: ...

    def describe(self, node: cst.BaseExpression) -> Optional[ValueDesc]: ...

    def target(self, func: cst.BaseExpression) -> Tuple[Optional[str], Optional[str], bool]: ...

    def lookup(self, table: str, name: str) -> Any: ...

    def class_bases(self) -> List[str]: ...
