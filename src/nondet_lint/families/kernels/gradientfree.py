"""Functions only ever used where no gradient flows (ND203 / ND204 backward-only ops).

An op whose non-determinism is in its backward pass matters only where a gradient can
flow through it.  A top-level function of the project whose every use is one where none
does never runs that backward, whatever the program: pass 1 records, per unit
(``gpu.unit_of``), the names it calls or hands on only in such places (under
``torch.no_grad()``, as a weight-loading hook, inside a ``tf.summary`` call's arguments);
pass 2 finds every unit that refers to the function (``callers.referrers``) and asks
that each uses it only so, or is itself such a function.  A layer module-level code
makes and binds to a name (``avg_pool_3d = nn.AvgPool3d(2)``) is judged the same way
through the units that call that name.  An op on a parameter of a function, or of a
method of a base-less class, whose every call gives that parameter a tensor that carries
no gradient (``GradientFreeArguments``) runs no backward either (a TSDF integrating
depth images an export made with ``torch.tensor(array)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst

from nondet_lint.facts import ModuleFact
from nondet_lint.families.kernels.callers import every_call, every_use, referrers
from nondet_lint.families.kernels.gpu import ProgramView
from nondet_lint.families.kernels.reach import UnitKey


@dataclass(frozen=True)
class GradientFreeUses(ModuleFact):
    """Per unit of a module: the names it calls or hands on only where no gradient flows."""

    key = "gradient_free_uses"

    by_unit: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {"by_unit": {unit: list(names) for unit, names in self.by_unit.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GradientFreeUses":
        return cls({unit: tuple(names) for unit, names in data.get("by_unit", {}).items()})


class GradientFreeUseCounter:
    """Counts, per unit, the uses of each name (a call's callee, a name handed on as an
    argument) and those where no gradient flows; ``fact`` keeps the names used only so."""

    def __init__(self) -> None:
        self.uses: Dict[Tuple[str, str], List[int]] = {}  # (unit, name) -> [gradient-free, all]

    def note(self, unit: str, name: str, gradient_free: bool) -> None:
        if name:
            counts = self.uses.get((unit, name))
            if counts is None:
                counts = self.uses[(unit, name)] = [0, 0]
            counts[0] += gradient_free
            counts[1] += 1

    def fact(self, known: Optional[GradientFreeUses]) -> Optional[GradientFreeUses]:
        """The module's fact, joined with what another op check recorded (each knows its
        framework's places: ``torch.no_grad()`` for one, ``tf.summary`` for the other)."""
        found: Dict[str, Set[str]] = {}
        for (unit, name), (free, total) in self.uses.items():
            if free == total:
                found.setdefault(unit, set()).add(name)
        if known is not None:
            for unit, names in known.by_unit.items():
                found.setdefault(unit, set()).update(names)
        if not found:
            return None
        return GradientFreeUses({unit: tuple(sorted(names)) for unit, names in sorted(found.items())})


def used_only_without_gradient(view: ProgramView, key: UnitKey, seen: FrozenSet[UnitKey] = frozenset()) -> bool:
    """Whether the top-level function ``key`` is used, and only where no gradient flows:
    every unit that refers to it calls or hands it on only so (``GradientFreeUses``), or
    is itself such a function (``checkpoint_filter_fn`` given as a weight-loading hook
    calls ``resize_pos_embed``).  A function nothing refers to (looked up by a string)
    may run anywhere."""
    def without_gradient(user: UnitKey) -> bool:
        record = view.records.get(user[0])
        uses = record.facts.get(GradientFreeUses) if record is not None else None
        if uses is not None and key[1] in uses.by_unit.get(user[1], ()):
            return True
        return used_only_without_gradient(view, user, seen | {key})

    return key not in seen and every_use(view, key, without_gradient)



