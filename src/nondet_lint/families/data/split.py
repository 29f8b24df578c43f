"""ND305 (held-out samples chosen by an unseeded or repeated shuffle), ND306 (``tf.data``
``shuffle()`` that reshuffles every epoch before ``take()`` / ``skip()``), ND307 (``tf.data``
order made non-deterministic).

Whether a global RNG is seeded, whether TensorFlow has a global seed, whether op
determinism is on: those are project facts (a seed in ``train.py`` covers a split in
``data.py``), so those candidates are deferred.  The project counts as seeding an RNG when
any of its modules calls a seeding function for it (``rules/seeding.toml``, ND101's
``seeders``): an approximation that errs on the side of silence.  A scikit-learn splitter
is judged in its own module instead (``_SeedScopes``): only a NumPy seed that surely runs
before it there covers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.analysis.seedoption import seed_value
from nondet_lint.analysis.dataflow import ScopeBindings, last_name, statement_of
from nondet_lint.analysis.entrypoints import is_entry_point, is_main_guard
from nondet_lint.analysis.hfdatasets import hf_datasets
from nondet_lint.analysis.moduleview import call_arg, has_double_star, is_none, method_of, spellings
from nondet_lint.analysis.seeds import seed_helpers
from nondet_lint.analysis.switches import ENVIRON_SETTERS, TENSORFLOW, SwitchState
from nondet_lint.check import Check
from nondet_lint.context import FileContext, NodeEdit, PendingFix
from nondet_lint.facts import ModuleFact
from nondet_lint.families.data.context import DataContext
from nondet_lint.fixes.builders import add_keyword_argument, set_keyword_argument
from nondet_lint.types import Finding
from nondet_lint.ruledata import RuleSet

@dataclass(frozen=True)
class DataSeedingFacts(ModuleFact):
    """What pass 1 records about one module for the split and order rules (left out when
    both are empty)."""

    key = "data_seeding"

    seeded: Tuple[str, ...] = ()  # the global RNGs the module seeds somewhere
    tf_determinism: bool = False  # it turns on TensorFlow op determinism

    def to_json(self) -> Dict[str, Any]:
        return {"seeded": list(self.seeded), "tf_determinism": self.tf_determinism}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DataSeedingFacts":
        return cls(tuple(data.get("seeded", ())), bool(data.get("tf_determinism")))

_TRUE = "True"
_FALSE = "False"


def _arg_value(call: cst.Call, spec: Mapping[str, Any]) -> Optional[cst.BaseExpression]:
    found = call_arg(call, spec.get("pos"), spec.get("kw"))
    return found.value if found is not None else None


def _literal_bool(expr: Optional[cst.BaseExpression]) -> Optional[bool]:
    if isinstance(expr, cst.Name) and expr.value in (_TRUE, _FALSE):
        return expr.value == _TRUE
    return None


def _is_zero(expr: Optional[cst.BaseExpression]) -> bool:
    if expr is None or is_none(expr):
        return True
    if isinstance(expr, (cst.Integer, cst.Float)):
        try:
            return float(expr.value) == 0.0
        except ValueError:
            return False
    return False


class SeedingFacts(Check):
    """Records which global RNGs the module seeds anywhere, and whether it turns on
    TensorFlow op determinism (``analysis.switches``, as the kernel rules see it): its
    ``DataSeedingFacts``."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.seeders = {name: seeder.seeds for name, seeder in seed_helpers(ctx.rules).items() if seeder.sets_a_seed}
        scope_bindings = ScopeBindings(ctx.parent)
        self.switches = SwitchState(
            ctx.rules, ctx.qualname, sets_environ=ctx.imports.mentions("os"),
            bound=lambda name: scope_bindings.values(name, ctx.ancestors),
        )
        self.spellings = spellings(ctx, (*self.seeders, *self.switches.calls, *ENVIRON_SETTERS))
        self.seeded: Set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if last_name(func) not in self.spellings:
            return
        name = self.ctx.qualname(func)
        if name in self.seeders:
            value = node.args[0].value if node.args else None
            if value is not None and not is_none(value):
                self.seeded.update(self.seeders[name])
        else:
            self.switches.call(node, name)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.switches.assign(node)

    def finish(self) -> None:
        determinism = self.switches.is_set(TENSORFLOW)
        if self.seeded or determinism:
            self.ctx.facts.put(DataSeedingFacts(tuple(sorted(self.seeded)), determinism))


@dataclass(frozen=True)
class HeldOut:
    """An ND305 candidate: a fixed slice of shuffled data, held out (its deferred payload)."""

    rng: Optional[str]  # the global RNG the shuffle draws from (None: its own)
    repeated: bool  # the shuffle runs again in a training loop
    what: str  # the message's account of the split

    def to_json(self) -> Dict[str, Any]:
        return {"rng": self.rng, "repeated": self.repeated, "what": self.what}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "HeldOut":
        return cls(data["rng"], data["repeated"], data["what"])


