"""Where TensorFlow ops run on the CPU or carry no gradient (ND204's near misses).

Functions given to ``tf.data`` (``map``, ``filter``, ``flat_map``, ``interleave``,
``from_generator``) run on the CPU whatever the device of the program, and so do the
functions of the module they call.  A backward-only op whose input is a label, an
integer cast or a ``tf.stop_gradient`` never gets a gradient, so its backward never runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Set, Tuple, Union

import libcst as cst

from nondet_lint.walk import calls_in, visit_tree


@dataclass(frozen=True)
class CpuSide:
    """ND204's ``cpu_side`` and ``no_gradient`` rule data."""

    pipeline_methods: FrozenSet[str]  # tf.data methods whose function argument runs in the pipeline
    pipeline_keywords: FrozenSet[str]  # ... or the keyword that names it
    no_gradient_calls: FrozenSet[str]  # calls whose result carries no gradient
    cast_calls: FrozenSet[str]
    integer_dtypes: FrozenSet[str]
    target_words: Tuple[str, ...]  # names of tensors that hold targets, not activations

    @classmethod
    def from_rule_data(cls, data: Mapping[str, Any]) -> "CpuSide":
        cpu, none = data["cpu_side"], data["no_gradient"]
        return cls(
            frozenset(cpu["pipeline_methods"]), frozenset(cpu["pipeline_keywords"]), frozenset(none["calls"]),
            frozenset(none["cast_calls"]), frozenset(none["integer_dtypes"]), tuple(none["target_words"]),
        )


FunctionNode = Union[cst.FunctionDef, cst.Lambda]


def _callee_name(node: cst.BaseExpression) -> Optional[str]:
    """``fn`` for ``fn`` and for ``self.fn`` / ``parser.fn`` (a method of some class)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


class _Collector:
    """The module's function definitions, the names each calls, and the pipeline roots."""

    def __init__(self, side: CpuSide) -> None:
        self.side = side
        self.defs: Dict[str, List[cst.FunctionDef]] = {}
        self.calls: Dict[cst.FunctionDef, Set[str]] = {}
        self.roots: Set[str] = set()
        self.lambdas: Set[cst.Lambda] = set()
        self.stack: List[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.defs.setdefault(node.name.value, []).append(node)
        self.calls[node] = set()
        self.stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        name = _callee_name(node.func)
        if self.stack and name is not None:
            self.calls[self.stack[-1]].add(name)
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value in self.side.pipeline_methods):
            return
        for index, arg in enumerate(node.args):
            positional = arg.keyword is None and index == 0
            if not (positional or (arg.keyword is not None and arg.keyword.value in self.side.pipeline_keywords)):
                continue
            if isinstance(arg.value, cst.Lambda):
                self.lambdas.add(arg.value)
                for called in _names_called(arg.value):
                    self.roots.add(called)
            else:
                root = _callee_name(arg.value)
                if root is not None:
                    self.roots.add(root)


def _names_called(node: cst.CSTNode) -> Set[str]:
    return {name for call in calls_in(node) for name in [_callee_name(call.func)] if name is not None}


def pipeline_functions(module: cst.Module, side: CpuSide) -> Set[Any]:
    """The functions (and lambdas) of ``module`` that run inside a ``tf.data`` pipeline:
    those given to a pipeline method, and the module's functions they call."""
    collector = _Collector(side)
    visit_tree(module, collector)
    reached: Set[Any] = set(collector.lambdas)
    pending = list(collector.roots)
    seen: Set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for definition in collector.defs.get(name, []):
            reached.add(definition)
            pending.extend(collector.calls[definition])
    return reached


def carries_no_gradient(
    node: Optional[cst.BaseExpression], qualname: Callable[[cst.BaseExpression], Optional[str]], side: CpuSide,
) -> bool:
    """Whether the input of an op is evidently not differentiated: a target tensor (its
    name says label / ground truth), ``tf.stop_gradient(...)``, or a cast to an integer."""
    while isinstance(node, cst.Call):
        name = qualname(node.func)
        if name in side.no_gradient_calls:
            return True
        if name in side.cast_calls and len(node.args) > 1:
            dtype = qualname(node.args[1].value) or ""
            if dtype.rsplit(".", 1)[-1] in side.integer_dtypes:
                return True
        if not node.args:
            return False
        node = node.args[0].value  # through wrappers such as tf.expand_dims(x, -1)
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    if isinstance(node, cst.Name):
        word = node.value.lower()
        return any(target in word for target in side.target_words)
    return False
