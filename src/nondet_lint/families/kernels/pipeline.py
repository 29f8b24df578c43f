"""Which functions of the project run inside a ``tf.data`` pipeline (on the CPU), across modules.

A parser is usually written in one module and wired into ``Dataset.map`` in another: a
task calls ``InputReader(parser_fn=parser.parse_fn(is_training))``, and the reader maps
``self._parser_fn``.  Pass 1 records, per module, the functions it defines with what they
call, what it hands to a pipeline method, and the parameters whose value it hands there
(``parser_fn``, through ``self._parser_fn``).  Pass 2 treats every keyword argument with
such a parameter's name as a pipeline function too, and follows calls from all of them
through the project: what they reach runs on the CPU.

Calls are followed by what they name: a function of the module, a function of another
project module through an import, or, for ``obj.method(...)``, every method of that name
in the project (the receiver's class is not known), except the framework's own hooks
(``call``, ``build``) that model code overrides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.facts import ModuleFact
from nondet_lint.walk import calls_in, visit_tree

# a reference to a function: ("local", key) a function of the module (``Class.method``,
# ``outer.inner``), ("qualified", name) a name an import resolves, ("method", name) any method
Ref = Tuple[str, str]


@dataclass(frozen=True)
class PipelineFacts(ModuleFact):
    """What one module tells pass 2 about its functions and its ``tf.data`` pipelines."""

    key = "tf_pipeline"

    functions: Mapping[str, Tuple[bool, Tuple[Ref, ...]]]  # key -> (is a method, what it calls)
    roots: Tuple[Ref, ...]  # functions handed to a pipeline method
    parameters: Tuple[str, ...]  # parameter names whose value is handed to one
    keywords: Tuple[Tuple[str, Ref], ...]  # keyword arguments whose value names a function

    def to_json(self) -> Dict[str, Any]:
        return {
            "functions": {k: [m, [list(r) for r in calls]] for k, (m, calls) in self.functions.items()},
            "roots": [list(r) for r in self.roots], "parameters": list(self.parameters),
            "keywords": [[k, list(r)] for k, r in self.keywords],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "PipelineFacts":
        return cls(
            {k: (bool(m), tuple((r[0], r[1]) for r in calls)) for k, (m, calls) in data.get("functions", {}).items()},
            tuple((r[0], r[1]) for r in data.get("roots", [])), tuple(data.get("parameters", [])),
            tuple((k, (r[0], r[1])) for k, r in data.get("keywords", [])),
        )


class _Collector:
    """One walk of a module: its functions, their calls, the pipeline roots and parameters."""

    def __init__(self, methods: FrozenSet[str], keywords: FrozenSet[str], qualname: Callable[[cst.BaseExpression], Optional[str]], package: str) -> None:
        self.pipeline_methods, self.pipeline_keywords = methods, keywords
        self.qualname, self.package = qualname, package
        self.scope: List[Tuple[str, bool]] = []  # (name, is a class)
        self.defined: Set[str] = set()
        self.functions: Dict[str, Tuple[bool, List[Ref]]] = {}
        self.roots: List[Ref] = []
        self.params: Dict[str, List[str]] = {}  # function key -> its parameter names, in order
        self.piped_params: Set[Tuple[str, str]] = set()  # (function key, parameter) handed to a pipeline
        self.piped_attrs: Set[str] = set()  # ``self.attr`` handed to a pipeline
        self.attr_from_param: List[Tuple[str, str, str]] = []  # (attr, function key, parameter)
        self.local_calls: List[Tuple[str, str, int, cst.BaseExpression]] = []  # (caller, callee key, position, value)
        self.keywords: List[Tuple[str, Ref]] = []
        # ``self.attr`` of a class holding a callable: ``self._label = Labeler(...)`` (its
        # ``__call__``), ``self._parse = self._parse_train`` (that method)
        self.attr_refs: Dict[Tuple[str, str], List[Ref]] = {}  # every value assigned
        self.attr_calls: List[Tuple[str, str]] = []  # (method key, attr) for ``self.attr(...)``

    # ---- scopes
    def _key(self) -> str:
        return ".".join(name for name, _ in self.scope)

    def _function(self) -> Optional[str]:
        return self._key() if self.scope and not self.scope[-1][1] else None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append((node.name.value, True))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        is_method = bool(self.scope) and self.scope[-1][1]
        self.scope.append((node.name.value, False))
        key = self._key()
        self.functions[key] = (is_method, [])
        params = node.params
        self.params[key] = [p.name.value for p in (*params.posonly_params, *params.params)]

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scope.pop()

    # ---- references
    def ref(self, node: cst.BaseExpression) -> Optional[Ref]:
        """What a callee expression names, as a reference pass 2 can follow."""
        if isinstance(node, cst.Name):
            local = self._local(node.value)
            if local is not None:
                return ("local", local)
        name = self.qualname(node)
        if name is not None:
            return ("qualified", name) if name.split(".")[0] == self.package else None
        if isinstance(node, cst.Attribute):
            return ("method", node.attr.value)
        return None

    def _local(self, name: str) -> Optional[str]:
        """The key of a function ``name`` defined in an enclosing scope or at top level."""
        parts = [n for n, _ in self.scope]
        for end in range(len(parts), -1, -1):
            key = ".".join([*parts[:end], name])
            if key in self.functions:
                return key
        return None

    def function_refs(self, value: cst.BaseExpression) -> List[Ref]:
        """The functions a value handed to a pipeline stands for: a function, a method, the
        function a call returns (``parser.parse_fn(training)``), what a lambda calls."""
        if isinstance(value, cst.Lambda):
            found: List[Ref] = []
            for call in calls_in(value):
                ref = self.ref(call.func)
                if ref is not None:
                    found.append(ref)
            return found
        if isinstance(value, cst.Call):
            value = value.func
        ref = self.ref(value)
        return [ref] if ref is not None else []

    # ---- calls, and functions named without a call (``functools.partial(color_jitter, ...)``)
    def visit_Name(self, node: cst.Name) -> None:
        key = self._function()
        if key is None:
            return
        ref = self.ref(node)
        if ref is not None and ref != ("local", key):
            self.functions[key][1].append(ref)

    def visit_Assign(self, node: cst.Assign) -> None:
        key = self._function()
        if key is None:
            return
        for target in node.targets:
            attr = _self_attribute(target.target)
            if attr is None:
                continue
            if isinstance(node.value, cst.Name) and node.value.value in self.params.get(key, []):
                self.attr_from_param.append((attr, key, node.value.value))
            held = self._held(node.value)
            if held is not None:
                self.attr_refs.setdefault((_owner(key), attr), []).append(held)

    def _held(self, value: cst.BaseExpression) -> Optional[Ref]:
        """The callable a value is: an instance of a project class (its ``__call__``), or a
        method of ``self``."""
        method = _self_attribute(value)
        if method is not None:
            return ("method", method)
        if isinstance(value, cst.Call):
            made = self.ref(value.func)
            if made is not None and made[0] == "qualified":
                return ("qualified", f"{made[1]}.__call__")
        return None

    def visit_Call(self, node: cst.Call) -> None:
        key = self._function()
        callee = self.ref(node.func)
        if key is not None and callee is not None:
            self.functions[key][1].append(callee)
        attr = _self_attribute(node.func)
        if key is not None and attr is not None:
            self.attr_calls.append((key, attr))
        if callee is not None and callee[0] == "local":
            for position, arg in enumerate(a for a in node.args if a.keyword is None and not a.star):
                if key is not None:
                    self.local_calls.append((key, callee[1], position, arg.value))
        for arg in node.args:
            if arg.keyword is not None:
                for ref in self.function_refs(arg.value):
                    self.keywords.append((arg.keyword.value, ref))
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in self.pipeline_methods:
            for index, arg in enumerate(node.args):
                positional = arg.keyword is None and index == 0
                if positional or (arg.keyword is not None and arg.keyword.value in self.pipeline_keywords):
                    self.hand_to_pipeline(key, arg.value)

    def hand_to_pipeline(self, key: Optional[str], value: cst.BaseExpression) -> None:
        """``value`` runs in a pipeline: a function it names, or a parameter it holds."""
        if isinstance(value, cst.Name) and key is not None and value.value in self.params.get(key, []):
            self.piped_params.add((key, value.value))
            return
        attr = _self_attribute(value)
        if attr is not None:
            self.piped_attrs.add(attr)
            return
        self.roots.extend(self.function_refs(value))

    def facts(self) -> PipelineFacts:
        """Parameters that reach a pipeline, followed through ``self.attr = param`` and calls
        of the module's own functions (``_maybe_map_fn(dataset, self._parser_fn)``)."""
        changed = True
        while changed:
            changed = False
            for caller, callee, position, value in self.local_calls:
                params = self.params.get(callee, [])
                if position < len(params) and (callee, params[position]) in self.piped_params:
                    before = (len(self.piped_params), len(self.piped_attrs), len(self.roots))
                    self.hand_to_pipeline(caller, value)
                    changed |= before != (len(self.piped_params), len(self.piped_attrs), len(self.roots))
            for attr, key, param in self.attr_from_param:
                if attr in self.piped_attrs and (key, param) not in self.piped_params:
                    self.piped_params.add((key, param))
                    changed = True
        for key, attr in self.attr_calls:
            self.functions[key][1].extend(self.attr_refs.get((_owner(key), attr), []))
        return PipelineFacts(
            {k: (m, tuple(dict.fromkeys(calls))) for k, (m, calls) in self.functions.items()},
            tuple(dict.fromkeys(self.roots)),
            tuple(sorted({param for _, param in self.piped_params})),
            tuple(dict.fromkeys(self.keywords)),
        )


