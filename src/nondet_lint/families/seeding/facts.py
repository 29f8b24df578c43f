"""What pass 1 records about one module for the seeding rules (``ModuleSeeding``) and the
parts it is made of: functions (``FunctionFacts``, their ``events``), command-line options
(``OptionFacts``) and values that vary per run (``Origin``).

Their JSON form (``to_json`` / ``from_json``) is what workers send and the cache stores; it
leaves empty parts out, as a large package has tens of thousands of functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

from nondet_lint.analysis.seedoption import ConfigNeed
from nondet_lint.facts import ModuleFact
from nondet_lint.families.seeding.conditions import Plain, ValueDesc
from nondet_lint.families.seeding.events import Guard, SeedingEvent, guards_from_json, guards_json
from nondet_lint.types import Edit



@dataclass(slots=True)
class ClassFacts:
    """A class the module defines (``methods`` grows while the module is walked)."""

    bases: List[str]  # qualified names
    methods: List[str] = field(default_factory=list)  # the names of the methods it defines
    properties: List[str] = field(default_factory=list)  # those of them that are ``@property`` getters

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"bases": self.bases, "methods": self.methods}
        if self.properties:
            out["properties"] = self.properties
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ClassFacts":
        return cls(data["bases"], data["methods"], data.get("properties", []))


@dataclass(slots=True)
class FunctionFacts:
    """A function (or the module body, or the main block): its events in the order the
    code runs, and what pass 2 needs to value its parameters (read only once made; not
    frozen, as a large package has tens of thousands and frozen ones are slower to make)."""

    events: Tuple[SeedingEvent, ...] = ()
    params: Tuple[str, ...] = ()  # positional parameters, in order
    kwonly: Tuple[str, ...] = ()  # keyword-only parameters
    defaults: Mapping[str, Plain] = field(default_factory=dict)  # parameter -> literal default
    cls: Optional[str] = None  # the class path of a method
    sunk: Tuple[str, ...] = ()  # parameters used as a seed, sorted
    returns: Optional[ValueDesc] = None  # what every ``return`` of it gives, where they agree
    typed: Mapping[str, str] = field(default_factory=dict)  # parameter -> the class its annotation names
    # a module-level function that makes nothing it looks up in a mapping (calls none,
    # passes none on, returns no value): the methods it calls on what it found
    # (``TASK_REGISTRY[name].add_args(parser)``, a class's static or class method); None
    # where it may make what it finds, or is a method
    found_methods: Optional[Tuple[str, ...]] = None
    # the attribute names its code reads or calls (``model.generate(n)``) and the names its
    # strings hold (``getattr(m, "fit")``, ``trigger_plugins(self, "before_training_exp")``),
    # sorted: a method runs in a program only where code of it names the method (``Program.names_called``)
    names: Tuple[str, ...] = ()
    # its ``**kwargs`` parameter: the keywords a call gives that name no parameter, which a
    # ``super().__init__(**kwargs)`` hands on (``Model(random_seed=42)`` reaching the base's seed)
    varkw: Optional[str] = None

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"ev": [event.to_json() for event in self.events]}
        if self.params:
            out["params"] = list(self.params)
        if self.kwonly:
            out["kwonly"] = list(self.kwonly)
        if self.defaults:
            out["defaults"] = dict(self.defaults)
        if self.cls:
            out["cls"] = self.cls
        if self.sunk:
            out["sunk"] = list(self.sunk)
        if self.returns is not None:
            out["ret"] = self.returns.to_json()
        if self.typed:
            out["typed"] = dict(self.typed)
        if self.found_methods is not None:
            out["found"] = list(self.found_methods)
        if self.names:
            out["names"] = list(self.names)
        if self.varkw is not None:
            out["varkw"] = self.varkw
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "FunctionFacts":
        if len(data) == 1:
            return cls(tuple(map(SeedingEvent.from_json, data["ev"])))
        return cls(
            tuple(map(SeedingEvent.from_json, data["ev"])),
            tuple(data.get("params", ())), tuple(data.get("kwonly", ())), data.get("defaults", {}),
            data.get("cls"), tuple(data.get("sunk", ())),
            ValueDesc.from_json(data["ret"]) if "ret" in data else None, data.get("typed", {}),
            tuple(data["found"]) if "found" in data else None, tuple(data.get("names", ())), data.get("varkw"),
        )


NO_FUNCTION = FunctionFacts()


@dataclass(frozen=True)
class OptionFacts:
    """A command-line option (argparse, click, absl flags) the module declares."""

    known_default: bool  # whether its default is a literal (else it is computed, required, or declared twice differently)
    default: Plain  # that literal
    anchor: int  # the declaration, for messages
    origin: Optional[int] = None  # the ``Origin`` of a default that varies per run

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"d": ["k", self.default] if self.known_default else None, "aid": self.anchor}
        if self.origin is not None:
            out["oid"] = self.origin
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "OptionFacts":
        default = data["d"]
        return cls(default is not None, default[1] if default is not None else None, data["aid"], data.get("oid"))


class OriginKind(Enum):
    """Where a value that varies per run is made; the value is its name in the JSON form."""

    SOURCE = "src"  # a source: ``time.time()``, ``os.urandom``, ``hash()`` of a str
    DRAW = "draw"  # a draw from a global RNG, which varies unless the RNG is seeded first


class CallFlow(NamedTuple):
    """A call the value is passed to: pass 2 asks whether that parameter reaches a seed."""

    callee: str  # the call's target (qualified name)
    argument: Union[int, str]  # its position or keyword
    bound: bool  # a method called on its object


@dataclass(slots=True)
class Origin:
    """A value that varies per run and reaches a seed or a call (``values.ValueFlow``);
    ``flows`` and ``sunk`` grow while the module is walked."""

    id: int  # its index in the module's origins (options and payloads refer to it)
    kind: OriginKind
    what: str = ""  # SOURCE: the source's qualified name, or a description with a space
    anchor: Optional[int] = None  # SOURCE: where it is made
    guards: Tuple[Guard, ...] = ()  # SOURCE: the conditions it is made under
    function: str = ""  # SOURCE: the function it is made in (its key in ``ModuleSeeding.fns``)
    rng: str = ""  # DRAW: the RNG drawn from
    cid: int = -1  # DRAW: the draw's candidate
    flows: List[CallFlow] = field(default_factory=list)
    sunk: bool = False  # used as a seed in this module

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "id": self.id, "kind": self.kind.value,
            "flows": [["call", flow.callee, flow.argument, 1 if flow.bound else 0] for flow in self.flows],
            "sunk": self.sunk,
        }
        if self.kind is OriginKind.SOURCE:
            out.update(what=self.what, aid=self.anchor, guards=guards_json(self.guards))
            if self.function:
                out["fn"] = self.function
        else:
            out.update(rng=self.rng, cid=self.cid)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Origin":
        flows = [CallFlow(callee, argument, bool(bound)) for _, callee, argument, bound in data["flows"]]
        kind = OriginKind(data["kind"])
        if kind is OriginKind.SOURCE:
            return cls(data["id"], kind, data["what"], data["aid"], guards_from_json(data["guards"]), data.get("fn", ""), flows=flows,
                       sunk=data["sunk"])
        return cls(data["id"], kind, rng=data["rng"], cid=data["cid"], flows=flows, sunk=data["sunk"])


SeedBlocks = Mapping[str, Tuple[Edit, ...]]  # a ``"python+numpy"``-style set of RNGs -> the edits inserting its seed calls


def _blocks_json(blocks: SeedBlocks) -> Dict[str, List[Dict[str, Any]]]:
    return {rngs: [edit.to_dict() for edit in edits] for rngs, edits in blocks.items()}


def _blocks_from_json(data: Mapping[str, Any]) -> SeedBlocks:
    return {rngs: tuple(Edit.from_dict(edit) for edit in edits) for rngs, edits in data.items()}


@dataclass(frozen=True)
class OptionSeedBlocks:
    """An entry point's seed blocks that seed with its seed option (``args.seed``), placed
    where the option's value is known (``seedblock.option_blocks``)."""

    function: str  # the function that holds them; "" for the main block
    value: str  # the option's value as spelled there
    blocks: SeedBlocks
    needs: Optional[ConfigNeed] = None  # what another module must offer for the value to exist

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"fn": self.function, "value": self.value, "blocks": _blocks_json(self.blocks)}
        if self.needs is not None:
            out["needs"] = self.needs.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "OptionSeedBlocks":
        needs = data.get("needs")
        return cls(data["fn"], data["value"], _blocks_from_json(data["blocks"]), ConfigNeed.from_json(needs) if needs is not None else None)


