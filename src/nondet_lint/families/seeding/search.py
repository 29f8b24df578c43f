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
parser.parse_args()`` at the top level, or the function's own parameter of that name),
else the configured ``seed``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.callargs import find_arg, has_star_args, literal_value
from nondet_lint.check import Check
from nondet_lint.context import PendingFix
from nondet_lint.fixes.builders import insert_after_imports, name_for, set_keyword_argument, top_level

CODE = "ND111"
_Scope = Optional[cst.FunctionDef]  # None: the module's top level


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
            fix = self._fix(node, keyword, value, seed) if keyword else None
            self.ctx.report(node, CODE, fix=fix, name=_display(name), what=what, advice=row["advice"])

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