def _owner(key: str) -> str:
    """The class part of a method's key (``Parser`` for ``Parser.__init__``)."""
    return key.rsplit(".", 1)[0] if "." in key else ""


def _self_attribute(node: cst.BaseExpression) -> Optional[str]:
    """``attr`` for ``self.attr``."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def collect(module: cst.Module, methods: FrozenSet[str], keywords: FrozenSet[str], qualname: Callable[[cst.BaseExpression], Optional[str]], module_name: str) -> PipelineFacts:
    """The pipeline facts of one module (its own package's names are the project's)."""
    collector = _Collector(methods, keywords, qualname, module_name.split(".")[0])
    visit_tree(module, collector)
    return collector.facts()


def enclosing_function(parents: Callable[[cst.CSTNode], Optional[cst.CSTNode]], node: cst.CSTNode) -> str:
    """The key (``Class.method``, ``outer.inner``) of the function around ``node``, or ""."""
    names: List[str] = []
    inside = False
    current = parents(node)
    while current is not None:
        if isinstance(current, cst.FunctionDef):
            names.append(current.name.value)
            inside = True
        elif isinstance(current, cst.ClassDef):
            names.append(current.name.value)
        current = parents(current)
    return ".".join(reversed(names)) if inside else ""


class PipelineIndex:
    """Pass 2: the functions of the project that run in a ``tf.data`` pipeline."""

    def __init__(self, modules: Iterable[Tuple[str, str, PipelineFacts]], hooks: FrozenSet[str], lookup: Callable[[str], Optional[str]]) -> None:
        """``modules``: (path, module name, facts); ``lookup``: the path of a module name."""
        self.facts = {path: facts for path, _, facts in modules}
        self.lookup = lookup
        self.methods: Dict[str, List[Tuple[str, str]]] = {}
        for path, facts in self.facts.items():
            for key, (is_method, _) in facts.functions.items():
                name = key.rsplit(".", 1)[-1]
                if is_method and name not in hooks:
                    self.methods.setdefault(name, []).append((path, key))
        self.reached = self._reach()

    def _targets(self, path: str, ref: Ref) -> List[Tuple[str, str]]:
        kind, name = ref
        if kind == "local":
            return [(path, name)]
        if kind == "method":
            return self.methods.get(name, [])
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            found = self.lookup(".".join(parts[:end]))
            if found is not None and found in self.facts:
                return [(found, ".".join(parts[end:]))]
        return []

    def _reach(self) -> Set[Tuple[str, str]]:
        parameters = {p for facts in self.facts.values() for p in facts.parameters}
        pending: List[Tuple[str, str]] = []
        for path, facts in self.facts.items():
            roots = [*facts.roots, *(ref for keyword, ref in facts.keywords if keyword in parameters)]
            for ref in roots:
                pending.extend(self._targets(path, ref))
        reached: Set[Tuple[str, str]] = set()
        while pending:
            path, key = pending.pop()
            module = self.facts.get(path)
            if module is None or (path, key) in reached:
                continue
            facts = module
            if key in facts.functions:
                starts = [key]
            else:  # a class: building it runs ``__init__``, a pipeline given it calls ``__call__``
                starts = [f"{key}.__init__", f"{key}.__call__"]
            # the function and the functions defined inside it (closures it returns)
            keys = [k for k in facts.functions if any(k == start or k.startswith(start + ".") for start in starts)]
            for found in keys:
                if (path, found) in reached:
                    continue
                reached.add((path, found))
                for ref in facts.functions[found][1]:
                    pending.extend(self._targets(path, ref))
        return reached

    def runs_in_pipeline(self, path: str, key: str) -> bool:
        return bool(key) and (path, key) in self.reached
