"""Values that change from run to run, followed to the seeds they reach (ND107).

A source (``time.time()``, ``os.urandom``, ``hash()`` of a str) or a draw from a global RNG
is *marked* where it is made; the mark travels through assignments (``seed = ...``,
``args.seed = ...``) and into calls.  When a marked value reaches a seed, its *origin* is
recorded as plain data: reported in pass 2 once, where the value was made.  A draw is
reported only when its RNG is not seeded at that point, which pass 2 knows.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

import libcst as cst

from nondet_lint.context import FileContext
from nondet_lint.families.seeding.conditions import ValueSource, negate, parse_guard
from nondet_lint.families.seeding.events import Guard
from nondet_lint.families.seeding.facts import Origin, OriginKind
from nondet_lint.families.seeding.state import Candidates, WalkPosition
from nondet_lint.names import dotted_name
from nondet_lint.walk import children


class ValueFlow:
    """The marks, their origins and where they sink, for one module; asks the walk
    (``WalkPosition``) where it is and records anchors and seed values in ``candidates``."""

    def __init__(self, ctx: FileContext, walk: WalkPosition, candidates: Candidates) -> None:
        self.ctx = ctx
        self.walk = walk
        self.candidates = candidates
        self.marks: Dict[int, Tuple[Any, ...]] = {}  # id(node) -> value that varies per run
        self.mark_nodes: Dict[int, cst.CSTNode] = {}
        self.mark_guards: Dict[int, List[Guard]] = {}
        self.mark_scopes: Dict[int, str] = {}  # id(node) -> the function a source is made in
        self.holds_mark: Set[int] = set()
        self.origins: List[Origin] = []
        self.origin_ids: Dict[int, int] = {}
        self.sunk_options: Set[str] = set()  # command-line options used as seeds
        self.sunk_globals: Set[str] = set()  # module names used as seeds
        self.text_seeds: Set[int] = set()  # draws that seed a generator whose draws only become text

    def mark(self, node: cst.Call, what: Tuple[Any, ...]) -> None:
        """``node`` makes a value that varies per run (a source: ``("src", what)``)."""
        self.marks[id(node)] = what
        self.mark_nodes[id(node)] = node
        self._note_mark(node)
        self.mark_guards[id(node)] = self.walk.guards() + self._branch_guards(node)
        self.mark_scopes[id(node)] = self.walk.scope.name

    def branch_guards(self, node: cst.CSTNode) -> List[Guard]:
        """The guards of the expression branches ``node`` sits in: it runs only when they hold."""
        return self._branch_guards(node)

    def draw(self, node: cst.Call, rng: str, cid: int) -> None:
        """``node`` draws from a global RNG (candidate ``cid``): its value varies unless seeded."""
        self.marks[id(node)] = ("draw", rng, cid)
        self.mark_nodes[id(node)] = node
        self._note_mark(node)

    def may_hold_mark(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` can hold a marked value (cheap: no scan)."""
        return id(node) in self.holds_mark or bool(self.walk.scope.taint) or bool(self.walk.module_scope.taint)

    def origin_of(self, node: cst.CSTNode) -> Origin:
        """The origin record of a draw whose value reached a seed."""
        return self.origins[self.origin_ids[id(node)]]

    def _branch_guards(self, node: cst.CSTNode) -> List[Guard]:
        """Guards of the conditional expressions (``a if c else b``) and of the right sides
        of ``or`` / ``and`` (``args.seed or random.randint(...)`` draws only when the
        option is falsy) that ``node`` sits in."""
        out: List[Guard] = []
        child = node
        for ancestor in reversed(self.ctx.ancestors):
            if _is_statement(type(ancestor)):
                break
            if type(ancestor) is cst.IfExp and child is not ancestor.test:
                cond = parse_guard(ancestor.test, self.walk.describe)
                if cond is not None:
                    out.append(Guard(cond if child is ancestor.body else negate(cond), self.candidates.anchor(ancestor.test)))
            elif type(ancestor) is cst.BooleanOperation and child is ancestor.right:
                cond = parse_guard(ancestor.left, self.walk.describe)
                if cond is not None:
                    taken = cond if isinstance(ancestor.operator, cst.And) else negate(cond)
                    out.append(Guard(taken, self.candidates.anchor(ancestor.left)))
            child = ancestor
        return out

    def _note_mark(self, node: cst.CSTNode) -> None:
        """Remember which enclosing expressions hold a marked value (no scan later)."""
        self.holds_mark.add(id(node))
        for ancestor in reversed(self.ctx.ancestors):
            if isinstance(ancestor, (cst.BaseStatement, cst.BaseSuite)):
                break
            self.holds_mark.add(id(ancestor))

    def value_mark(self, value: cst.BaseExpression) -> Optional[int]:
        """The first value in ``value`` that changes between runs, as a mark key."""
        if not self.may_hold_mark(value):
            return None
        scope, module_scope = self.walk.scope, self.walk.module_scope
        stack: List[cst.CSTNode] = [value]
        while stack:
            node = stack.pop()
            key = id(node)
            if key in self.marks:
                return key
            if isinstance(node, (cst.Name, cst.Attribute)):
                dotted = dotted_name(node)
                if dotted is not None:
                    found = scope.taint.get(dotted)
                    if found is None and (dotted.split(".")[0] not in scope.assigned or scope is module_scope):
                        found = module_scope.taint.get(dotted)
                    if found is not None:
                        return found
            if isinstance(node, (cst.Lambda, cst.FunctionDef)):
                continue
            stack.extend(reversed(children(node)))
        return None

    def origin(self, mark: int) -> Origin:
        """The origin record of a mark (created the first time a seed receives it)."""
        found = self.origin_ids.get(mark)
        if found is not None:
            return self.origins[found]
        kind = self.marks[mark]
        node = self.mark_nodes.get(mark)
        if kind[0] == "src":
            anchor = self.candidates.anchor(node) if node is not None else None
            origin = Origin(len(self.origins), OriginKind.SOURCE, what=kind[1], anchor=anchor, guards=tuple(self.mark_guards.get(mark, ())),
                            function=self.mark_scopes.get(mark, ""))
        else:
            origin = Origin(len(self.origins), OriginKind.DRAW, rng=kind[1], cid=kind[2])
            self.candidates.mark_seed_value(kind[2])
        self.origin_ids[mark] = origin.id
        self.origins.append(origin)
        return origin

    def seeds_text(self, value: Optional[cst.BaseExpression]) -> None:
        """``value`` seeds a generator whose draws only become text (``textonly``): not a
        seed of any result.  A draw from a global RNG that makes it is no use of that RNG
        either, unless its value also reaches a seed or a call (an origin is made)."""
        mark = self.value_mark(value) if value is not None else None
        kind = self.marks.get(mark, ()) if mark is not None else ()
        if kind and kind[0] == "draw":
            self.text_seeds.add(kind[2])

    def sink(self, value: Optional[cst.BaseExpression]) -> None:
        """``value`` is used as a seed."""
        if value is None:
            return
        mark = self.value_mark(value)
        if mark is not None:
            self.origin(mark).sunk = True
            return
        desc = self.walk.describe(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        if desc is None:
            return
        if desc.source is ValueSource.PARAMETER:
            self.walk.scope.sunk_params.add(desc.name)
        elif desc.source is ValueSource.OPTION:
            self.sunk_options.add(desc.name)
        elif desc.source is ValueSource.GLOBAL:
            self.sunk_globals.add(desc.name)


_STATEMENTS: Dict[type, bool] = {}


def _is_statement(kind: type) -> bool:
    """``issubclass(kind, (BaseStatement, BaseSmallStatement))``, remembered by type: an
    isinstance() against libcst's abstract classes costs much, and this runs for every
    call's ancestors."""
    found = _STATEMENTS.get(kind)
    if found is None:
        found = _STATEMENTS[kind] = issubclass(kind, (cst.BaseStatement, cst.BaseSmallStatement))
    return found
