"""Pass 2 of the seeding analysis: run every entry point of the project, in program order.

The functions of all modules (``collect``) are linked into one call graph: a call target
is a qualified name, looked up through the project's modules (``Project.by_name``),
their re-exports and star imports, classes and their project base classes.  Each entry
point is then run abstractly from an empty set of seeded RNGs: module code at import,
the main block in order, into every project function it calls.  A seed adds RNGs to the
set; a use is *uncovered* when its RNG is not in the set at that point.

* Seeds only accumulate, so the state in which a function is first entered is the
  smallest it will see; visits are memoised on (function, state, relevant arguments).
* A class instantiation runs ``__init__``; its other methods (``forward``, ``__getitem__``,
  framework callbacks) run later, so they are visited with the state after ``__init__``
  and their seeds are not credited to the caller. So are functions passed as values.
  An object the function binds to a local (a ``held`` call) runs them only once the local
  is read: they are visited with the state at its first read (``OBJECT_READ``), so a
  replay buffer built before the seed and first handed to the trainer after it draws seeded.
* Guards (``if args.seed is not None:``) are evaluated with every option, parameter and
  constant at its default; a seed whose guard is false by default does not count.  An
  option's default is its reader's own declaration, else what the declarations in the
  modules the program loads agree on: a module it never loads declares nothing for it.
  The memos of runs and values note the defaults they read that way (``_Memo.read``),
  and hold in another program only where it reads them the same.
* A config object made by a call the program runs (``EncoderConfig(type=FLAGS.encoder)``,
  also through a function that returns it) is a ``Record`` of the fields the call sets;
  passed on as an argument, it answers reads of its fields (``config.type``) with them or
  with the class's declared defaults, so a builder chosen by ``if config.type == ...``
  runs only where the default run chooses it.
* A class handed on as a value (``DQN(policy=MlpPolicy)``) is made later by whoever holds
  it, as a function handed on is called later; not where it is handed on only in a branch
  the default run does not take.  A definition a project decorator files in a registry
  runs when the program, having imported its module, calls into the registry's module;
  a function there that makes nothing it finds (``REGISTRY[name].add_args(parser)``)
  runs only the static and class methods it calls on the classes.
* A parameter annotated with a config class (``params: DataConfig``) whose value is not
  known is an assumed ``Record``: its seed field and its fields with a default other than
  None hold their declared defaults.
* An object's attributes are values too: what its constructor sets (``self.seed = seed``,
  through ``super().__init__`` and the methods it calls on itself) is known to the methods
  run on it later, by its owner (``model = DQN(env); model.learn()``) or as callbacks,
  unless another method sets them again.
"""

from __future__ import annotations

import bisect
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, TypeGuard, Union

from nondet_lint.analysis.entrypoints import EntryFacts, is_entry_point
from nondet_lint.analysis.fieldsettings import settled
from nondet_lint.analysis.seedoption import SEED_NAMES
from nondet_lint.callargs import UNKNOWN
from nondet_lint.facts import FileFacts
from nondet_lint.families.seeding.conditions import CallDescs, Plain, ValueDesc, ValueSource, described_names, evaluate, parameters_read
from nondet_lint.families.seeding.events import FORWARDED_KEYWORDS, MARKED_TARGETS, EventKind, Guard, SeedingEvent, Trained, absolute
from nondet_lint.families.seeding.facts import NO_SEEDING, FunctionFacts, ModuleSeeding, Origin, OriginKind
from nondet_lint.families.seeding.state import MAIN, MODULE
from nondet_lint.families.seeding.tables import TF_KERAS

FnKey = Tuple[str, str]  # (module path, function name)
Binding = Tuple[Any, ...]  # what a call binds to a function's parameters (hashable, ``bind``)
_MAX_DEPTH = 150
SELF = "self."  # binding names of a method's own attributes (no parameter name holds a dot)
_SKIPPED = object()  # an attribute assignment under a guard that is false by default
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_TRAINS = object()  # a step of ``Program._training_steps``: evidence of training
_NAMED = "."  # a memo's read of whether the program names a method (no option's name starts so)


@dataclass(frozen=True)
class FunctionTarget:
    """A call target that is a project function or method."""

    key: FnKey
    bound: bool  # a method reached through its object or class, so ``self`` is not among the arguments


@dataclass(frozen=True)
class ClassTarget:
    """A call target that is a project class (calling it runs its ``__init__``)."""

    path: str  # its module
    name: str  # its path in the module: ``Outer.Inner``


@dataclass(frozen=True)
class ModuleTarget:
    """A name that is a project module."""

    path: str


Target = Union[FunctionTarget, ClassTarget, ModuleTarget]


class Callee(NamedTuple):
    """A function a call runs now."""

    key: FnKey  # ``("", "")`` for a class with no ``__init__`` of its own in the project
    bound: bool
    instantiated: Optional[ClassTarget]  # the class a call instantiates


@dataclass(frozen=True)
class Record:
    """A config object the program makes: its class and the fields its call sets (the
    others hold the class's declared defaults)."""

    cls: Tuple[str, str]  # (module path, class path)
    given: Tuple[Tuple[str, Any], ...]  # (field, value), sorted
    # known only from a parameter's annotation (``params: DataConfig``), not from a call the
    # program made: it answers its seed field and the fields whose default is not None
    assumed: bool = False


# in a run's state, beside the seeded RNGs: ``NEW_GRAPH + rng``, the code runs in a graph made
# and entered, or made the default, since (``EventKind.GRAPH``, ``GRAPH_RESET``), where no seed
# set before it reaches
NEW_GRAPH = "new-graph:"


def _graph_scoped(rngs: Sequence[str]) -> FrozenSet[str]:
    """What a graph entered or left sets in a run's state: its RNGs and their marks."""
    return frozenset((*rngs, *(NEW_GRAPH + rng for rng in rngs)))


@dataclass
class Uncovered:
    """The first time a use ran with its RNG unseeded."""

    entry: str  # path of the entry point
    via_import: Optional[str]  # path of the module whose import ran it, if at import time
    chain: Tuple[FnKey, ...] = ()  # the functions that led there, outermost first
    deferred: bool = False  # reached only through a callback or a function passed as a value
    new_graph: bool = False  # it ran in a graph made and entered after the program's seeds (``tf.Graph().as_default()``)


@dataclass(frozen=True)
class Frame:
    """How the code being visited came to run.

    ``via_import``: the module whose import runs it (module-level code).  ``speculative``:
    it is a callback or a function passed as a value that import-time code set up (a
    module-level singleton's methods, ``partial(fn)`` in a registry): whether it ever
    runs in this program is unknown, so its uses are not reported from here.  So is
    code called only under an option that is off by default (``off_by_default``:
    ``if args.random_transform: effects = effect_generator()``): the default run does
    not run it.  ``receiver``: in a class method, the class it was called on
    (``Net.from_config(...)`` run as ``Base.from_config``: its ``cls(...)`` makes a ``Net``).
    ``guarded``: called under a guard that is false with the defaults it reads but whose
    values are filled in at run time (``if args.seed is not None: set_seed(args.seed)``):
    its uses still count, but its seeds are the caller's seeds under that guard, and a
    seed value that is None by default is what the guard rules out."""

    via_import: Optional[str] = None
    deferred: bool = False
    off_by_default: bool = False
    receiver: Optional[Tuple[str, str]] = None
    guarded: bool = False

    @property
    def speculative(self) -> bool:
        return (self.via_import is not None and self.deferred) or self.off_by_default

    def later(self) -> "Frame":
        return replace(self, deferred=True)

    def importing(self, module: str) -> "Frame":
        return replace(self, via_import=self.via_import or module)

    def switched_off(self) -> "Frame":
        return replace(self, off_by_default=True)

    def under_guard(self) -> "Frame":
        return replace(self, guarded=True)


VisitKey = Tuple[FnKey, FrozenSet[str], Binding, bool, Frame]  # (function, state, binding, entry mode, frame)


@dataclass
class OffByDefault:
    """A seed (or a call that seeds) whose guard is false with every default."""

    path: str
    anchor: int
    rngs: FrozenSet[str]
    why: str
    # an API's optional seed for its own draws: the guard reads only parameters (``if seed
    # is not None:`` with ``seed=None``) and the function draws from these RNGs itself, so
    # None means "use the caller's RNG state" (``random_state=None``)
    own_draws: bool = False


@dataclass(frozen=True)
class NoneSeed:
    """A seed call given None by default: it seeds from OS entropy."""

    path: str
    anchor: int
    why: str  # why the value is None: ``--seed`` defaults to None


def _reads_an_option(guard: Guard) -> bool:
    """The guard reads a value the run fills in (an option, a config field, the
    environment), not only parameters: ``if seed is None: return`` in a library method is
    its "use the caller's RNG" convention, not a choice of the run."""
    return any(desc.source is not ValueSource.PARAMETER for desc in described_names(guard.cond))


def filled_in(binding: Binding) -> Binding:
    """A call's binding under a guard that is false with the defaults it reads: the run
    that takes the guard has filled in what was None by default (``if args.seed is not
    None: set_seed(args.seed)``), so a None here is a value set at run time."""
    return tuple((name, UNKNOWN if value is None else value) for name, value in binding)


class _Held(NamedTuple):
    """An object a function made and holds in a local that it has not read yet: its methods
    run from the first read on (``EventKind.OBJECT_READ``), with the state there."""

    cls: ClassTarget
    init: FnKey
    attrs: Mapping[str, Any]
    frame: Frame
    state: FrozenSet[str]  # after it was made: where its methods run if the function never reads it


@dataclass(frozen=True)
class _Unseeded:
    """A use that ran with its RNG unseeded (``chain``: the functions that led there)."""

    path: str
    cid: int
    rng: str
    via_import: Optional[str]
    chain: Tuple[FnKey, ...]
    deferred: bool
    new_graph: bool = False


@dataclass(frozen=True)
class _Seeded:
    rng: str
    place: Tuple[str, int]  # (path, anchor) of the seed


@dataclass(frozen=True)
class _Reseeded:
    rngs: FrozenSet[str]  # reseeded from OS entropy


@dataclass(frozen=True)
class _RestoresWeights:
    """The program restores a model's weights from a checkpoint."""


@dataclass(frozen=True)
class _LiveInput:
    """The program reads a person's input as it runs (``EventKind.LIVE_INPUT``)."""


Effect = Union[_Unseeded, _Seeded, _Reseeded, _RestoresWeights, _LiveInput, OffByDefault, NoneSeed]  # what running code records for its program


@dataclass(frozen=True)
class _Memo:
    """A memoised answer (``Program.seeds_of``, ``result``, ``assigned``) and the option
    defaults it read from the running program's declarations (``Program.option_default``):
    it holds in another program where those read the same."""

    value: Any
    read: Mapping[str, Any] = field(default_factory=dict)  # dest -> the default read


@dataclass
class _Trace:
    """What one run of a function (a memo key of ``Program.visit``) recorded, in order, and
    the state after it.  ``pure``: it followed from the memo key alone (it imported
    nothing, met no call already running and no depth limit), so another program that
    makes the same call gets the same, and is given this by replay, when the modules it
    found imported already (``imported``) are imported there too."""

    memo: "VisitKey"
    base: int  # the call stack's depth below the function
    items: List[Union[Effect, "_Nested"]] = field(default_factory=list)
    final: FrozenSet[str] = frozenset()
    pure: bool = True
    imported: Set[str] = field(default_factory=set)  # project modules it found imported already
    reached: Set[Tuple[str, int]] = field(default_factory=set)  # the uses it reached, its callees' too
    read: Dict[str, Any] = field(default_factory=dict)  # option defaults it read (``_Memo.read``), its callees' too