@dataclass(frozen=True)
class TfDataOrderCandidate:
    """An ND307 candidate (its deferred payload)."""

    what: str
    advice: str
    global_seed_helps: bool  # a global TF seed makes the order repeat (``list_files``)

    def to_json(self) -> Dict[str, Any]:
        return {"global_seed_helps": self.global_seed_helps, "what": self.what, "advice": self.advice}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "TfDataOrderCandidate":
        return cls(data["what"], data["advice"], data["global_seed_helps"])


def project_seeding(project: Any) -> Tuple[Set[str], bool]:
    """RNGs some module of the project seeds, and whether any turns on op determinism."""
    seeded: Set[str] = set()
    determinism = False
    for fact in project.facts(DataSeedingFacts) if project is not None else ():
        seeded.update(fact.seeded)
        determinism = determinism or fact.tf_determinism
    return seeded, determinism


def _program_closures(project: Any) -> Dict[str, FrozenSet[str]]:
    """Each entry point outside test code with the project modules its program runs: the
    modules it imports, transitively (spec "Program")."""
    closures: Dict[str, FrozenSet[str]] = {}
    for record in project:
        if not is_entry_point(record.facts) or project.is_test_code(record.path):
            continue
        closures[record.path] = frozenset(module.path for module in project.import_closure(record))
    return closures


def programs_running(project: Any, path: str) -> List[FrozenSet[str]]:
    """The modules of each program (outside test code) that runs the module at ``path``;
    empty for library code that no entry point of the project runs."""
    if project is None:
        return []
    closures = project.analysis("data_program_closures", lambda earlier: _program_closures(project))
    return [modules for modules in closures.values() if path in modules]


def _tf_order_fixed(project: Any, path: str, global_seed_helps: bool, memo: Dict[str, bool]) -> bool:
    """Whether the module at ``path`` turns on TensorFlow op determinism or, where a global
    seed helps, sets TensorFlow's global seed."""
    found = memo.get(path)
    if found is None:
        record = project.modules.get(path)
        fact = record.facts.get(DataSeedingFacts) if record is not None else None
        found = memo[path] = fact is not None and (fact.tf_determinism or (global_seed_helps and "tf" in fact.seeded))
    return found


# ---- ND305: scikit-learn splitters -------------------------------------------------------
class _SeedScopes:
    """Where this module seeds NumPy's global RNG on every path, in visiting (textual)
    order: a scikit-learn splitter given no ``random_state`` draws from that RNG, so a seed
    that surely runs before it makes the split repeatable.

    A seed counts where it is a plain statement of the module, of the module's main guard
    or of a function body (possibly inside ``with``), never under ``if`` / ``for`` /
    ``try``: it then covers the code after it in that block, and a module-level seed also
    covers the module's functions and methods, which run only once the module is imported."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.seeds: List[Tuple[int, cst.CSTNode]] = []  # (order, scope node)

    def scope_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The module, main guard or function whose straight-line code runs ``node``
        (None when a branch, loop or handler may skip it)."""
        parent = self.ctx.parent(node)
        while parent is not None:
            if isinstance(parent, (cst.Module, cst.FunctionDef)):
                return parent
            if isinstance(parent, cst.If):
                return parent if is_main_guard(parent.test) and isinstance(self.ctx.parent(parent), cst.Module) else None
            if isinstance(parent, (cst.For, cst.While, cst.Try, cst.TryStar, cst.Lambda, cst.ClassDef,
                                   cst.BooleanOperation, cst.IfExp, cst.Match, cst.BaseComp)):
                return None
            parent = self.ctx.parent(parent)
        return None

    def add(self, order: int, call: cst.Call) -> None:
        scope = self.scope_of(call)
        if scope is not None:
            self.seeds.append((order, scope))

    def covers(self, order: int, call: cst.Call) -> bool:
        enclosing: List[cst.CSTNode] = []
        node: Optional[cst.CSTNode] = call
        while node is not None:
            enclosing.append(node)
            node = self.ctx.parent(node)
        inside_function = any(isinstance(item, (cst.FunctionDef, cst.Lambda)) for item in enclosing)
        for seeded_at, scope in self.seeds:
            if not any(item is scope for item in enclosing):
                continue
            if seeded_at < order or (isinstance(scope, cst.Module) and inside_function):
                return True
        return False


