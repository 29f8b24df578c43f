"""What code a program runs, for the program-level rules (ND205 / ND209).

A module is cut into *units*: its module-level code (``""``, run at import, the main
block included), each top-level function, each top-level class (its body) and each
method of one (``Class.method``).  Pass 1 records, per unit, how it selects the GPU,
whether it trains, evaluates, seeds, loads or saves a model, the names it refers to,
the names it only lists as values (``[ModelA, ModelB]``, a base class), the attribute
names it reads or calls (``x.run``, ``self.device``), a class's bases, and the syntax
that calls methods without naming them (calling a value, iterating, ``with``).  Pass 2
(``Reachability``) starts from the module-level code of every module an entry point
imports and follows the names each reached unit refers to (called, instantiated, or
handed on as a value), through re-exports and star imports.  A class a reached unit
names is instantiated: its constructors run; one it only lists is not, until reached
code calls a value it looked up in a registry of the project (``MODELS[name](cfg)``,
``getattr(models, cfg.arch)(...)``).  A method runs once reached code calls or hands on
its name (a property: reads it at all) and an instantiated class has it as its own or
inherits it (an override hides the base's; a static or class method needs no
instance).  A name read on the method's own instance (``self.run()``, ``super().x``)
reaches only its class's lineage; one read on a value annotated with a type, only that
type's (a tensor's ``.device``: none of the project's); one called on a local made by
calling a project class (``model = Net(); model.train()``), only the method that class
has or inherits (none: torch's ``train`` runs, not a trainer's); one called on what a
method call returns (``viewer.get_model().train()``), only in the lineage of the class
every project method of that name declares returning (``-> Model``); rule data adds what Python or a
framework calls unnamed (``.start()`` runs ``run``).  A function no reached code names
is not run: the default argument ``device=torch.device("cuda")`` of a class that no
program instantiates does not make its importers GPU programs, nor does
``torch.cuda.set_device`` in the ``run`` of a thread no program starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from fnmatch import fnmatchcase
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

from nondet_lint.families.kernels.modes import Gate, Passed, gates_from_json, gates_to_json, sorted_gates, sorted_passed

MODULE_UNIT = ""  # the unit of a module's own top-level code
MAIN_UNIT = "__main__"  # its ``if __name__ == "__main__":`` block: run only as the entry point
LOCAL = "."  # prefix of a reference to a unit of the same module
READ = ":"  # prefix of a read among the names ``UnitBuilder.note_name`` takes

UnitKey = Tuple[str, str]  # (module path, unit name)


class Implicit(str, Enum):
    """Syntax that calls methods without naming them (which ones: rule data,
    ``[ND205.data.program.methods.syntax]``)."""

    CALL = "call"  # a value is called: ``model(x)`` runs ``forward``
    ITERATE = "iterate"  # ``for``, a comprehension: ``__iter__``, ``__getitem__``
    SUBSCRIPT = "subscript"  # ``x[i]``: ``__getitem__``
    WITH = "with"  # ``with x:``: ``__enter__``, ``__exit__``


@dataclass(frozen=True)
class MethodCalls:
    """Which methods of a reached class run without reached code naming them (rule data,
    ``[ND205.data.program.methods]``): names, or patterns with ``*``."""

    with_class: FrozenSet[str] = frozenset()  # constructors: run when the class is reached
    syntax: Mapping[Implicit, Tuple[str, ...]] = field(default_factory=dict)
    implied: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)  # a name read -> methods it runs
    registering: str = ""  # the pattern of a registering decorator's name (``[ND205.data.program]``)

    @classmethod
    def from_data(cls, data: Mapping[str, Any], registering: str = "") -> "MethodCalls":
        return cls(
            frozenset(data.get("with_class", ())),
            {Implicit(kind): tuple(names) for kind, names in data.get("syntax", {}).items()},
            {name: tuple(names) for name, names in data.get("implied", {}).items()},
            registering,
        )

    def names_run(self, reads: Iterable[str], implicit: Iterable[Implicit]) -> FrozenSet[str]:
        """The method names (or patterns) code runs that reads ``reads`` and uses the
        syntax ``implicit``: the names themselves and what they imply, transitively."""
        found: Set[str] = set()
        stack = [*reads, *(name for kind in implicit for name in self.syntax.get(kind, ()))]
        while stack:
            name = stack.pop()
            if name not in found:
                found.add(name)
                stack.extend(self.implied.get(name, ()))
        return frozenset(found)


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
    loads_model: bool = False  # it loads a trained model (``keras.models.load_model``)
    saves_loaded: bool = False  # it calls ``.save(...)`` on a value: a model it loaded, or anything
    refs: Tuple[str, ...] = ()  # qualified names it refers to (``.name``: a unit of its module)
    registered_by: Tuple[str, ...] = ()  # decorators that hand it to a registry at import
    switches: Mapping[str, str] = field(default_factory=dict)  # determinism switches it sets (ON / MAYBE)
    version_hints: Tuple[str, ...] = ()  # frameworks whose version its calls tell (``tf.Session``: TF1)
    reads: Tuple[str, ...] = ()  # attribute names it reads or calls on values (``x.start()``)
    implicit: Tuple[Implicit, ...] = ()  # syntax it uses that calls methods unnamed
    self_reads: Tuple[str, ...] = ()  # a method's: names it reads on its own instance (``self.run()``)
    bases: Tuple[str, ...] = ()  # a class's: its base classes, named as ``refs`` are
    # names it only lists as values (``[ModelA, ModelB]``, ``models.append(ModelA)``): a
    # class listed so is not constructed until the program looks it up and calls it
    listed: Tuple[str, ...] = ()
    data_reads: Tuple[str, ...] = ()  # attribute names read as data (``x.device.type``): properties only
    # ``Type:name``: a name read on a value whose type is annotated (``tensor: torch.Tensor``)
    typed_reads: Tuple[str, ...] = ()
    lookups: Tuple[str, ...] = ()  # modules whose definitions it takes by a computed name (``getattr(mod, cfg.x)``)
    # containers it calls a value taken from (``MODELS[name](cfg)``, ``cls(cfg)`` for ``cls``
    # of ``for cls in MODELS``): a project's constructs the classes the program lists
    lookup_calls: Tuple[str, ...] = ()
    is_property: bool = False  # a method decorated ``@property``: reading its name runs it
    class_level: bool = False  # a static or class method: it runs on the class, no instance needed
    # it calls a collective outside any condition (``torch.distributed.broadcast``): it raises
    # without a process group, so it runs only in a distributed run
    needs_process_group: bool = False
    starts_process_group: bool = False  # it starts one (``torch.distributed.init_process_group``)
    # the registry objects of its module it reads (``Registries.problems`` in a ``problem()``
    # lookup function): using it runs the definitions filed in those, not in the others
    uses_registries: Tuple[str, ...] = ()
    serves: bool = False  # it serves a web page or a GUI, or renders an environment (a viewer)
    # definitions its module-level code stores in a record under a field (``Config(model_fn=f)``):
    # field -> the names; they run where reached code reads the field
    stored: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    # module code's: a module-level name -> the definitions bound to it without running them
    # (``attention_sparse = functools.partial(attention, ...)``): they run where code names it
    bound: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    # it calls something no import, definition or assignment of its module names (``Net()``
    # of a script that never defines ``Net``): code the analysis does not see
    calls_unknown: bool = False
    # field names it gives a value (``fieldsettings.names_given``): an op under ``if
    # self.x is not None:`` runs only in a program whose code sets ``x``
    sets: Tuple[str, ...] = ()
    # training calls that run only where a parameter or a field passes tests (``if mode ==
    # 'train':``, ``modes.training_gate``), and the values its calls and assignments give
    gated_training: Tuple[Gate, ...] = ()
    passes: Tuple[Passed, ...] = ()
    # it writes arrays out as data files (``np.save``, ``soundfile.write``) where the default
    # run goes: what a feature extractor or a vocoder does with a model's outputs
    writes_arrays: bool = False
    # where its training calls that compute run (not those that only make an optimizer or
    # a tape): per call, the framework whose CPU device scope holds it (``with
    # tf.device("/cpu:0"):``, rule data ``cpu_scope``), "" for a call under none
    training_places: Tuple[str, ...] = ()
    # ``callee:name``: a name read on a local that a call makes (``model = Net(); model.train()``):
    # on an instance of a project class, only the method its class has or inherits; else by name
    built_reads: Tuple[str, ...] = ()
    # what it names or calls only under a CPU device scope (``with tf.device("/cpu:0"):
    # trainer.train(...)``), as (ref or read, framework): what those run is placed there too
    cpu_refs: Tuple[Tuple[str, str], ...] = ()
    cpu_reads: Tuple[Tuple[str, str], ...] = ()
    # a function's or method's declared return type, when it names one class (``-> Model``)
    returns: str = ""
    # ``method:name``: a name read on what a method call returns (``viewer.get_model().train()``):
    # where every project method of that name declares returning a project class, only a
    # method of that class's lineage runs; else any method of the name
    returned_reads: Tuple[str, ...] = ()
    # it takes a gradient that feeds no update (``torch.autograd.grad`` of a field's density
    # for normals, a Jacobian): a backward pass runs (backward-only kernels run), nothing trains
    backward: bool = False
    # names a method reads on its own instance only as data, never calling nor handing on
    # the value (``self.bag.weight``, ``self.bag is None``): a layer bound to ``self.bag``
    # does not run there (``ProgramView.names_applied``)
    self_data: Tuple[str, ...] = ()

    @property
    def called(self) -> Tuple[str, ...]:
        """The names it reads on values other than its own instance (called or handed
        on), whatever the receiver: ``reads`` and the names of ``built_reads`` and
        ``returned_reads``."""
        if not self.built_reads and not self.returned_reads:
            return self.reads
        return (*self.reads, *(read.rpartition(":")[2] for read in (*self.built_reads, *self.returned_reads)))

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"refs": list(self.refs)}
        if self.reads:
            out["reads"] = list(self.reads)
        if self.implicit:
            out["implicit"] = [kind.value for kind in self.implicit]
        if self.self_reads:
            out["self_reads"] = list(self.self_reads)
        if self.bases:
            out["bases"] = list(self.bases)
        for key in ("listed", "data_reads", "typed_reads", "built_reads", "returned_reads", "lookups", "lookup_calls", "uses_registries", "sets", "self_data"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        for key in ("cpu_refs", "cpu_reads"):
            if getattr(self, key):
                out[key] = [list(pair) for pair in getattr(self, key)]
        if self.is_property:
            out["is_property"] = True
        if self.class_level:
            out["class_level"] = True
        if self.switches:
            out["switches"] = dict(self.switches)
        if self.version_hints:
            out["version_hints"] = list(self.version_hints)
        for key in (
            "differentiates", "evaluates", "seeds", "saves_model", "benchmarks_speed", "loads_model", "saves_loaded",
            "needs_process_group", "starts_process_group", "serves", "calls_unknown", "writes_arrays", "backward",
        ):
            if getattr(self, key):
                out[key] = True
        if self.registered_by:
            out["registered_by"] = list(self.registered_by)
        if self.stored:
            out["stored"] = {key: list(names) for key, names in self.stored.items()}
        if self.bound:
            out["bound"] = {key: list(names) for key, names in self.bound.items()}
        if self.returns:
            out["returns"] = self.returns
        if self.selects_gpu:
            out["selects_gpu"] = self.selects_gpu
        if self.gpu_if is not None:
            out["gpu_if"] = self.gpu_if.to_json()
        if self.gated_training:
            out["gated_training"] = gates_to_json(self.gated_training)
        if self.passes:
            out["passes"] = [item.to_json() for item in self.passes]
        if self.training_places:
            out["training_places"] = list(self.training_places)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "UnitFacts":
        return cls(
            data.get("selects_gpu"), ConditionalGpu.from_json(data.get("gpu_if")), bool(data.get("differentiates")),
            bool(data.get("evaluates")), bool(data.get("seeds")), bool(data.get("saves_model")),
            bool(data.get("benchmarks_speed")), bool(data.get("loads_model")), bool(data.get("saves_loaded")),
            tuple(data.get("refs", ())), tuple(data.get("registered_by", ())),
            dict(data.get("switches", {})), tuple(data.get("version_hints", ())),
            tuple(data.get("reads", ())), tuple(Implicit(kind) for kind in data.get("implicit", ())),
            tuple(data.get("self_reads", ())), tuple(data.get("bases", ())), tuple(data.get("listed", ())),
            tuple(data.get("data_reads", ())), tuple(data.get("typed_reads", ())), tuple(data.get("lookups", ())),
            tuple(data.get("lookup_calls", ())), bool(data.get("is_property")), bool(data.get("class_level")),
            bool(data.get("needs_process_group")), bool(data.get("starts_process_group")),
            tuple(data.get("uses_registries", ())), bool(data.get("serves")),
            {key: tuple(names) for key, names in data.get("stored", {}).items()},
            {key: tuple(names) for key, names in data.get("bound", {}).items()},
            bool(data.get("calls_unknown")), tuple(data.get("sets", ())),
            gates_from_json(data.get("gated_training", ())),
            tuple(Passed.from_json(item) for item in data.get("passes", ())), bool(data.get("writes_arrays")),
            tuple(data.get("training_places", ())), tuple(data.get("built_reads", ())),
            tuple((ref, framework) for ref, framework in data.get("cpu_refs", ())),
            tuple((read, framework) for read, framework in data.get("cpu_reads", ())),
            str(data.get("returns", "")), tuple(data.get("returned_reads", ())), bool(data.get("backward")),
            tuple(data.get("self_data", ())),
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
    loads_model: bool = False
    saves_loaded: bool = False
    is_property: bool = False
    class_level: bool = False
    needs_process_group: bool = False
    starts_process_group: bool = False
    serves: bool = False
    calls_unknown: bool = False
    writes_arrays: bool = False
    backward: bool = False

    def __post_init__(self) -> None:
        self.registered_by: Set[str] = set()
        self.switches: Dict[str, str] = {}
        self.version_hints: Set[str] = set()
        self.refs: Set[str] = set()
        self.bare: Set[str] = set()  # unresolved names: a unit of the module if one has the name
        self.reads: Set[str] = set()
        self.implicit: Set[Implicit] = set()
        self.self_reads: Set[str] = set()
        self.self_applied: Set[str] = set()  # names read on its own instance so that the value may run
        self.bases: List[str] = []  # qualified names, or bare names of this module
        self.listed: Set[str] = set()  # qualified names only listed as values
        self.listed_bare: Set[str] = set()  # unresolved names only listed as values
        self.data_reads: Set[str] = set()
        self.typed_reads: Set[str] = set()
        self.built_reads: Set[str] = set()
        self.returned_reads: Set[str] = set()
        self.returns = ""
        # names named or read under a CPU device scope (-> framework), and, once the unit
        # has one, every name named or read outside such scopes
        self.cpu_refs: Dict[str, str] = {}
        self.cpu_reads: Dict[str, str] = {}
        self.outside: Optional[Set[str]] = None
        self.lookups: Set[str] = set()
        self.lookup_calls: Set[str] = set()
        self.chains: Set[str] = set()  # attribute chains rooted at a module-level name (``Registries.models``)
        self.stored: Dict[str, Set[str]] = {}  # field -> names stored under it (``.name``: maybe this module's)
        self.bound: Dict[str, Set[str]] = {}
        self.sets: Set[str] = set()
        self.gated_training: Set[Gate] = set()
        self.passes: Set[Passed] = set()
        self.training_places: Set[str] = set()

    def build(self, module_name: str, units: Iterable[str], registries: Iterable[str] = (),
              bound: Iterable[str] = ()) -> UnitFacts:
        names = units if isinstance(units, (set, frozenset)) else set(units)
        refs = {_local(ref, module_name) for ref in self.refs}
        refs.update(LOCAL + name for name in self.bare.intersection(names))
        refs.update(LOCAL + name for name in self.bare.intersection(bound))  # a name bound to a definition
        listed = {_local(ref, module_name) for ref in self.listed}
        listed.update(LOCAL + name for name in self.listed_bare.intersection(names))
        bases = [LOCAL + base if base in names else _local(base, module_name) for base in self.bases]
        return UnitFacts(
            self.selects_gpu, self.gpu_if, self.differentiates, self.evaluates, self.seeds, self.saves_model,
            self.benchmarks_speed, self.loads_model, self.saves_loaded, tuple(sorted(refs)), tuple(sorted(self.registered_by)), dict(sorted(self.switches.items())),
            tuple(sorted(self.version_hints)), tuple(sorted(self.reads)),
            tuple(sorted(self.implicit, key=lambda kind: kind.value)), tuple(sorted(self.self_reads)), tuple(bases),
            tuple(sorted(listed - refs)), tuple(sorted(self.data_reads - self.reads)), tuple(sorted(self.typed_reads)),
            tuple(sorted(self.lookups)), tuple(sorted(self.lookup_calls)), self.is_property, self.class_level,
            self.needs_process_group, self.starts_process_group,
            tuple(sorted(r for r in set(registries) if any(c == r or c.startswith(r + ".") for c in self.chains))),
            self.serves,
            {key: tuple(sorted(
                _local(ref, module_name) for ref in refs if not ref.startswith(LOCAL) or ref[1:] in names
            )) for key, refs in sorted(self.stored.items())},
            {key: tuple(sorted(
                _local(ref, module_name) for ref in refs if not ref.startswith(LOCAL) or ref[1:] in names
            )) for key, refs in sorted(self.bound.items())},
            self.calls_unknown, tuple(sorted(self.sets)),
            () if self.differentiates else sorted_gates(self.gated_training),
            sorted_passed(Passed(_local(p.callee, module_name) if p.callee else "", p.arguments, p.opaque)
                          for p in self.passes),
            self.writes_arrays,
            tuple(sorted(self.training_places)),
            tuple(sorted(self.built_reads)),
            tuple(sorted((_local(ref, module_name) if not ref.startswith(LOCAL) else ref, framework)
                         for ref, framework in self.cpu_refs.items() if self.outside is None or ref not in self.outside
                         if not ref.startswith(LOCAL) or ref[1:] in names or ref[1:] in bound)),
            tuple(sorted((read, framework) for read, framework in self.cpu_reads.items()
                         if self.outside is None or READ + read not in self.outside)),
            self.returns, tuple(sorted(self.returned_reads)), self.backward and not self.differentiates,
            tuple(sorted(self.self_reads - self.self_applied)),
        )

    def note_name(self, name: str, cpu_framework: Optional[str]) -> None:
        """A ref (qualified, or ``LOCAL`` + a bare name) or a read (``READ`` + its name)
        made under a CPU device scope of ``cpu_framework``, or outside any (None)."""
        if cpu_framework is None:
            if self.outside is not None:
                self.outside.add(name)
            return
        if self.outside is None:
            self.outside = {*self.refs, *(LOCAL + bare for bare in self.bare), *(READ + read for read in self.reads)}
        if name in self.outside:
            return
        if name.startswith(READ):
            self.cpu_reads.setdefault(name[len(READ):], cpu_framework)
        else:
            self.cpu_refs.setdefault(name, cpu_framework)


def _local(ref: str, module_name: str) -> str:
    """``.name`` for a qualified name of a definition of ``module_name`` itself."""
    own = module_name + "." if module_name else None
    if own is not None and ref.startswith(own) and "." not in ref[len(own):]:
        return LOCAL + ref[len(own):]
    return ref


class Reachability:
    """The units each entry point's program runs (pass 2)."""

    def __init__(self, project: Any, units: Mapping[str, Mapping[str, UnitFacts]],
                 exports: Mapping[str, Mapping[str, str]], stars: Mapping[str, Tuple[str, ...]],
                 calls: MethodCalls = MethodCalls(), registries: Mapping[str, Mapping[str, str]] = {},
                 modeled: Iterable[str] = ()) -> None:
        self.project = project
        # names whose effect rule data describes (a Lightning ``Trainer``: the GPU only when
        # asked, before 2.0): where the project defines one (it is that library), its body
        # is not followed, since which of its branches run depends on arguments the rule
        # data reads and the reach cannot
        self.modeled = tuple(sorted(set(modeled)))
        self._opaque: Optional[FrozenSet[UnitKey]] = None
        self.units = units
        self.registries = registries  # per module: a module-level alias of a registry's method -> the registry
        self._held: Dict[Tuple[str, Tuple[str, ...]], Optional[Tuple[str, str]]] = {}
        self._bound_names: Optional[FrozenSet[Tuple[str, str]]] = None
        self.exports = exports
        self.stars = stars
        self.calls = calls
        self._edges: Dict[UnitKey, FrozenSet[UnitKey]] = {}
        self._runs: Dict[UnitKey, FrozenSet[str]] = {}
        self._built: Dict[UnitKey, Tuple[Tuple[UnitKey, ...], Tuple[str, ...]]] = {}
        self._returned: Dict[UnitKey, Tuple[Tuple[Tuple[UnitKey, str], ...], Tuple[str, ...]]] = {}
        self._by_method: Optional[Dict[str, Tuple[UnitKey, ...]]] = None
        self._methods: Dict[str, Dict[str, Tuple[UnitKey, ...]]] = {}
        self._subclasses: Optional[Dict[UnitKey, List[UnitKey]]] = None
        self._bases: Dict[UnitKey, Tuple[UnitKey, ...]] = {}
        self._lineages: Dict[UnitKey, FrozenSet[UnitKey]] = {}
        self._belows: Dict[UnitKey, FrozenSet[UnitKey]] = {}
        self._mros: Dict[UnitKey, Tuple[UnitKey, ...]] = {}
        self._resolved: Dict[Tuple[str, Tuple[str, ...]], Optional[UnitKey]] = {}
        self._reached: Dict[Tuple[FrozenSet[str], Tuple[str, ...]], FrozenSet[UnitKey]] = {}

    def unit(self, key: UnitKey) -> Optional[UnitFacts]:
        return self.units.get(key[0], {}).get(key[1])

    def reached(self, entry: str, modules: FrozenSet[str], extra: Iterable[str] = ()) -> FrozenSet[UnitKey]:
        """The units that run when ``entry`` runs: the module code of ``modules`` (what it
        imports), its main block, the functions named in ``extra`` (``path:function``,
        console scripts), and what those run: the units they name, the constructors of
        the classes reached, and their methods whose names reached code reads (a name a
        method reads on its own instance, ``self.run()``, only in its class's lineage)."""
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
        # definitions filed by an alias of a registry object's method (``register_model =
        # Registries.models.register``): run once reached code looks that registry up (a
        # function of its module that reads ``Registries.models``, or another alias of it,
        # ``model = Registries.models.__getitem__``), not when another registry is used
        held: Dict[Tuple[str, str], List[UnitKey]] = {}
        for path in sorted(modules):
            for name, facts in self.units.get(path, {}).items():
                if name == MODULE_UNIT:
                    start.append((path, name))
                for decorator in facts.registered_by:
                    by_alias = self.registry_of(decorator, path)
                    registry = self.resolve(decorator, near=path) if by_alias is None else None
                    if by_alias is not None:
                        held.setdefault(by_alias, []).append((path, name))
                    elif registry is None:
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
        seen: Set[UnitKey] = set()
        stack: List[UnitKey] = []
        # classes the program only lists as values (``[ModelA, ModelB]``, a base class, the
        # classes of a module it takes definitions from by a computed name): not
        # instantiated until reached code names them otherwise or calls a value looked up
        # in a registry of the project
        unconstructed: Set[UnitKey] = set()
        instantiated: Set[UnitKey] = set()
        looks_up = False
        runs: Set[str] = set()  # method names (and patterns) reached code runs
        properties: Set[str] = set()  # names reached code reads as data: they run properties
        patterns: List[str] = []
        waiting: Dict[str, List[UnitKey]] = {}  # method name -> methods of reached classes not yet run
        scoped: Set[Tuple[UnitKey, str]] = set()  # (class, method name) run on an instance of its lineage

        def reach(key: UnitKey) -> None:
            # a name of a module the program never imports (a type checker's import) runs nothing
            if key not in seen and key[0] in modules and not self._is_opaque(key):
                seen.add(key)
                stack.append(key)

        def called(method: UnitKey) -> bool:
            """Whether reached code runs ``method``'s name (or reads it as data, for a property)."""
            name = method[1].partition(".")[2]
            return (name in runs or any(fnmatchcase(name, p) for p in patterns)
                    or (name in properties and self._is_property(method)))

        def dispatched(method: UnitKey) -> bool:
            """A method runs on an instance: of a class instantiated that has it as its own
            or inherits it (``_SerialModel`` overrides ``all_reduce``: its base's never runs
            on it); a static or class method on the class itself."""
            owner = (method[0], method[1].partition(".")[0])
            if self._class_level(method):
                return owner in seen
            name = method[1].partition(".")[2]
            return any(
                cls in instantiated and self._resolves(cls, name) == method for cls in self._below(owner)
            )

        def release(name: str) -> None:
            # a name read as data releases only properties (``x.device.type`` runs no
            # ``device()`` method): ``called`` says whether this read runs the method
            for method in list(waiting.get(name, ())):
                if called(method) and dispatched(method):
                    waiting[name].remove(method)
                    reach(method)

        def instantiate(cls: UnitKey) -> None:
            """``cls`` is constructed: its constructors (its own or inherited) run, and the
            methods it has whose names reached code runs."""
            if cls in instantiated or cls in unconstructed or not self._methods_of_lineage(cls):
                return
            instantiated.add(cls)
            for ancestor in self._mro(cls):
                for method in self._methods_of(ancestor):
                    name = method[1].partition(".")[2]
                    if self._resolves(cls, name) == method and (name in self.calls.with_class or called(method)):
                        reach(method)

        def construct(cls: UnitKey) -> None:
            unconstructed.discard(cls)
            instantiate(cls)

        def listed(key: UnitKey) -> None:
            if key not in seen and not looks_up and self._methods_of_lineage(key):
                unconstructed.add(key)
            reach(key)

        stored: Dict[str, List[UnitKey]] = {}  # field -> definitions stored under it, not yet read
        names_seen: Set[Tuple[str, str]] = set()  # module-level names bound to definitions, named

        def run(name: str) -> None:
            if name in runs:
                return
            runs.add(name)
            for definition in stored.pop(name, ()):
                reach(definition)
            if "*" in name:
                patterns.append(name)
                for method_name in [m for m in waiting if fnmatchcase(m, name)]:
                    release(method_name)
            else:
                release(name)

        def read_as_data(name: str) -> None:
            if name not in properties:
                properties.add(name)
                release(name)

        def run_scoped(cls: UnitKey, name: str) -> None:
            for member in self._lineage(cls):
                method = (member[0], f"{member[1]}.{name}")
                if (member, name) not in scoped:
                    scoped.add((member, name))
                    if member in seen and method[1] in self.units.get(member[0], {}):
                        reach(method)

        def look_up(unit: UnitFacts, path: str, code: bool) -> None:
            """Release the definitions of the registries ``unit`` looks up."""
            found = [(path, chain) for chain in unit.uses_registries] if code else []
            for ref in unit.refs:
                # filing a definition (``registry.register_optimizer(key)(fn)``, a definition's
                # own decorator) looks nothing up
                if not self._registering(ref):
                    target = self.registry_of(ref[1:] if ref.startswith(LOCAL) else ref, path, local=ref.startswith(LOCAL))
                    if target is not None and (code or target[0] != path):  # its module's aliases are no lookup
                        found.append(target)
            for registry in found:
                for item in held.pop(registry, ()):
                    if item in unconstructed:
                        construct(item)
                    else:
                        reach(item)

        for key in start:
            reach(key)
        while stack:
            key = stack.pop()
            unit = self.unit(key)
            if held and unit is not None:
                look_up(unit, key[0], key[1] not in (MODULE_UNIT, MAIN_UNIT))
            for ref in unit.refs if unit is not None and self._has_bound else ():
                target_of = self._bound_of(ref, key[0])
                if target_of is not None and target_of not in names_seen:
                    names_seen.add(target_of)
                    module_unit = self.unit((target_of[0], MODULE_UNIT))
                    for bound_ref in module_unit.bound.get(target_of[1], ()) if module_unit is not None else ():
                        definition = self._target(bound_ref, target_of[0])
                        if definition is not None:
                            reach(definition)
            for keyword, names in unit.stored.items() if unit is not None else ():
                kept = [t for t in (self._target(ref, key[0]) for ref in names) if t is not None]
                if keyword in runs:
                    for definition in kept:
                        reach(definition)
                else:
                    stored.setdefault(keyword, []).extend(kept)
            if not looks_up and unit is not None and any(self._in_project(c, key[0]) for c in unit.lookup_calls):
                looks_up = True
                for cls in sorted(unconstructed):
                    construct(cls)
            uses_registry = key[1] != MODULE_UNIT and key not in decorators
            for nxt in (*self._edges_of(key), *(registered.pop(key[0], ()) if uses_registry else ())):
                if nxt in unconstructed:
                    construct(nxt)  # a listed class named (called, subclassed, ...)
                else:
                    reach(nxt)
            for nxt in self._listed_of(key):
                listed(nxt)
            for method in self._methods_of(key):
                name = method[1].partition(".")[2]
                if (key, name) in scoped or (called(method) and dispatched(method)):
                    reach(method)
                elif name not in self.calls.with_class:
                    waiting.setdefault(name, []).append(method)
            if self._methods_of(key) or unit is not None and unit.bases:
                instantiate(key)
            owner, dot, _ = key[1].partition(".")
            for name in self._self_runs_of(key) if dot else ():
                if "*" in name:
                    run(name)
                else:
                    run_scoped((key[0], owner), name)
            for typed in unit.typed_reads if unit is not None else ():
                kind, _, name = typed.rpartition(":")
                target = self.resolve(kind, near=key[0])
                if target is not None and self._is_opaque(target):
                    run(name)  # a value of a type rule data describes: read as one outside the project
                elif target is not None and self._methods_of(target):
                    run_scoped(target, name)
            for method in self._built_of(key)[0]:
                reach(method)
            for cls, name in self._returned_of(key)[0]:
                run_scoped(cls, name)
            for name in self._runs_of(key):
                run(name)
            for name in unit.data_reads if unit is not None else ():
                read_as_data(name)
        found = self._reached[memo] = frozenset(seen)
        return found

    def _is_opaque(self, key: UnitKey) -> bool:
        """Whether ``key`` is, or is a method of, a definition of the project that rule data
        describes (``modeled``): what it does is the rule data's, not its body's."""
        if self._opaque is None:
            found = (self.resolve(name) for name in self.modeled)
            self._opaque = frozenset(key for key in found if key is not None)
        if not self._opaque:
            return False
        return key in self._opaque or (key[0], key[1].partition(".")[0]) in self._opaque

    def named_from(self, start: Iterable[UnitKey], allowed: Callable[[UnitKey], bool]) -> FrozenSet[UnitKey]:
        """``start`` and the units its code names, transitively, through units ``allowed``
        accepts (no dispatch: a method runs here only where named)."""
        return _closure(start, lambda key: [k for k in self._edges_of(key) if allowed(k)])

    def registry_of(self, name: str, near: str, local: bool = False) -> Optional[Tuple[str, str]]:
        """The registry (module path, registry object) a name refers to through a
        module-level alias of one of its methods (``registry.register_model`` for
        ``register_model = Registries.models.register``), or by the object's own method
        (``Registries.models.register``); None otherwise.  ``local``: a name of ``near``'s own."""
        if local:
            chain = self.registries.get(near, {}).get(name)
            return (near, chain) if chain is not None else None
        memo = (name, tuple(self.project.search_path(near)) if near else ())
        if memo in self._held:
            return self._held[memo]
        found: Optional[Tuple[str, str]] = None
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            record = self._module(".".join(parts[:end]), near)
            if record is None:
                continue
            aliases = self.registries.get(record.path, {})
            rest = parts[end:]
            if len(rest) == 1 and rest[0] in aliases:
                found = (record.path, aliases[rest[0]])
            elif len(rest) > 1 and ".".join(rest[:-1]) in aliases.values():
                found = (record.path, ".".join(rest[:-1]))
            break
        self._held[memo] = found
        return found

    @property
    def _has_bound(self) -> bool:
        found = self._bound_names
        if found is None:
            found = self._bound_names = frozenset(
                (path, name) for path, units in self.units.items()
                for name in (units[MODULE_UNIT].bound if MODULE_UNIT in units else ())
            )
        return bool(found)

    def _bound_of(self, ref: str, near: str) -> Optional[Tuple[str, str]]:
        """The (module, name) of a module-level name bound to definitions that ``ref`` names."""
        assert self._bound_names is not None
        if ref.startswith(LOCAL):
            return (near, ref[1:]) if (near, ref[1:]) in self._bound_names else None
        module, _, attr = ref.rpartition(".")
        record = self._module(module, near) if module else None
        return (record.path, attr) if record is not None and (record.path, attr) in self._bound_names else None

    def _registering(self, name: str) -> bool:
        """Whether a name's last part is a registering decorator's (rule data
        ``registering_decorator``: ``register_model``)."""
        return bool(self.calls.registering) and re.search(self.calls.registering, name.rpartition(".")[2]) is not None

    def _in_project(self, name: str, near: str) -> bool:
        """Whether a qualified name is defined in the project (a module, or a name in one)."""
        parts = name.split(".")
        return any(self._module(".".join(parts[:end]), near) is not None for end in range(len(parts), 0, -1))

    def _class_level(self, method: UnitKey) -> bool:
        facts = self.unit(method)
        return facts is not None and facts.class_level

    def _mro(self, cls: UnitKey) -> Tuple[UnitKey, ...]:
        """``cls`` and its project bases, nearest first (depth first, left to right: the
        method resolution order of the hierarchies ML code writes)."""
        found = self._mros.get(cls)
        if found is None:
            order: List[UnitKey] = []
            stack = [cls]
            while stack:
                current = stack.pop()
                if current not in order:
                    order.append(current)
                    stack.extend(reversed(self._bases_of(current)))
            found = self._mros[cls] = tuple(order)
        return found

    def _resolves(self, cls: UnitKey, name: str) -> Optional[UnitKey]:
        """The method ``name`` means on an instance of ``cls``: the first class of its MRO
        that defines it."""
        for ancestor in self._mro(cls):
            if f"{ancestor[1]}.{name}" in self.units.get(ancestor[0], {}):
                return (ancestor[0], f"{ancestor[1]}.{name}")
        return None

    def _methods_of_lineage(self, cls: UnitKey) -> bool:
        """Whether ``cls`` is a class (it or a project base has methods)."""
        return any(self._methods_of(ancestor) for ancestor in self._mro(cls))

    def _below(self, cls: UnitKey) -> FrozenSet[UnitKey]:
        """``cls`` and its subclasses in the project."""
        found = self._belows.get(cls)
        if found is None:
            found = self._belows[cls] = _closure({cls}, self._subclasses_of)
        return found

    def _is_property(self, method: UnitKey) -> bool:
        facts = self.unit(method)
        return facts is not None and facts.is_property

    def _listed_of(self, key: UnitKey) -> List[UnitKey]:
        """The definitions ``key`` only lists as values, and every definition of the
        modules it takes definitions from by a computed name."""
        facts = self.unit(key)
        if facts is None:
            return []
        found = [target for target in (self._target(ref, key[0]) for ref in facts.listed) if target is not None]
        for name in facts.lookups:
            record = self._module(name, key[0])
            if record is not None:
                found.extend((record.path, unit) for unit in self.units.get(record.path, {})
                             if unit not in (MODULE_UNIT, MAIN_UNIT) and "." not in unit)
        return found

    def target(self, ref: str, path: str) -> Optional[UnitKey]:
        """The unit a reference of a unit of ``path`` names (``.name``: of that module)."""
        return self._target(ref, path)

    def lineage_methods(self, cls: UnitKey, names: Iterable[str]) -> List[UnitFacts]:
        """The methods named ``names`` that ``cls`` or a project base of it defines."""
        wanted = tuple(names)
        return [
            method for ancestor in self._mro(cls) for name in wanted
            for method in (self.unit((ancestor[0], f"{ancestor[1]}.{name}")),) if method is not None
        ]

    def _target(self, ref: str, path: str) -> Optional[UnitKey]:
        if ref.startswith(LOCAL):
            return (path, ref[1:]) if ref[1:] in self.units.get(path, {}) else None
        return self.resolve(ref, near=path)

    def _methods_of(self, key: UnitKey) -> Tuple[UnitKey, ...]:
        """The method units of ``key`` when it is a class, else ()."""
        classes = self._methods.get(key[0])
        if classes is None:
            grouped: Dict[str, List[UnitKey]] = {}
            for name in self.units.get(key[0], {}):
                owner, dot, _ = name.partition(".")
                if dot:
                    grouped.setdefault(owner, []).append((key[0], name))
            classes = self._methods[key[0]] = {owner: tuple(methods) for owner, methods in grouped.items()}
        return classes.get(key[1], ())

    def _self_runs_of(self, key: UnitKey) -> FrozenSet[str]:
        """The method names a method runs on its own instance (``self.start()``: ``start``
        and ``run``)."""
        facts = self.unit(key)
        return self.calls.names_run(facts.self_reads, ()) if facts is not None and facts.self_reads else frozenset()

    def _lineage(self, cls: UnitKey) -> FrozenSet[UnitKey]:
        """The classes whose methods ``self.name()`` in a method of ``cls`` may run: the
        classes of the instances it can be (``cls`` and its subclasses) and their bases;
        not a sibling that shares a base."""
        found = self._lineages.get(cls)
        if found is None:
            found = self._lineages[cls] = _closure(self._below(cls), self._bases_of)
        return found

    def _bases_of(self, cls: UnitKey) -> Tuple[UnitKey, ...]:
        found = self._bases.get(cls)
        if found is None:
            facts = self.unit(cls)
            bases = []
            for base in facts.bases if facts is not None else ():
                target = (cls[0], base[1:]) if base.startswith(LOCAL) else self.resolve(base)
                if target is not None and target[1] in self.units.get(target[0], {}):
                    bases.append(target)
            found = self._bases[cls] = tuple(bases)
        return found

    def _subclasses_of(self, cls: UnitKey) -> List[UnitKey]:
        if self._subclasses is None:
            self._subclasses = {}
            for path, units in self.units.items():
                for name, facts in units.items():
                    if facts.bases:
                        for base in self._bases_of((path, name)):
                            self._subclasses.setdefault(base, []).append((path, name))
        return self._subclasses.get(cls, [])

    def _runs_of(self, key: UnitKey) -> FrozenSet[str]:
        """The method names ``key`` runs: those it reads, those of project names it refers
        to (``helper.make_device`` of a module-level instance), what they imply."""
        found = self._runs.get(key)
        if found is None:
            facts = self.unit(key)
            if facts is None:
                found = frozenset()
            else:
                reads = [
                    *facts.reads, *self._built_of(key)[1], *self._returned_of(key)[1],
                    *(name for ref in facts.refs if not ref.startswith(LOCAL) for name in self._attributes(ref)),
                ]
                found = self.calls.names_run(reads, facts.implicit)
            self._runs[key] = found
        return found

    def _built_of(self, key: UnitKey) -> Tuple[Tuple[UnitKey, ...], Tuple[str, ...]]:
        """The names ``key`` reads on locals a call made (``built_reads``).  On an instance
        of a project class, the method of that name its class has or inherits runs, no
        other (an nn.Module's ``model.train()`` is no trainer's ``train``); where its
        project lineage has none, a base outside the project runs it, and what rule data
        says that runs (``thread.start()`` runs ``run``, ``trainer.fit(model)`` the model's
        hooks) runs by name.  The rest (a function's result, an instance of a class outside
        the project: any object) are read by name.  Returns the methods, and the names."""
        found = self._built.get(key)
        if found is None:
            facts = self.unit(key)
            methods: List[UnitKey] = []
            loose: List[str] = []
            for read in facts.built_reads if facts is not None else ():
                callee, _, name = read.rpartition(":")
                cls = self.resolve(callee, near=key[0])
                # the callee must name the class itself: ``registry.model`` bound to
                # ``Registries.models.__getitem__`` resolves to ``Registries``, whose
                # instance its result is not
                # an instance of a definition rule data describes (``modeled``) is read as one
                # of a class outside the project: ``trainer.fit(model)`` runs the model's hooks
                if (cls is None or cls[1] != callee.rpartition(".")[2] or not self._methods_of_lineage(cls)
                        or self._is_opaque(cls)):
                    loose.append(name)
                    continue
                method = self._resolves(cls, name)
                if method is not None:
                    methods.append(method)
                else:
                    loose.extend(sorted(self.calls.names_run((name,), ()) - {name}))
            found = self._built[key] = (tuple(methods), tuple(loose))
        return found

    def _returned_of(self, key: UnitKey) -> Tuple[Tuple[Tuple[UnitKey, str], ...], Tuple[str, ...]]:
        """The names ``key`` reads on what method calls return (``returned_reads``).  Where
        the project defines methods of the called name and each declares returning a class
        of the project (``def get_model(self) -> Model``), the read runs only a method of
        those classes' lineages, as on a value annotated with the type (an nn.Module's
        ``get_model().train()`` is no trainer's ``train``); otherwise (a method outside the
        project, one that declares nothing or a type outside it) it runs any method of the
        name.  Returns the (class, name) pairs and the names read by name."""
        found = self._returned.get(key)
        if found is None:
            facts = self.unit(key)
            scoped: List[Tuple[UnitKey, str]] = []
            loose: List[str] = []
            for read in facts.returned_reads if facts is not None else ():
                method, _, name = read.rpartition(":")
                classes = self._declared_classes(method)
                if classes is None:
                    loose.append(name)
                else:
                    scoped.extend((cls, name) for cls in classes)
            found = self._returned[key] = (tuple(scoped), tuple(loose))
        return found

    def _declared_classes(self, method: str) -> Optional[Tuple[UnitKey, ...]]:
        """The project classes the project's methods named ``method`` declare returning,
        or None where there is no such method or one of them declares no project class."""
        if self._by_method is None:
            by_method: Dict[str, List[UnitKey]] = {}
            for path, units in self.units.items():
                for unit_name in units:
                    owner, dot, name = unit_name.partition(".")
                    if dot:
                        by_method.setdefault(name, []).append((path, unit_name))
            self._by_method = {name: tuple(keys) for name, keys in by_method.items()}
        methods = self._by_method.get(method)
        if not methods:
            return None
        classes: Set[UnitKey] = set()
        for key in methods:
            facts = self.unit(key)
            cls = self.resolve(facts.returns, near=key[0]) if facts is not None and facts.returns else None
            if cls is None or not self._methods_of_lineage(cls):
                return None
            classes.add(cls)
        return tuple(sorted(classes))

    def _attributes(self, name: str) -> Tuple[str, ...]:
        """The attribute names a qualified name reads on a value of a project module:
        ``make_device`` in ``pkg.helper.instance.make_device``."""
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            if self.project.module(".".join(parts[:end])) is not None:
                return tuple(parts[end + 1:])
        return ()

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
                    owner, dot, _ = target[1].partition(".")
                    if dot:  # ``Class.method`` named: the class is reached too
                        targets.add((target[0], owner))
            found = self._edges[key] = frozenset(targets)
        return found

    def resolve(self, name: str, depth: int = 0, near: str = "") -> Optional[UnitKey]:
        """The unit a qualified name refers to: ``pkg.mod.fn`` (``fn`` of ``pkg.mod``),
        ``pkg.mod.Class.method`` (the method, else the class), through a package's
        re-exports and star imports; None for names outside the project.  ``near``: the
        module whose code names it (its imports find its neighbours first,
        ``Project.module_near``)."""
        memo = (name, tuple(self.project.search_path(near)) if near else ())
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
            units = self.units.get(path, {})
            if attr in units:
                method = f"{attr}.{parts[end + 1]}" if end + 1 < len(parts) else attr
                return (path, method if method in units else attr)
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


def _closure(start: Iterable[UnitKey], step: Callable[[UnitKey], Iterable[UnitKey]]) -> FrozenSet[UnitKey]:
    """``start`` and everything ``step`` reaches from it (subclasses, or bases)."""
    found = set(start)
    stack = list(found)
    while stack:
        for item in step(stack.pop()):
            if item not in found:
                found.add(item)
                stack.append(item)
    return frozenset(found)
