"""The events of a function: what pass 2 replays, in the order the code runs.

A ``SeedingEvent`` has a kind (``EventKind``) and the fields that kind uses; the others keep
their empty defaults.  Guards are the recognised conditions around the event
(``conditions``), each with the anchor of its test.  A call's ``target`` is a spelling that
pass 2 resolves (``program.Program.lookup``): a qualified name, ``.Net.__init__`` for a
name defined in the event's own module, ``*.name`` for a name from a star import,
``super:<class>:<method>``, ``cls:<class>`` for a call of a class method's ``cls`` (the
class the method is called on; ``<class>``, the one defining it, stands in where pass 2
does not know which).

A large package yields tens of thousands of call events, most of them alike, so their JSON
form (``to_json``, what the cache stores) is a short list: the kind's one-letter value,
then its fields, trailing empty ones left out (and ``collect.prune`` drops, once the
module is walked, the events pass 2 would learn nothing from).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from nondet_lint.families.seeding.conditions import Cond, ValueDesc, cond_from_json, cond_to_json


class EventKind(Enum):
    """What a function event is; the value is its name in the JSON form."""

    SEED = "s"  # ``rngs`` are seeded (the call at anchor ``cid``), unless ``guards`` are off
    CALL = "c"  # a call that may enter project code: ``target`` with ``args``
    REFERENCE = "r"  # ``target``, a function, is passed as a value (a callback: it runs later)
    USE = "u"  # a use of ``rng``'s global state (candidate ``cid``)
    WORKERS = "w"  # a DataLoader with worker processes and no worker_init_fn (candidate ``cid``)
    IMPORT = "i"  # an import of ``target``, which runs the module's code the first time
    MAIN_BLOCK = "m"  # where the main block runs when the module is the program
    RESTORE = "x"  # an RNG state saved earlier is put back (``np.random.set_state``)
    RESEED = "n"  # ``rngs`` reseeded from OS entropy (``random.seed()``, ``torch.seed()``)
    TRAINS = "t"  # evidence that the program trains (an optimizer, ``loss.backward()``, ``fit``)
    ASSIGN = "a"  # ``self.<target> = value`` in a method (``value`` None: not describable)
    RESTORES_WEIGHTS = "l"  # a model's weights are restored from a checkpoint (unless ``guards`` are off)
    # a local holding an object that a ``held`` CALL of ``target`` made is read (its first
    # read since): the object's methods may run from here on
    OBJECT_READ = "o"
    # the code reads a person's input as it runs (a game's key events, a move typed turn
    # after turn: ``[ND107.data.live_input]``), unless ``guards`` are off
    LIVE_INPUT = "p"
    # ``with tf.Graph().as_default():``: the ops built from here on go to a new graph, which
    # no graph-level seed set before reaches (``rngs`` unseeded) ...
    GRAPH = "g"
    # ... until the block ends: the graph before it is the default again, with its seed
    GRAPH_END = "e"
    # ``tf.compat.v1.reset_default_graph()``: a new default graph from here on, with no seed
    # (``rngs`` unseeded), unless ``guards`` are off
    GRAPH_RESET = "d"


class Trained(IntEnum):
    """What evidence of training trains (``SeedingEvent.trained``), weakest first."""

    NOTHING = 0  # a program's: no evidence of training
    ARRAYS = 1  # a library model fitted on the arrays it is given, running no project code (faiss)
    LIBRARY = 2  # a library model whose training may run project code handed to it (scikit-learn)
    MODEL = 3  # a framework model, or a receiver of unknown type


class Guard(NamedTuple):
    """A condition the event runs under, and the anchor of its test (for messages)."""

    cond: Cond
    anchor: int


# the keyword under which ``CallArgs`` holds a caller's own ``**kwargs`` handed on whole
# (``super().__init__(**kwargs)``): its keywords reach the callee's parameters of their names
FORWARDED_KEYWORDS = "**"


class CallArgs(NamedTuple):
    """A call's arguments as described values (None where not describable), so that pass 2
    can value the callee's parameters; left out when none is describable.  A caller's
    ``**kwargs`` handed on whole is the keyword ``FORWARDED_KEYWORDS``."""

    positional: Tuple[Optional[ValueDesc], ...] = ()
    keywords: Mapping[str, Optional[ValueDesc]] = {}

    def describes_any(self) -> bool:
        return any(self.positional) or any(self.keywords.values())

    def to_json(self) -> List[Any]:
        return [[desc.to_json() if desc is not None else None for desc in self.positional],
                {name: desc.to_json() if desc is not None else None for name, desc in self.keywords.items()}]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "CallArgs":
        return cls(tuple(map(_desc, data[0])), {name: _desc(desc) for name, desc in data[1].items()})


def _desc_json(desc: Optional[ValueDesc]) -> Optional[List[Any]]:
    return desc.to_json() if desc is not None else None


def _desc(data: Optional[Sequence[Any]]) -> Optional[ValueDesc]:
    return ValueDesc.from_json(data) if data is not None else None


NO_ARGS = CallArgs()
_KINDS = {kind.value: kind for kind in EventKind}
_CODES = {kind: kind.value for kind in EventKind}


@dataclass(slots=True)
class SeedingEvent:
    """One event of a function (see ``EventKind`` for which fields each kind uses)."""

    kind: EventKind
    target: str = ""  # CALL, REFERENCE: the function; IMPORT: the module; ASSIGN: the attribute
    rngs: Tuple[str, ...] = ()  # SEED, RESTORE, RESEED, GRAPH, GRAPH_END, GRAPH_RESET
    rng: str = ""  # USE
    cid: int = -1  # SEED: the anchor of the seed call; USE, WORKERS: the candidate
    guards: Tuple[Guard, ...] = ()  # SEED, CALL, USE, WORKERS, ASSIGN, REFERENCE, RESTORES_WEIGHTS, LIVE_INPUT, GRAPH_RESET
    args: CallArgs = NO_ARGS  # CALL
    bound: bool = False  # CALL: a method called on its object (the callee's first parameter is bound)
    # SEED: the seed value when it is not a literal; ASSIGN: the value; USE: the op's own seed
    # when pass 2 values it (a use only when that is None)
    value: Optional[ValueDesc] = None
    without: str = ""  # SEED: what the seeder does given no value (``Seeder.without_value``)
    trained: Trained = Trained.MODEL  # TRAINS: what it trains
    # CALL: the object it makes is bound to a local of the function, whose first read is an
    # OBJECT_READ event (its methods run from there on, not from right after the call)
    held: bool = False

    def to_json(self) -> List[Any]:
        kind = self.kind
        code = _CODES[kind]
        if kind is EventKind.CALL:
            out: List[Any] = [code, self.target, _args_json(self.args), _guards_json(self.guards), 1 if self.bound else 0,
                              1 if self.held else 0]
            while len(out) > 2 and not out[-1]:
                out.pop()
            return out
        if kind is EventKind.USE:
            if self.value is not None:
                return [code, self.rng, self.cid, guards_json(self.guards), self.value.to_json()]
            return [code, self.rng, self.cid, *_trailing_guards(self.guards)]
        if kind is EventKind.WORKERS:
            return [code, self.cid, *_trailing_guards(self.guards)]
        if kind is EventKind.RESTORES_WEIGHTS or kind is EventKind.LIVE_INPUT:
            return [code, *_trailing_guards(self.guards)]
        if kind is EventKind.SEED:
            return [code, list(self.rngs), self.cid, _guards_json(self.guards) or [], _desc_json(self.value), self.without]
        if kind is EventKind.REFERENCE:
            return [code, self.target, *_trailing_guards(self.guards)]
        if kind is EventKind.IMPORT or kind is EventKind.OBJECT_READ:
            return [code, self.target]
        if kind is EventKind.ASSIGN:
            return [code, self.target, _desc_json(self.value), *_trailing_guards(self.guards)]
        if kind is EventKind.RESTORE or kind is EventKind.RESEED or kind is EventKind.GRAPH or kind is EventKind.GRAPH_END:
            return [code, list(self.rngs)]
        if kind is EventKind.GRAPH_RESET:
            return [code, list(self.rngs), *_trailing_guards(self.guards)]
        if kind is EventKind.TRAINS and self.trained is not Trained.MODEL:
            return [code, self.trained.value]
        return [code]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "SeedingEvent":
        kind = _KINDS[data[0]]
        size = len(data)
        if kind is EventKind.CALL:  # most events: positional arguments, the fastest
            if size == 2:
                return cls(kind, data[1])
            args = data[2]
            return cls(kind, data[1], (), "", -1, guards_from_json(data[3]) if size > 3 and data[3] else (),
                       CallArgs.from_json(args) if args else NO_ARGS, size > 4 and bool(data[4]), held=size > 5 and bool(data[5]))
        if kind is EventKind.USE:
            return cls(kind, "", (), data[1], data[2], guards_from_json(data[3]) if size > 3 else (),
                       value=_desc(data[4]) if size > 4 else None)
        if kind is EventKind.WORKERS:
            return cls(kind, "", (), "", data[1], guards_from_json(data[2]) if size > 2 else ())
        if kind is EventKind.RESTORES_WEIGHTS or kind is EventKind.LIVE_INPUT:
            return cls(kind, guards=guards_from_json(data[1]) if size > 1 else ())
        if kind is EventKind.SEED:
            return cls(kind, "", tuple(data[1]), "", data[2], guards_from_json(data[3]), NO_ARGS, False, _desc(data[4]), data[5])
        if kind is EventKind.REFERENCE:
            return cls(kind, data[1], guards=guards_from_json(data[2]) if size > 2 else ())
        if kind is EventKind.IMPORT or kind is EventKind.OBJECT_READ:
            return cls(kind, data[1])
        if kind is EventKind.ASSIGN:
            return cls(kind, data[1], guards=guards_from_json(data[3]) if size > 3 else (), value=_desc(data[2]))
        if kind is EventKind.RESTORE or kind is EventKind.RESEED or kind is EventKind.GRAPH or kind is EventKind.GRAPH_END:
            return cls(kind, "", tuple(data[1]))
        if kind is EventKind.GRAPH_RESET:
            return cls(kind, "", tuple(data[1]), guards=guards_from_json(data[2]) if size > 2 else ())
        if kind is EventKind.TRAINS and size > 1:
            return cls(kind, trained=Trained(data[1]))
        return cls(kind)


def guards_json(guards: Sequence[Guard]) -> List[List[Any]]:
    return [[cond_to_json(guard.cond), guard.anchor] for guard in guards]


def guards_from_json(data: Sequence[Sequence[Any]]) -> Tuple[Guard, ...]:
    return tuple(Guard(cond_from_json(cond), anchor) for cond, anchor in data)


def _guards_json(guards: Tuple[Guard, ...]) -> Union[List[List[Any]], int]:
    return guards_json(guards) if guards else 0


def _trailing_guards(guards: Tuple[Guard, ...]) -> List[List[List[Any]]]:
    return [guards_json(guards)] if guards else []



def _args_json(args: CallArgs) -> Union[List[Any], int]:
    return args.to_json() if args.describes_any() else 0


# the prefixes of call targets that name no definition by their spelling alone
MARKED_TARGETS = ("super:", "cls:", "*.")


def relative(target: str, module_name: str) -> str:
    """``target`` as an event spells it: from its module when it is defined there."""
    prefix = f"{module_name}." if module_name else ""
    if prefix and target.startswith(prefix):
        return "." + target[len(prefix):]
    for marker in ("super:", "cls:"):
        if prefix and target.startswith(marker + prefix):
            return marker + "." + target[len(marker) + len(prefix):]
    return target


def absolute(target: str, module_name: str) -> str:
    """The qualified name of an event's ``target`` in the module ``module_name``."""
    for marker in ("super:", "cls:"):
        if target.startswith(marker + "."):
            return marker + (f"{module_name}." if module_name else "") + target[len(marker) + 1:]
    if target.startswith("."):
        return (f"{module_name}." if module_name else "") + target[1:]
    return target

