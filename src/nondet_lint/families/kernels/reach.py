"""What code a program runs, for the program-level rules (ND205 / ND209).

A module is cut into *units*: its module-level code (``""``, run at import, the main
block included) and each top-level function or class (a class with its methods: a
class that is instantiated has its callbacks run later).  Pass 1 records, per unit, how
it selects the GPU, whether it trains, evaluates, seeds or saves a model, and the names
it refers to.  Pass 2 (``Reachability``) starts from the module-level code of every
module an entry point imports and follows the names each reached unit refers to
(called, instantiated, or handed on as a value), through re-exports and star imports.
A function no reached code names is not run: the default argument
``device=torch.device("cuda")`` of a class that no program instantiates does not make
its importers GPU programs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

MODULE_UNIT = ""  # the unit of a module's own top-level code
MAIN_UNIT = "__main__"  # its ``if __name__ == "__main__":`` block: run only as the entry point
LOCAL = "."  # prefix of a reference to a unit of the same module

UnitKey = Tuple[str, str]  # (module path, unit name)


@dataclass(frozen=True)
class ConditionalGpu:
    """A GPU selection that holds only for some versions of a package (Lightning's
    ``Trainer()`` takes the GPU by default from 2.0 on)."""

    how: str
    package: str
    versions: str

    def to_json(self) -> List[str]:
        return [self.how, self.package, self.versions]

    @classmethod
    def from_json(cls, data: Any) -> Optional["ConditionalGpu"]:
        return cls(str(data[0]), str(data[1]), str(data[2])) if data else None


@dataclass(frozen=True)
class UnitFacts:
    """What one unit does when it runs (``GpuModuleFacts.units`` holds their JSON form)."""

    selects_gpu: Optional[str] = None  # how it selects a GPU, shown in messages
    gpu_if: Optional[ConditionalGpu] = None  # a selection that depends on a version
    differentiates: bool = False
    evaluates: bool = False
    seeds: bool = False
    saves_model: bool = False
    benchmarks_speed: bool = False  # it times code with a benchmark harness
    refs: Tuple[str, ...] = ()  # qualified names it refers to (``.name``: a unit of its module)
    registered_by: Tuple[str, ...] = ()  # decorators that hand it to a registry at import
    switches: Mapping[str, str] = field(default_factory=dict)  # determinism switches it sets (ON / MAYBE)
    version_hints: Tuple[str, ...] = ()  # frameworks whose version its calls tell (``tf.Session``: TF1)

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"refs": list(self.refs)}
        if self.switches:
            out["switches"] = dict(self.switches)
        if self.version_hints:
            out["version_hints"] = list(self.version_hints)
        for key in ("differentiates", "evaluates", "seeds", "saves_model", "benchmarks_speed"):
            if getattr(self, key):
                out[key] = True
        if self.registered_by:
            out["registered_by"] = list(self.registered_by)
        if self.selects_gpu:
            out["selects_gpu"] = self.selects_gpu
        if self.gpu_if is not None:
            out["gpu_if"] = self.gpu_if.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "UnitFacts":
        return cls(
            data.get("selects_gpu"), ConditionalGpu.from_json(data.get("gpu_if")), bool(data.get("differentiates")),
            bool(data.get("evaluates")), bool(data.get("seeds")), bool(data.get("saves_model")),
            bool(data.get("benchmarks_speed")), tuple(data.get("refs", ())), tuple(data.get("registered_by", ())),
            dict(data.get("switches", {})), tuple(data.get("version_hints", ())),
        )


@dataclass
class UnitBuilder:
    """Mutable facts of one unit while pass 1 walks it."""

    selects_gpu: Optional[str] = None
    gpu_if: Optional[ConditionalGpu] = None
    differentiates: bool = False
    evaluates: bool = False
    seeds: bool = False
    saves_model: bool = False
    benchmarks_speed: bool = False

    def __post_init__(self) -> None:
        self.registered_by: Set[str] = set()
        self.switches: Dict[str, str] = {}
        self.version_hints: Set[str] = set()
        self.refs: Set[str] = set()
        self.bare: Set[str] = set()  # unresolved names: a unit of the module if one has the name

    def build(self, module_name: str, units: Iterable[str]) -> UnitFacts:
        own = module_name + "." if module_name else None
        refs = set()
        for ref in self.refs:
            if own is not None and ref.startswith(own) and "." not in ref[len(own):]:
                refs.add(LOCAL + ref[len(own):])
            else:
                refs.add(ref)
        refs.update(LOCAL + name for name in self.bare.intersection(units))
        return UnitFacts(
            self.selects_gpu, self.gpu_if, self.differentiates, self.evaluates, self.seeds, self.saves_model,
            self.benchmarks_speed, tuple(sorted(refs)), tuple(sorted(self.registered_by)), dict(sorted(self.switches.items())),
            tuple(sorted(self.version_hints)),
        )


class Reachability:
    """The units each entry point's program runs (pass 2)."""

    def __init__(self, project: Any, units: Mapping[str, Mapping[str, UnitFacts]],
                 exports: Mapping[str, Mapping[str, str]], stars: Mapping[str, Tuple[str, ...]]) -> None:
        self.project = project
        self.units = units
        self.exports = exports
        self.stars = stars
        self._edges: Dict[UnitKey, FrozenSet[UnitKey]] = {}
        self._resolved: Dict[Tuple[str, str], Optional[UnitKey]] = {}
        self._reached: Dict[Tuple[FrozenSet[str], Tuple[str, ...]], FrozenSet[UnitKey]] = {}

    def unit(self, key: UnitKey) -> Optional[UnitFacts]:
        return self.units.get(key[0], {}).get(key[1])

    def reached(self, entry: str, modules: FrozenSet[str], extra: Iterable[str] = ()) -> FrozenSet[UnitKey]:
        """The units that run when ``entry`` runs: the module code of ``modules`` (what it
        imports), its main block, and the functions named in ``extra`` (``path:function``,
        console scripts)."""
        memo = (modules, (entry, *extra))
        found = self._reached.get(memo)
        if found is not None:
            return found
        start: List[UnitKey] = []
        # definitions a decorator hands to a registry: reached once the program uses the
        # registry (runs another function of the decorator's module), or at import when
        # the registry is not the project's (``@google_benchmark.register``)
        registered: Dict[str, List[UnitKey]] = {}
        decorators: Set[UnitKey] = set()
        for path in sorted(modules):
            for name, facts in self.units.get(path, {}).items():
                if name == MODULE_UNIT:
                    start.append((path, name))
                for decorator in facts.registered_by:
                    registry = self.resolve(decorator, near=path)
                    if registry is None:
                        start.append((path, name))
                    else:
                        decorators.add(registry)
                        registered.setdefault(registry[0], []).append((path, name))
        if MAIN_UNIT in self.units.get(entry, {}):
            start.append((entry, MAIN_UNIT))
        for item in extra:
            path, _, name = item.rpartition(":")
            if name in self.units.get(path, {}):
                start.append((path, name))
        seen = set(start)
        stack = list(start)
        while stack:
            key = stack.pop()
            uses_registry = key[1] != MODULE_UNIT and key not in decorators
            for nxt in (*self._edges_of(key), *(registered.pop(key[0], ()) if uses_registry else ())):
                # a name of a module the program never imports (a type checker's import) runs nothing
                if nxt not in seen and nxt[0] in modules:
                    seen.add(nxt)
                    stack.append(nxt)
        found = self._reached[memo] = frozenset(seen)
        return found

    def _edges_of(self, key: UnitKey) -> FrozenSet[UnitKey]:
        found = self._edges.get(key)
        if found is None:
            facts = self.unit(key)
            targets = set()
            for ref in facts.refs if facts is not None else ():
                if ref.startswith(LOCAL):
                    if ref[1:] in self.units.get(key[0], {}):
                        targets.add((key[0], ref[1:]))
                    continue
                target = self.resolve(ref, near=key[0])
                if target is not None:
                    targets.add(target)
            found = self._edges[key] = frozenset(targets)
        return found

    def resolve(self, name: str, depth: int = 0, near: str = "") -> Optional[UnitKey]:
        """The unit a qualified name refers to: ``pkg.mod.fn`` (``fn`` of ``pkg.mod``),
        ``pkg.mod.Class.method`` (the class), through a package's re-exports and star
        imports; None for names outside the project.  ``near``: the module whose code
        names it (its imports find its neighbours first, ``Project.module_near``)."""
        memo = (name, os.path.dirname(near))
        if depth == 0 and memo in self._resolved:
            return self._resolved[memo]
        found = self._resolve(name, depth, near)
        if depth == 0:
            self._resolved[memo] = found
        return found

    def _module(self, dotted: str, near: str) -> Any:
        return self.project.module_near(dotted, near) if near else self.project.module(dotted)

    def _resolve(self, name: str, depth: int, near: str) -> Optional[UnitKey]:
        if depth > 8:
            return None
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            record = self._module(".".join(parts[:end]), near)
            if record is None:
                continue
            path, attr = record.path, parts[end]
            if attr in self.units.get(path, {}):
                return (path, attr)
            exported = self.exports.get(path, {}).get(attr)
            if exported is not None and exported != name:
                return self.resolve(".".join([exported, *parts[end + 1:]]), depth + 1, path)
            for star in self.stars.get(path, ()):
                if self._module(star, path) is None:
                    continue  # a star import of a module the project lacks defines nothing
                found = self.resolve(".".join([star, *parts[end:]]), depth + 1, path)
                if found is not None:
                    return found
            return None
        return None