@dataclass(frozen=True)
class _Nested:
    """A callee's run inside a traced run, reached through ``chain``."""

    chain: Tuple[FnKey, ...]
    trace: _Trace


@dataclass
class EntryRun:
    path: str
    visited: Set["VisitKey"] = field(default_factory=set)  # the runs of functions this program made
    first_seed: Dict[str, Tuple[str, int]] = field(default_factory=dict)  # rng -> (path, anchor)
    off: List[OffByDefault] = field(default_factory=list)
    none_seeds: List[NoneSeed] = field(default_factory=list)
    final: FrozenSet[str] = frozenset()
    uncovered_rngs: Set[str] = field(default_factory=set)
    reseeded: Set[str] = field(default_factory=set)  # reseeded from entropy somewhere in the run
    new_graphs: Set[str] = field(default_factory=set)  # RNGs it ran unseeded in a new graph (no seed at the top reaches)
    training: Trained = Trained.NOTHING  # the most the code it runs trains
    test: bool = False  # test code: not a program whose randomness matters
    restores_weights: bool = False  # it restores a model's weights in the default run
    live_input: bool = False  # it reads a person's input as it runs (a game played by hand)
    unseeded: Dict[Tuple[str, int], Uncovered] = field(default_factory=dict)  # uses it ran unseeded, where first
    reached: Set[Tuple[str, int]] = field(default_factory=set)  # the uses it reached
    # registry module -> the definitions its decorators filed when their modules were imported
    registered: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)
    filed: Set[str] = field(default_factory=set)  # modules whose registrations are in ``registered``
    looked_up: Set[Tuple[Tuple[str, str], bool]] = field(default_factory=set)  # (definition, speculative) already run

    @property
    def trains(self) -> bool:
        return self.training is not Trained.NOTHING


def _console(facts: FileFacts) -> List[str]:
    """The functions of a module the packaging names as console scripts."""
    entry = facts.get(EntryFacts)
    return list(entry.console) if entry is not None else []