class SplitterSeed(Check):
    """ND305: a scikit-learn splitter that shuffles with no ``random_state`` and no NumPy
    seed in its module surely runs before it (``_SeedScopes``)."""

    codes = ("ND305",)
    decides = ()  # reported at the end of the file; ND305's deferred candidates are ShuffleThenSlice's

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.splitters = {name: table for table in self.data("ND305").get("splitters", ()) for name in table["names"]}
        self.numpy_seeders = {name: seeder for name, seeder in seed_helpers(ctx.rules).items() if seeder.sets_a_seed and "numpy" in seeder.seeds}
        self.spellings = spellings(ctx, (*self.splitters, *self.numpy_seeders))
        self.scopes = _SeedScopes(ctx)
        self.order = 0
        self.unseeded: List[Tuple[int, cst.Call, str]] = []  # (order, call, qualified name)

    def visit_Call(self, node: cst.Call) -> None:
        if last_name(node.func) not in self.spellings:
            return
        self.order += 1
        name = self.ctx.qualname(node.func)
        seeder = self.numpy_seeders.get(name) if name else None
        if seeder is not None:
            value = call_arg(node, seeder.pos, seeder.kw)
            if (value is None and seeder.without_value == "fixed") or (value is not None and not is_none(value.value)):
                self.scopes.add(self.order, node)
            return
        if has_double_star(node):
            return
        table = self.splitters.get(name) if name else None
        if table is None or name is None:
            return
        shuffle_spec = table.get("shuffle")
        if shuffle_spec is not None:
            given = _arg_value(node, shuffle_spec)
            shuffles = shuffle_spec.get("default", False) if given is None else _literal_bool(given)
            if not shuffles:
                return  # no shuffle, or decided at run time
        state_spec = table.get("random_state", {"kw": "random_state"})
        state = _arg_value(node, state_spec)
        if state is not None and not is_none(state):
            return
        self.unseeded.append((self.order, node, name))

    def finish(self) -> None:
        for order, node, name in self.unseeded:
            if self.scopes.covers(order, node):
                continue
            seed = seed_value(self.ctx, node)
            edits = set_keyword_argument(self.ctx, node, "random_state", seed)
            fix = self.ctx.fix("ND305", edits, seed=seed) if edits else None
            short = name.rsplit(".", 1)[-1]
            self.ctx.report(
                node, "ND305", fix=fix,
                what=f"`{short}` shuffles with no `random_state`",
                why="changes every run",
                advice="pass `random_state=` a fixed number",
            )


