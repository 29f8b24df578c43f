"""ND111: hyper-parameter searches whose sampler draws unseeded.

Every searcher is a row of ``[ND111.data]``: the names that build it, the argument that
seeds it, and what a missing seed falls back on.  Optuna samplers and hyperopt's
``fmin`` draw from fresh OS entropy; scikit-optimize, Ray Tune's random search and
Nevergrad fall back on NumPy's global RNG, so a ``np.random.seed(<value>)`` in the same
module covers them.  ``optuna.create_study()`` with no ``sampler=`` builds an unseeded
``TPESampler`` (``NSGAIISampler`` with ``directions=``), unless the module replaces a
study's sampler (``study.sampler = ...``, as Optuna's LightGBM tuner does per step).

The fix passes the program's own seed: ``<namespace>.<dest>`` where the module parses a
``--seed`` option with a default into a name visible at the call (``args =
parser.parse_args()`` at the top level, or the function's own parameter of that name).
Otherwise, for a searcher inside a top-level function, the entry point is followed in
pass 2: where a module's seed option (``analysis.seedoption``) is passed to that function
(``tune(args)`` after ``args = parser.parse_args()``; ``search(seed)`` in a command with a
``seed`` option), the fix passes the parameter that receives it (``args.seed``,
``seed``); else, or when callers disagree, the configured ``seed``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.analysis.seedoption import seed_option
from nondet_lint.callargs import find_arg, has_star_args, literal_value
from nondet_lint.check import Check
from nondet_lint.context import PendingFix
from nondet_lint.facts import ModuleFact
from nondet_lint.fixes.builders import insert_after_imports, name_for, set_keyword_argument, top_level
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Deferred, Finding
from nondet_lint.walk import calls_in

CODE = "ND111"
_MARK = "__nondet_seed__"  # the seed in a deferred fix, replaced in pass 2
_Scope = Optional[cst.FunctionDef]  # None: the module's top level


@dataclass(frozen=True)
class SeedPass:
    """A call that hands the module's seed option to a function: ``train(args)`` (suffix
    ``.seed``) or ``search(seed=seed)``."""

    callee: str  # the qualified name of the function called
    position: Optional[int]  # where the option is passed positionally
    keyword: Optional[str]  # or the keyword it is passed under
    suffix: str  # what to append to the parameter to reach the seed (``.seed``), or ""


@dataclass(frozen=True)
class SeedOptionPassFacts(ModuleFact):
    """Where a module hands its seed option to functions, for ND111's fixes in the
    modules of those functions."""

    key = "search_seed_passes"

    passes: Tuple[SeedPass, ...]

    def to_json(self) -> Dict[str, Any]:
        return {"passes": [[p.callee, p.position, p.keyword, p.suffix] for p in self.passes]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SeedOptionPassFacts":
        return cls(tuple(SeedPass(*row) for row in data["passes"]))


@dataclass(frozen=True)
class SearchCandidate:
    """An ND111 finding whose fix waits for the seed option of the program that calls its
    function (its deferred payload)."""

    name: str
    what: str
    advice: str
    function: str  # the top-level function holding the searcher
    params: Tuple[str, ...]  # its parameters, in order
    shadowed: Tuple[str, ...]  # names rebound between that function and the call

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "what": self.what, "advice": self.advice, "function": self.function,
                "params": list(self.params), "shadowed": list(self.shadowed)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "SearchCandidate":
        return cls(data["name"], data["what"], data["advice"], data["function"], tuple(data["params"]), tuple(data["shadowed"]))


class SearchSeeds(Check):
    """ND111 (see the module docstring)."""

    codes = (CODE,)

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data = self.data(CODE)
        self.searchers: Dict[str, Mapping[str, Any]] = {n: row for row in data["searchers"] for n in row["names"]}
        self.prefixes: Tuple[Tuple[str, Mapping[str, Any]], ...] = tuple(
            (row["prefix"], row) for row in data.get("searcher_prefixes", ())
        )
        self.numpy_seeds = frozenset(data.get("numpy_seed_calls", ()))
        self.option_flags = frozenset(data.get("seed_option_flags", ()))
        self.parse_methods = frozenset(data.get("parse_methods", ()))
        self.found: List[Tuple[cst.Call, str, Mapping[str, Any], _Scope]] = []
        self.functions: List[cst.FunctionDef] = []
        self.namespaces: List[Tuple[str, _Scope]] = []  # names bound to parsed options
        self.seed_dest: Optional[str] = None
        self.numpy_seeded = False
        self.assigned_attributes: Set[str] = set()  # ``<...>.random_state = ...``, ``study.sampler = ...``
        self.env_names: Set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def _scope(self) -> _Scope:
        return self.functions[-1] if self.functions else None

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute):
                self.assigned_attributes.add(target.target.attr.value)
            if isinstance(target.target, cst.Subscript):
                key = target.target.slice[0].slice if target.target.slice else None
                if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString):
                    value = key.value.evaluated_value
                    if isinstance(value, str):
                        self.env_names.add(value)
        if self._parses_options(node.value):
            for target in node.targets:
                name: cst.BaseExpression = target.target
                if isinstance(name, cst.Tuple) and name.elements:
                    name = name.elements[0].value  # ``args, rest = parser.parse_known_args()``
                if isinstance(name, cst.Name):
                    self.namespaces.append((name.value, self._scope()))

    def _parses_options(self, value: cst.BaseExpression) -> bool:
        return (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in self.parse_methods
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "add_argument":
            self._option(node)
            return
        name = self.ctx.qualname(func)
        if name is None:
            return
        if name in self.numpy_seeds:
            value = find_arg(node, "seed", 0)
            if value is not None and literal_value(value, self.ctx.qualname) is not None:
                self.numpy_seeded = True
            return
        row = self.searchers.get(name)
        if row is None:
            row = next((r for prefix, r in self.prefixes if name.startswith(prefix) and name[len(prefix):][:1].isupper()), None)
        if row is not None:
            self.found.append((node, name, row, self._scope()))

    def _option(self, node: cst.Call) -> None:
        """``parser.add_argument("--seed", type=int, default=42)``: the option's dest."""
        flags = [a.value.evaluated_value for a in node.args if a.keyword is None and isinstance(a.value, cst.SimpleString)]
        if not any(flag in self.option_flags for flag in flags):
            return
        default = literal_value(find_arg(node, "default", None), self.ctx.qualname)
        if not isinstance(default, int) or isinstance(default, bool):
            return  # no default, or ``None``: the option does not always give a seed
        dest = literal_value(find_arg(node, "dest", None), self.ctx.qualname)
        if not isinstance(dest, str):
            longs = [f for f in flags if isinstance(f, str) and f.startswith("--")]
            dest = longs[0].lstrip("-").replace("-", "_") if longs else None
        if isinstance(dest, str) and dest.isidentifier():
            self.seed_dest = dest

    def finish(self) -> None:
        for node, name, row, scope in self.found:
            if has_star_args(node):
                continue
            problem = self._problem(node, row)
            if problem is None:
                continue
            what, keyword, value = problem
            seed = self._seed_text(scope)
            outer = self._top_function(node)
            if seed == str(self.ctx.config.seed) and keyword and outer is not None and _params(outer):
                fix = self._fix(node, keyword, value, _MARK)
                candidate = SearchCandidate(_display(name), what, row["advice"], f"{self.ctx.module_name}.{outer.name.value}",
                                            _params(outer), self._shadowed(node, outer))
                self.ctx.defer(node, CODE, fix=fix, **candidate.to_json())
                continue
            fix = self._fix(node, keyword, value, seed) if keyword else None
            self.ctx.report(node, CODE, fix=fix, name=_display(name), what=what, advice=row["advice"])

    def _top_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """The top-level function the call runs in (None at the top level or in a class)."""
        current = self.ctx.parent(node)
        found = None
        while current is not None and not isinstance(current, cst.Module):
            if isinstance(current, cst.ClassDef):
                return None
            if isinstance(current, cst.FunctionDef):
                found = current
            current = self.ctx.parent(current)
        return found if found is not None and found in self.ctx.module.body else None

    def _shadowed(self, node: cst.CSTNode, outer: cst.FunctionDef) -> Tuple[str, ...]:
        """Parameters of the functions nested between ``outer`` and the call (they hide
        ``outer``'s parameters of the same name)."""
        names: List[str] = []
        current = self.ctx.parent(node)
        while current is not None and current is not outer:
            if isinstance(current, (cst.FunctionDef, cst.Lambda)):
                names.extend(p.name.value for p in (*current.params.params, *current.params.kwonly_params))
            current = self.ctx.parent(current)
        return tuple(names)

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        receivers: Dict[Tuple[str, str], List[Tuple[Optional[int], Optional[str], str]]] = {}
        for record in project:
            facts = record.facts.get(SeedOptionPassFacts)
            for seed_pass in facts.passes if facts is not None else ():
                module, _, function = seed_pass.callee.rpartition(".")
                target = project.module(module)
                if target is not None:
                    receivers.setdefault((os.path.abspath(target.path), function), []).append(
                        (seed_pass.position, seed_pass.keyword, seed_pass.suffix))
        rule = rules[CODE]
        for item in deferred:
            candidate = SearchCandidate.from_json(item.payload)
            key = (os.path.abspath(item.path), candidate.function.rpartition(".")[2])
            seeds = set()
            for position, keyword, suffix in receivers.get(key, ()):
                param = candidate.params[position] if position is not None and position < len(candidate.params) else keyword
                if param in candidate.params and param not in candidate.shadowed:
                    seeds.add(f"{param}{suffix}")
            seed = seeds.pop() if len(seeds) == 1 else str(project.config.seed)
            fix = item.fix
            if fix is not None:
                edits = tuple(replace(edit, content=edit.content.replace(_MARK, seed)) for edit in fix.edits)
                fix = replace(fix, title=fix.title.replace(_MARK, seed), edits=edits)
            message = rule.format_message(name=candidate.name, what=candidate.what, advice=candidate.advice)
            yield Finding(item.path, item.line, item.col, CODE, message, item.end_line, item.end_col, fix=fix)

    def _problem(self, node: cst.Call, row: Mapping[str, Any]) -> Optional[Tuple[str, Optional[str], str]]:
        """(what is wrong, the keyword a fix sets, the value it sets), or None when seeded."""
        if any(env in self.env_names for env in row.get("seed_env", ())):
            return None
        if row.get("numpy_global") and self.numpy_seeded:
            return None
        if any(find_arg(node, given, None) is not None for given in row.get("unless_given", ())):
            return None
        if row.get("replaced_by") in self.assigned_attributes:
            return None  # ``study.sampler = ...``: the sampler is replaced before it draws
        if row.get("mode") == "state":  # seeded by assigning ``parametrization.random_state``
            return None if "random_state" in self.assigned_attributes else (row["what"], None, "")
        keyword = row["keyword"]
        given = find_arg(node, keyword, row.get("pos"))
        if given is not None and literal_value(given, self.ctx.qualname) is not None:
            return None  # a seed, or a value computed at run time (not guessed at)
        state = f"`{keyword}=None`" if given is not None else f"no `{keyword}=`"
        if row.get("mode") == "sampler":
            multi = any(find_arg(node, k, None) is not None for k in row.get("multi_keywords", ()))
            sampler = row["multi_sampler"] if multi else row["sampler"]
            what = f"{state}, so it builds an unseeded `{sampler.rsplit('.', 1)[-1]}`"
            return what, keyword, f"{{{sampler}}}(seed={{seed}})"
        return state, keyword, row.get("value", "{seed}")

    def _seed_text(self, scope: _Scope) -> str:
        """``args.seed`` where the module parses a ``--seed`` option visible here, else the
        configured seed."""
        if self.seed_dest is not None:
            params = {p.name.value for p in (*scope.params.params, *scope.params.kwonly_params)} if scope is not None else set()
            for name, bound in self.namespaces:
                if bound is scope or (bound is None and name not in params) or name in params:
                    return f"{name}.{self.seed_dest}"
        return str(self.ctx.config.seed)

    def _fix(self, node: cst.Call, keyword: str, template: str, seed: str) -> Optional[PendingFix]:
        imports: List[str] = []
        spelled: Dict[str, str] = {"seed": seed}
        for qualified in _placeholders(template):
            found = name_for(self.ctx.module, qualified, top=top_level(self.ctx))
            if found is None:
                return None
            spelled[qualified] = found[0]
            if found[1]:
                imports.append(found[1])
        value = template
        for key, text in spelled.items():
            value = value.replace("{" + key + "}", text)
        edits: List[Any] = set_keyword_argument(self.ctx, node, keyword, value)
        if not edits:
            return None
        if imports:
            edits = [*insert_after_imports(self.ctx.module, "", imports, top_level(self.ctx)), *edits]
        return self.ctx.fix(CODE, edits, seed=seed)


