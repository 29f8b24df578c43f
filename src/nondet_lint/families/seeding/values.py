"""Values that change from run to run, followed to the seeds they reach (ND107).

A source (``time.time()``, ``os.urandom``, ``hash()`` of a str) or a draw from a global RNG
is *marked* where it is made; the mark travels through assignments (``seed = ...``,
``args.seed = ...``) and into calls.  When a marked value reaches a seed, its *origin* is
recorded as plain data: reported in pass 2 once, where the value was made.  A draw is
reported only when its RNG is not seeded at that point, which pass 2 knows.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from nondet_lint.families.seeding.conditions import negate, parse_guard
from nondet_lint.names import dotted_name
from nondet_lint.walk import children


class ValueFlow:
    """Mixed into ``collect.Collector`` (uses its ``ctx``, scopes and candidates)."""

    def _mark(self, node: cst.Call, what: Tuple[Any, ...]) -> None:
        self.marks[id(node)] = what
        self.mark_nodes[id(node)] = node
        self._note_mark(node)
        self.mark_guards[id(node)] = self._guards() + self._branch_guards(node)

    def _branch_guards(self, node: cst.CSTNode) -> List[List[Any]]:
        """Guards of the conditional expressions (``a if c else b``) ``node`` sits in."""
        out = []
        child = node
        for ancestor in reversed(self.ctx.ancestors):
            if isinstance(ancestor, (cst.BaseStatement, cst.BaseSmallStatement)):
                break
            if isinstance(ancestor, cst.IfExp) and child is not ancestor.test:
                cond = parse_guard(ancestor.test, self._describe)
                if cond is not None:
                    out.append([cond if child is ancestor.body else negate(cond), self._anchor(ancestor.test)])
            child = ancestor
        return out

    def _note_mark(self, node: cst.CSTNode) -> None:
        """Remember which enclosing expressions hold a marked value (no scan later)."""
        self.holds_mark.add(id(node))
        for ancestor in reversed(self.ctx.ancestors):
            if isinstance(ancestor, (cst.BaseStatement, cst.BaseSuite)):
                break
            self.holds_mark.add(id(ancestor))

    def _value_mark(self, value: cst.BaseExpression) -> Optional[int]:
        """The first value in ``value`` that changes between runs, as a mark key."""
        if id(value) not in self.holds_mark and not self.scope.taint and not self.module_scope.taint:
            return None
        stack: List[cst.CSTNode] = [value]
        while stack:
            node = stack.pop()
            key = id(node)
            if key in self.marks:
                return key
            if isinstance(node, (cst.Name, cst.Attribute)):
                dotted = dotted_name(node)
                if dotted is not None:
                    found = self.scope.taint.get(dotted)
                    if found is None and (dotted.split(".")[0] not in self.scope.assigned or self.scope is self.module_scope):
                        found = self.module_scope.taint.get(dotted)
                    if found is not None:
                        return found
            if isinstance(node, (cst.Lambda, cst.FunctionDef)):
                continue
            stack.extend(reversed(children(node)))
        return None

    def _origin(self, mark: int) -> Dict[str, Any]:
        """The origin record of a mark (created the first time a seed receives it)."""
        found = self.origin_ids.get(mark)
        if found is not None:
            return self.origins[found]
        kind = self.marks[mark]
        node = self._node_of(mark)
        origin: Dict[str, Any] = {"id": len(self.origins), "kind": kind[0], "flows": [], "sunk": False}
        if kind[0] == "src":
            origin["what"] = kind[1]
            origin["aid"] = self._anchor(node) if node is not None else None
            origin["guards"] = self.mark_guards.get(mark, [])
        else:
            origin["rng"], origin["cid"] = kind[1], kind[2]
            self.cands[kind[2]][2]["seed_value"] = True
        self.origin_ids[mark] = origin["id"]
        self.origins.append(origin)
        return origin

    def _sink(self, value: Optional[cst.BaseExpression]) -> None:
        """``value`` is used as a seed."""
        if value is None:
            return
        mark = self._value_mark(value)
        if mark is not None:
            self._origin(mark)["sunk"] = True
            return
        desc = self._describe(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        if desc is None:
            return
        if desc[0] == "p":
            self.scope.sunk_params.add(desc[1])
        elif desc[0] == "o":
            self.sunk_options.add(desc[1])
        elif desc[0] == "g":
            self.sunk_globals.add(desc[1])