class Program:
    """The project's functions, linked, and the results of running its entry points.

    ``previous``: the program of the same project before some files changed (a language
    server's); what a module's facts alone give is taken from it for the modules whose
    facts are as they were (``same_inputs`` says when the whole program is)."""

    def __init__(self, modules: Mapping[str, FileFacts], module_of: Mapping[str, str],
                 names: Mapping[str, List[str]], external_roots: Iterable[str], tf_keras_rng: str,
                 test_code: FrozenSet[str] = frozenset(), previous: Optional["Program"] = None,
                 framework_methods: Iterable[str] = (), framework_constructors: Mapping[str, Tuple[str, ...]] = {}) -> None:
        self.test_code = test_code
        self.framework_constructors = dict(framework_constructors)
        hooks = tuple(framework_methods)
        self.framework_methods = frozenset(name for name in hooks if not name.endswith("*"))
        self.framework_prefixes = tuple(name[:-1] for name in hooks if name.endswith("*"))
        self._named: Optional[FrozenSet[str]] = None  # the attribute names any project code reads
        self._program_names: Optional[FrozenSet[str]] = None  # those the running program's code may read
        self._names_of: Dict[str, Tuple[FrozenSet[str], Dict[str, FrozenSet[str]]]] = {}  # ``_module_names``
        self.facts: Dict[str, ModuleSeeding] = {path: facts.get(ModuleSeeding) or NO_SEEDING for path, facts in modules.items()}
        self.module_of = module_of  # path -> module name, which completes the names events write from their module
        if previous is not None:
            # facts equal to the last project's are taken as its objects: ``same_inputs``
            # then compares identities (an edit replaces one file's facts, not the others')
            for path, seeding in self.facts.items():
                before = previous.facts.get(path)
                if before is not None and before is not seeding and before == seeding:
                    self.facts[path] = before
        self.entry_paths = sorted(
            path for path, facts in modules.items() if is_entry_point(facts) and ModuleSeeding in facts
        )
        # functions the packaging names as console scripts: they run after their module
        self.console = {path: _console(modules[path]) for path in self.entry_paths}
        self.names = names  # dotted module name -> paths of the modules answering to it
        self.full_names: Dict[str, str] = {}  # exact module name -> path (first by path)
        for path in sorted(module_of):
            self.full_names.setdefault(module_of[path], path)
        self.external = frozenset(external_roots) | _STDLIB
        self.rng_map = {TF_KERAS: tf_keras_rng}
        self._lookup_cache: Dict[Tuple[str, str], Optional[Target]] = {}
        self._module_cache: Dict[Tuple[str, str], Optional[str]] = {}
        self._imported_cache: Dict[Tuple[str, str], Tuple[str, ...]] = {}
        self._trains: Dict[Tuple[Tuple[FnKey, bool], Trained], bool] = {}
        self._seeds_cache: Dict[Tuple[FnKey, Binding], _Memo] = {}
        self._relevant: Dict[FnKey, FrozenSet[str]] = {}
        self._fallback_calls: Optional[Dict[FnKey, List[Tuple[FnKey, bool, SeedingEvent]]]] = None  # ``_calls_of``
        self._results: Dict[Tuple[FnKey, Binding], _Memo] = {}  # what a call of a function gives
        self._fields: Dict[Tuple[str, str], Dict[str, List[Plain]]] = {}
        self._getting: Set[FnKey] = set()  # the property getters being valued (one that reads itself)
        self._own_private: Dict[Tuple[str, str], Set[FnKey]] = {}  # class -> ``_used_on_self`` of its methods
        self._assigned_cache: Dict[Tuple[FnKey, Binding], _Memo] = {}  # (attributes, methods that ran)
        # runs of functions, by memo key (``EntryRun.visited``), to replay in other programs
        self._traces: Dict[VisitKey, _Trace] = {}
        self._open: List[_Trace] = []  # the traces of the functions running now, innermost last
        self.uncovered: Dict[Tuple[str, int], Uncovered] = {}
        self.reached: Set[Tuple[str, int]] = set()
        self.runs: Dict[str, EntryRun] = {}
        self.stack: List[FnKey] = []
        self.options = self._options()
        self._loaded: Optional[FrozenSet[str]] = None  # the modules the running program loads (None: no program, all)
        self._imports: Dict[str, FrozenSet[str]] = {}  # path -> the project modules its imports name
        self._agreed_defaults: Dict[str, Tuple[Any]] = {}  # dest -> (its default where ``_loaded`` agree, else UNKNOWN)
        self._read: List[Dict[str, Any]] = []  # what the memoised computations running now read, innermost last
        self._folders: Dict[str, str] = {}
        self._seed_params: Optional[Tuple[Dict[FnKey, Set[str]], Set[str]]] = None
        self._previous = previous  # whose runs ``run_all`` may keep
        self._reads: Dict[str, FrozenSet[str]] = {}  # path -> the modules its facts name (``_named_modules``)
        self._sorted_names: Optional[List[str]] = None
        if previous is not None and previous.names is names and previous.module_of == module_of:
            self._reads = {path: found for path, found in previous._reads.items() if self.facts.get(path) is previous.facts[path]}
        self._registries: Dict[Tuple[str, str], Optional[str]] = {}
        # fields every setting in the project gives the same falsy literal (``fieldsettings``)
        self.settled = {name: value for name, value in settled((facts.settings for facts in self.facts.values())).items()
                        if name not in SEED_NAMES}

    def same_inputs(self, other: "Program") -> bool:
        """Whether ``other`` was made from the same facts (then its runs are this one's)."""
        return (
            self.module_of == other.module_of and self.names == other.names and self.external == other.external
            and self.rng_map == other.rng_map and self.test_code == other.test_code and self.console == other.console
            and self.framework_methods == other.framework_methods and self.framework_prefixes == other.framework_prefixes
            and self.framework_constructors == other.framework_constructors
            and self.facts.keys() == other.facts.keys() and all(self.facts[path] is other.facts[path] for path in self.facts)
        )

    def fork(self) -> "Program":
        """A copy that answers as this program does now and fills memos of its own: a memo
        entered during a recursion holds a partial answer, so the order of questions counts,
        and one asker's questions must not change another's answers."""
        copy = object.__new__(Program)
        for name, value in vars(self).items():
            vars(copy)[name] = type(value)(value) if isinstance(value, (dict, set, list)) else value
        return copy

    # ---- names ----------------------------------------------------------------------
    def fn(self, key: FnKey) -> Optional[FunctionFacts]:
        return self.facts.get(key[0], NO_SEEDING).fns.get(key[1])

    def events(self, key: FnKey) -> Sequence[SeedingEvent]:
        fn = self.fn(key)
        return fn.events if fn is not None else ()

    def _options(self) -> Dict[str, List[Tuple[str, Any]]]:
        """Every declared command-line option: dest -> [(path, default or UNKNOWN)]."""
        out: Dict[str, List[Tuple[str, Any]]] = {}
        for path in sorted(self.facts):
            for dest, option in self.facts[path].opts.items():
                out.setdefault(dest, []).append((path, option.default if option.known_default else UNKNOWN))
        return out

    def option_default(self, dest: str, near: str) -> Any:
        """An option's default where ``near`` reads it: its own declaration, else what the
        declarations in the modules the running program loads agree on (UNKNOWN where
        none of them declares it: a module the program never loads answers nothing).
        Asked of no program in particular (a report's question after the runs), every
        declaration answers."""
        declared = self.options.get(dest)
        if not declared:
            return UNKNOWN
        for path, value in declared:
            if path == near:
                return value
        value = self._program_default(dest)
        if self._read:
            self._read[-1][dest] = value
        return value

    def _program_default(self, dest: str) -> Any:
        agreed = self._agreed_defaults.get(dest)
        if agreed is None:
            values = [value for path, value in self.options.get(dest, ()) if self._loaded is None or path in self._loaded]
            same = len({repr(value) for value in values}) == 1
            agreed = self._agreed_defaults[dest] = (values[0] if same else UNKNOWN,)
        return agreed[0]

    def _loads(self, entry: str) -> FrozenSet[str]:
        """The modules a program loads: its entry point and what the imports of each module
        it loads name, in any of its functions, transitively."""
        found, stack = {entry}, [entry]
        while stack:
            path = stack.pop()
            imports = self._imports.get(path)
            if imports is None:
                imports = self._imports[path] = frozenset(
                    module for fn in self.facts.get(path, NO_SEEDING).fns.values() for event in fn.events
                    if event.kind is EventKind.IMPORT for module in self.imported(event.target, path)
                )
            stack.extend(imports - found)
            found |= imports
        return frozenset(found)

    def _enter(self, loaded: Optional[FrozenSet[str]]) -> None:
        """Answer option defaults for the program that loads ``loaded`` (None: for none in particular)."""
        self._loaded = loaded
        self._agreed_defaults = {}
        self._program_names = None

    def _recalled(self, memo: Optional[_Memo]) -> TypeGuard[_Memo]:
        """Whether a memoised answer holds in the running program (the option defaults it
        read are the same here); what it read counts as read by the computation asking."""
        if memo is None or not self._reads_same(memo.read):
            return False
        self._note(memo.read)
        return True

    def _reads_same(self, read: Mapping[str, Any]) -> bool:
        return all(_same(self._names_here(dest[len(_NAMED):]) if dest.startswith(_NAMED) else self._program_default(dest), value)
                   for dest, value in read.items())

    def _note(self, read: Mapping[str, Any]) -> None:
        if self._read and read:
            self._read[-1].update(read)

    @contextmanager
    def _reading(self, read: Dict[str, Any]) -> Iterator[None]:
        """Note in ``read`` the option defaults a memoised computation reads, and pass them
        on to the one that asked for it."""
        self._read.append(read)
        try:
            yield
        finally:
            self._read.pop()
            self._note(read)

    def module_path(self, dotted: str, near: str = "") -> Optional[str]:
        """The project module an import of ``dotted`` from ``near`` finds.

        Scripts import their neighbours (``sys.path[0]`` is the script's folder), so among
        the modules answering to a name the one nearest the importer wins: same folder,
        then the exact package name, then the longest shared folder."""
        folder = self._folders.get(near)
        if folder is None:
            folder = self._folders[near] = os.path.dirname(near)
        key = (dotted, folder)
        if key in self._module_cache:
            return self._module_cache[key]
        found = self._module_path(dotted, near)
        self._module_cache[key] = found
        return found

    def _module_path(self, dotted: str, near: str) -> Optional[str]:
        candidates = self.names.get(dotted)
        if not candidates:
            return None
        exact = self.full_names.get(dotted)
        if dotted.split(".")[0] in self.external:
            return exact  # ``random.seed`` is the stdlib even if the project has a random.py
        if len(candidates) == 1:
            return candidates[0]
        folder = os.path.dirname(near)
        relative = dotted.replace(".", os.sep)
        for path in candidates:
            stem = os.path.splitext(path)[0]
            if stem == os.path.join(folder, relative) or stem == os.path.join(folder, relative, "__init__"):
                return path
        if exact is not None:
            return exact
        return max(candidates, key=lambda p: (len(os.path.commonpath([os.path.abspath(p), os.path.abspath(near or p)])), [-ord(c) for c in p]))

    def lookup(self, target: str, near: str, depth: int = 0) -> Optional[Target]:
        """What a call target names in the project: a function, a class or a module."""
        if target.startswith((".", "super:.", "cls:.")):
            target = absolute(target, self.module_of.get(near, ""))
        key = (target, near)
        if key in self._lookup_cache:
            return self._lookup_cache[key]
        self._lookup_cache[key] = None  # cycles in re-exports resolve to nothing
        found = self._lookup(target, near, depth)
        self._lookup_cache[key] = found
        return found

    def _lookup(self, target: str, near: str, depth: int) -> Optional[Target]:
        if depth > 8:
            return None
        if target.startswith("super:"):
            _, cls_target, method = target.split(":", 2)
            owner = self.lookup(cls_target, near, depth + 1)
            if isinstance(owner, ClassTarget):
                # ``super()`` starts after the class itself (it is first in its own order)
                for base in self._bases(owner.path, owner.name)[1:]:
                    found = self.method(base[0], base[1], method)
                    if found:
                        return FunctionTarget(found, True)
            return None
        if target.startswith("cls:"):  # the class defining the class method, where no call tells
            return self.lookup(target[len("cls:"):], near, depth + 1)
        if target.startswith("*."):
            return self._from_stars(near, target[2:].split("."), depth)
        parts = target.split(".")
        for cut in range(len(parts), 0, -1):
            path = self.module_path(".".join(parts[:cut]), near)
            if path is None:
                continue
            rest = parts[cut:]
            return self._inside(path, rest, depth)
        return None

    def _inside(self, path: str, rest: List[str], depth: int) -> Optional[Target]:
        facts = self.facts.get(path, NO_SEEDING)
        if not rest:
            return ModuleTarget(path)
        name = ".".join(rest)
        if name in facts.fns:
            return FunctionTarget((path, name), False)
        if name in facts.classes:
            return ClassTarget(path, name)
        if len(rest) >= 2:
            owner = ".".join(rest[:-1])
            if owner in facts.classes:
                found = self.method(path, owner, rest[-1])
                return FunctionTarget(found, False) if found else None
        alias = facts.aliases.get(rest[0])
        if alias:
            return self.lookup(".".join([alias, *rest[1:]]), path, depth + 1)
        return self._from_stars(path, rest, depth)

    def _from_stars(self, path: str, rest: List[str], depth: int) -> Optional[Target]:
        """``rest`` as one of the modules ``path`` star-imports defines it.

        A star import names a module: one the project lacks (an optional module behind
        ``try: from .extra import *``) defines nothing, rather than being read as an
        attribute of its package (which star-imports it again, without end)."""
        for star in self.facts.get(path, NO_SEEDING).stars:
            if self.module_path(star, path) is None:
                continue
            found = self.lookup(".".join([star, *rest]), path, depth + 1)
            if found:
                return found
        return None

    def _bases(self, path: str, cls: str) -> List[Tuple[str, str]]:
        """The class and its project base classes, depth first (a small MRO)."""
        out: List[Tuple[str, str]] = []
        stack = [(path, cls)]
        while stack and len(out) < 32:
            current = stack.pop(0)
            if current in out:
                continue
            out.append(current)
            entry = self.facts.get(current[0], NO_SEEDING).classes.get(current[1])
            for base in entry.bases if entry is not None else ():
                found = self.lookup(base, current[0])
                if isinstance(found, ClassTarget):
                    stack.append((found.path, found.name))
        return out

    def method(self, path: str, cls: str, name: str) -> Optional[FnKey]:
        for base_path, base in self._bases(path, cls):
            key = (base_path, f"{base}.{name}")
            if self.fn(key) is not None:
                return key
        return None

    def methods(self, path: str, cls: str) -> List[FnKey]:
        seen, out = set(), []
        for base_path, base in self._bases(path, cls):
            entry = self.facts.get(base_path, NO_SEEDING).classes.get(base)
            for name in entry.methods if entry is not None else ():
                if name not in seen:
                    seen.add(name)
                    out.append((base_path, f"{base}.{name}"))
        return out

    # ---- values -----------------------------------------------------------------------
    def relevant(self, key: FnKey) -> FrozenSet[str]:
        """Parameters whose values matter inside a function (guards, seed values, calls,
        what it returns), and the attributes of its object (``self.seed``, as
        ``SELF + "seed"``) that matter there or in the methods it calls on that object."""
        found = self._relevant.get(key)
        if found is not None:
            return found
        self._relevant[key] = frozenset()  # methods that call each other
        names: Set[str] = set()
        for event in self.events(key):
            kind = event.kind
            if kind is EventKind.SEED or kind is EventKind.CALL or kind is EventKind.ASSIGN or kind is EventKind.REFERENCE:
                for cond, _ in event.guards:
                    names.update(_named(described_names(cond)))
                names.update(_named((event.value, *event.args.positional, *event.args.keywords.values())))
                if kind is EventKind.CALL and event.bound:
                    for callee, _, _ in self.callees(event.target, key[0]):
                        if self.on_self(key, callee):
                            names.update(name for name in self.relevant(callee) if name.startswith(SELF))
            elif kind is EventKind.USE:
                for cond, _ in event.guards:
                    names.update(_named(described_names(cond)))
                names.update(_named((event.value,)))
            if kind is EventKind.REFERENCE:
                target = self.lookup(event.target, key[0])
                if isinstance(target, FunctionTarget) and _nested(target.key, key):
                    names.update(name for name in self.relevant(target.key) if name.startswith(SELF))
        fn = self.fn(key)
        if fn is not None:
            names.update(parameters_read(fn.returns))
        for name in [name for name in names if name.startswith(SELF)]:
            getter = self.getter(key, name[len(SELF):])
            if getter is not None:  # a property: what it returns matters, not an attribute of its name
                names.discard(name)
                names.update(_named((self.facts[getter[0]].fns[getter[1]].returns,)))
        found = self._relevant[key] = frozenset(names)
        return found

    def fallback_taken(self, path: str, origin: Origin) -> Optional[bool]:
        """For a source made under a guard on its own function's parameters (``if key is
        None: key = PRNGKey(time.time())``), whether a call the project makes takes that
        fallback: it leaves a parameter the guard reads at its default, or gives a value
        not known to turn the guard off.  A function the project never calls itself (a
        flax module's ``__call__``, run through ``Module.apply``; a library function) has
        its arguments from callers we do not see: as for library code, they decide, and
        the fallback is not taken here.  None when no guard reads a parameter."""
        key = (path, origin.function)
        fn = self.fn(key)
        if fn is None:
            return None
        params = set(fn.params) | set(fn.kwonly)
        read = {desc.name for guard in origin.guards for desc in described_names(guard.cond)
                if desc.source is ValueSource.PARAMETER and desc.name in params}
        if not read:
            return None
        for caller, bound, event in self._calls_of().get(key, ()):
            given = dict(self.arguments(key, bound, event))
            values = {name: self.value(given[name], caller, {}) if name in given else fn.defaults.get(name, UNKNOWN)
                      for name in read}
            if self.guards_off(origin.guards, key, values) is None:
                return True
        return False

    def _calls_of(self) -> Dict[FnKey, List[Tuple[FnKey, bool, SeedingEvent]]]:
        """The project's calls of the functions that make a source under a guard on their
        parameters (``fallback_taken``): caller, whether bound, the call."""
        if self._fallback_calls is None:
            wanted = {(path, origin.function) for path, facts in self.facts.items() for origin in facts.origins
                      if origin.kind is OriginKind.SOURCE and origin.function not in (MODULE, MAIN, "")}
            self._fallback_calls = {}
            if wanted:
                for path, facts in self.facts.items():
                    for name, fn in facts.fns.items():
                        for event in fn.events:
                            if event.kind is not EventKind.CALL:
                                continue
                            for callee, bound, _ in self.callees(event.target, path):
                                if callee in wanted:
                                    self._fallback_calls.setdefault(callee, []).append(((path, name), bound, event))
        return self._fallback_calls

    def on_self(self, caller: FnKey, callee: FnKey) -> bool:
        """Whether a method call from ``caller`` runs on the caller's own object: both are
        methods of one class lineage (``self.setup_model()``, ``super().__init__()``)."""
        mine, theirs = self.fn(caller), self.fn(callee)
        if mine is None or theirs is None or not mine.cls or not theirs.cls:
            return False
        return ((callee[0], theirs.cls) in self._bases(caller[0], mine.cls)
                or (caller[0], mine.cls) in self._bases(callee[0], theirs.cls))

    def assigned(self, key: FnKey, binding: Binding, depth: int = 0) -> Tuple[Dict[str, Any], FrozenSet[FnKey]]:
        """The attributes a method sets on its object when run with ``binding`` (through the
        methods it calls on that object too), and the methods that ran."""
        memo = (key, binding)
        found = self._assigned_cache.get(memo)
        if self._recalled(found):
            return dict(found.value[0]), found.value[1]
        self._assigned_cache[memo] = _Memo(({}, frozenset((key,))))
        read: Dict[str, Any] = {}
        with self._reading(read):
            out, entered = self._assigned(key, binding, depth)
        self._assigned_cache[memo] = _Memo((out, frozenset(entered)), read)
        return dict(out), frozenset(entered)

    def _assigned(self, key: FnKey, binding: Binding, depth: int) -> Tuple[Dict[str, Any], Set[FnKey]]:
        values = dict(binding)
        out: Dict[str, Any] = {}
        entered: Set[FnKey] = {key}
        for event in self.events(key) if depth < _MAX_DEPTH else ():
            if event.kind is EventKind.ASSIGN:
                value = self.assigned_value(event, key, values)
                if value is not _SKIPPED:
                    values[SELF + event.target] = out[SELF + event.target] = value
            elif event.kind is EventKind.CALL and event.bound and not self.guards_off(event.guards, key, values):
                for callee, bound, cls in self.callees(event.target, key[0]):
                    if cls is None and self.on_self(key, callee):
                        inner, ran = self.assigned(callee, self.bind(callee, bound, event, key, values), depth + 1)
                        values.update(inner)
                        out.update(inner)
                        entered |= ran
        return out, entered

    def assigned_value(self, event: SeedingEvent, key: FnKey, values: Mapping[str, Any]) -> Any:
        """What an ``ASSIGN`` sets: ``_SKIPPED`` under a guard false by default, ``UNKNOWN``
        under one whose value is not known."""
        for guard in event.guards:
            holds = evaluate(guard.cond, lambda desc: self.value(desc, key, values))
            if holds is False:
                return _SKIPPED
            if holds is None:
                return UNKNOWN
        return _hashable(self.value(event.value, key, values))

    def instance(self, cls: Tuple[str, str], init: FnKey, binding: Binding) -> Dict[str, Any]:
        """The attributes an object has after its constructor, where no other method of its
        class sets them again (those are known for every later method)."""
        if not self.fn(init):
            return {}
        attrs, entered = self.assigned(init, binding)
        for method in self.methods(*cls):
            if method not in entered:
                for event in self.events(method):
                    if event.kind is EventKind.ASSIGN:
                        attrs.pop(SELF + event.target, None)
        return attrs

    def receiver(self, callee: FnKey, made: Mapping[Tuple[str, str], Dict[str, Any]]) -> Optional[Dict[str, Any]]:
        """The attributes of the object a method is called on, when the caller made an
        object of its class (``model = DQN(env); model.learn()``)."""
        fn = self.fn(callee)
        if fn is None or not fn.cls:
            return None
        for cls, attrs in made.items():
            if (callee[0], fn.cls) in self._bases(*cls):
                return attrs
        return None

    def later(self, method: FnKey, attrs: Mapping[str, Any]) -> Binding:
        """The binding of a method its object's owner calls later: its object's attributes
        as the constructor left them, its arguments unknown."""
        return tuple((name, attrs.get(name, UNKNOWN)) for name in sorted(self.relevant(method)))

    def value(self, desc: Optional[ValueDesc], key: FnKey, binding: Mapping[str, Any]) -> Any:
        if not desc:
            return UNKNOWN
        source = desc.source
        if source is ValueSource.LITERAL or source is ValueSource.ENVIRON:
            return desc.literal
        if source is ValueSource.PARAMETER:
            fn = self.fn(key)
            if desc.name in binding:
                found = binding[desc.name]
                if isinstance(found, Keywords):
                    return UNKNOWN  # only a call handing it on reads it (``bind_args``)
            else:
                found = fn.defaults.get(desc.name, UNKNOWN) if fn is not None else UNKNOWN
            if fn is not None and desc.name in fn.typed and (found is UNKNOWN or _misread(found)):
                return self.assumed_record(fn.typed[desc.name], key[0])
            return found
        if source is ValueSource.OPTION:
            if desc.owner is not None:
                owner = self.value(desc.owner, key, binding)
                if isinstance(owner, Record):
                    found = self.field(owner, desc.name)
                elif owner is UNKNOWN and desc.owner.source is ValueSource.ATTRIBUTE \
                        and self.stored_from_parameter(key, desc.owner.name):
                    # ``self.cfg.seed`` where the constructor stored ``self.cfg = cfg``: it answers
                    # as ``cfg.seed`` did there, an object not known, so the option's default
                    found = self.option_default(desc.name, key[0])
                elif desc.owner.source is ValueSource.ATTRIBUTE or desc.owner.source is ValueSource.OPTION:
                    found = UNKNOWN  # ``self.config.x``, ``cfg.common.x`` of an object not known to be a config: no option
                else:
                    found = self.option_default(desc.name, key[0])
                # a field of an object not known here: what every setting in the project gives it
                return self.settled.get(desc.name, UNKNOWN) if found is UNKNOWN else found
            return self.option_default(desc.name, key[0])
        if source is ValueSource.GLOBAL:
            return self.facts.get(key[0], NO_SEEDING).consts.get(desc.name, UNKNOWN)
        if source is ValueSource.RESULT:
            return self.result(desc, key, binding)
        if source is ValueSource.TEST:
            holds = evaluate(desc.cond, lambda inner: self.value(inner, key, binding))
            return UNKNOWN if holds is None else holds
        if source is ValueSource.CHOICE:  # the branch's value where it runs, else the argument
            taken = evaluate(desc.cond, lambda inner: self.value(inner, key, binding))
            if taken is None:
                return UNKNOWN
            return self.value(desc.args[0][0] if taken else ValueDesc(ValueSource.PARAMETER, desc.name), key, binding)
        if source is ValueSource.ATTRIBUTE:
            if SELF + desc.name in binding:
                return binding[SELF + desc.name]
            getter = self.getter(key, desc.name)
            if getter is None or getter in self._getting:
                return UNKNOWN
            self._getting.add(getter)
            try:  # ``self.task_config``: a property that returns ``self._task_config``
                return self.value(self.facts[getter[0]].fns[getter[1]].returns, getter, binding)
            finally:
                self._getting.discard(getter)
        return UNKNOWN

    def method_class(self, key: FnKey) -> Optional[str]:
        """The class of method ``key``, or of the method a closure ``key`` is defined in."""
        path, qualified = key
        fn = self.fn(key)
        while fn is not None and not fn.cls and "." in qualified:
            qualified = qualified.rpartition(".")[0]
            fn = self.fn((path, qualified))
        return fn.cls if fn is not None and fn.cls else None

    def stored_from_parameter(self, key: FnKey, name: str) -> bool:
        """The object of method ``key`` (or of the method a closure ``key`` is defined in)
        holds in ``name`` what a constructor of its class lineage was given (``self.cfg =
        cfg`` in ``__init__``, or in a base's), and no other method of the lineage sets it."""
        cls = self.method_class(key)
        if cls is None:
            return False
        stored = False
        for method in self.methods(key[0], cls):
            for event in self.events(method):
                if event.kind is EventKind.ASSIGN and event.target == name:
                    if not method[1].endswith(".__init__") or event.value is None \
                            or event.value.source is not ValueSource.PARAMETER:
                        return False
                    stored = True
        return stored

    def getter(self, key: FnKey, name: str) -> Optional[FnKey]:
        """The ``@property`` ``name`` of the class that method ``key`` (or the method a
        closure ``key`` is defined in) belongs to, when it returns a described value."""
        path = key[0]
        cls = self.method_class(key)
        if cls is None:
            return None
        for base_path, base in self._bases(path, cls):
            entry = self.facts.get(base_path, NO_SEEDING).classes.get(base)
            if entry is not None and name in entry.methods:
                found = self.fn((base_path, f"{base}.{name}"))
                return (base_path, f"{base}.{name}") if name in entry.properties and found is not None and found.returns else None
        return None

    def result(self, desc: ValueDesc, key: FnKey, binding: Mapping[str, Any]) -> Any:
        """What a call gives: a ``Record`` for a config class (one that declares fields),
        what a project function returns where all its returns agree, else ``UNKNOWN``."""
        found = self.lookup(desc.name, key[0])
        if not found or len(self.stack) > _MAX_DEPTH:
            return UNKNOWN
        positional, keywords = desc.args
        if isinstance(found, ClassTarget):
            declared = self.fields_of(found.path, found.name)
            if not declared:
                return UNKNOWN
            given = {name: _hashable(self.value(arg, key, binding)) for name, arg in keywords if name in declared}
            return Record((found.path, found.name), tuple(sorted(given.items())))
        if not isinstance(found, FunctionTarget) or found.bound:
            return UNKNOWN
        callee = found.key
        fn = self.fn(callee)
        if fn is None or fn.returns is None:
            return UNKNOWN
        sub = self.bind_args(callee, False, (positional, keywords), key, binding)
        memo = (callee, sub)
        known = self._results.get(memo)
        if self._recalled(known):
            return known.value
        self._results[memo] = _Memo(UNKNOWN)  # a function that returns its own call
        read: Dict[str, Any] = {}
        self.stack.append(callee)
        try:
            with self._reading(read):
                value = _hashable(self.value(fn.returns, callee, dict(sub)))
        finally:
            self.stack.pop()
        self._results[memo] = _Memo(value, read)
        return value

    def fields_of(self, path: str, cls: str) -> Dict[str, List[Plain]]:
        """The fields a class and its project bases declare, with their literal defaults."""
        key = (path, cls)
        found = self._fields.get(key)
        if found is None:
            found = {}
            for base_path, base in reversed(self._bases(path, cls)):
                found.update(self.facts.get(base_path, NO_SEEDING).fields.get(base, {}))
            self._fields[key] = found
        return found

    def assumed_record(self, annotation: str, near: str) -> Any:
        """A config object a parameter's annotation names, its fields at their defaults
        (``Record.assumed``); UNKNOWN where the annotation is not a config class."""
        found = self.lookup(annotation, near)
        if not isinstance(found, ClassTarget) or not self.fields_of(found.path, found.name):
            return UNKNOWN
        return Record((found.path, found.name), (), assumed=True)

    def field(self, record: Record, name: str) -> Any:
        for given, value in record.given:
            if given == name:
                return value
        default = self.fields_of(*record.cls).get(name)
        if not default:
            return UNKNOWN
        if record.assumed and default[0] is None and name not in SEED_NAMES:
            return UNKNOWN  # ``is_training: Optional[bool] = None``: the experiment fills it in
        return default[0]

    def handed_on(self, key: FnKey, holder: FnKey, values: Mapping[str, Any]) -> Binding:
        """The binding of a function handed on as a value: its arguments unknown; a closure
        of the method handing it on reads that method's object (``self._seed``)."""
        if not _nested(key, holder):
            return self.unknown(key)
        return tuple((name, values.get(name, UNKNOWN) if name.startswith(SELF) else UNKNOWN) for name in sorted(self.relevant(key)))

    def unknown(self, key: FnKey) -> Binding:
        """The binding of a function called from code we do not see: every argument unknown."""
        return tuple((name, UNKNOWN) for name in sorted(self.relevant(key)))

    def bind(self, callee: FnKey, bound: bool, event: SeedingEvent, caller: FnKey, binding: Mapping[str, Any],
             receiver: Optional[Mapping[str, Any]] = None) -> Binding:
        """The callee's relevant parameters, valued from the call's arguments, and the
        attributes of its object: the caller's own (a call on ``self``) or ``receiver``'s
        (an object the caller made)."""
        positional, keywords = event.args
        return self.bind_args(callee, bound or event.bound, (positional, tuple(keywords.items())), caller, binding,
                              receiver, on_object=event.bound)

    def bind_args(self, callee: FnKey, bound: bool, args: CallDescs, caller: FnKey, binding: Mapping[str, Any],
                  receiver: Optional[Mapping[str, Any]] = None, on_object: bool = False) -> Binding:
        """``bind`` for described arguments; ``bound``: ``self`` is not among them."""
        wanted = self.relevant(callee)
        if not wanted:
            return ()
        facts = self.fn(callee)
        params: Sequence[str] = facts.params if facts is not None else ()
        if bound and params:
            params = params[1:]
        positional, keywords = args
        given: Dict[str, Optional[ValueDesc]] = dict(zip(params, positional))
        given.update(keywords)
        handed_on = given.pop(FORWARDED_KEYWORDS, None)
        forwarded = binding.get(handed_on.name) if handed_on is not None else None
        passed = {name: value for name, value in forwarded.items if name not in given} if isinstance(forwarded, Keywords) else {}
        attributes: Dict[str, Any] = {}
        if on_object and any(name.startswith(SELF) for name in wanted):
            if receiver is not None:
                attributes = dict(receiver)
            elif self.on_self(caller, callee):
                attributes = {name: value for name, value in binding.items() if name.startswith(SELF)}
        out = []
        for name in sorted(wanted):
            if name in attributes:
                value = attributes[name]
            elif name in given:
                value = self.value(given[name], caller, binding)
            elif name in passed:
                value = passed[name]
            elif facts is not None and name == facts.varkw:
                value = self._keywords(facts, given, passed, caller, binding)
            else:
                value = facts.defaults.get(name, UNKNOWN) if facts is not None else UNKNOWN
            out.append((name, _hashable(value)))
        return tuple(out)

    def _keywords(self, facts: FunctionFacts, given: Mapping[str, Optional[ValueDesc]], passed: Mapping[str, Any],
                  caller: FnKey, binding: Mapping[str, Any]) -> Keywords:
        """What a call puts in the callee's ``**kwargs``: the keywords that name none of its
        parameters, valued in the caller (and those the caller's own ``**kwargs`` handed on)."""
        named = {*facts.params, *facts.kwonly}
        items = {name: _hashable(self.value(desc, caller, binding)) for name, desc in given.items() if name not in named}
        items.update((name, value) for name, value in passed.items() if name not in named and name not in items)
        return Keywords(tuple(sorted(items.items())))

    def guards_off(self, guards: Sequence[Guard], key: FnKey, binding: Mapping[str, Any]) -> Optional[Guard]:
        """The first guard that is false with every default, or None."""
        for guard in guards:
            if evaluate(guard.cond, lambda desc: self.value(desc, key, binding)) is False:
                return guard
        return None

    def not_run_by_default(self, guard: Optional[Guard], key: FnKey, binding: Mapping[str, Any]) -> bool:
        """A guard off by default through values that are set (``store_true`` False,
        ``--dataset`` "cifar10"): the default run skips what it guards.  One that reads a
        value left at None (a required option, a config filled at run time) says nothing
        about the run people launch."""
        return guard is not None and all(self.value(desc, key, binding) is not None or self._settled(desc)
                                         for desc in described_names(guard.cond))

    def _settled(self, desc: ValueDesc) -> bool:
        """A field of an object that no code of the project sets to anything but its falsy
        default (``repeated_augment: Optional[int] = None``, set nowhere): left so on purpose,
        not a value the run fills in."""
        return desc.source is ValueSource.OPTION and desc.owner is not None and desc.name in self.settled

    def dead(self, guards: Sequence[Guard], key: FnKey, binding: Mapping[str, Any]) -> bool:
        """Whether a guard is false whatever the command line says: a literal argument, a
        parameter default or a module constant makes it so."""
        for guard in guards:
            lookup = lambda desc: UNKNOWN if desc.source in _SET_AT_RUN else self.value(desc, key, binding)  # noqa: E731
            if evaluate(guard.cond, lookup) is False:
                return True
        return False

    def off_by_default(self, key: FnKey, guard: Guard, rngs: FrozenSet[str], binding: Mapping[str, Any]) -> OffByDefault:
        """A seed of ``key`` that ``guard`` keeps off by default."""
        own_draws = all(desc.source is ValueSource.PARAMETER for desc in described_names(guard.cond)) and any(
            event.kind is EventKind.USE and self.rng_map.get(event.rng, event.rng) in rngs for event in self.events(key))
        return OffByDefault(key[0], guard.anchor, rngs, self.why_off(guard, key, binding), own_draws)

    def why_off(self, guard: Guard, key: FnKey, binding: Mapping[str, Any]) -> str:
        """``--seed`` defaults to None"-style text for a guard that is off by default."""
        parts = []
        for desc in described_names(guard.cond):
            value = self.value(desc, key, binding)
            if value is UNKNOWN:
                continue
            if desc.source is ValueSource.OPTION and desc.owner is not None and desc.owner.source is ValueSource.PARAMETER \
                    and isinstance(self.value(desc.owner, key, binding), Record):
                parts.append(f"`{desc.owner.name}.{desc.name}` is {value!r} by default")
            elif desc.source is ValueSource.OPTION:
                parts.append(f"`--{desc.name.replace('_', '-')}` defaults to {value!r}")
            elif desc.source is ValueSource.PARAMETER:
                parts.append(f"`{desc.name}` is {value!r} by default")
            elif desc.source is ValueSource.GLOBAL:
                parts.append(f"`{desc.name} = {value!r}`")
            elif desc.source is ValueSource.ENVIRON:
                parts.append(f"`{desc.name}` is not set in the environment by default")
        return "; ".join(dict.fromkeys(parts)) or "its condition is false by default"

    # ---- seeds of a function ------------------------------------------------------------
    def seeds_of(self, key: FnKey, binding: Binding = (), depth: int = 0, entry_mode: bool = False) -> FrozenSet[str]:
        """RNGs a function seeds (directly or in what it calls) when run with ``binding``."""
        memo = (key, binding + (("<entry>", entry_mode),) if entry_mode else binding)
        found = self._seeds_cache.get(memo)
        if self._recalled(found):
            seeds: FrozenSet[str] = found.value
            return seeds
        self._seeds_cache[memo] = _Memo(frozenset())
        read: Dict[str, Any] = {}
        with self._reading(read):
            seeded = self._seeds(key, binding, depth, entry_mode)
        self._seeds_cache[memo] = _Memo(seeded, read)
        return seeded

    def _seeds(self, key: FnKey, binding: Binding, depth: int, entry_mode: bool) -> FrozenSet[str]:
        seeded: Set[str] = set()
        values = dict(binding)
        graphs: List[Set[str]] = []  # what was seeded before each new graph the code is in
        if depth < _MAX_DEPTH:
            for event in self.events(key):
                kind = event.kind
                if kind is EventKind.GRAPH:
                    graphs.append(seeded & set(event.rngs))
                    seeded -= set(event.rngs)
                    continue
                if kind is EventKind.GRAPH_END:
                    seeded = (seeded - set(event.rngs)) | (graphs.pop() if graphs else set())
                    continue
                if kind is EventKind.GRAPH_RESET:
                    if not self.guards_off(event.guards, key, values):
                        seeded -= set(event.rngs)
                    continue
                if kind is EventKind.SEED:
                    if self._seed_counts(event, key, values):
                        seeded.update(event.rngs)
                    elif event.value and event.without == "entropy" and not self.guards_off(event.guards, key, values):
                        seeded -= set(event.rngs)  # seeded with None: from OS entropy
                elif kind is EventKind.CALL:
                    if self.guards_off(event.guards, key, values):
                        continue
                    for callee, bound, cls in self.callees(event.target, key[0]):
                        sub = self.bind(callee, bound, event, key, values)
                        seeded |= self.seeds_of(callee, sub, depth + 1)
                        if event.bound and cls is None and self.on_self(key, callee):
                            values.update(self.assigned(callee, sub)[0])
                elif kind is EventKind.ASSIGN:
                    value = self.assigned_value(event, key, values)
                    if value is not _SKIPPED:
                        values[SELF + event.target] = value
                elif kind is EventKind.IMPORT:
                    for module in self.imported(event.target, key[0]):
                        seeded |= self.seeds_of((module, MODULE), (), depth + 1)
                elif kind is EventKind.MAIN_BLOCK and entry_mode:
                    seeded |= self.seeds_of((key[0], MAIN), (), depth + 1)
                elif kind is EventKind.RESTORE or kind is EventKind.RESEED:
                    seeded -= set(event.rngs)
        return frozenset(seeded)

    def _seed_counts(self, event: SeedingEvent, key: FnKey, binding: Mapping[str, Any]) -> bool:
        if self.guards_off(event.guards, key, binding):
            return False
        if event.value and event.without == "entropy":
            return self.value(event.value, key, binding) is not None
        return True

    def callees(self, target: str, near: str) -> List[Callee]:
        """Functions a call runs now."""
        found = self.lookup(target, near)
        if isinstance(found, FunctionTarget):
            return [Callee(found.key, found.bound, None)]
        if isinstance(found, ClassTarget):
            init = self.method(found.path, found.name, "__init__")
            return [Callee(init or ("", ""), True, found)]
        return []

    def callees_in(self, target: str, caller: FnKey, frame: Frame) -> List[Callee]:
        """``callees``, where a class method's ``cls(...)`` makes the class the method was
        called on (``frame.receiver``) when the program knows it."""
        if target.startswith("cls:") and frame.receiver is not None:
            init = self.method(frame.receiver[0], frame.receiver[1], "__init__")
            return [Callee(init or ("", ""), True, ClassTarget(*frame.receiver))]
        return self.callees(target, caller[0])

    def made_by_framework(self, target: str, near: str) -> Optional[ClassTarget]:
        """The project class a call of a framework's constructing class method makes
        (``DataModule.from_argparse_args(args)``: rule data ``framework_constructors``),
        where the class derives from that framework's base; else None.  The method's body
        (the framework's, also where the project is that framework) is not followed."""
        owner, dot, method = target.rpartition(".")
        prefixes = self.framework_constructors.get(method)
        if not dot or not prefixes or target.startswith(MARKED_TARGETS):
            return None
        cls = self.lookup(owner, near)
        if not isinstance(cls, ClassTarget):
            return None
        for base_path, base in self._bases(cls.path, cls.name):
            entry = self.facts.get(base_path, NO_SEEDING).classes.get(base)
            if entry is not None and any(name.startswith(prefixes) for name in entry.bases):
                return cls
        return None

    def class_called_on(self, target: str, caller: FnKey, callee: FnKey, frame: Frame) -> Optional[Tuple[str, str]]:
        """The class a call of a class method (a method whose first parameter is ``cls``)
        runs it for: the class it names (``Net.from_config``), or, for a call the class
        method makes of another (``super().build(...)``, ``cls.build(...)``), the class it
        was itself called for.  None for any other call."""
        facts = self.fn(callee)
        if facts is None or facts.params[:1] != ("cls",) or "." not in callee[1]:
            return None
        caller_facts = self.fn(caller)
        inherited = frame.receiver if caller_facts is not None and caller_facts.params[:1] == ("cls",) else None
        owner, dot, _ = target.rpartition(".")
        named = self.lookup(owner, caller[0]) if dot and not target.startswith(MARKED_TARGETS) else None
        if isinstance(named, ClassTarget):
            if inherited is not None and (named.path, named.name) == (caller[0], caller[1].rpartition(".")[0]):
                return inherited  # ``cls.build(...)``, spelled with the class defining the caller
            return (named.path, named.name)
        return inherited

    def imported(self, dotted: str, near: str) -> Tuple[str, ...]:
        """Project modules an import runs, outermost package first."""
        key = (dotted, near)
        found = self._imported_cache.get(key)
        if found is not None:
            return found
        parts = dotted.split(".")
        out: List[str] = []
        for cut in range(1, len(parts) + 1):
            path = self.module_path(".".join(parts[:cut]), near)
            if path is not None and path not in out and path != near:
                out.append(path)
        found = self._imported_cache[key] = tuple(out)
        return found

    def trains(self, key: FnKey, entry_mode: bool = False, least: Trained = Trained.ARRAYS) -> bool:
        """Whether running a function reaches evidence of training (``EventKind.TRAINS``)
        that trains at least ``least``, through the calls it makes itself and the functions
        it hands on as values (a factory given to a runner, ``Runner(base_dir,
        create_agent)``, runs when the runner calls it), not through the other methods of
        the objects it makes (a library's methods are many).

        A search of the call graph from ``key``: only whole answers are kept (every function
        it saw, when none trains; those on the path to training, when one does), so what
        was asked before never changes an answer (cycles included)."""
        root = (key, entry_mode)
        known = self._trains.get((root, least))
        if known is not None:
            return known
        seen = {root}
        path = [(root, self._training_steps(key, entry_mode, least))]
        while path:
            step = next(path[-1][1], None)
            if step is None:
                path.pop()
                continue
            if step is not _TRAINS:
                known = self._trains.get((step, least))
                if known is None and step not in seen:
                    seen.add(step)
                    path.append((step, self._training_steps(step[0], step[1], least)))
                if not known:
                    continue
            for node, _ in path:
                self._trains[(node, least)] = True
            return True
        for node in seen:
            self._trains[(node, least)] = False
        return False

    def _training_steps(self, key: FnKey, entry_mode: bool, least: Trained) -> Iterator[Any]:
        """What running a function leads to, in order: ``_TRAINS`` for evidence of training
        at least ``least``, else the (function, entry mode) it runs next."""
        for event in self.events(key):
            kind = event.kind
            if kind is EventKind.TRAINS:
                if event.trained >= least:
                    yield _TRAINS
            elif kind is EventKind.CALL:
                for callee, _, _ in self.callees(event.target, key[0]):
                    yield (callee, False)
            elif kind is EventKind.REFERENCE:
                target = self.lookup(event.target, key[0])
                if isinstance(target, ClassTarget):  # a class handed on: whoever holds it makes one
                    init = self.method(target.path, target.name, "__init__")
                    if init is not None:
                        yield (init, False)
                elif isinstance(target, FunctionTarget):
                    yield (target.key, False)
            elif kind is EventKind.MAIN_BLOCK and entry_mode:
                yield ((key[0], MAIN), False)

    # ---- running entry points -----------------------------------------------------------
    def visit_order(self) -> List[str]:
        """The order in which entry points run.  Nothing may depend on it (the findings are
        a function of which programs exist): a test permutes it."""
        return list(self.entry_paths)

    def run_all(self) -> None:
        """Run every entry point, each program on its own (``EntryRun.visited``): what one
        program runs is recorded for it whatever ran before.  A use that several programs
        run unseeded is charged to the one ``charge_rank`` puts first.  A run of a function
        whose result and effects follow from its memo key alone (``_Trace.pure``) is
        replayed into later programs rather than run again.  The runs of the previous
        program that no changed module can affect (``_kept_runs``) are taken as they are."""
        previous, self._previous = self._previous, None
        kept = self._kept_runs(previous) if previous is not None else {}
        training = {path: self._entry_training(path) for path in self.entry_paths if path not in kept}
        for path in self.visit_order():
            if path in kept:
                self.runs[path] = kept[path]
                continue
            run = EntryRun(path, training=training[path], test=path in self.test_code)
            self.runs[path] = run
            self._enter(self._loads(path))
            imported: Set[str] = set()
            self._file_registered(path, run)
            state = self.visit((path, MODULE), frozenset(), (), run, Frame(), imported, 0, entry_mode=True)
            for name in self.console[path]:
                state = self.visit((path, name), state, self.unknown((path, name)), run, Frame(), imported, 0)
            run.final = frozenset(rng for rng in state if not rng.startswith(NEW_GRAPH))  # the RNGs seeded at the end
        self._enter(None)
        self._charge()

    def _charge(self) -> None:
        """Charge each use some program ran unseeded to the program ``charge_rank`` puts
        first, and gather the uses the programs reached."""
        for path in sorted(self.runs):
            run = self.runs[path]
            self.reached |= run.reached
            for use, found in run.unseeded.items():
                before = self.uncovered.get(use)
                if before is None or self.charge_rank(run, found) < self.charge_rank(self.runs[before.entry], before):
                    self.uncovered[use] = found

    def _kept_runs(self, previous: "Program") -> Dict[str, EntryRun]:
        """The runs of ``previous`` this program would make again: a program's run reads
        the facts of the modules its entry point names, through calls, imports, values,
        base classes, aliases and star imports, and of the modules those name (``_reaching``),
        and every module's option defaults.  Those of the programs that reach no changed
        module are kept."""
        if (previous.module_of != self.module_of or previous.names is not self.names or previous.external != self.external
                or previous.rng_map != self.rng_map or previous.test_code != self.test_code
                or previous.entry_paths != self.entry_paths or previous.console != self.console
                or previous.options != self.options):
            return {}
        changed = {path for path, facts in self.facts.items() if previous.facts.get(path) is not facts}
        affected = self._reaching(changed)
        return {path: run for path, run in previous.runs.items() if path not in affected}

    def _reaching(self, targets: Set[str]) -> Set[str]:
        """The modules whose facts name one of ``targets``, directly or through others."""
        named_by: Dict[str, List[str]] = {}
        for path in self.facts:
            for module in self._named_modules(path):
                named_by.setdefault(module, []).append(path)
        found = set(targets)
        stack = list(targets)
        while stack:
            for path in named_by.get(stack.pop(), ()):
                if path not in found:
                    found.add(path)
                    stack.append(path)
        return found

    def _named_modules(self, path: str) -> FrozenSet[str]:
        """Every project module a name in a module's facts finds (``lookup`` looks each
        leading part of a name up from that module; for a star import or an alias, whose
        names are looked up with more parts after them, every module inside it too), kept
        while its facts are."""
        found = self._reads.get(path)
        if found is None:
            module = self.module_of.get(path, "")
            facts = self.facts[path]
            dotted: Set[str] = set()
            for name in _names_in(facts):
                parts = absolute(name, module).split(".")
                dotted.update(".".join(parts[:cut]) for cut in range(1, len(parts) + 1))
            for name in (*facts.stars, *facts.aliases.values()):
                dotted.update(self._inside_package(absolute(name, module)))
            modules = (self.module_path(name, path) for name in dotted)
            found = self._reads[path] = frozenset(module for module in modules if module is not None)
        return found

    def _inside_package(self, dotted: str) -> Iterator[str]:
        """The module names that start with ``dotted.``."""
        if self._sorted_names is None:
            self._sorted_names = sorted(self.names)
        start = dotted + "."
        for index in range(bisect.bisect_left(self._sorted_names, start), len(self._sorted_names)):
            name = self._sorted_names[index]
            if not name.startswith(start):
                break
            yield name

    @staticmethod
    def charge_rank(run: EntryRun, found: Uncovered) -> Tuple[bool, bool, bool, bool, str]:
        """Which program a use that several run unseeded is charged to (lowest first):
        programs that matter before the others (training ones first, test code last), one
        that answers for the use before one that does not (a program that only fits a
        k-means answers for no use reached through a callback), a direct run before one
        through a callback, then by path."""
        answers = run.training >= Trained.LIBRARY or not found.deferred
        return (run.test, not run.trains, not answers, found.deferred, run.path)

    def _entry_training(self, path: str) -> Trained:
        """The most the program of ``path`` trains (most programs train nothing, or a
        framework model: two searches)."""
        if not self._entry_trains(path, Trained.ARRAYS):
            return Trained.NOTHING
        if self._entry_trains(path, Trained.MODEL):
            return Trained.MODEL
        return Trained.LIBRARY if self._entry_trains(path, Trained.LIBRARY) else Trained.ARRAYS

    def _entry_trains(self, path: str, least: Trained) -> bool:
        return (self.trains((path, MODULE), True, least)
                or any(self.trains((path, name), False, least) for name in self.console[path]))

    def visit(self, key: FnKey, state: FrozenSet[str], binding: Binding, run: EntryRun,
              frame: "Frame", imported: Set[str], depth: int, entry_mode: bool = False) -> FrozenSet[str]:
        """Run a function from ``state``; returns the state after it."""
        facts = self.fn(key)
        if facts is None:
            return state
        if depth > _MAX_DEPTH:
            self._taint()  # the depth reached decides
            return state
        memo = (key, state, binding, entry_mode, frame)
        trace = self._traces.get(memo)
        if trace is not None and not (trace.imported <= imported and self._reads_same(trace.read)):
            trace = None  # made where more was imported, or where options default otherwise
        if memo in run.visited:
            if trace is None or not trace.pure:
                self._taint(self._running(memo))  # its run depended on this program's past, or it is running
                return state | self.seeds_of(key, binding, entry_mode=entry_mode)
            self._embed(trace)  # already recorded for this program
            return trace.final
        run.visited.add(memo)
        if trace is not None and trace.pure:
            run.reached |= trace.reached
            self._replay(trace, run, tuple(self.stack))
            self._embed(trace)
            return trace.final
        trace = _Trace(memo, len(self.stack))
        self._open.append(trace)
        self.stack.append(key)
        try:
            with self._reading(trace.read):
                trace.final = self._run_events(key, facts, state, binding, run, frame, imported, depth, entry_mode)
        finally:
            self.stack.pop()
            self._open.pop()
        if trace.pure or memo not in self._traces:  # a pure one stays: another program may replay it
            self._traces[memo] = trace
        self._embed(trace)
        return trace.final

    # ---- what a run records, and its replay ------------------------------------------------
    def _taint(self, since: int = 0) -> None:
        """The function being run depends on more than its memo key: the open runs from
        ``since`` on are not shared."""
        for trace in self._open[since:]:
            trace.pure = False

    def _running(self, memo: VisitKey) -> int:
        """Where the open runs that a recursive call of ``memo`` makes depend on more than
        their keys begin: after the run of ``memo`` itself, which any program that makes it
        reaches the same way (0 when ``memo`` is not running: every open run)."""
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].memo == memo:
                return index + 1
        return 0

    def _embed(self, trace: "_Trace") -> None:
        """A finished run of a callee: its effects are part of its caller's."""
        if self._open:
            caller = self._open[-1]
            caller.pure = caller.pure and trace.pure
            caller.imported |= trace.imported
            caller.reached |= trace.reached
            caller.read.update(trace.read)
            if trace.items:
                caller.items.append(_Nested(tuple(self.stack[caller.base:]), trace))

    def _record(self, run: EntryRun, effect: "Effect") -> None:
        """Apply an effect of the code being run to ``run``, and note it in the open run."""
        self._apply(run, effect, ())
        if self._open:
            trace = self._open[-1]
            if isinstance(effect, _Unseeded):  # its chain is kept from the traced function on
                effect = replace(effect, chain=effect.chain[trace.base:])
            trace.items.append(effect)

    def _reach(self, run: EntryRun, use: Tuple[str, int]) -> None:
        run.reached.add(use)
        if self._open:
            self._open[-1].reached.add(use)

    def _replay(self, trace: "_Trace", run: EntryRun, prefix: Tuple[FnKey, ...]) -> None:
        """Record a run made for another program into ``run``, as if made here: a callee
        this program ran before records nothing again."""
        for item in trace.items:
            if isinstance(item, _Nested):
                if item.trace.memo not in run.visited:
                    run.visited.add(item.trace.memo)
                    self._replay(item.trace, run, prefix + item.chain)
            else:
                self._apply(run, item, prefix)

    def _apply(self, run: EntryRun, effect: "Effect", prefix: Tuple[FnKey, ...]) -> None:
        if isinstance(effect, _Unseeded):
            run.uncovered_rngs.add(effect.rng)
            if effect.new_graph:
                run.new_graphs.add(effect.rng)
            found = Uncovered(run.path, effect.via_import, prefix + effect.chain, effect.deferred, effect.new_graph)
            use = (effect.path, effect.cid)
            before = run.unseeded.get(use)
            if before is None or self.charge_rank(run, found) < self.charge_rank(run, before):
                run.unseeded[use] = found
        elif isinstance(effect, _Seeded):
            run.first_seed.setdefault(effect.rng, effect.place)
        elif isinstance(effect, _Reseeded):
            run.reseeded.update(effect.rngs)
        elif isinstance(effect, _RestoresWeights):
            run.restores_weights = True
        elif isinstance(effect, _LiveInput):
            run.live_input = True
        elif isinstance(effect, OffByDefault):
            run.off.append(effect)
        else:
            run.none_seeds.append(effect)

    def _run_events(self, key: FnKey, facts: FunctionFacts, state: FrozenSet[str], binding: Binding,
                    run: EntryRun, frame: "Frame", imported: Set[str], depth: int,
                    entry_mode: bool) -> FrozenSet[str]:
        values = dict(binding)
        entry_state = state
        later = frame.later()  # callbacks and functions passed as values run later
        made: Dict[Tuple[str, str], Dict[str, Any]] = {}  # class -> attributes of the object made here last
        unread: Dict[str, List[_Held]] = {}  # call target -> objects held in locals, not yet read
        graphs: List[FrozenSet[str]] = []  # the graph-level seeds in force before each new graph entered
        for event in facts.events:
            kind = event.kind
            if kind is EventKind.GRAPH:  # a new graph: no graph-level seed until one is set in it
                scoped = _graph_scoped(event.rngs)
                graphs.append(state & scoped)
                state = (state - scoped) | frozenset(NEW_GRAPH + rng for rng in event.rngs)
                continue
            if kind is EventKind.GRAPH_END:  # the graph before it is the default again
                state = (state - _graph_scoped(event.rngs)) | (graphs.pop() if graphs else frozenset())
                continue
            if kind is EventKind.GRAPH_RESET:  # a new default graph, for good
                if self.guards_off(event.guards, key, values) is None:
                    state = (state - _graph_scoped(event.rngs)) | frozenset(NEW_GRAPH + rng for rng in event.rngs)
                continue
            if (kind is EventKind.USE or kind is EventKind.WORKERS) and self.dead(event.guards, key, values):
                continue  # not in this call: ``if is_train:`` with is_train=False passed in
            if kind is EventKind.USE:
                rng = self.rng_map.get(event.rng, event.rng)
                self._reach(run, (key[0], event.cid))
                if event.value is not None and self.value(event.value, key, values) is not None:
                    continue  # given its own seed (unless that is None here)
                if self.guards_off(event.guards, key, values) is not None:
                    continue  # runs only with an option that is off by default
                if rng not in state and not frame.speculative:
                    self._record(run, _Unseeded(key[0], event.cid, rng, frame.via_import, tuple(self.stack), frame.deferred,
                                                NEW_GRAPH + rng in state))
            elif kind is EventKind.WORKERS:
                self._reach(run, (key[0], event.cid))
            elif kind is EventKind.SEED:
                guard = self.guards_off(event.guards, key, values)
                if guard is not None:
                    self._record(run, self.off_by_default(key, guard, frozenset(event.rngs), values))
                    continue
                if frame.off_by_default or frame.guarded:
                    # called only under a guard that is off by default (``if args.seed:
                    # set_seed(args.seed)``): the caller records it as such, and the None
                    # bound here is what the guard rules out
                    state = state | frozenset(event.rngs)
                    continue
                if event.value and event.without == "entropy" and self.value(event.value, key, values) is None:
                    self._record(run, NoneSeed(key[0], event.cid, self.why_none(event.value, key, values)))
                    self._record(run, _Reseeded(frozenset(event.rngs)))
                    state = state - frozenset(event.rngs)
                    continue
                if not frame.deferred:  # a worker_init_fn seeds the workers, not the program
                    for rng in event.rngs:
                        if NEW_GRAPH + rng not in state:  # one in a new graph seeds that graph only
                            self._record(run, _Seeded(rng, (key[0], event.cid)))
                state = state | frozenset(event.rngs)
            elif kind is EventKind.CALL:
                guard = self.guards_off(event.guards, key, values)
                dead = guard is not None and self.dead(event.guards, key, values)
                inner = frame.switched_off() if self.not_run_by_default(guard, key, values) else \
                    frame.under_guard() if guard is not None and _reads_an_option(guard) else frame
                framework_made = self.made_by_framework(event.target, key[0]) if not dead else None
                if framework_made is not None:
                    # made as by calling the class, with arguments we do not see: its methods
                    # run later, from this state on
                    init = self.method(framework_made.path, framework_made.name, "__init__") or ("", "")
                    sub = self.unknown(init)
                    after = self.visit(init, state, sub, run, inner, imported, depth + 1)
                    if guard is None:
                        state = after
                    attrs = made[(framework_made.path, framework_made.name)] = self.instance(
                        (framework_made.path, framework_made.name), init, sub)
                    self._methods_later(framework_made, init, attrs, state, run, inner.later(), imported, depth)
                    continue
                for callee, bound, cls in self.callees_in(event.target, key, frame):
                    if callee[0] in run.registered and not dead:
                        self._look_up(callee, state, run, later, imported, depth)
                    receiver = self.receiver(callee, made) if made and event.bound and cls is None else None
                    sub = self.bind(callee, bound, event, key, values, receiver)
                    called_on = self.class_called_on(event.target, key, callee, frame)
                    into = inner if called_on == inner.receiver else replace(inner, receiver=called_on)
                    after = state if dead else self.visit(callee, state, sub, run, into, imported, depth + 1)
                    if guard is not None:
                        seeded = self.seeds_of(callee, filled_in(sub) if inner.guarded else sub)
                        if seeded:
                            self._record(run, self.off_by_default(key, guard, seeded, values))
                    else:
                        state = after
                        if event.bound and cls is None and self.on_self(key, callee):
                            values.update(self.assigned(callee, sub)[0])
                    if cls is not None and not dead:  # its other methods run later, from this state on
                        attrs = made[(cls.path, cls.name)] = self.instance((cls.path, cls.name), callee, sub)
                        if event.held:  # or from the first read of the local holding it
                            unread.setdefault(event.target, []).append(_Held(cls, callee, attrs, inner.later(), state))
                        else:
                            self._methods_later(cls, callee, attrs, state, run, inner.later(), imported, depth)
            elif kind is EventKind.OBJECT_READ:
                for obj in unread.pop(event.target, ()):
                    self._methods_later(obj.cls, obj.init, obj.attrs, state, run, obj.frame, imported, depth)
            elif kind is EventKind.ASSIGN:
                value = self.assigned_value(event, key, values)
                if value is not _SKIPPED:
                    values[SELF + event.target] = value
            elif kind is EventKind.REFERENCE:
                target = self.lookup(event.target, key[0])
                guard = self.guards_off(event.guards, key, values) if event.guards else None
                held = later.switched_off() if self.not_run_by_default(guard, key, values) else later
                if isinstance(target, FunctionTarget):
                    self.visit(target.key, state, self.handed_on(target.key, key, values), run, held, imported, depth + 1)
                elif isinstance(target, ClassTarget):  # ``DQN(policy=MlpPolicy)``: whoever holds it makes one later
                    self._made_later(target, state, run, held, imported, depth)
            elif kind is EventKind.IMPORT:
                modules = self.imported(event.target, key[0])
                if modules and self._open:
                    if imported.issuperset(modules):  # nothing runs, where these are imported
                        self._open[-1].imported.update(modules)
                    else:
                        self._taint()  # what it runs depends on what this program imported before
                for module in modules:
                    if module in imported:
                        continue
                    imported.add(module)
                    self._file_registered(module, run)
                    state = self.visit((module, MODULE), state, (), run, frame.importing(module), imported, depth + 1)
            elif kind is EventKind.MAIN_BLOCK and entry_mode:
                state = self.visit((key[0], MAIN), state, (), run, frame, imported, depth + 1)
            elif kind is EventKind.RESEED:  # reseeded from OS entropy: unseeded from here on
                self._record(run, _Reseeded(frozenset(event.rngs)))
                state = state - frozenset(event.rngs)
            elif kind is EventKind.RESTORES_WEIGHTS:
                if not frame.speculative and self.guards_off(event.guards, key, values) is None:
                    self._record(run, _RestoresWeights())
            elif kind is EventKind.LIVE_INPUT:
                if not frame.speculative and self.guards_off(event.guards, key, values) is None:
                    self._record(run, _LiveInput())
            elif kind is EventKind.RESTORE:  # the RNG state saved on entry is put back
                state = (state - frozenset(event.rngs)) | (entry_state & frozenset(event.rngs))
        for objects in unread.values():  # never read here: from where each was made
            for obj in objects:
                self._methods_later(obj.cls, obj.init, obj.attrs, obj.state, run, obj.frame, imported, depth)
        return state

    def _made_later(self, cls: ClassTarget, state: FrozenSet[str], run: EntryRun, frame: "Frame",
                    imported: Set[str], depth: int) -> None:
        """An object of ``cls`` made later, with arguments we do not see, and its methods run."""
        init = self.method(cls.path, cls.name, "__init__") or ("", "")
        binding = self.unknown(init)
        self.visit(init, state, binding, run, frame, imported, depth + 1)
        self._methods_later(cls, init, self.instance((cls.path, cls.name), init, binding), state, run, frame, imported, depth)

    def _file_registered(self, path: str, run: EntryRun) -> None:
        """What the decorators of a module and of the modules its body imports file in
        registries when ``run`` imports it (worked out apart from the visits, which may be
        memos of another program's)."""
        stack = [path]
        while stack:
            current = stack.pop()
            if current in run.filed:
                continue
            run.filed.add(current)
            for decorator, definition in self.facts.get(current, NO_SEEDING).registered:
                registry = self.registry(decorator, current)
                if registry is not None:
                    run.registered.setdefault(registry, []).append((current, definition))
            for event in self.events((current, MODULE)):
                if event.kind is EventKind.IMPORT:
                    stack.extend(self.imported(event.target, current))

    def registry(self, decorator: str, near: str) -> Optional[str]:
        """The module of a decorator that files what it decorates in a mapping (it, a
        function it defines or one it calls stores a parameter under a key), else None."""
        memo = (decorator, near)
        if memo not in self._registries:
            found = self.lookup(decorator, near)
            files = isinstance(found, FunctionTarget) and self._files_away(found.key, 0)
            self._registries[memo] = found.key[0] if isinstance(found, FunctionTarget) and files else None
        return self._registries[memo]

    def _files_away(self, key: FnKey, depth: int) -> bool:
        """Whether a function, one it defines, or one it calls (two calls deep) stores a
        parameter under a key: ``register_task_cls`` calls ``registry.register``, whose
        inner ``decorator`` does ``collection[key] = fn_or_cls``."""
        registering = self.facts.get(key[0], NO_SEEDING).registering
        if any(name == key[1] or name.startswith(key[1] + ".") for name in registering):
            return True
        return depth < 2 and any(
            self._files_away(callee, depth + 1)
            for event in self.events(key) if event.kind is EventKind.CALL
            for callee, _, cls in self.callees(event.target, key[0]) if cls is None
        )

    def _look_up(self, callee: FnKey, state: FrozenSet[str], run: EntryRun, frame: "Frame",
                 imported: Set[str], depth: int) -> None:
        """A call into a registry's module (``get_task(config)``, ``build_backbone(...)``):
        any definition filed there may be the one the program's config names, so each
        runs (a class is made, a function called) with arguments we do not see.  A function
        there that makes nothing it looks up (``import_tasks``, which calls
        ``TASK_REGISTRY[name].add_args(parser)`` on each) runs only the methods it calls on
        the classes: a class object is not an instance, and is made where a later call does."""
        facts = self.fn(callee)
        methods = facts.found_methods if facts is not None else None
        if methods is not None:
            for definition in run.registered[callee[0]]:
                target = self._inside(definition[0], definition[1].split("."), 0)
                if isinstance(target, ClassTarget):
                    for name in methods:
                        method = self.method(target.path, target.name, name)
                        if method is not None:
                            self.visit(method, state, self.unknown(method), run, frame, imported, depth + 1)
            return
        for definition in run.registered[callee[0]]:
            if (definition, frame.speculative) in run.looked_up:
                continue  # import-time code (a decorator applied) may look up without running what it finds
            run.looked_up.add((definition, frame.speculative))
            target = self._inside(definition[0], definition[1].split("."), 0)
            if isinstance(target, FunctionTarget):
                self.visit(target.key, state, self.unknown(target.key), run, frame, imported, depth + 1)
            elif isinstance(target, ClassTarget):
                self._made_later(target, state, run, frame, imported, depth)

    def _methods_later(self, cls: ClassTarget, init: FnKey, attrs: Mapping[str, Any], state: FrozenSet[str],
                       run: EntryRun, frame: "Frame", imported: Set[str], depth: int) -> None:
        """Run the methods of an object other than its constructor, as its owner calls them
        later: from ``state``, with the attributes the constructor left (``attrs``); a
        method the project's code calls by name only where the program's code names it
        (``names_called``)."""
        methods = self.methods(cls.path, cls.name)
        own = self._own_private.get((cls.path, cls.name))
        if own is None:
            own = self._own_private[(cls.path, cls.name)] = self._used_on_self(methods)
        plain = self._plain(cls.path, cls.name)
        for method in methods:
            name = method[1].rpartition(".")[2]
            if method == init or method in own or (plain and self._unnamed(name)):
                continue
            if self.names_called(name):
                self.visit(method, state, self.later(method, attrs), run, frame, imported, depth + 1)

    def _plain(self, path: str, cls: str) -> bool:
        """A class that derives from nothing outside the project (``class DataLoader(object)``):
        no framework calls its methods as hooks."""
        for base_path, base in self._bases(path, cls):
            entry = self.facts.get(base_path, NO_SEEDING).classes.get(base)
            for name in entry.bases if entry is not None else ():
                if name not in ("object", "builtins.object") and not isinstance(self.lookup(name, base_path), ClassTarget):
                    return False
        return True

    def _unnamed(self, method: str) -> bool:
        """A method no code of the project names, nor a framework calls: on an object of a
        plain class (``_plain``) nothing calls it (``DataLoader.random_sample``, kept for
        users at a prompt)."""
        return not (method.startswith("__") or method in self.framework_methods or method.startswith(self.framework_prefixes)) \
            and method not in self._named_anywhere()

    # ---- the methods a program calls ---------------------------------------------------
    def names_called(self, method: str) -> bool:
        """Whether a method of an object the program made may run in it.  One that a
        framework calls (a dunder, ``forward``, ``on_*``: rule data), or that no project
        code names (a hook of a framework we do not know), runs.  One that the project's
        code calls by name (``kernel.initialize_from_data_empspect(x, y)`` in a test,
        ``model.generate_samples(n)`` in another program's script) is a method of the
        project's API: it runs where code the program may run names it (``_names_here``)."""
        if not self._api_method(method):
            return True
        found = self._names_here(method)
        if self._read:
            self._read[-1][_NAMED + method] = found
        return found

    def _api_method(self, method: str) -> bool:
        """A method name the project's code calls, and no framework does."""
        return not (method.startswith("__") or method in self.framework_methods or method.startswith(self.framework_prefixes)) \
            and method in self._named_anywhere()

    def _named_anywhere(self) -> FrozenSet[str]:
        if self._named is None:
            self._named = frozenset(name for facts in self.facts.values() for fn in facts.fns.values() for name in fn.names)
        return self._named

    def _names_here(self, method: str) -> bool:
        """Whether code the running program may run names ``method`` (every program's, asked
        of none in particular): the functions of the modules it loads, but a method of the
        project's API only once that code names it in turn (a least fixed point, so that
        ``generate_samples`` calling ``self.generate_z`` names nothing in a program that
        never calls ``generate_samples``)."""
        if self._loaded is None:
            return method in self._named_anywhere()
        if self._program_names is None:
            self._program_names = self._names_run(self._loaded)
        return method in self._program_names

    def _names_run(self, loaded: FrozenSet[str]) -> FrozenSet[str]:
        named: Set[str] = set()
        waiting: Dict[str, List[FrozenSet[str]]] = {}  # API method name -> what the methods so named name
        for path in loaded:
            always, methods = self._module_names(path)
            named |= always
            for method, names in methods.items():
                waiting.setdefault(method, []).append(names)
        ready = [name for name in waiting if name in named]
        while ready:
            for names in waiting.pop(ready.pop(), ()):
                for name in names - named:
                    named.add(name)
                    if name in waiting:
                        ready.append(name)
        return frozenset(named)

    def _module_names(self, path: str) -> Tuple[FrozenSet[str], Dict[str, FrozenSet[str]]]:
        """What a module's code names: its functions' but its API methods', and what each
        API method name's methods there name."""
        found = self._names_of.get(path)
        if found is None:
            always: Set[str] = set()
            methods: Dict[str, Set[str]] = {}
            fns = self.facts.get(path, NO_SEEDING).fns
            for qualified, fn in fns.items():
                # a function defined in a method (a closure, a callback) runs with it
                outer = qualified
                while fns[outer].cls is None and "." in outer and outer.rpartition(".")[0] in fns:
                    outer = outer.rpartition(".")[0]
                name = outer.rpartition(".")[2]
                if fns[outer].cls is not None and self._api_method(name):
                    methods.setdefault(name, set()).update(fn.names)
                else:
                    always.update(fn.names)
            found = self._names_of[path] = (frozenset(always), {name: frozenset(names) for name, names in methods.items()})
        return found

    def _used_on_self(self, methods: Sequence[FnKey]) -> Set[FnKey]:
        """The private methods (``_generate``, not dunders) that the class's own methods call
        or hand on through its object: they run there, under the guards there, not as
        methods the object's owner calls."""
        names = {key[1].rpartition(".")[2]: key for key in methods}
        private = {name: key for name, key in names.items() if name.startswith("_") and not name.endswith("__")}
        out: Set[FnKey] = set()
        if not private:
            return out
        for caller in methods:
            for event in self.events(caller):
                if event.kind is EventKind.CALL and event.bound or event.kind is EventKind.REFERENCE:
                    key = private.get(event.target.rpartition(".")[2])
                    if key is not None and key != caller and any(
                            callee == key for callee, _, _ in self.callees(event.target, caller[0])) and self.on_self(caller, key):
                        out.add(key)
        return out

    def why_none(self, desc: ValueDesc, key: FnKey, binding: Mapping[str, Any]) -> str:
        if desc.source is ValueSource.OPTION:
            return f"`--{desc.name.replace('_', '-')}` defaults to None"
        if desc.source is ValueSource.PARAMETER:
            return f"`{desc.name}` is None by default"
        return f"`{desc.name}` is None"

    # ---- seed parameters (for values that vary per run) -----------------------------------
    def seed_params(self) -> Tuple[Dict[FnKey, Set[str]], Set[str]]:
        """Parameters of project functions that end up as a seed (through calls too), and
        the command-line options passed to them (worked out once)."""
        if self._seed_params is None:
            self._seed_params = self._find_seed_params()
        return self._seed_params

    def _find_seed_params(self) -> Tuple[Dict[FnKey, Set[str]], Set[str]]:
        sunk: Dict[FnKey, Set[str]] = {}
        calls: List[Tuple[FnKey, SeedingEvent]] = []
        for path, facts in self.facts.items():
            for name, fn in facts.fns.items():
                key = (path, name)
                if fn.sunk:
                    sunk[key] = set(fn.sunk)
                calls.extend((key, event) for event in fn.events if _passes_values_on(event))
        options: Set[str] = set()
        changed = True
        rounds = 0
        while changed and rounds < 20:
            changed, rounds = False, rounds + 1
            for key, event in calls:
                for callee, bound, _ in self.callees(event.target, key[0]):
                    targets = sunk.get(callee)
                    if not targets:
                        continue
                    for name, desc in self.arguments(callee, bound, event):
                        if name not in targets or not desc:
                            continue
                        if desc.source is ValueSource.OPTION:
                            options.add(desc.name)
                        elif desc.source is ValueSource.PARAMETER and desc.name not in sunk.get(key, ()):
                            sunk.setdefault(key, set()).add(desc.name)
                            changed = True
        return sunk, options

    def arguments(self, callee: FnKey, bound: bool, event: SeedingEvent) -> List[Tuple[str, Optional[ValueDesc]]]:
        fn = self.fn(callee)
        params: Sequence[str] = fn.params if fn is not None else ()
        if (bound or event.bound) and params:
            params = params[1:]
        positional, keywords = event.args
        return [*zip(params, positional), *keywords.items()]

    def param_at(self, callee: FnKey, bound: bool, key: Any) -> Optional[str]:
        if isinstance(key, str):
            return key
        fn = self.fn(callee)
        params: Sequence[str] = fn.params if fn is not None else ()
        if bound and params:
            params = params[1:]
        return params[key] if 0 <= key < len(params) else None