class SeedOptionPasses(Check):
    """Records where a module hands its seed option to a function (``SeedOptionPassFacts``), for ND111's
    fixes in the modules of those functions; runs on every module while ND111 is on."""

    @classmethod
    def runs_on(cls, ctx: Any) -> bool:
        return CODE in ctx.enabled

    def finish(self) -> None:
        passes = self._option_passes()
        if passes:
            self.ctx.facts.put(SeedOptionPassFacts(tuple(SeedPass(*row) for row in passes)))

    def _option_passes(self) -> List[List[Any]]:
        """Where this module hands its seed option to a function: ``[callee, position,
        keyword, suffix]`` for ``train(args)`` (suffix ``.seed``) or ``search(seed=seed)``."""
        option = seed_option(self.ctx)
        if option is None:
            return []
        root, dot, rest = option.value.partition(".")
        suffix = dot + rest
        found: List[List[Any]] = []
        for stmt in option.body.body[option.after + 1:]:
            for call in calls_in(stmt, into_definitions=False):
                callee = self.ctx.qualname(call.func)
                if callee is None or "." not in callee:
                    continue
                position = 0
                for arg in call.args:
                    if arg.star:
                        break
                    if isinstance(arg.value, cst.Name) and arg.value.value == root:
                        keyword = arg.keyword.value if arg.keyword is not None else None
                        found.append([callee, None if keyword else position, keyword, suffix])
                    if arg.keyword is None:
                        position += 1
        return found


def _params(function: cst.FunctionDef) -> Tuple[str, ...]:
    return tuple(p.name.value for p in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params))


def _placeholders(template: str) -> List[str]:
    """The dotted names a value template spells as ``{numpy.random.default_rng}``."""
    out, start = [], template.find("{")
    while start >= 0:
        end = template.find("}", start)
        if end < 0:
            break
        key = template[start + 1:end]
        if key != "seed" and key not in out:
            out.append(key)
        start = template.find("{", end)
    return out


def _display(name: str) -> str:
    return name.replace("nevergrad.", "ng.")
