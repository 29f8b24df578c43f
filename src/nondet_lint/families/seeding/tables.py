"""The ND1xx rule data (``rules/seeding.toml``) indexed for lookups by qualified name.

Built once per loaded rule set: every check instance of every file reads the same dicts.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Mapping, Optional, Tuple

from nondet_lint.analysis.datasize import SizeTables
from nondet_lint.analysis.hfdatasets import HfDatasets, hf_datasets
from nondet_lint.analysis.seeds import Seeder, seed_helpers
from nondet_lint.families.seeding.events import Trained
from nondet_lint.families.seeding.fitted import FitTables, NoDraw
from nondet_lint.families.seeding.members import MemberTables
from nondet_lint.ruledata import RuleSet

RNG_ORDER = ("python", "numpy", "torch", "tf", "keras")
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
TF_KERAS = "tfkeras"  # tf.keras: Keras 3 or TF-Keras 2 by the target TensorFlow version


@dataclass(frozen=True)
class Consumer:
    rng: str
    code: str  # ND101 / ND102 / ND104 / ND105
    unless: Tuple[Mapping[str, Any], ...] = ()
    when: Tuple[Mapping[str, Any], ...] = ()
    skip_keyword: Optional[str] = None  # generator= / seed= makes it not a use
    weights: bool = False  # it draws only a layer's or variable's initial weights
    applied: bool = False  # it draws when applied to data, not when made (a random transform)


@dataclass
class Tables:
    seeders: Dict[str, Seeder] = field(default_factory=dict)
    consumers: Dict[str, Consumer] = field(default_factory=dict)
    rngs: Dict[str, Mapping[str, Any]] = field(default_factory=dict)
    tensor_methods: FrozenSet[str] = frozenset()
    generator_keyword: str = "generator"
    dataset_methods: FrozenSet[str] = frozenset()
    dataset_prefixes: Tuple[str, ...] = ("tensorflow.data.",)
    dataset_receivers: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)  # untyped datasets by name
    hf_datasets: HfDatasets = HfDatasets()  # Hugging Face datasets, whose unseeded shuffle draws from NumPy
    op_seed_keyword: str = "seed"
    keras_names: FrozenSet[str] = frozenset()
    keras_prefixes: Tuple[Tuple[str, str], ...] = ()
    keras_aliases: Tuple[Tuple[str, str], ...] = ()  # (second path, the Keras path it names)
    keras_version_switch: Mapping[str, Any] = field(default_factory=dict)
    tensorflow_versions: Tuple[str, ...] = ()
    sklearn_ensembles: FrozenSet[str] = frozenset()  # an estimator made in their subclasses is a template
    # ensembles that set the random_state of the members they clone from an argument
    sklearn_members: MemberTables = field(default_factory=lambda: MemberTables({}, frozenset(), frozenset()))
    # context managers (qualnames) and ``self.<method>`` managers a test uses to expect an exception
    expected_raises: FrozenSet[str] = frozenset()
    expected_raises_methods: FrozenSet[str] = frozenset()
    keras_drawn_when_built: Tuple[str, ...] = ()  # Keras names TF-Keras 2 constructs without drawing
    constructors: Dict[str, Tuple[Optional[int], Optional[str]]] = field(default_factory=dict)
    sources: FrozenSet[str] = frozenset()
    hash_function: str = "builtins.hash"
    sinks: Dict[str, Tuple[Optional[int], Optional[str]]] = field(default_factory=dict)
    sink_methods: Dict[str, Tuple[Optional[int], Optional[str]]] = field(default_factory=dict)
    seed_keywords: FrozenSet[str] = frozenset()
    # where a draw's value changes no result (a network port): ``[ND101.data.no_result]``
    no_result: Mapping[str, FrozenSet[str]] = field(default_factory=dict)
    sklearn: Dict[str, Mapping[str, Any]] = field(default_factory=dict)
    # ND108 APIs that draw only on data of some size: the sizes on which they draw nothing
    sklearn_no_draw: Dict[str, Tuple[NoDraw, ...]] = field(default_factory=dict)
    sklearn_data_arg: Dict[str, Tuple[Optional[str], Optional[int]]] = field(default_factory=dict)  # a function's data
    sklearn_versions: Tuple[str, ...] = ()
    sizes: Optional[SizeTables] = None
    fits: Optional[FitTables] = None
    loaders: FrozenSet[str] = frozenset()
    loader_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # functions that build a shuffling DataLoader and take no generator (``timm.data.create_loader``)
    loader_factories: Dict[str, Mapping[str, Any]] = field(default_factory=dict)
    workers_before: str = "1.9"
    torch_versions: Tuple[str, ...] = ()
    samplers: Dict[str, int] = field(default_factory=dict)
    option_methods: FrozenSet[str] = frozenset()
    option_decorators: FrozenSet[str] = frozenset()
    flag_defines: FrozenSet[str] = frozenset()  # absl ``DEFINE_*``: options read as ``FLAGS.<name>``
    flag_values: str = ""
    environ: str = ""  # the mapping of environment variables (``os.environ``)
    environ_reads: FrozenSet[str] = frozenset()  # ``os.getenv``: a variable's value, or its default
    defaults_methods: FrozenSet[str] = frozenset()
    parse_methods: FrozenSet[str] = frozenset()
    restorers: Dict[str, Tuple[str, ...]] = field(default_factory=dict)  # qualname -> RNGs
    training_calls: FrozenSet[str] = frozenset()
    training_prefixes: Tuple[str, ...] = ()
    training_methods: FrozenSet[str] = frozenset()
    # top-level package -> what training a model built from it trains (``Trained``)
    training_libraries: Dict[str, Trained] = field(default_factory=dict)
    weight_restorers: FrozenSet[str] = frozenset()  # calls that restore a model's weights
    weight_restorer_prefixes: Tuple[str, ...] = ()
    weight_restore_methods: FrozenSet[str] = frozenset()
    partial_restore: Tuple[Mapping[str, Any], ...] = ()  # arguments that restore only some weights
    initializers: Tuple[str, ...] = ()  # draws of initial weights (names; a trailing "." a prefix)
    # methods a framework calls on a project object without the project naming them
    # (``forward``, ``on_*``): ``[ND101.data.framework_methods]``
    framework_methods: Tuple[str, ...] = ()
    # class methods of a framework's base that make an instance of the class they are called
    # on: method name -> prefixes of those bases (``[ND101.data.framework_methods] constructors``)
    framework_constructors: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    keras_initializers: Tuple[str, ...] = ()
    # calls that read a person's input as the program runs (``pygame.event.get``), and those
    # that do only inside a loop (``input``: a move typed turn after turn, not one prompt)
    live_input: FrozenSet[str] = frozenset()
    live_input_in_loops: FrozenSet[str] = frozenset()

    def is_training(self, qualname: Optional[str], method: Optional[str]) -> bool:
        """Whether a call is evidence that the program trains."""
        if method is not None and method in self.training_methods:
            return True
        if qualname is None:
            return False
        return qualname in self.training_calls or qualname.startswith(self.training_prefixes)

    def trained(self, qualname: Optional[str]) -> Trained:
        """What a training call trains: a model of a library rule data lists when its
        receiver was built from that library (``faiss.Kmeans.train``), else a framework's."""
        library = self.training_libraries.get(qualname.partition(".")[0]) if qualname is not None else None
        return library if library is not None else Trained.MODEL

    def restores_weights(self, qualname: Optional[str], method: Optional[str]) -> bool:
        """Whether a call restores a model's weights from a checkpoint (whatever its arguments)."""
        if method is not None and method in self.weight_restore_methods:
            return True
        return qualname is not None and (qualname in self.weight_restorers or qualname.startswith(self.weight_restorer_prefixes))

    def draws_weights(self, qualname: str) -> bool:
        """Whether a draw only initializes weights (a layer, a variable, an initializer)."""
        if _named_in(qualname, self.initializers):
            return True
        return any(qualname.startswith(prefix) and _named_in(qualname[len(prefix):], self.keras_initializers)
                   for prefix, _ in self.keras_prefixes)

    @property
    def outside_roots(self) -> FrozenSet[str]:
        """Framework packages and standard-library modules, plus ``builtins``."""
        found = self.__dict__.get("_outside")
        if found is None:
            found = self.__dict__["_outside"] = self.external_roots() | _STDLIB | {"builtins"}
        return found

    def external_roots(self) -> FrozenSet[str]:
        """Top-level packages the tables name: never mistaken for a project module."""
        names = [*self.seeders, *self.consumers, *self.restorers, *self.constructors, *self.sources, *self.sinks,
                 *self.sklearn, *self.loaders, *self.loader_factories, *self.samplers, *(p for p, _ in self.keras_prefixes)]
        return frozenset(name.split(".")[0] for name in names if name)

    def reports_unseeded(self, qualname: str) -> bool:
        """An ND108 API that is random with any arguments and whose default random_state
        is None: reported itself wherever it runs unseeded."""
        api = self.sklearn.get(qualname)
        return api is not None and not api.get("when") and api.get("random_state_default", "None") == "None"

    def knows(self, qualname: str) -> bool:
        """Whether the tables say anything about a qualified name."""
        return (
            qualname in self.seeders or qualname in self.consumers or qualname in self.constructors
            or qualname in self.sklearn or qualname in self.loaders or qualname in self.loader_factories or qualname in self.samplers
            or qualname in self.sources or qualname in self.sinks or qualname in self.restorers
            or self.keras_rng(qualname) is not None
        )

    def _keras_path(self, qualname: str) -> str:
        """``tensorflow.initializers.TruncatedNormal`` as the Keras name it aliases."""
        for alias, path in self.keras_aliases:
            if qualname.startswith(alias):
                return path + qualname[len(alias):]
        return qualname

    def keras_rng(self, qualname: str) -> Optional[str]:
        """The RNG a Keras layer / initializer / random function draws from, if it is one
        (asked for most calls of every module: remembered by name)."""
        known: Optional[Dict[str, Optional[str]]] = self.__dict__.get("_keras_rngs")
        if known is None:
            known = self.__dict__["_keras_rngs"] = {}
        if qualname not in known:
            known[qualname] = self._keras_rng(qualname)
        return known[qualname]

    def _keras_rng(self, qualname: str) -> Optional[str]:
        qualname = self._keras_path(qualname)
        for prefix, rng in self.keras_prefixes:
            if qualname.startswith(prefix) and qualname[len(prefix):] in self.keras_names:
                return rng
        return None

    def keras_built(self, qualname: str) -> bool:
        """A Keras layer or initializer: under TF-Keras 2 it draws when built, not when made."""
        qualname = self._keras_path(qualname)
        for prefix, _ in self.keras_prefixes:
            if qualname.startswith(prefix):
                return qualname[len(prefix):].startswith(self.keras_drawn_when_built)
        return False


