"""What a computed flag or string is in the default run (``shuffle=(sampler is None)``,
``"/gpu:0" if args.gpu >= 0 else "/cpu:0"``).

Only what the module says is used: literals (a number may be negated), ``not`` / ``and``
/ ``or``, ``x is None``, conditional expressions, comparisons (``==``, ``!=``, ``is``, and
orderings of numbers), names bound earlier in the same function (an assignment under an
``if`` counts only when the default run takes that branch), a parameter's default where
every call of its function in the module leaves it out, and ``args.<option>`` (an
attribute that names no import), which is the option's ``default=`` (``store_true``
options default to False, other options to None; ``parser.set_defaults(gpu=-1)``
overrides it), and ``config.<field>`` of a parameter annotated with a class of the module
(``def main(config: EvalConfig)``), which is the field's declared default unless the module
gives it a value.  Anything else is unknown (None), and callers keep their literal-only
judgement.  It runs during the walk, so it reads the tree downwards from the ancestors
of the call, never the parents of later nodes.
"""

from __future__ import annotations

from operator import ge, gt, le, lt
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from nondet_lint.analysis.values import argparse_dest
from nondet_lint.walk import calls_in, children, nodes_in

UNKNOWN = object()
MAX_DEPTH = 8
_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


class DefaultRun:
    def __init__(self, module: cst.Module, qualname: Callable[[cst.BaseExpression], Optional[str]]) -> None:
        self.module = module
        self.qualname = qualname
        self._options: Optional[Dict[str, object]] = None
        self._module_calls: Optional[List[cst.Call]] = None
        self._module_classes: Optional[Dict[str, cst.ClassDef]] = None
        self._assigned_fields: Optional[Set[str]] = None

    def truth(self, expr: cst.BaseExpression, ancestors: Sequence[cst.CSTNode]) -> Optional[bool]:
        """True / False when the default run's value of ``expr`` is known, else None."""
        value = self._value(expr, ancestors, 0)
        return None if value is UNKNOWN or value is _SOMETHING else bool(value)

    def text(self, expr: cst.BaseExpression, ancestors: Sequence[cst.CSTNode]) -> Optional[str]:
        """The default run's value of ``expr`` where it is a known string, else None
        (``"/gpu:0" if args.gpu >= 0 else "/cpu:0"``: the device the default run picks)."""
        value = self._value(expr, ancestors, 0)
        return value if isinstance(value, str) else None

    # ---- values ------------------------------------------------------------------------
    def _value(self, expr: cst.BaseExpression, ancestors: Sequence[cst.CSTNode], depth: int) -> object:
        if depth > MAX_DEPTH:
            return UNKNOWN
        step = depth + 1
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[expr.value]
            return self._name(expr.value, ancestors, step)
        if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
            return expr.evaluated_value
        if isinstance(expr, (cst.Call, cst.List, cst.Dict, cst.Tuple, cst.Lambda)):
            if isinstance(expr, cst.Call) and self.qualname(expr.func) == "builtins.bool" and len(expr.args) == 1:
                return self._value(expr.args[0].value, ancestors, step)
            return _SOMETHING  # an object: not None, and true for the question asked here
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            number = self._value(expr.expression, ancestors, step)
            return -number if type(number) in (int, float) else UNKNOWN  # type: ignore[operator]
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
            inner = self._value(expr.expression, ancestors, step)
            return UNKNOWN if inner is UNKNOWN or inner is _SOMETHING else not inner
        if isinstance(expr, cst.BooleanOperation):
            left = self._value(expr.left, ancestors, step)
            if left is UNKNOWN or left is _SOMETHING:
                return UNKNOWN
            if isinstance(expr.operator, cst.And):
                return self._value(expr.right, ancestors, step) if left else left
            return left if left else self._value(expr.right, ancestors, step)
        if isinstance(expr, cst.IfExp):
            test = self._value(expr.test, ancestors, step)
            if test is UNKNOWN or test is _SOMETHING:
                return UNKNOWN
            return self._value(expr.body if test else expr.orelse, ancestors, step)
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
            return self._compare(expr, ancestors, step)
        if isinstance(expr, cst.Attribute) and self.qualname(expr) is None:
            field = self._annotated_field(expr, ancestors)
            if field is not UNKNOWN:
                return field  # ``config.compare_torch`` of ``def main(config: EvalConfig)``
            return self.options().get(expr.attr.value, UNKNOWN)  # ``args.distributed``
        return UNKNOWN

    def _annotated_field(self, expr: cst.Attribute, ancestors: Sequence[cst.CSTNode]) -> object:
        """A field of a config object known only from its parameter's annotation
        (``def main(config: EvalConfig)``, ``EvalConfig`` a class of this module declaring
        ``compare_torch: bool = False``): the class's declared default, where the function
        does not bind the name again before.  A field declared None, or with no literal
        default (``field(default_factory=...)``), is unknown: the run fills it in."""
        if not isinstance(expr.value, cst.Name):
            return UNKNOWN
        scope, path = _scope_and_path(ancestors)
        if not isinstance(scope, cst.FunctionDef):
            return UNKNOWN
        name = expr.value.value
        params = scope.params
        param = next((p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.name.value == name), None)
        if param is None or param.annotation is None or not isinstance(param.annotation.annotation, cst.Name):
            return UNKNOWN
        if any(True for _ in _assignments_before(scope, path, name)):
            return UNKNOWN
        cls = self._classes().get(param.annotation.annotation.value)
        if cls is None or self._field_given(cls.name.value, expr.attr.value):
            return UNKNOWN
        for line in cls.body.body:
            for small in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
                if (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
                        and small.target.value == expr.attr.value and small.value is not None):
                    value = self._value(small.value, (), MAX_DEPTH - 1)
                    return UNKNOWN if value is None or value is _SOMETHING else value
        return UNKNOWN

    def _field_given(self, cls: str, field: str) -> bool:
        """The module gives the field a value: a keyword of a call of the class
        (``main(EvalConfig(compare_torch=True))``), or an assignment to an attribute so named."""
        for call in self._calls():
            if isinstance(call.func, cst.Name) and call.func.value == cls and any(
                arg.keyword is not None and arg.keyword.value == field or arg.star for arg in call.args
            ):
                return True
        if self._assigned_fields is None:
            self._assigned_fields = {
                target.target.attr.value
                for node in nodes_in(self.module, cst.Assign)
                for target in node.targets
                if isinstance(target.target, cst.Attribute)
            }
        return field in self._assigned_fields

    def _classes(self) -> Dict[str, cst.ClassDef]:
        """The module's top-level classes by name."""
        if self._module_classes is None:
            self._module_classes = {
                node.name.value: node for node in self.module.body if isinstance(node, cst.ClassDef)
            }
        return self._module_classes

    def _compare(self, expr: cst.Comparison, ancestors: Sequence[cst.CSTNode], depth: int) -> object:
        operator = expr.comparisons[0].operator
        left = self._value(expr.left, ancestors, depth)
        right = self._value(expr.comparisons[0].comparator, ancestors, depth)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if isinstance(operator, (cst.Is, cst.IsNot)) and (left is None or right is None):
            same = left is right
            return same if isinstance(operator, cst.Is) else not same
        if _SOMETHING in (left, right):
            return UNKNOWN
        if isinstance(operator, cst.Equal):
            return left == right
        if isinstance(operator, cst.NotEqual):
            return left != right
        order = _ORDERS.get(type(operator))
        if order is not None and type(left) in (int, float) and type(right) in (int, float):
            return order(left, right)
        return UNKNOWN

    def _name(self, name: str, ancestors: Sequence[cst.CSTNode], depth: int) -> object:
        """The value of the last assignment to ``name`` before the current statement that
        the default run executes."""
        scope, path = _scope_and_path(ancestors)
        if scope is None:
            return UNKNOWN
        found: object = self._parameter_default(scope, ancestors, name, depth)
        for value, guards in _assignments_before(scope, path, name):
            taken = True
            for test, in_body in guards:
                truth = self._value(test, ancestors, depth)
                if truth is UNKNOWN or truth is _SOMETHING:
                    return UNKNOWN
                if bool(truth) != in_body:
                    taken = False
            if taken:
                found = self._value(value, ancestors, depth) if value is not None else UNKNOWN
        return found

    def _parameter_default(self, scope: cst.CSTNode, ancestors: Sequence[cst.CSTNode], name: str, depth: int) -> object:
        """A parameter's default when the default run leaves it out: the function is a
        top-level function of this module, called here, and no call passes the parameter
        (``def main(ds, sampler=None)`` called as ``main(ds)``). Unknown otherwise (a method,
        a function only other modules call, a call with ``*args`` / ``**kwargs``, a decorated
        function, which a launcher may call with arguments)."""
        top_level = len(ancestors) > 1 and isinstance(ancestors[0], cst.Module) and ancestors[1] is scope
        if not isinstance(scope, cst.FunctionDef) or scope.decorators or not top_level:
            return UNKNOWN
        params = scope.params
        positional = [*params.posonly_params, *params.params]
        found = next(((i, p) for i, p in enumerate(positional) if p.name.value == name), None)
        keyword_only = next((p for p in params.kwonly_params if p.name.value == name), None)
        param = found[1] if found is not None else keyword_only
        if param is None or param.default is None:
            return UNKNOWN
        index = found[0] if found is not None else None
        calls = [c for c in self._calls() if isinstance(c.func, cst.Name) and c.func.value == scope.name.value]
        if not calls:
            return UNKNOWN
        for call in calls:
            passed_positional = 0
            for arg in call.args:
                if arg.star:
                    return UNKNOWN
                if arg.keyword is None:
                    passed_positional += 1
                elif arg.keyword.value == name:
                    return UNKNOWN
            if index is not None and passed_positional > index:
                return UNKNOWN
        return self._value(param.default, (), max(depth, MAX_DEPTH - 1))

    def _calls(self) -> List[cst.Call]:
        if self._module_calls is None:
            self._module_calls = list(calls_in(self.module))
        return self._module_calls

    # ---- command-line options ------------------------------------------------------------
    def options(self) -> Dict[str, object]:
        """``dest -> default`` of the module's ``add_argument`` calls (None when none is
        given), where a ``set_defaults(name=value)`` of the module does not say otherwise."""
        if self._options is None:
            self._options = {}
            seen: Dict[str, List[object]] = {}
            overridden: Dict[str, List[object]] = {}
            for call in calls_in(self.module):
                if isinstance(call.func, cst.Attribute) and call.func.attr.value == "set_defaults":
                    for arg in call.args:
                        if arg.keyword is not None:
                            overridden.setdefault(arg.keyword.value, []).append(self._value(arg.value, (), MAX_DEPTH - 1))
                    continue
                if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument"):
                    continue
                dest = argparse_dest(call)
                if dest is None:
                    continue
                keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
                action = keywords.get("action")
                action_text = action.evaluated_value if isinstance(action, cst.SimpleString) else None
                if "default" in keywords:
                    value = self._value(keywords["default"], (), MAX_DEPTH - 1)
                elif action_text == "store_true":
                    value = False
                elif action_text == "store_false":
                    value = True
                else:
                    value = None
                seen.setdefault(dest, []).append(value)
            for dest, values in overridden.items():
                seen[dest] = [values[0] if len(set(map(repr, values))) == 1 else UNKNOWN]
            self._options = {dest: values[0] for dest, values in seen.items() if len(values) == 1 and values[0] is not UNKNOWN}
        return self._options