# ---- ND305: a fixed slice of a shuffle, Keras validation_split after a shuffle --------------
class ShuffleThenSlice(Check):
    """ND305: which samples are held out depends on an unseeded or repeated shuffle."""

    codes = ("ND305",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        data = self.data("ND305")
        self.shuffles = {name: table for table in data.get("shuffles", ()) for name in table["names"]}
        self.methods = frozenset(data.get("flow", {}).get("generator_methods", ()))
        self.hf = data.get("hf_datasets", {})
        self.hf_data = hf_datasets(self.data("ND000"))
        self.spellings = spellings(ctx, self.shuffles, (*self.methods, "sample", *self.hf.get("splits", ())))
        self.candidates: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = last_name(func)
        if last in self.spellings:
            self.candidates.append(node)

    def finish(self) -> None:
        if not self.candidates:
            return
        dctx = DataContext.of(self.ctx)
        data = self.data("ND305")
        for call in self.candidates:
            if self._hf_split(dctx, call):
                continue
            shuffle = self._shuffle(dctx, call, data)
            if shuffle is None:
                continue
            api, rng, seeded, in_place, fix_keyword = shuffle
            sink = self._held_out(dctx, call, in_place, data)
            if sink is None:
                continue
            node, kind = sink
            repeated = self._repeated(dctx, call, node, data)
            if seeded and not repeated:
                continue
            fix = None
            if fix_keyword and not repeated:
                seed = seed_value(self.ctx, call)
                edits = set_keyword_argument(self.ctx, call, fix_keyword, seed)
                fix = self.ctx.fix("ND305", edits, seed=seed) if edits else None
            what = (
                f"`fit(validation_split=...)` holds out the last samples of data shuffled by `{api}`"
                if kind == "fit" else f"this takes a fixed slice of data shuffled by `{api}`"
            )
            self.ctx.defer(node, "ND305", fix=fix, **HeldOut(rng, repeated, what).to_json())

    def _shuffle(self, dctx: DataContext, call: cst.Call,
                 data: Mapping[str, Any]) -> Optional[Tuple[str, Optional[str], bool, Optional[int], Optional[str]]]:
        """(api, global rng or None, seeded here?, index of the argument shuffled in place or
        None, keyword a fix can add) for a shuffle call, else None."""
        name = dctx.qualname(call.func)
        table = self.shuffles.get(name) if name else None
        if table is not None and name is not None:
            seed_spec = table.get("seed")
            seeded = False
            if seed_spec is not None:
                value = _arg_value(call, seed_spec)
                seeded = value is not None and not is_none(value)
            return _short(name), table.get("rng"), seeded, table.get("in_place"), table.get("fix_keyword")
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if func.attr.value == "sample" and _arg_value(call, {"kw": "frac"}) is not None:
            state = _arg_value(call, {"kw": "random_state"})
            return "DataFrame.sample", "numpy", state is not None and not is_none(state), None, "random_state"
        if func.attr.value == "shuffle" and name is None and self._hf_dataset(dctx, func.value):
            return "Dataset.shuffle", "numpy", self._hf_seeded(call), None, "seed"
        if func.attr.value not in self.methods or name is not None:
            return None
        generator = self._generator(dctx, func.value, data)
        if generator is None:
            return None
        api, seeded = generator
        in_place = 0 if func.attr.value == "shuffle" else None
        return f"{api}.{func.attr.value}", None, seeded, in_place, None

    # ---- Hugging Face datasets: shuffle() and train_test_split() seed from NumPy's global
    # state when given no seed or generator (``analysis/hfdatasets.py``)
    def _hf_dataset(self, dctx: DataContext, receiver: cst.BaseExpression) -> bool:
        return self.hf_data.origin(receiver, dctx.qualname, dctx.index, self.ctx.imports) is not None

    def _hf_seeded(self, call: cst.Call) -> bool:
        return self.hf_data.seeded(call)

    def _hf_split(self, dctx: DataContext, call: cst.Call) -> bool:
        """``ds.train_test_split(test_size=0.1)``: shuffles unless ``shuffle=False``."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in self.hf.get("splits", ()) and dctx.qualname(func) is None):
            return False
        if not self._hf_dataset(dctx, func.value):
            return False
        if _literal_bool(_arg_value(call, {"kw": "shuffle"})) is False or self._hf_seeded(call):
            return True
        seed = seed_value(self.ctx, call)
        edits = set_keyword_argument(self.ctx, call, "seed", seed)
        fix = self.ctx.fix("ND305", edits, seed=seed) if edits else None
        what = f"`Dataset.{func.attr.value}` shuffles with no `seed`"
        self.ctx.defer(call, "ND305", fix=fix, **HeldOut("numpy", False, what).to_json())
        return True

    def _generator(self, dctx: DataContext, receiver: cst.BaseExpression,
                   data: Mapping[str, Any]) -> Optional[Tuple[str, bool]]:
        """A generator object made here: (constructor, seeded?); None when unknown."""
        makers = data.get("generators", {})
        value: Optional[cst.BaseExpression] = receiver
        if isinstance(receiver, cst.Name):
            binding = dctx.index(receiver).reaching(receiver)
            value = binding.value if binding is not None and binding.kind == "assign" else None
        if not isinstance(value, cst.Call):
            return None
        name = dctx.qualname(value.func)
        if name is None or name not in makers:
            return None
        seed = _arg_value(value, makers[name])
        return _short(name), seed is not None and not is_none(seed)

    def _held_out(self, dctx: DataContext, call: cst.Call, in_place: Optional[int],
                  data: Mapping[str, Any]) -> Optional[Tuple[cst.CSTNode, str]]:
        """The first fixed slice (or Keras ``validation_split``) of what the shuffle made."""
        follower = _Taint(dctx, data.get("flow", {}))
        sinks: List[Tuple[cst.CSTNode, str, str]] = []
        if in_place is None:
            drawn = self._drawn_subset(call)
            if drawn is not None:
                return drawn, "slice"
            sinks = list(follower.follow(call, 0, set()))
        else:
            shuffled = call_arg(call, in_place, None)
            if shuffled is None or not isinstance(shuffled.value, cst.Name):
                return None
            statement = statement_of(call, self.ctx.parent)
            seen: Set[int] = set()
            for load in dctx.index(call).reads_after(shuffled.value.value, statement):
                sinks.extend(follower.follow(load, 0, seen))
        # a split: Keras validation_split, a splitting call, or both sides of a cut; one
        # slice alone is a random subset (a batch, a few augmentations), not a held-out set
        for wanted in ("fit", "split"):
            for node, kind, _ in sinks:
                if kind == wanted:
                    return node, kind
        slices = [(node, part) for node, kind, part in sinks if kind == "slice"]
        if is_split(part for _, part in slices):
            return slices[0][0], "slice"
        return None

    def _in_loop(self, node: cst.CSTNode) -> bool:
        current = self.ctx.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            if isinstance(current, (cst.For, cst.While)):
                return True
            current = self.ctx.parent(current)
        return False

    def _drawn_subset(self, call: cst.Call) -> Optional[cst.CSTNode]:
        """``val_idx = rng.permutation(n)[:k]`` outside any loop: the permutation is cut
        where it is drawn, and the part kept is a held-out set (in a loop it is a batch)."""
        subscript = self.ctx.parent(call)
        if not (isinstance(subscript, cst.Subscript) and subscript.value is call and len(subscript.slice) == 1):
            return None
        if _part(subscript.slice[0].slice) not in ("head", "tail"):
            return None
        assign = self.ctx.parent(subscript)
        if not (isinstance(assign, (cst.Assign, cst.AnnAssign)) and assign.value is subscript) or self._in_loop(assign):
            return None
        return statement_of(subscript, self.ctx.parent)

    def _repeated(self, dctx: DataContext, call: cst.Call, sink: cst.CSTNode, data: Mapping[str, Any]) -> bool:
        """Shuffle and slice inside one loop that trains: the split changes every epoch."""
        training = frozenset(data.get("flow", {}).get("training_methods", ()))
        loop = self.ctx.parent(call)
        while loop is not None and not isinstance(loop, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            if isinstance(loop, (cst.For, cst.While)):
                index = dctx.index(loop)
                if index.contains(loop, sink):
                    for inner in index.nodes_within(loop.body, (cst.Call,)):
                        if isinstance(inner.func, cst.Attribute) and inner.func.attr.value in training:
                            return True
            loop = self.ctx.parent(loop)
        return False

    @classmethod
    def resolve(cls, project: Any, deferred: List[Any], rules: RuleSet) -> Iterable[Finding]:
        seeded, _ = project_seeding(project)
        rule = rules["ND305"]
        for item in deferred:
            held = HeldOut.from_json(item.payload)
            if not held.repeated and held.rng is not None and held.rng in seeded:
                continue
            why = "changes every epoch, because the shuffle runs again in the training loop" if held.repeated else "changes every run, because the shuffle is not seeded"
            advice = "split once, before the loop" if held.repeated else "seed that shuffle, or split before shuffling"
            message = rule.format_message(what=held.what, why=why, advice=advice)
            yield Finding(item.path, item.line, item.col, "ND305", message, item.end_line, item.end_col, getattr(item, "fix", None))


class _Taint:
    """Follows shuffled data to the places that cut it: yields ``(statement, kind, part)``
    with kind ``slice`` / ``split`` / ``fit`` and part ``head`` (``x[:k]``), ``tail``
    (``x[k:]``) or ``middle`` (``x[a:b]``)."""

    MAX_DEPTH = 8

    def __init__(self, dctx: DataContext, data: Mapping[str, Any]) -> None:
        self.dctx = dctx
        self.parent = dctx.ctx.parent
        self.passthrough_calls = frozenset(data.get("passthrough_calls", ()))
        self.passthrough_methods = frozenset(data.get("passthrough_methods", ()))
        self.split_calls = frozenset(data.get("split_calls", ()))
        self.slice_methods = frozenset(data.get("slice_methods", ()))
        self.split_methods = frozenset(data.get("split_methods", ()))
        self.index_methods = frozenset(data.get("index_methods", ()))
        self.fold_splitters = frozenset(data.get("fold_splitters", ()))
        self.fold_words = frozenset(data.get("fold_words", ()))

    def follow(self, expr: cst.CSTNode, depth: int, seen: Set[int]) -> Iterator[Tuple[cst.CSTNode, str, str]]:
        if depth > self.MAX_DEPTH or id(expr) in seen:
            return
        seen.add(id(expr))
        parent = self.parent(expr)
        if isinstance(parent, cst.Subscript):
            if parent.value is not expr:
                yield from self.follow(parent, depth + 1, seen)  # data[perm]: reordered data
                return
            statement = statement_of(parent, self.parent)
            for element in parent.slice:
                part = _part(element.slice)
                if part == "middle" and self._fold(element.slice, statement):
                    part = "fold"
                if part:
                    yield statement, "slice", part
            return
        if isinstance(parent, (cst.Index, cst.SubscriptElement)):
            yield from self.follow(parent, depth + 1, seen)
        elif isinstance(parent, cst.Attribute) and parent.value is expr:
            holder = self.parent(parent)
            method = parent.attr.value
            if method in ("iloc", "loc") and isinstance(holder, cst.Subscript):
                yield from self.follow(parent, depth + 1, seen)
            elif isinstance(holder, cst.Call) and holder.func is parent:
                if method in self.slice_methods:
                    yield statement_of(holder, self.parent), "slice", "head" if method == "head" else "tail"
                elif method in self.split_methods:
                    yield statement_of(holder, self.parent), "split", "middle"
                elif method in self.index_methods and _range_part(holder):
                    yield statement_of(holder, self.parent), "slice", _range_part(holder)  # type: ignore[misc]
                elif method in self.passthrough_methods:
                    yield from self.follow(holder, depth + 1, seen)
            elif method in self.passthrough_methods:
                yield from self.follow(parent, depth + 1, seen)
        elif isinstance(parent, cst.Arg):
            call = self.parent(parent)
            if not isinstance(call, cst.Call):
                return
            name = self.dctx.qualname(call.func)
            if name in self.split_calls or self._fold_split(call):
                yield statement_of(call, self.parent), "split", "middle"
            elif name in self.passthrough_calls:
                yield from self.follow(call, depth + 1, seen)
            elif self._validation_split(call, parent):
                yield call, "fit", "tail"
        elif isinstance(parent, cst.Element):
            container = self.parent(parent)
            holder = self.parent(container) if isinstance(container, cst.Tuple) else None
            if isinstance(container, cst.Tuple) and isinstance(holder, cst.Assign) and holder.value is container:
                position = list(container.elements).index(parent)
                for assign_target in holder.targets:
                    elements = getattr(assign_target.target, "elements", ())
                    if len(elements) == len(container.elements) and isinstance(elements[position].value, cst.Name):
                        yield from self._names([elements[position].value], holder, depth, seen)
        elif isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is expr:
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            names = []
            for target in targets:
                names += [target] if isinstance(target, cst.Name) else [
                    e.value for e in getattr(target, "elements", ()) if isinstance(e.value, cst.Name)
                ]
            yield from self._names(names, parent, depth, seen)

    def _fold(self, index: cst.BaseSlice, statement: cst.CSTNode) -> bool:
        """``idx[fold * k:(fold + 1) * k]``: both bounds multiply the same name, and a name of
        the bounds or of the statement's targets says it is a fold or a validation part."""
        if not (isinstance(index, cst.Slice) and index.lower is not None and index.upper is not None):
            return False
        lower = _multiplied_names(index.lower)
        if not lower or not lower & _names_in(index.upper):
            return False
        names = _names_in(index.lower) | _names_in(index.upper)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    for target in targets:
                        names |= _names_in(target)
        return any(word in self.fold_words for name in names for word in name.lower().split("_"))

    def _fold_split(self, call: cst.Call) -> bool:
        """``StratifiedKFold(5).split(x, y)``: folds in the order of the data given."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "split"):
            return False
        maker: Optional[cst.BaseExpression] = func.value
        if isinstance(maker, cst.Name):
            maker = self.dctx.index(maker).single_value(maker.value)
        return isinstance(maker, cst.Call) and self.dctx.qualname(maker.func) in self.fold_splitters

    def _names(self, names: List[cst.Name], statement: cst.CSTNode, depth: int, seen: Set[int]) -> Iterator[Tuple[cst.CSTNode, str, str]]:
        index = self.dctx.index(statement)
        for name in names:
            for load in index.reads_after(name.value, statement):
                yield from self.follow(load, depth + 1, seen)

    def _validation_split(self, call: cst.Call, arg: cst.Arg) -> bool:
        """``model.fit(x, y, validation_split=0.1)`` with ``arg`` as the data."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "fit"):
            return False
        split = _arg_value(call, {"kw": "validation_split"})
        if split is None or _is_zero(split):
            return False
        is_x = (arg.keyword is not None and arg.keyword.value == "x") or (arg.keyword is None and call.args and call.args[0] is arg)
        return bool(is_x)


def _names_in(node: cst.CSTNode) -> Set[str]:
    """The plain names an expression reads (``(fold + 1) * k`` -> fold, k)."""
    found: Set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

        def visit_Attribute(self, attribute: cst.Attribute) -> Optional[bool]:
            found.add(attribute.attr.value)  # ``self.fold``, ``args.val_size``
            attribute.value.visit(self)
            return False

    node.visit(_Names())
    return found


def _multiplied_names(node: cst.BaseExpression) -> Set[str]:
    """The names a product multiplies: ``fold * k`` -> fold, k; else nothing."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return _names_in(node)
    return set()


def _range_part(call: cst.Call) -> Optional[str]:
    """``ds.select(range(k))`` is a head, ``range(k, n)`` a tail or middle part."""
    if not call.args:
        return None
    inner = call.args[0].value
    if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "range" and inner.args):
        return None
    if len(inner.args) == 1:
        return "head"
    upper = inner.args[1].value
    return "tail" if isinstance(upper, cst.Call) and isinstance(upper.func, cst.Name) and upper.func.value == "len" else "middle"


def _part(index: cst.BaseSlice) -> Optional[str]:
    if not isinstance(index, cst.Slice) or (index.lower is None and index.upper is None):
        return None
    if index.lower is None:
        return "head"
    return "tail" if index.upper is None else "middle"


def is_split(parts: Iterable[str]) -> bool:
    """Both sides of a cut are taken (``x[:k]`` and ``x[k:]``, or a middle and an end)."""
    found = set(parts)
    if "fold" in found:
        return True  # one fold held out, the rest for training
    return {"head", "tail"} <= found or ("middle" in found and bool(found & {"head", "tail", "middle"}) and len(found) > 1)


def _short(name: str) -> str:
    return name.replace("numpy.", "np.").replace("tensorflow.", "tf.")


# ---- ND306 / ND307: tf.data -----------------------------------------------------------------
class TfData:
    """Is an expression a ``tf.data`` dataset?  Followed through method chains and names."""

    MAX_DEPTH = 12

    def __init__(self, dctx: DataContext, data: Mapping[str, Any]) -> None:
        self.dctx = dctx
        self.producers = frozenset(data.get("producers", ()))
        self.methods = frozenset(data.get("methods", ()))
        imports = dctx.ctx.imports
        # a parameter or attribute of unknown type: a module that uses TensorFlow and not
        # Hugging Face datasets (whose datasets also have shuffle/take) means tf.data
        self.tf_module = imports.mentions(*data.get("tf_modules", ())) and not imports.mentions(*data.get("other_dataset_modules", ()))

    def chain(self, expr: cst.BaseExpression) -> Iterable[cst.BaseExpression]:
        """``expr`` and what it was built from: receivers of dataset methods, the value a
        name was last bound to before this point."""
        current: Optional[cst.BaseExpression] = expr
        for _ in range(self.MAX_DEPTH):
            if current is None:
                return
            yield current
            if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute) and current.func.attr.value in self.methods:
                current = current.func.value
            elif isinstance(current, cst.Name):
                binding = self.dctx.index(current).reaching(current)
                current = binding.value if binding is not None and binding.kind in ("assign", "walrus") else None
            else:
                return

    def is_dataset(self, expr: cst.BaseExpression) -> bool:
        last = None
        for last in self.chain(expr):
            pass
        if isinstance(last, cst.Call) and self.dctx.qualname(last.func) in self.producers:
            return True
        return self.tf_module

    def shuffle_before(self, expr: cst.BaseExpression) -> Optional[cst.Call]:
        """The nearest ``.shuffle(...)`` in the chain that built ``expr``."""
        for node in self.chain(expr):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "shuffle":
                return node
        return None


class TfDataSplit(Check):
    """ND306: ``shuffle()`` left reshuffling each epoch before ``take()`` / ``skip()``
    (and ND305 when it does not reshuffle but has no seed)."""

    codes = ("ND306", "ND305")
    decides = ("ND306",)  # its ND305 candidates are decided by ShuffleThenSlice

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.splits: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("take", "skip"):
            self.splits.append(node)

    def finish(self) -> None:
        if not self.splits:
            return
        dctx = DataContext.of(self.ctx)
        tf = TfData(dctx, self.data("ND306"))
        found: Dict[int, Tuple[cst.Call, List[cst.Call]]] = {}
        for split in self.splits:
            receiver = method_of(split).value
            shuffle = tf.shuffle_before(receiver)
            if shuffle is None or has_double_star(shuffle) or not tf.is_dataset(receiver):
                continue
            found.setdefault(id(shuffle), (shuffle, []))[1].append(split)
        for shuffle, splits in found.values():
            kinds = {method_of(s).attr.value for s in splits}
            if len(kinds) < 2 and not any(self._validates(dctx, s) for s in splits):
                continue  # a subset (``ds.take(n)``, a look at one batch), not a held-out set
            reshuffle = _arg_value(shuffle, {"pos": 2, "kw": "reshuffle_each_iteration"})
            flag = _literal_bool(reshuffle) if reshuffle is not None else True
            seed = _arg_value(shuffle, {"pos": 1, "kw": "seed"})
            if flag is True:
                self._report_reshuffle(shuffle, seed, sorted(kinds, reverse=True))
            elif flag is False and (seed is None or is_none(seed)):
                first = splits[0]
                what = f"this `{method_of(first).attr.value}()` takes a fixed part of a `tf.data` shuffle with no `seed`"
                self.ctx.defer(
                    statement_of(first, self.ctx.parent), "ND305", fix=self._seed_fix(shuffle, "ND305"),
                    **HeldOut("tf", False, what).to_json(),
                )

    def _validates(self, dctx: DataContext, split: cst.Call) -> bool:
        """What ``take()`` / ``skip()`` cut goes to validation: ``validation_data=`` of
        ``fit``, or ``evaluate`` (through names and further dataset methods)."""
        methods = frozenset(self.data("ND306").get("methods", ()))
        for call in dctx.flow.reached_calls(split, methods=methods):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "evaluate":
                return True
            if any(arg.keyword is not None and arg.keyword.value == "validation_data" and self._reaches(dctx, split, arg.value) for arg in call.args):
                return True
        return False

    def _reaches(self, dctx: DataContext, split: cst.Call, value: cst.BaseExpression) -> bool:
        tf = TfData(dctx, self.data("ND306"))
        return any(node is split for node in tf.chain(value))

    def _report_reshuffle(self, shuffle: cst.Call, seed: Optional[cst.BaseExpression], kinds: List[str]) -> None:
        edits = set_keyword_argument(self.ctx, shuffle, "reshuffle_each_iteration", _FALSE)
        if seed is None:
            edits += add_keyword_argument(self.ctx, shuffle, "seed", str(self.ctx.config.seed))
        elif is_none(seed):
            edits += set_keyword_argument(self.ctx, shuffle, "seed", str(self.ctx.config.seed))
        fix = self.ctx.fix("ND306", edits, seed=self.ctx.config.seed) if edits else None
        # at the method name: in a chain over several lines that is the shuffle's line
        self.ctx.report(method_of(shuffle).attr, "ND306", fix=fix, split=" / ".join(f"{k}()" for k in kinds))

    def _seed_fix(self, shuffle: cst.Call, code: str) -> Optional[PendingFix]:
        seed = str(self.ctx.config.seed)
        edits = set_keyword_argument(self.ctx, shuffle, "seed", seed)
        return self.ctx.fix(code, edits, seed=seed) if edits else None


class TfDataOrder(Check):
    """ND307: ``list_files`` with its default shuffle and no seed; ``deterministic=False``."""

    codes = ("ND307",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        data = self.data("ND307")
        self.list_files = frozenset(data.get("list_files", ()))
        self.parallel = frozenset(data.get("parallel_methods", ()))
        self.sloppy = frozenset(data.get("sloppy_calls", ()))
        self.options = frozenset(data.get("options", ()))
        self.option_fields = frozenset(data.get("option_fields", ()))
        self.training_flags = frozenset(data.get("training_flags", ()))
        self.methods: List[cst.Call] = []
        self.assignments: List[cst.Assign] = []
        self.spellings = spellings(ctx, (*self.list_files, *self.sloppy), self.parallel)

    def visit_Call(self, node: cst.Call) -> None:
        if last_name(node.func) not in self.spellings or has_double_star(node):
            return
        name = self.ctx.qualname(node.func)
        if name in self.list_files:
            shuffle = _arg_value(node, {"pos": 1, "kw": "shuffle"})
            seed = _arg_value(node, {"pos": 2, "kw": "seed"})
            trains = self._training_flag(shuffle) if shuffle is not None else None
            if (shuffle is None or _literal_bool(shuffle) is True or trains is not None) and (seed is None or is_none(seed)):
                edits = set_keyword_argument(self.ctx, node, "seed", str(self.ctx.config.seed))
                fix = self.ctx.fix("ND307", edits, seed=self.ctx.config.seed) if edits else None
                how = "its default `shuffle`" if shuffle is None else f"`shuffle={trains}` in training" if trains is not None else "`shuffle=True`"
                self.ctx.defer(node, "ND307", fix=fix,
                               **TfDataOrderCandidate(f"`Dataset.list_files` returns the files in a new random order every run ({how}, no `seed=`)",
                                                     "pass `seed=` (or `shuffle=False` and shuffle with a seed later)", global_seed_helps=True).to_json())
        elif name in self.sloppy:
            flag = _arg_value(node, {"kw": "sloppy"})
            if _literal_bool(flag) is True:
                fix = self.ctx.fix("ND307", set_keyword_argument(self.ctx, node, "sloppy", _FALSE), seed=self.ctx.config.seed)
                self.ctx.defer(node, "ND307", fix=fix,
                               **TfDataOrderCandidate("`parallel_interleave(sloppy=True)` yields elements as they finish",
                                                     "use `sloppy=False`", global_seed_helps=False).to_json())
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in self.parallel:
            if _literal_bool(_arg_value(node, {"kw": "deterministic"})) is False:
                self.methods.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if (_literal_bool(node.value) is False or self._off_in_training(node.value) is not None) and any(
            isinstance(t.target, cst.Attribute) and t.target.attr.value in self.option_fields for t in node.targets
        ):
            self.assignments.append(node)

    def finish(self) -> None:
        if not (self.methods or self.assignments):
            return
        dctx = DataContext.of(self.ctx)
        tf = TfData(dctx, self.ctx.rules["ND306"].data if "ND306" in self.ctx.rules else {})
        for call in self.methods:
            func = method_of(call)
            if not tf.is_dataset(func.value):
                continue
            method = func.attr.value
            fix = self.ctx.fix("ND307", set_keyword_argument(self.ctx, call, "deterministic", _TRUE), seed=self.ctx.config.seed)
            self.ctx.defer(func.attr, "ND307", fix=fix,
                           **TfDataOrderCandidate(f"`{method}(deterministic=False)` yields elements in the order they finish",
                                                 "leave `deterministic` at its default", global_seed_helps=False).to_json())
        for assign in self.assignments:
            for target in assign.targets:
                attribute = target.target
                if isinstance(attribute, cst.Attribute) and self._is_options(dctx, attribute.value):
                    fix = self.ctx.fix("ND307", [NodeEdit(assign.value, _TRUE)], seed=self.ctx.config.seed)
                    flag = self._off_in_training(assign.value)
                    value = f"not {flag}` turns it off in training and" if flag is not None else "False`"
                    self.ctx.defer(assign, "ND307", fix=fix,
                                   **TfDataOrderCandidate(f"`options.{attribute.attr.value} = {value} lets every parallel `tf.data` step yield elements in the order they finish",
                                                         "set it to True", global_seed_helps=False).to_json())

    def _training_flag(self, value: cst.BaseExpression) -> Optional[str]:
        """``shuffle=is_training`` (``self.training``): a value that is True whenever the
        program trains, named by ``[ND307.data] training_flags``; the flag as written."""
        name = value.value if isinstance(value, cst.Name) else value.attr.value if isinstance(value, cst.Attribute) else None
        return self.ctx.code_for(value) if name is not None and name.lstrip("_") in self.training_flags else None

    def _off_in_training(self, value: cst.BaseExpression) -> Optional[str]:
        """``not is_training`` (or ``not self.training``): a value that is False whenever the
        program trains, named by ``[ND307.data] training_flags``; the flag as written."""
        if not (isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not)):
            return None
        flag = value.expression
        name = flag.value if isinstance(flag, cst.Name) else flag.attr.value if isinstance(flag, cst.Attribute) else None
        return self.ctx.code_for(flag) if name is not None and name.lstrip("_") in self.training_flags else None

    def _is_options(self, dctx: DataContext, expr: cst.BaseExpression) -> bool:
        value: Optional[cst.BaseExpression] = expr
        if isinstance(expr, cst.Name):
            binding = dctx.index(expr).reaching(expr)
            value = binding.value if binding is not None else None
        return isinstance(value, cst.Call) and dctx.qualname(value.func) in self.options

    @classmethod
    def resolve(cls, project: Any, deferred: List[Any], rules: RuleSet) -> Iterable[Finding]:
        """Op determinism (and, for ``list_files``, a global seed) counts for the programs
        that turn it on (spec "Program": a test's or another program's switch does not run
        in this one); a module no entry point runs is library code, whose callers may turn
        it on: there any module of the project counts."""
        seeded, determinism = project_seeding(project)
        rule = rules["ND307"]
        memos: Dict[bool, Dict[str, bool]] = {False: {}, True: {}}
        for item in deferred:
            candidate = TfDataOrderCandidate.from_json(item.payload)
            helps = candidate.global_seed_helps
            programs = programs_running(project, item.path)
            if programs:
                if all(any(_tf_order_fixed(project, module, helps, memos[helps]) for module in modules) for modules in programs):
                    continue  # every program that runs it fixes the order
            elif determinism or (helps and "tf" in seeded):
                continue
            message = rule.format_message(what=candidate.what, advice=candidate.advice)
            yield Finding(item.path, item.line, item.col, "ND307", message, item.end_line, item.end_col, getattr(item, "fix", None))