def _named_in(name: str, names: Tuple[str, ...]) -> bool:
    """``name`` is one of ``names``, or below one ending in "."."""
    return any(name == entry or (entry.endswith(".") and name.startswith(entry)) for entry in names)


def _place(spec: Mapping[str, Any]) -> Tuple[Optional[int], Optional[str]]:
    return spec.get("pos"), spec.get("kw")


_CACHE: Dict[int, Tuple[RuleSet, Tables]] = {}


def tables_for(rules: RuleSet) -> Tables:
    """The indexed tables of a rule set (cached by identity)."""
    cached = _CACHE.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    tables = _build(rules)
    _CACHE[id(rules)] = (rules, tables)
    return tables


def _data(rules: RuleSet, code: str) -> Mapping[str, Any]:
    return rules[code].data if code in rules else {}


def _build(rules: RuleSet) -> Tables:
    t = Tables()
    t.hf_datasets = hf_datasets(_data(rules, "ND000"))
    shared = _data(rules, "ND101")
    t.rngs = dict(shared.get("rngs", {}))
    for rng, names in shared.get("restorers", {}).items():
        for name in names:
            t.restorers[name] = (*t.restorers.get(name, ()), rng)
    training = shared.get("training", {})
    t.training_calls = frozenset(n for n in training.get("calls", ()) if not n.endswith("."))
    t.training_prefixes = tuple(n for n in training.get("calls", ()) if n.endswith("."))
    t.training_methods = frozenset(training.get("methods", ()))
    t.training_libraries = {
        name: Trained.LIBRARY if spec["callbacks"] else Trained.ARRAYS for name, spec in training.get("libraries", {}).items()
    }
    weights = shared.get("weights", {})
    t.weight_restorers = frozenset(n for n in weights.get("restore_calls", ()) if not n.endswith("."))
    t.weight_restorer_prefixes = tuple(n for n in weights.get("restore_calls", ()) if n.endswith("."))
    t.weight_restore_methods = frozenset(weights.get("restore_methods", ()))
    t.partial_restore = tuple(weights.get("partial", ()))
    t.initializers = tuple(weights.get("initializers", ()))
    t.keras_initializers = tuple(weights.get("keras_initializers", ()))
    t.no_result = {key: frozenset(names) for key, names in shared.get("no_result", {}).items()}
    live = _data(rules, "ND107").get("live_input", {})
    t.live_input = frozenset(live.get("calls", ()))
    t.live_input_in_loops = frozenset(live.get("calls_in_loops", ()))
    t.framework_methods = tuple(shared.get("framework_methods", {}).get("names", ()))
    for entry in shared.get("framework_methods", {}).get("constructors", ()):
        for method in entry["methods"]:
            t.framework_constructors[method] = (*t.framework_constructors.get(method, ()), *entry["bases"])
    t.seeders = dict(seed_helpers(rules))
    for code in ("ND101", "ND102", "ND104", "ND105"):
        data = _data(rules, code)
        rng = data.get("rng")
        if rng is None:
            continue
        skip = {"torch": data.get("generator_keyword"), "tf": data.get("op_seed_keyword")}.get(rng)
        applied = tuple(data.get("drawn_when_applied", ()))
        for name in data.get("consumers", ()):
            t.consumers[name] = Consumer(rng, code, skip_keyword=skip, weights=_named_in(name, t.initializers),
                                         applied=_named_in(name, applied))
        for entry in data.get("conditional", ()):
            t.consumers[entry["name"]] = Consumer(
                rng, code, tuple(entry.get("unless", ())), tuple(entry.get("when", ())), skip,
                _named_in(entry["name"], t.initializers), _named_in(entry["name"], applied),
            )
    torch_data = _data(rules, "ND104")
    t.tensor_methods = frozenset(torch_data.get("tensor_methods", ()))
    t.generator_keyword = torch_data.get("generator_keyword", "generator")
    tf_data = _data(rules, "ND105")
    t.dataset_methods = frozenset(tf_data.get("dataset_methods", ()))
    t.dataset_prefixes = tuple(tf_data.get("dataset_prefixes", ("tensorflow.data.",)))
    t.dataset_receivers = {key: tuple(names) for key, names in tf_data.get("dataset_receivers", {}).items()}
    t.op_seed_keyword = tf_data.get("op_seed_keyword", "seed")
    t.keras_names = frozenset(tf_data.get("keras_names", ()))
    prefixes = []
    for entry in tf_data.get("keras_prefixes", ()):
        rng = entry["rng"]
        if "before" in entry:
            t.keras_version_switch = dict(entry["before"])
            rng = TF_KERAS
        prefixes.append((entry["prefix"], rng))
    t.keras_prefixes = tuple(prefixes)
    t.keras_aliases = tuple(tf_data.get("keras_aliases", {}).items())
    t.tensorflow_versions = tuple(tf_data.get("tensorflow_versions", ()))
    t.keras_drawn_when_built = tuple(tf_data.get("drawn_when_built", ()))
    for entry in _data(rules, "ND103").get("constructors", ()):
        t.constructors[entry["name"]] = _place(entry)
    nd107 = _data(rules, "ND107")
    t.sources = frozenset(nd107.get("sources", ()))
    t.hash_function = nd107.get("hash_function", "builtins.hash")
    for entry in nd107.get("sinks", ()):
        t.sinks[entry["name"]] = _place(entry)
    for entry in nd107.get("sink_methods", ()):
        t.sink_methods[entry["name"]] = _place(entry)
    t.seed_keywords = frozenset(nd107.get("seed_keywords", ()))
    nd108 = _data(rules, "ND108")
    for entry in nd108.get("apis", ()):
        t.sklearn[entry["name"]] = entry
        if entry.get("no_draw_on"):
            t.sklearn_no_draw[entry["name"]] = tuple(NoDraw.from_data(a) for a in entry["no_draw_on"])
        if entry.get("data"):
            t.sklearn_data_arg[entry["name"]] = (entry["data"].get("kw"), entry["data"].get("pos"))
    t.sklearn_versions = tuple(nd108.get("sklearn_versions", ()))
    t.sizes = SizeTables.from_data(nd108.get("sizes", {}))
    t.fits = FitTables.from_data(nd108.get("fits", {}))
    t.sklearn_ensembles = frozenset(_data(rules, "ND108").get("ensembles", ()))
    t.sklearn_members = MemberTables.from_data(_data(rules, "ND108"))
    t.expected_raises = frozenset(_data(rules, "ND108").get("expected_raises", ()))
    t.expected_raises_methods = frozenset(_data(rules, "ND108").get("expected_raises_methods", ()))
    nd109 = _data(rules, "ND109")
    t.loaders = frozenset(nd109.get("loaders", ()))
    t.loader_args = {key: nd109[key] for key in ("shuffle", "generator", "num_workers", "worker_init_fn") if key in nd109}
    for entry in nd109.get("factories", ()):
        for name in entry["names"]:
            t.loader_factories[name] = entry
    t.workers_before = nd109.get("workers_before", "1.9")
    t.torch_versions = tuple(nd109.get("torch_versions", ()))
    for entry in _data(rules, "ND110").get("calls", ()):
        t.samplers[entry["name"]] = entry.get("generator_pos", -1)
    nd106 = _data(rules, "ND106")
    t.option_methods = frozenset(nd106.get("option_methods", ()))
    t.option_decorators = frozenset(nd106.get("option_decorators", ()))
    t.flag_defines = frozenset(nd106.get("flag_defines", ()))
    t.flag_values = nd106.get("flag_values", "")
    t.environ = nd106.get("environ", "")
    t.environ_reads = frozenset(nd106.get("environ_reads", ()))
    t.defaults_methods = frozenset(nd106.get("defaults_methods", ()))
    t.parse_methods = frozenset(nd106.get("parse_methods", ()))
    return t


def rng_root(tables: Tables, rng: str) -> str:
    """The top-level package whose import makes an RNG relevant to a module."""
    return str(tables.rngs.get(rng, {}).get("seed_call", "")).split(".")[0]


def short_name(qualname: str) -> str:
    """``numpy.random.default_rng`` as people write it: ``np.random.default_rng``."""
    for long, short in (("numpy.", "np."), ("tensorflow.", "tf.")):
        if qualname.startswith(long):
            return short + qualname[len(long):]
    return qualname