_ORDERS: Dict[type, Callable[[Any, Any], bool]] = {
    cst.LessThan: lt, cst.LessThanEqual: le, cst.GreaterThan: gt, cst.GreaterThanEqual: ge,
}


class _Something:
    """A value known to be an object (not None) whose truth is not known."""


_SOMETHING = _Something()


def _scope_and_path(ancestors: Sequence[cst.CSTNode]) -> Tuple[Optional[cst.CSTNode], List[cst.CSTNode]]:
    """The innermost function (or the module) and the chain of nodes from it down."""
    for position in range(len(ancestors) - 1, -1, -1):
        if isinstance(ancestors[position], (cst.FunctionDef, cst.Module)):
            return ancestors[position], list(ancestors[position + 1:])
    return None, []


def _assignments_before(scope: cst.CSTNode, path: List[cst.CSTNode], name: str) -> Iterator[Tuple[Optional[cst.BaseExpression], List[Tuple[cst.BaseExpression, bool]]]]:
    """``(value, guards)`` of each assignment to ``name`` that comes before the statement
    on ``path``, in source order; ``guards`` are the ``if`` tests around it (and whether
    it is in the body, not the ``else``)."""
    on_path = {id(node) for node in path}
    body = scope.body if isinstance(scope, cst.FunctionDef) else scope
    stack: List[Tuple[cst.CSTNode, List[Tuple[cst.BaseExpression, bool]]]] = [(body, [])]
    ordered: List[Tuple[Optional[cst.BaseExpression], List[Tuple[cst.BaseExpression, bool]]]] = []

    def visit(node: cst.CSTNode, guards: List[Tuple[cst.BaseExpression, bool]]) -> bool:
        """Walks ``node`` in source order; False once the current statement is reached."""
        if id(node) in on_path and isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)) and not isinstance(node, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            return False
        if isinstance(node, _NESTED):
            return True
        if isinstance(node, cst.If):
            if id(node.test) in on_path:
                return False
            if not visit(node.body, [*guards, (node.test, True)]):
                return False
            if node.orelse is not None:
                return visit(node.orelse, [*guards, (node.test, False)])
            return True
        if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets):
            ordered.append((node.value, guards))
        elif isinstance(node, (cst.For, cst.While)) and id(node) not in on_path:
            ordered_before = len(ordered)
            for child in children(node):
                visit(child, guards)
            if len(ordered) > ordered_before:
                ordered[ordered_before:] = [(None, g) for _, g in ordered[ordered_before:]]  # maybe run, maybe not
            return True
        for child in children(node):
            if not visit(child, guards):
                return False
        return True

    for node, guards in stack:
        visit(node, guards)
    yield from ordered