@dataclass(frozen=True)
class ModuleSeeding(ModuleFact):
    """What pass 1 records about one module for the seeding rules; its JSON form
    (``to_json``) leaves empty parts out."""

    key = "seeding"

    fns: Mapping[str, FunctionFacts] = field(default_factory=dict)  # by path: ``<module>``, ``<main>``, ``C.f``
    classes: Mapping[str, ClassFacts] = field(default_factory=dict)  # by class path
    opts: Mapping[str, OptionFacts] = field(default_factory=dict)  # by dest
    consts: Mapping[str, Plain] = field(default_factory=dict)  # module constants a guard may compare with
    stars: List[str] = field(default_factory=list)  # modules imported with ``*`` (project ones)
    origins: Tuple[Origin, ...] = ()  # values that vary per run and reach a seed or a call
    sunk_options: List[str] = field(default_factory=list)  # options used as seeds
    aliases: Dict[str, str] = field(default_factory=dict)  # ``import a.b as c``: c -> a.b
    blocks: SeedBlocks = field(default_factory=dict)  # entry points: the seed blocks a fix inserts
    option_blocks: Optional[OptionSeedBlocks] = None  # entry points with a seed option: the blocks using it
    # entry points: RNG -> the seed call their blocks insert where it is not the rule data's
    # ``seed_api`` (``tf.set_random_seed`` in a TensorFlow 1 module), for messages
    seed_apis: Dict[str, str] = field(default_factory=dict)
    # config classes (and, under "", an ml_collections config file) -> their seed field,
    # for other modules' seed options (``seedoption.config_seeds``)
    config_seeds: Dict[str, str] = field(default_factory=dict)
    # config classes' fields declared in the class body (``type: str = "bert"``): class path
    # -> field -> [its literal default], or [] when the default is not a literal
    fields: Dict[str, Dict[str, List[Plain]]] = field(default_factory=dict)
    # field name -> the literal this module's code sets it to, or ["varies"] (``fieldsettings``)
    settings: Dict[str, Any] = field(default_factory=dict)
    # module-level definitions under a project decorator: [the decorator, the definition]
    registered: List[List[str]] = field(default_factory=list)
    # functions that store a parameter into a mapping (``collection[key] = fn_or_cls``)
    registering: List[str] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"fns": {name: facts.to_json() for name, facts in self.fns.items()}}
        if self.classes:
            out["classes"] = {name: entry.to_json() for name, entry in self.classes.items()}
        if self.opts:
            out["opts"] = {dest: option.to_json() for dest, option in self.opts.items()}
        for key in ("consts", "stars"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.origins:
            out["origins"] = [origin.to_json() for origin in self.origins]
        for key in ("sunk_options", "aliases"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.blocks:
            out["blocks"] = _blocks_json(self.blocks)
        if self.option_blocks is not None:
            out["option_blocks"] = self.option_blocks.to_json()
        if self.seed_apis:
            out["seed_apis"] = self.seed_apis
        if self.config_seeds:
            out["config_seeds"] = self.config_seeds
        for key in ("fields", "settings", "registered", "registering"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ModuleSeeding":
        return cls(
            fns={name: FunctionFacts.from_json(facts) for name, facts in data["fns"].items()},
            classes={name: ClassFacts.from_json(entry) for name, entry in data.get("classes", {}).items()},
            opts={dest: OptionFacts.from_json(option) for dest, option in data.get("opts", {}).items()},
            consts=data.get("consts", {}),
            stars=data.get("stars", []),
            origins=tuple(Origin.from_json(origin) for origin in data.get("origins", ())),
            sunk_options=data.get("sunk_options", []),
            aliases=data.get("aliases", {}),
            blocks=_blocks_from_json(data.get("blocks", {})),
            option_blocks=OptionSeedBlocks.from_json(data["option_blocks"]) if "option_blocks" in data else None,
            seed_apis=data.get("seed_apis", {}),
            config_seeds=data.get("config_seeds", {}),
            fields=data.get("fields", {}),
            settings=data.get("settings", {}),
            registered=data.get("registered", []),
            registering=data.get("registering", []),
        )


NO_SEEDING = ModuleSeeding()  # a module pass 1 recorded nothing for (read only)
