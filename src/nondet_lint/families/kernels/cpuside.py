"""Where TensorFlow ops run on the CPU or carry no gradient (ND204's near misses).

Functions given to ``tf.data`` (``map``, ``filter``, ``flat_map``, ``interleave``,
``from_generator``) run on the CPU whatever the device of the program, and so do the
functions of the module they call.  A backward-only op whose input is a label, an
integer cast or a ``tf.stop_gradient`` never gets a gradient, so its backward never runs.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Set, Union

import libcst as cst

# tf.data methods (and constructors) whose function argument runs in the input pipeline
PIPELINE_METHODS = frozenset({"map", "filter", "flat_map", "interleave", "from_generator", "parallel_interleave"})
PIPELINE_KEYWORDS = frozenset({"map_func", "predicate", "generator"})

# names of tensors that hold targets, not activations: no gradient flows into them
_TARGET_WORDS = ("label", "groundtruth", "ground_truth", "y_true")
_NO_GRADIENT_CALLS = frozenset({"tensorflow.stop_gradient"})
_INTEGER_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"})

FunctionNode = Union[cst.FunctionDef, cst.Lambda]


def _callee_name(node: cst.BaseExpression) -> Optional[str]:
    """``fn`` for ``fn`` and for ``self.fn`` / ``parser.fn`` (a method of some class)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


class _Collector(cst.CSTVisitor):
    """The module's function definitions, the names each calls, and the pipeline roots."""

    def __init__(self) -> None:
        self.defs: Dict[str, list] = {}
        self.calls: Dict[cst.FunctionDef, Set[str]] = {}
        self.roots: Set[str] = set()
        self.lambdas: Set[cst.Lambda] = set()
        self.stack: list = []

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
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value in PIPELINE_METHODS):
            return
        for index, arg in enumerate(node.args):
            positional = arg.keyword is None and index == 0
            if not (positional or (arg.keyword is not None and arg.keyword.value in PIPELINE_KEYWORDS)):
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
    found: Set[str] = set()

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            name = _callee_name(call.func)
            if name is not None:
                found.add(name)

    node.visit(_Calls())
    return found


def pipeline_functions(module: cst.Module) -> Set[Any]:
    """The functions (and lambdas) of ``module`` that run inside a ``tf.data`` pipeline:
    those given to a pipeline method, and the module's functions they call."""
    collector = _Collector()
    module.visit(collector)
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


def carries_no_gradient(node: Optional[cst.BaseExpression], qualname: Callable[[cst.CSTNode], Optional[str]]) -> bool:
    """Whether the input of an op is evidently not differentiated: a target tensor (its
    name says label / ground truth), ``tf.stop_gradient(...)``, or a cast to an integer."""
    while isinstance(node, cst.Call):
        name = qualname(node.func)
        if name in _NO_GRADIENT_CALLS:
            return True
        if name == "tensorflow.cast" and len(node.args) > 1:
            dtype = qualname(node.args[1].value) or ""
            if dtype.rsplit(".", 1)[-1] in _INTEGER_DTYPES:
                return True
        if not node.args:
            return False
        node = node.args[0].value  # through wrappers such as tf.expand_dims(x, -1)
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    if isinstance(node, cst.Name):
        word = node.value.lower()
        return any(target in word for target in _TARGET_WORDS)
    return False
