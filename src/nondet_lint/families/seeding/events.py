"""How function events are stored in the facts: compact on disk, full in memory.

A large package yields tens of thousands of call events, most of them alike, so the facts
(cached on disk) use a short form that ``expand`` turns back into the one form pass 2
reads:

* trailing defaults are left out (no arguments worth keeping, no guards, not bound);
* names inside the module are written relative to it (``.Net.__init__``);
* a call repeated right after itself is kept once (the second changes no seed state);
* ``self.fc(x)`` where ``fc`` is not a method of the class, nor can be inherited from a
  project class, is an attribute (a layer), not a call into project code: dropped.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Mapping

_GUARDED = {"u": 4, "w": 3}  # events whose last item is their guards, and their full length


def _relative(target: str, prefix: str) -> str:
    if prefix and target.startswith(prefix):
        return "." + target[len(prefix):]
    if prefix and target.startswith("super:" + prefix):
        return "super:." + target[len("super:") + len(prefix):]
    return target


def _absolute(target: str, prefix: str) -> str:
    if target.startswith("super:."):
        return "super:" + prefix + target[len("super:."):]
    if target.startswith("."):
        return prefix + target[1:]
    return target


def _inheritable(classes: Mapping[str, Any], cls: str, name: str, prefix: str, outside: FrozenSet[str], depth: int = 0) -> bool:
    """Whether ``cls.name`` may be a method: defined here, or in a base we cannot see."""
    entry = classes.get(cls)
    if entry is None or depth > 16:
        return True
    if name in entry.get("methods", ()):
        return True
    for base in entry.get("bases", ()):
        local = base[len(prefix):] if prefix and base.startswith(prefix) else None
        if local is not None and local in classes:
            if _inheritable(classes, local, name, prefix, outside, depth + 1):
                return True
        elif base.partition(".")[0] not in outside:
            return True  # a project class elsewhere: it may define the method
    return False


def compact(fns: Dict[str, Dict[str, Any]], module_name: str, classes: Mapping[str, Any],
            outside: FrozenSet[str]) -> None:
    """Rewrite every function's events in the short form, in place."""
    prefix = f"{module_name}." if module_name else ""
    for facts in fns.values():
        out: List[Any] = []
        for event in facts["ev"]:
            kind = event[0]
            if kind == "c":
                target, args, guards, bound = event[1], event[2], event[3], event[4]
                if bound and prefix and target.startswith(prefix):
                    owner, _, name = target[len(prefix):].rpartition(".")
                    if owner in classes and not _inheritable(classes, owner, name, prefix, outside):
                        continue
                if not any(args[0]) and not any(args[1].values()):
                    args = 0
                event = ["c", _relative(target, prefix), args, guards or 0, bound]
                while len(event) > 2 and not event[-1]:
                    event.pop()
            elif kind == "r":
                event = ["r", _relative(event[1], prefix)]
            elif kind in _GUARDED and not event[-1]:
                event = event[:-1]
            if out and out[-1] == event and kind in ("c", "r", "i"):
                continue
            out.append(event)
        facts["ev"] = out


def expand(fns: Mapping[str, Dict[str, Any]], module_name: str) -> "ExpandedFunctions":
    """The full form of a module's functions (the facts are left alone)."""
    return ExpandedFunctions(fns, f"{module_name}." if module_name else "")


def _expand_function(facts: Mapping[str, Any], prefix: str) -> Dict[str, Any]:
    events = []
    for event in facts.get("ev", ()):
        kind = event[0]
        if kind == "c":
            full = [*event, 0, 0, 0][:5]
            event = ["c", _absolute(full[1], prefix), full[2] or [[], {}], full[3] or [], full[4] or 0]
        elif kind == "r":
            event = ["r", _absolute(event[1], prefix)]
        elif kind in _GUARDED and len(event) < _GUARDED[kind]:
            event = [*event, []]
        events.append(event)
    return {**facts, "ev": events}


class ExpandedFunctions(Mapping[str, Dict[str, Any]]):
    """A module's functions in full form, each expanded when first looked up.

    Expanding every function of every module up front kept a second copy of the whole
    index (on transformers, most of pass 2's memory); entry points reach few of them.
    Iterating expands on the fly without keeping what it made."""

    def __init__(self, fns: Mapping[str, Dict[str, Any]], prefix: str) -> None:
        self._fns = fns
        self._prefix = prefix
        self._expanded: Dict[str, Dict[str, Any]] = {}

    def __getitem__(self, name: str) -> Dict[str, Any]:
        found = self._expanded.get(name)
        if found is None:
            found = self._expanded[name] = _expand_function(self._fns[name], self._prefix)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._fns

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._fns)

    def __len__(self) -> int:
        return len(self._fns)

    def compact_items(self):  # type: ignore[no-untyped-def]
        """``(name, facts)`` in the compact form they were stored in (nothing expanded)."""
        return self._fns.items()

    def items(self):  # type: ignore[no-untyped-def, override]
        for name, facts in self._fns.items():
            found = self._expanded.get(name)
            yield name, found if found is not None else _expand_function(facts, self._prefix)