def _passes_values_on(event: SeedingEvent) -> bool:
    """A call event with a parameter or an option among its arguments."""
    if event.kind is not EventKind.CALL:
        return False
    positional, keywords = event.args
    return any(d is not None and d.source in _PASSED_ON for d in (*positional, *keywords.values()))


_PASSED_ON = (ValueSource.PARAMETER, ValueSource.OPTION)
_SET_AT_RUN = (ValueSource.OPTION, ValueSource.RESULT)  # the command line may change them


def _named(descs: Iterable[Optional[ValueDesc]]) -> Iterable[str]:
    """The binding names of the parameters and own attributes among described values."""
    for desc in descs:
        if desc is None:
            continue
        if desc.source is ValueSource.ATTRIBUTE:
            yield SELF + desc.name
        elif desc.owner is not None and _on_object(desc):
            yield SELF + desc.owner.name  # ``self.config.x``
        else:
            yield from parameters_read(desc)  # also through owners and call arguments


def _misread(value: Any) -> bool:
    """A value that a parameter annotated with a config class cannot hold: an option of the
    same name elsewhere (``params.task`` read as ``--task``), not the config object."""
    return value is not None and not isinstance(value, Record)


def _on_object(desc: ValueDesc) -> bool:
    """An attribute of a method's own object (``self.seed``), or a field of one (``self.config.x``)."""
    return desc.source is ValueSource.ATTRIBUTE or (desc.owner is not None and desc.owner.source is ValueSource.ATTRIBUTE)