class NameUses:
    """Counts a module's occurrences of a name and those that call it (a visitor for
    ``walk.visit_tree``): a layer bound to the name and only ever called is used where
    its calls are, and nowhere else (not handed on, stored or rebound)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.occurrences = 0
        self.calls = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.occurrences += 1

    def visit_Call(self, node: cst.Call) -> None:
        if type(node.func) is cst.Name and node.func.value == self.name:
            self.calls += 1

    def only_called(self) -> bool:
        """Called at least once, and every other occurrence is the one binding."""
        return self.calls > 0 and self.occurrences == self.calls + 1


def layer_used_only_without_gradient(view: ProgramView, path: str, name: str, users: Sequence[str]) -> bool:
    """Whether the layer module-level code of ``path`` binds to ``name`` runs only where
    no gradient flows: no other module refers to the name, and each unit of its module
    whose calls of it may carry a gradient (``users``) is a top-level function used only
    where none does (``create_point_pyramid``, called only by a ``@torch.no_grad()``
    mesh export)."""
    if any(other[0] != path for other in referrers(view, (path, name))):
        return False
    return all(used_only_without_gradient(view, (path, user)) for user in users)


# ------------------------------------------------- arguments that carry no gradient ----
Argument = Tuple[str, Optional[int]]  # a parameter: its name, its position (None: keyword-only)


@dataclass(frozen=True)
class CarriedSlots:
    """The arguments some call of one name in a unit gives that may carry a gradient:
    their positions and keywords.  An argument no call gives so carries none (one left
    out holds the parameter's default, made when the function was defined)."""

    positions: Tuple[int, ...]
    keywords: Tuple[str, ...]

    def free(self, argument: Argument) -> bool:
        name, position = argument
        return name not in self.keywords and (position is None or position not in self.positions)


@dataclass(frozen=True)
class GradientFreeArguments(ModuleFact):
    """Per unit of a module: per name it calls, the arguments its calls give that may
    carry a gradient (``CarriedSlots``).  A name a unit hands on, or calls with
    ``*args`` / ``**kwargs``, is absent: what its calls give is unknown."""

    key = "gradient_free_arguments"

    by_unit: Mapping[str, Mapping[str, CarriedSlots]] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {"by_unit": {unit: {name: [list(slots.positions), list(slots.keywords)] for name, slots in calls.items()}
                            for unit, calls in self.by_unit.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GradientFreeArguments":
        return cls({unit: {name: CarriedSlots(tuple(slots[0]), tuple(slots[1])) for name, slots in calls.items()}
                    for unit, calls in data.get("by_unit", {}).items()})


class GradientFreeArgumentsCounter:
    """Collects ``GradientFreeArguments`` as the walk meets calls: per (unit, name), the
    slots that may carry a gradient in some call so far, or None once the name was
    handed on or a call spread its arguments."""

    def __init__(self) -> None:
        self.calls: Dict[Tuple[str, str], Optional[Tuple[Set[int], Set[str]]]] = {}

    def note(self, unit: str, name: str, args: Sequence[Tuple[cst.Arg, bool]]) -> None:
        """A call of ``name`` and, per argument, whether it carries no gradient."""
        if not name:
            return
        key = (unit, name)
        if key not in self.calls:
            self.calls[key] = (set(), set())
        slots = self.calls[key]
        if slots is None:
            return
        if any(arg.star for arg, _ in args):
            self.calls[key] = None
            return
        position = 0
        for arg, free in args:
            if arg.keyword is None:
                if not free:
                    slots[0].add(position)
                position += 1
            elif not free:
                slots[1].add(arg.keyword.value)

    def handed_on(self, unit: str, name: str) -> None:
        if name:
            self.calls[(unit, name)] = None

    def fact(self) -> Optional[GradientFreeArguments]:
        found: Dict[str, Dict[str, CarriedSlots]] = {}
        for (unit, name), slots in sorted(self.calls.items()):
            if slots is not None:
                found.setdefault(unit, {})[name] = CarriedSlots(tuple(sorted(slots[0])), tuple(sorted(slots[1])))
        return GradientFreeArguments(found) if found else None


def argument_without_gradient(view: ProgramView, key: UnitKey, argument: Argument) -> bool:
    """Whether every call of the function or method ``key`` (``callers.every_call``)
    gives its parameter ``argument`` a tensor that carries no gradient."""
    def gives_it_free(user: UnitKey, name: str) -> bool:
        record = view.records.get(user[0])
        facts = record.facts.get(GradientFreeArguments) if record is not None else None
        slots = facts.by_unit.get(user[1], {}).get(name) if facts is not None else None
        return slots is not None and slots.free(argument)

    return every_call(view, key, gives_it_free)
