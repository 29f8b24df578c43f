"""Call-site candidates of the seeding rules, found in pass 1 and decided in pass 2.

ND103 (an unseeded NumPy generator, also one given a name bound only to ``None``) is
decided here and reported at once.  ND108 (a
scikit-learn call that is random with the arguments written), ND109 (a shuffling
``DataLoader``) and ND110 (``random_split`` and the random samplers) become uses of the
RNG they fall back on, with their fix attached, and are reported in pass 2 when that RNG
is not seeded before them.  Command-line option declarations are read here too: their
defaults decide guards (ND106) and carry values that vary per run (ND107).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import libcst as cst

from nondet_lint.analysis.dataflow import ScopeIndex
from nondet_lint.analysis.datasize import DataSizes, Shape
from nondet_lint.analysis.defaultrun import DefaultRun
from nondet_lint.analysis.seedoption import seed_value
from nondet_lint.analysis.texttypes import scope_index_factory
from nondet_lint.callargs import UNKNOWN, find_arg, has_star_args, literal_value
from nondet_lint.context import FileContext, PendingFix
from nondet_lint.families.seeding.conditions import Truthy, ValueSource, any_holds, plain
from nondet_lint.families.seeding.events import EventKind, Guard, SeedingEvent
from nondet_lint.families.seeding.expected import ExpectedRaises
from nondet_lint.families.seeding.fitted import ANY_VERSION, FittedOn, SizeJudge
from nondet_lint.families.seeding.facts import OptionFacts
from nondet_lint.families.seeding.members import MemberTemplates
from nondet_lint.families.seeding.payloads import LoaderCall, LoaderFactoryCall, RandomStateCall, SamplerCall
from nondet_lint.families.seeding.setlater import SetLater
from nondet_lint.families.seeding.state import Candidates, WalkPosition
from nondet_lint.families.seeding.tables import Tables, short_name
from nondet_lint.families.seeding.values import ValueFlow
from nondet_lint.fixes.builders import insert_after_imports, name_for, replace_expression, set_keyword_argument, top_level
from nondet_lint.walk import children

NAMESPACE = "<namespace>"  # the type of a variable holding parsed command-line options


def _global_names(function: cst.FunctionDef) -> List[str]:
    """Names a function declares ``global``."""
    found: List[str] = []
    stack: List[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Global):
            found.extend(item.name.value for item in node.names)
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef)) or node is function:
            stack.extend(children(node))
    return found


class CallSites:
    """The calls the seeding tables name (constructors, scikit-learn, loaders, samplers,
    command-line options), for one module; owns the options (``opts``) it declares."""

    def __init__(self, ctx: FileContext, tables: Tables, walk: WalkPosition, candidates: Candidates, flow: ValueFlow) -> None:
        self.ctx = ctx
        self.t = tables
        self.walk = walk
        self.candidates = candidates
        self.flow = flow
        self.opts: Dict[str, OptionFacts] = {}
        self.default_run = DefaultRun(ctx.module, ctx.qualname)
        # ND108 candidates and their APIs, judged again at the end (member templates, data sizes)
        self.sklearn_cids: List[Tuple[int, str]] = []

    def constructor(self, node: cst.Call, q: str, pos: Optional[int], kw: Optional[str]) -> None:
        value = find_arg(node, kw, pos)
        if has_star_args(node):
            return
        if value is not None and literal_value(value, self.ctx.qualname) is not None and not self.holds_none(value):
            return
        seed = seed_value(self.ctx, node)
        if value is not None:
            edits = [replace_expression(self.ctx, value, seed)]
        elif not node.args:
            edits = [replace_expression(self.ctx, node, node.with_changes(args=[cst.Arg(cst.parse_expression(seed))]))]
        else:
            edits = set_keyword_argument(self.ctx, node, kw, seed) if kw else []
        fix = self.ctx.fix("ND103", edits, seed=seed) if edits else None
        self.ctx.report(node, "ND103", fix=fix, name=short_name(q), held="")

    def streaming_shuffle(self, node: cst.Call) -> None:
        """``ds.shuffle()`` of a streaming Hugging Face dataset given no ``seed`` and no
        ``generator``: it makes an unseeded NumPy generator itself (``streaming_generator``
        of ``[ND000.data.hf_datasets]``), which no seed call reaches."""
        seed = seed_value(self.ctx, node)
        fix = self.ctx.fix("ND103", set_keyword_argument(self.ctx, node, "seed", seed), seed=seed)
        held = " by a streaming dataset's `.shuffle()` given no `seed=` or `generator=`"
        self.ctx.report(node, "ND103", fix=fix, name=short_name(self.t.hf_datasets.streaming_generator), held=held)

    def holds_none(self, value: cst.BaseExpression) -> bool:
        """A name bound exactly once, in its function or as a module constant, to ``None``
        (``seed = None``; ``SEED = None`` at the top): the constructor gets no seed."""
        if not isinstance(value, cst.Name):
            return False
        index_for = self.ctx.shared.setdefault("seeding_scope_index", scope_index_factory(self.ctx.parent))
        index = index_for(value)
        if not index.bindings_of(value.value):
            if any(value.value in _global_names(n) for n in self.ctx.module.body if isinstance(n, cst.FunctionDef)):
                return False  # a function rebinds the module name (``global SEED``)
            index = index_for(self.ctx.module)
        bound = index.single_value(value.value)
        return isinstance(bound, cst.Name) and bound.value == "None"

    def spread_keywords(self, node: cst.Call) -> Optional[cst.Call]:
        """``node`` with each ``**params`` whose keywords are known written out as keywords:
        ``params`` bound once, in its function or at the top of the module, to a dict
        display with string keys or to ``dict(k=v, ...)``, and read nowhere but in
        ``**params`` (nothing adds a key).  ``None`` when some ``*`` or ``**`` argument is
        not known: its keywords could be anything.  The result is not in the tree: read
        arguments from it, report and fix at ``node``."""
        if not has_star_args(node):
            return node
        args: List[cst.Arg] = []
        for arg in node.args:
            if not arg.star:
                args.append(arg)
                continue
            known = self._known_keywords(arg) if arg.star == "**" else None
            if known is None:
                return None
            args.extend(cst.Arg(value=value, keyword=cst.Name(key)) for key, value in known)
        return node.with_changes(args=args)

    def _known_keywords(self, arg: cst.Arg) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
        name = arg.value
        if isinstance(name, cst.Dict):
            return self._dict_keywords(name)
        if not isinstance(name, cst.Name):
            return None
        index_for = self.ctx.shared.setdefault("seeding_scope_index", scope_index_factory(self.ctx.parent))
        index = index_for(name)
        if not index.bindings_of(name.value):
            index = index_for(self.ctx.module)
        bound = index.single_value(name.value)
        if bound is None or not self._only_spread_in_module(name.value, bound):
            return None
        if isinstance(bound, cst.Dict):
            return self._dict_keywords(bound)
        if isinstance(bound, cst.Call) and isinstance(bound.func, cst.Name) and self.ctx.qualname(bound.func) == "builtins.dict":
            if any(a.keyword is None for a in bound.args):
                return None  # ``dict(other, k=v)``, ``dict(**other)``
            return [(a.keyword.value, a.value) for a in bound.args if a.keyword is not None]
        return None

    def _dict_keywords(self, display: cst.Dict) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
        keywords: List[Tuple[str, cst.BaseExpression]] = []
        for element in display.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(element.key, cst.SimpleString):
                return None
            key = literal_value(element.key, self.ctx.qualname)
            if not isinstance(key, str) or not key.isidentifier():
                return None
            keywords.append((key, element.value))
        return keywords

    def _only_spread_in_module(self, name: str, bound: cst.BaseExpression) -> bool:
        """Every ``name`` in the module, in any scope, is the one binding of ``bound`` or a
        ``**name`` argument: no function adds a key (``params["random_state"] = 0``).
        Parents are tracked here: the walk has not reached the rest of the module yet."""
        stack: List[Tuple[cst.CSTNode, Optional[cst.CSTNode], Optional[cst.CSTNode]]] = [(self.ctx.module, None, None)]
        while stack:
            node, holder, statement = stack.pop()
            if isinstance(node, cst.Name) and node.value == name:
                spread = isinstance(holder, cst.Arg) and holder.star == "**"
                binding = isinstance(holder, (cst.AssignTarget, cst.AnnAssign)) and getattr(statement, "value", None) is bound
                if not spread and not binding:
                    return False
            if isinstance(node, (cst.Assign, cst.AnnAssign)):
                statement = node
            stack.extend((kid, node, statement) for kid in children(node))
        return True

    def sklearn(self, node: cst.Call, q: str, api: Mapping[str, Any], root: Optional[str]) -> None:
        call = self.spread_keywords(node)  # ``SGDClassifier(**params)`` with params a dict literal
        if call is None:
            return
        state = find_arg(call, "random_state", None)
        literal = literal_value(state, self.ctx.qualname)
        if state is not None and literal is not None:
            return
        if state is None:
            default = api.get("random_state_default", "None")
            if default != "None":
                return
        if api.get("unless") and any_holds(call, api["unless"], api.get("defaults", {}), self.ctx.qualname) is True:
            return
        if self.t.sklearn_ensembles.intersection(self.walk.class_bases()):
            return  # an ensemble's template: each member's random_state is set by the ensemble
        random = True
        if api.get("when"):
            random = any_holds(call, api["when"], api.get("defaults", {}), self.ctx.qualname) is True
        if not random:
            return
        seed = seed_value(self.ctx, node)
        # ``random_state=None`` written in a spread dict: adding the keyword too would raise
        spread_state = state is not None and find_arg(node, "random_state", None) is None
        edits = [] if spread_state else set_keyword_argument(self.ctx, node, "random_state", seed)
        fix = self.ctx.fix("ND108", edits, seed=seed) if edits else None
        why = api.get("why")
        values = RandomStateCall(short_name(q), f"({why})" if why else "with these arguments", "None" if state is not None else "omitted")
        cid = self.candidates.add(node, "ND108", values, fix)
        self.sklearn_cids.append((cid, q))
        self.walk.scope.add(SeedingEvent(EventKind.USE, rng="numpy", cid=cid, guards=tuple(self.walk.guards())), root)

    def drop_unused_results(self) -> None:
        """At the end of the module (every parent known): an ND108 call whose value only
        becomes the member template of an ensemble that seeds its members, only feeds
        code a test expects to raise, or gets its ``random_state`` from a ``set_params``
        before any other use, is no finding."""
        if not self.sklearn_cids:
            return
        index_for = self.ctx.shared.setdefault("seeding_scope_index", scope_index_factory(self.ctx.parent))
        templates = MemberTemplates(self.t.sklearn_members, self.t.reports_unseeded, self.ctx.qualname, self.ctx.parent, index_for)
        expected = ExpectedRaises(self.t.expected_raises, self.t.expected_raises_methods, self.ctx.qualname, self.ctx.parent, index_for)
        sizes = DataSizes(self.t.sizes, self.ctx.qualname, self.ctx.parent, index_for, self.ctx.module) if self.t.sizes else None
        later = SetLater(self.ctx.qualname, self.ctx.parent, index_for)
        for cid, q in self.sklearn_cids:
            item = self.candidates.items[cid]
            node = item.node
            if not isinstance(node, cst.Call):
                continue
            if (self.t.sklearn_members.ensembles and templates.seeded_by_ensemble(node)) or expected.only_feeds_raising_code(node) \
                    or later.seeded_later(node):
                self.candidates.drop(cid)
                continue
            if sizes is None or self.t.fits is None or not isinstance(item.values, RandomStateCall):
                continue
            quiet = self._quiet_by_size(node, q, sizes, index_for)
            if quiet is None:
                continue
            if all(ANY_VERSION in fit for fit in quiet):
                self.candidates.drop(cid)
            else:
                item.values = replace(item.values, quiet=quiet)

    def _quiet_by_size(self, node: cst.Call, q: str, sizes: DataSizes,
                       index_for: Callable[[cst.CSTNode], ScopeIndex]) -> Optional[Tuple[Tuple[str, ...], ...]]:
        """Per fit of the call's value, the versions in which it draws nothing on data of
        that size; () when nothing fits an estimator (it never draws); None when some fit
        may draw in every version or the fits are not all known."""
        alternatives = self.t.sklearn_no_draw.get(q, ())
        data_arg = self.t.sklearn_data_arg.get(q)
        judge = SizeJudge(sizes, self.ctx.qualname)
        defaults = self.t.sklearn[q].get("defaults", {})
        arguments = self.spread_keywords(node)  # the keywords a ``**params`` spreads count
        if arguments is None:
            return None
        if data_arg is not None:  # a function given its data: ``quantile_transform(X)``
            shapes: Optional[List[Optional[Shape]]] = [sizes.shape_of(find_arg(arguments, data_arg[0], data_arg[1]))]
        elif q.rsplit(".", 1)[-1][:1].isupper():  # a class, an estimator: it draws when fitted (its __init__ only stores)
            assert self.t.fits is not None
            shapes = FittedOn(self.t.fits, sizes, self.ctx.qualname, self.ctx.parent, index_for).shapes(node)
        else:
            return None
        if shapes is None or (shapes and not alternatives):
            return None
        out = []
        for shape in shapes:
            versions = judge.quiet_versions(arguments, alternatives, defaults, shape)
            if not versions:
                return None
            out.append(versions)
        return tuple(out)

    def _generator_fix(self, code: str, node: cst.Call) -> Optional[PendingFix]:
        if has_star_args(node):
            return None
        seed = seed_value(self.ctx, node)
        spelled = name_for(self.ctx.module, "torch.Generator", top=top_level(self.ctx))
        if spelled is None:
            return None
        name, import_code = spelled
        edits: List[Any] = set_keyword_argument(self.ctx, node, "generator", f"{name}().manual_seed({seed})")
        if import_code:
            edits = [*insert_after_imports(self.ctx.module, "", [import_code], top_level(self.ctx)), *edits]
        return self.ctx.fix(code, edits, seed=seed) if edits else None

    def loader(self, node: cst.Call, root: Optional[str]) -> None:
        args = self.t.loader_args
        spec = args.get("shuffle", {})
        given = find_arg(node, spec.get("kw"), spec.get("pos"))
        shuffle = literal_value(given, self.ctx.qualname)
        if shuffle is UNKNOWN and given is not None:
            shuffle = self.default_run.truth(given, self.ctx.ancestors)  # ``shuffle=(sampler is None)``
        generator = find_arg(node, args.get("generator", {}).get("kw"), args.get("generator", {}).get("pos"))
        if generator is not None and literal_value(generator, self.ctx.qualname) is not None:
            return
        workers = self._workers(node)
        passed = self._shuffle_parameter(given) if shuffle is not True and shuffle is not False else None
        if shuffle is True or passed is not None:
            # ``shuffle=train`` with ``train`` a parameter: it shuffles in the calls that pass
            # a true value (``self._loader(train=True)``), not in those that pass False
            guards = (*self.walk.guards(), *((passed,) if passed is not None else ()))
            cid = self.candidates.add(node, "ND109", LoaderCall(workers), self._generator_fix("ND109", node))
            self.walk.scope.add(SeedingEvent(EventKind.USE, rng="torch", cid=cid, guards=guards), root)
        elif workers:
            cid = self.candidates.add(node, "ND109", LoaderCall(workers, only_workers=True))
            self.walk.scope.add(SeedingEvent(EventKind.WORKERS, cid=cid, guards=tuple(self.walk.guards())), root)

    def _shuffle_parameter(self, given: Optional[cst.BaseExpression]) -> Optional[Guard]:
        """``shuffle=train``, ``train`` a parameter of the function the loader is made in: the
        guard that it is true (pass 2 values it with each call's argument), else None."""
        if not isinstance(given, cst.Name):
            return None
        desc = self.walk.describe(given)
        if desc is None or desc.source is not ValueSource.PARAMETER:
            return None
        return Guard(Truthy(desc), self.candidates.anchor(given))

    def loader_factory(self, node: cst.Call, q: str, entry: Mapping[str, Any], root: Optional[str]) -> None:
        """A function that builds a ``DataLoader`` and takes no generator: it shuffles with
        the global torch RNG when its ``shuffles_when`` argument is true in the default run
        (``create_loader(ds, is_training=True)``), unless its ``unless`` argument is (a
        distributed sampler, seeded by its own default).  An ``unless`` whose value the
        default run does not tell is taken as off: the default run is one process."""
        if has_star_args(node):
            return
        when = entry["shuffles_when"]
        if self._default_truth(find_arg(node, when.get("kw"), when.get("pos"))) is not True:
            return
        unless = entry.get("unless")
        if unless is not None and self._default_truth(find_arg(node, unless.get("kw"), unless.get("pos"))) is True:
            return
        cid = self.candidates.add(node, "ND109", LoaderFactoryCall(short_name(q), when.get("kw", "")))
        self.walk.scope.add(SeedingEvent(EventKind.USE, rng="torch", cid=cid, guards=tuple(self.walk.guards())), root)

    def _default_truth(self, given: Optional[cst.BaseExpression]) -> Optional[bool]:
        """An argument's truth in the default run: False when not given, None when unknown."""
        if given is None:
            return False
        value = literal_value(given, self.ctx.qualname)
        if value is UNKNOWN:
            return self.default_run.truth(given, self.ctx.ancestors)
        return bool(value)

    def _workers(self, node: cst.Call) -> Optional[str]:
        """The dataset class of a loader with worker processes and no worker_init_fn."""
        args = self.t.loader_args
        spec = args.get("num_workers", {})
        workers = find_arg(node, spec.get("kw"), spec.get("pos"))
        value = literal_value(workers, self.ctx.qualname)
        if workers is None or value == 0 or value is None:
            return None
        spec = args.get("worker_init_fn", {})
        init = find_arg(node, spec.get("kw"), spec.get("pos"))
        if init is not None and literal_value(init, self.ctx.qualname) is not None:
            return None
        dataset = find_arg(node, "dataset", 0)
        if isinstance(dataset, cst.Call):
            return self.walk.target(dataset.func)[0]
        if isinstance(dataset, cst.Name):
            typed = self.walk.lookup("types", dataset.value)
            return typed if typed and typed != NAMESPACE else None
        return None

    def sampler(self, node: cst.Call, q: str, pos: int, root: Optional[str]) -> None:
        generator = find_arg(node, self.t.generator_keyword, pos if pos >= 0 else None)
        if generator is not None and literal_value(generator, self.ctx.qualname) is not None:
            return
        cid = self.candidates.add(node, "ND110", SamplerCall(short_name(q)), self._generator_fix("ND110", node))
        self.walk.scope.add(SeedingEvent(EventKind.USE, rng="torch", cid=cid, guards=tuple(self.walk.guards())), root)

    # ---- command-line options -------------------------------------------------------
    def option(self, node: cst.Call) -> None:
        flags = []
        for arg in node.args:
            if arg.keyword is None and isinstance(arg.value, cst.SimpleString):
                value = arg.value.evaluated_value
                if isinstance(value, str):
                    flags.append(value)
        dest_node = find_arg(node, "dest", None)
        dest = literal_value(dest_node, self.ctx.qualname) if dest_node is not None else None
        if not isinstance(dest, str):
            longs = [f for f in flags if f.startswith("--")]
            chosen = longs[0] if longs else (flags[0] if flags else "")
            dest = chosen.lstrip("-").replace("-", "_")
        if not dest or not dest.isidentifier():
            return
        default = find_arg(node, "default", None)
        if default is None:
            action = literal_value(find_arg(node, "action", None), self.ctx.qualname)
            flag = literal_value(find_arg(node, "is_flag", None), self.ctx.qualname)
            implied = {"store_true": False, "store_false": True}.get(action, False if flag is True else None)
            required = literal_value(find_arg(node, "required", None), self.ctx.qualname)
            self.declare(dest, None, UNKNOWN if required is True else implied, node)
        else:
            self.declare(dest, default, None, node)

    def flag(self, node: cst.Call) -> None:
        """An absl flag: ``DEFINE_integer("seed", None, ...)`` (or ``name=`` / ``default=``)."""
        name = literal_value(find_arg(node, "name", 0), self.ctx.qualname)
        if not isinstance(name, str) or not name.isidentifier():
            return
        default = find_arg(node, "default", 1)
        if default is not None:
            self.declare(name, default, None, node)

    def declare(self, dest: str, value: Optional[cst.BaseExpression], implied: object, node: cst.Call) -> None:
        """An option's default: ``value`` as written, else ``implied`` (``store_true``: False;
        ``UNKNOWN`` when the option is required)."""
        given = literal_value(value, lambda _: None) if value is not None else implied
        known_default, default = (True, given) if plain(given) else (False, None)
        anchor = self.candidates.anchor(node)
        mark = self.flow.value_mark(value) if value is not None else None
        origin = self.flow.origin(mark).id if mark is not None else None
        old = self.opts.get(dest)
        if old is not None and (old.known_default, old.default) != (known_default, default) and not self._is_set_defaults(node):
            known_default, default = False, None  # declared twice with different defaults: unknown
        self.opts[dest] = OptionFacts(known_default, default, anchor, origin)

    def _is_set_defaults(self, node: cst.Call) -> bool:
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in self.t.defaults_methods