def _nested(inner: FnKey, outer: FnKey) -> bool:
    """Whether ``inner`` is a function defined in the body of ``outer``."""
    return inner[0] == outer[0] and inner[1].startswith(outer[1] + ".") and outer[1] not in (MODULE, MAIN)


def _same(one: Any, other: Any) -> bool:
    """Whether two option defaults are the same (``True`` is not ``1``)."""
    return one is other or (type(one) is type(other) and one == other)


@dataclass(frozen=True)
class Keywords:
    """The value of a ``**kwargs`` parameter in a binding: the keywords the call gave it,
    valued, for a ``super().__init__(**kwargs)`` to hand on.  Nothing else reads it: a
    guard on it is not valued."""

    items: Tuple[Tuple[str, Any], ...]


def _hashable(value: Any) -> Any:
    return value if value is UNKNOWN or isinstance(value, (type(None), bool, int, float, str, Record, Keywords)) else UNKNOWN



def _names_in(facts: ModuleSeeding) -> Iterator[str]:
    """The qualified names a module's facts look up: call, reference and import targets,
    calls that give values, base classes, aliases, star imports and the decorators that
    file definitions in a registry."""
    yield from facts.stars
    yield from (decorator for decorator, _ in facts.registered)
    yield from facts.aliases.values()
    for cls in facts.classes.values():
        yield from cls.bases
    for fn in facts.fns.values():
        yield from _result_names(fn.returns)
        for event in fn.events:
            if event.target and event.kind is not EventKind.ASSIGN:
                yield _looked_up(event.target)
            yield from _result_names(event.value, *event.args.positional, *event.args.keywords.values())
            for guard in event.guards:
                yield from _result_names(*described_names(guard.cond))


def _looked_up(target: str) -> str:
    """The name a call target is looked up by: the class of a ``super:Class:method`` call."""
    return target.split(":")[1] if target.startswith("super:") else target


def _result_names(*descs: Optional[ValueDesc]) -> Iterator[str]:
    """The targets of the calls that give described values (nested ones too)."""
    stack = list(descs)
    while stack:
        desc = stack.pop()
        if desc is None:
            continue
        if desc.source is ValueSource.RESULT:
            yield desc.name
            positional, keywords = desc.args
            stack.extend(positional)
            stack.extend(value for _, value in keywords)
        stack.append(desc.owner)
