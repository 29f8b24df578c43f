"""What text a path or hub id argument holds, as far as the code says (ND303, ND304).

``Values.text(expr)`` follows literals, f-strings, ``os.path.join`` / ``Path`` / ``/``,
names bound once in the function or module, class attributes, the defaults of
``argparse`` options, absl flags and dataclass fields of the same module (``args.model``
→ the ``default=`` of ``--model``; ``FLAGS.model`` → the default of
``flags.DEFINE_string("model", ...)``), and names imported from another module
(returned as ``imported``, to be looked up in that module's facts in pass 2).  An attribute of an
object this module does not build (``config.dataset_name`` of a ``config`` parameter)
is returned as ``config``, for pass 2 to look up among the project's configuration
defaults (``config_defaults``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

import libcst as cst

from nondet_lint.analysis.moduleview import ModuleView

LITERAL = "literal"  # the whole text is known
LOCAL = "local"  # built as a filesystem path (os.path.join, Path, "/" operator)
NONE = "none"  # the literal None
UNKNOWN = "unknown"  # computed at run time
IMPORTED = "imported"  # a constant of another module: module + name
CONFIG = "config"  # an attribute of a configuration object built elsewhere: name (the attribute)
MAX_DEPTH = 6
_CONSTANT = re.compile(r"^[^\n]{0,200}$")
_ABSL_FLAGS = "absl.flags.FLAGS"
_ABSL_DEFINE = "absl.flags.DEFINE_"


@dataclass(frozen=True)
class Text:
    kind: str
    value: str = ""
    module: str = ""
    name: str = ""
    fragments: Tuple[str, ...] = ()


def _fragments(parts: Iterable["Text"]) -> Tuple[str, ...]:
    out: List[str] = []
    for part in parts:
        out.extend(part.fragments or ((part.value,) if part.value else ()))
    return tuple(out)


class Values:
    def __init__(self, view: ModuleView, path_calls: Iterable[str]) -> None:
        self.view = view
        self.ctx = view.ctx
        self.path_calls = frozenset(path_calls)
        self._defaults: Optional[Dict[str, Text]] = None
        self._declared: Optional[FrozenSet[str]] = None

    # ---- the value of an expression ----------------------------------------------------
    def text(self, expr: Optional[cst.BaseExpression], depth: int = 0) -> Text:
        if expr is None or depth > MAX_DEPTH:
            return Text(UNKNOWN)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return Text(NONE)
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
            try:
                value = expr.evaluated_value
            except Exception:  # noqa: BLE001 - a malformed literal
                return Text(UNKNOWN)
            return Text(LITERAL, value, fragments=(value,)) if isinstance(value, str) else Text(UNKNOWN)
        if isinstance(expr, cst.FormattedString):
            texts = tuple(p.value for p in expr.parts if isinstance(p, cst.FormattedStringText))
            inner = [self.text(p.expression, depth + 1) for p in expr.parts if isinstance(p, cst.FormattedStringExpression)]
            if not inner:
                return Text(LITERAL, "".join(texts), fragments=texts)
            if all(part.kind == LITERAL for part in inner):
                pieces = []
                values = iter(inner)
                for part in expr.parts:
                    pieces.append(part.value if isinstance(part, cst.FormattedStringText) else next(values).value)
                return Text(LITERAL, "".join(pieces), fragments=texts + _fragments(inner))
            local = any(p.kind == LOCAL for p in inner) or (bool(texts) and texts[0].startswith(("/", "./", "~", "../")))
            return Text(LOCAL if local else UNKNOWN, fragments=texts + _fragments(inner))
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.text(expr.left, depth + 1), self.text(expr.right, depth + 1)
            if isinstance(expr.operator, cst.Divide):
                return Text(LOCAL, fragments=_fragments((left, right)))
            if isinstance(expr.operator, cst.Add):
                if left.kind == LITERAL and right.kind == LITERAL:
                    return Text(LITERAL, left.value + right.value, fragments=_fragments((left, right)))
                local = LOCAL in (left.kind, right.kind) or (left.kind == LITERAL and left.value.startswith(("/", "./", "~")))
                return Text(LOCAL if local else UNKNOWN, fragments=_fragments((left, right)))
            return Text(UNKNOWN)
        if isinstance(expr, cst.IfExp):
            return Text(UNKNOWN, fragments=_fragments((self.text(expr.body, depth + 1), self.text(expr.orelse, depth + 1))))
        return Text(UNKNOWN)

    def _name(self, expr: cst.Name, depth: int) -> Text:
        index = self.view.index(expr)
        bindings = [b for b in index.bindings_of(expr.value) if b.kind != "import"]
        if bindings:
            value = index.single_value(expr.value)
            return self.text(value, depth + 1) if value is not None else Text(UNKNOWN)
        module_index = self.view.index_for(self.ctx.module)
        if module_index is not index:
            if [b for b in module_index.bindings_of(expr.value) if b.kind != "import"]:
                value = module_index.single_value(expr.value)
                return self.text(value, depth + 1) if value is not None else Text(UNKNOWN)
        return self._imported(expr)

    def _imported(self, expr: cst.BaseExpression) -> Text:
        name = self.view.qualname(expr)
        if name and "." in name and not name.startswith("builtins."):
            module, _, attribute = name.rpartition(".")
            return Text(IMPORTED, module=module, name=attribute)
        return Text(UNKNOWN)

    def _attribute(self, expr: cst.Attribute, depth: int) -> Text:
        name = self.view.qualname(expr)
        if name is not None and name.rpartition(".")[0] == _ABSL_FLAGS:
            return self.option_defaults().get(expr.attr.value, Text(UNKNOWN))  # ``FLAGS.dataset``
        if name is not None:
            local = self._class_attribute(name)
            if local is not None:
                return self.text(local, depth + 1)
            return self._imported(expr)
        default = self.option_defaults().get(expr.attr.value)
        if default is not None:
            return default
        if isinstance(expr.value, cst.Name) and expr.value.value not in ("self", "cls") and not self._built_here(expr.value):
            return Text(CONFIG, name=expr.attr.value)
        return Text(UNKNOWN)

    def _built_here(self, name: cst.Name) -> bool:
        """Whether the name is bound in its function or module to something other than a
        parameter (then its attributes are not a configuration handed in)."""
        index = self.view.index(name)
        return any(b.kind not in ("param", "import") for b in index.bindings_of(name.value))

    def _class_attribute(self, qualified: str) -> Optional[cst.BaseExpression]:
        """``Config.model`` for ``class Config: model = "..."`` of this module."""
        parts = qualified.split(".")
        prefix = f"{self.ctx.module_name}." if self.ctx.module_name else ""
        if prefix and not qualified.startswith(prefix):
            return None
        parts = qualified[len(prefix):].split(".")
        if len(parts) != 2:
            return None
        for stmt in self.ctx.module.body:
            if isinstance(stmt, cst.ClassDef) and stmt.name.value == parts[0]:
                for value in _class_assignments(stmt).get(parts[1], ()):
                    return value
        return None

    def _call(self, expr: cst.Call, depth: int) -> Text:
        name = self.view.qualname(expr.func)
        args = [self.text(a.value, depth + 1) for a in expr.args if a.keyword is None and not a.star]
        if name in self.path_calls:
            return Text(LOCAL, fragments=_fragments(args))
        if name == "builtins.str" and len(args) == 1:
            return args[0]
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value == "format":
            return Text(UNKNOWN, fragments=_fragments([self.text(func.value, depth + 1), *args]))
        if name in ("os.environ.get", "os.getenv") and len(args) == 2:
            return Text(UNKNOWN, fragments=_fragments(args[1:]))
        return Text(UNKNOWN)

    # ---- argparse options and dataclass fields of this module ---------------------------
    def declares_option(self, name: str) -> bool:
        """Whether this module declares a command-line option ``name`` (an ``argparse``
        destination or an absl flag), with a default or not: ``option_defaults`` holds only
        the options that have one."""
        if self._declared is None:
            names = set()
            for call in self.view.module_calls():
                if isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument":
                    dest = argparse_dest(call)
                    if dest:
                        names.add(dest)
                elif self.view.qualname_starting(call.func, _ABSL_DEFINE) is not None:
                    flag, _ = _absl_flag(call)
                    if flag:
                        names.add(flag)
            self._declared = frozenset(names)
        return name in self._declared

    def option_defaults(self) -> Dict[str, Text]:
        """The default of each command-line option and dataclass field of the module, by
        name (one default where all its declarations agree)."""
        if self._defaults is None:
            # a default that reads another option (``ply: Path = data / (data.name + ".ply")``)
            # asks for the defaults while they are being gathered: it sees none of them
            self._defaults = {}
            found: Dict[str, List[Text]] = {}
            for call in self.view.module_calls():
                if isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument":
                    dest = argparse_dest(call)
                    default = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "default"), None)
                    if dest and default is not None:
                        found.setdefault(dest, []).append(self.text(default, 1))
                elif self.view.qualname_starting(call.func, _ABSL_DEFINE) is not None:
                    flag, default = _absl_flag(call)
                    if flag and default is not None:
                        found.setdefault(flag, []).append(self.text(default, 1))
            for stmt in self.ctx.module.body:
                if isinstance(stmt, cst.ClassDef) and _is_dataclass(stmt, self.view):
                    for attribute, values in _class_assignments(stmt).items():
                        for value in values:
                            found.setdefault(attribute, []).append(self.text(_field_default(value, self.view), 1))
            self._defaults = {k: v[0] for k, v in found.items() if len(set(v)) == 1}
        return self._defaults


def _absl_flag(call: cst.Call) -> Tuple[Optional[str], Optional[cst.BaseExpression]]:
    """``flags.DEFINE_string("name", default, ...)``: the flag's name and default."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    name_node = keywords.get("name", positional[0] if positional else None)
    default = keywords.get("default", positional[1] if len(positional) > 1 else None)
    name = name_node.evaluated_value if isinstance(name_node, cst.SimpleString) else None
    return (name if isinstance(name, str) else None), default


def argparse_dest(call: cst.Call) -> Optional[str]:
    """The attribute an ``add_argument`` call stores its option under (``dest=``, else the
    first long flag, else the first flag, dashes made underscores)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dest" and isinstance(arg.value, cst.SimpleString):
            value = arg.value.evaluated_value
            return value if isinstance(value, str) else None
    values = [a.value.evaluated_value for a in call.args if a.keyword is None and isinstance(a.value, cst.SimpleString)]
    flags = [f for f in values if isinstance(f, str)]
    long = [f for f in flags if f.startswith("--")]
    chosen = long[0][2:] if long else (flags[0].lstrip("-") if flags else "")
    return chosen.replace("-", "_") or None


def _class_assignments(klass: cst.ClassDef) -> Dict[str, List[cst.BaseExpression]]:
    out: Dict[str, List[cst.BaseExpression]] = {}
    body = klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ()
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
                out.setdefault(small.target.value, []).append(small.value)
            elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                out.setdefault(small.targets[0].target.value, []).append(small.value)
    return out


def _is_dataclass(klass: cst.ClassDef, view: ModuleView) -> bool:
    for decorator in klass.decorators:
        target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        if view.qualname(target) in ("dataclasses.dataclass", "pydantic.dataclasses.dataclass", "attr.s", "attrs.define"):
            return True
    return False


def _field_default(value: cst.BaseExpression, view: ModuleView) -> Optional[cst.BaseExpression]:
    """``field(default="x")`` → ``"x"``; a plain default is itself."""
    if isinstance(value, cst.Call) and view.qualname(value.func) in ("dataclasses.field", "pydantic.Field", "attr.ib", "attrs.field"):
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value == "default":
                return arg.value
        return None
    return value


def config_defaults(module: cst.Module, view: ModuleView, builders: Iterable[str]) -> Dict[str, Optional[str]]:
    """``{attribute: text}`` for ``config.attribute = "text"`` (or ``None``) where ``config``
    was bound in the same scope to a call of one of ``builders`` (``ml_collections.ConfigDict``):
    the defaults a configuration file gives.  An attribute set to two values is dropped."""
    wanted = frozenset(builders)
    found: Dict[str, List[Optional[str]]] = {}
    scopes: List[Union[cst.Module, cst.FunctionDef]] = [module, *_functions(module)]
    for scope in scopes:
        body = scope.body if isinstance(scope, cst.Module) else (scope.body.body if isinstance(scope.body, cst.IndentedBlock) else ())
        configs = set()
        for stmt in body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                    continue
                target = small.targets[0].target
                if isinstance(target, cst.Name) and isinstance(small.value, cst.Call) and view.qualname(small.value.func) in wanted:
                    configs.add(target.value)
                elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value in configs:
                    text = _literal(small.value)
                    if text is not None and _CONSTANT.match(text):
                        found.setdefault(target.attr.value, []).append(text)
                    elif isinstance(small.value, cst.Name) and small.value.value == "None":
                        found.setdefault(target.attr.value, []).append(None)
    return {name: values[0] for name, values in sorted(found.items()) if len(set(values)) == 1}


def _functions(module: cst.Module) -> List[cst.FunctionDef]:
    return [stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)]


def module_constants(module: cst.Module) -> Dict[str, Optional[str]]:
    """Top-level names bound exactly once to a short string (or None): the facts other
    modules' ND303 / ND304 candidates look up when they import the name."""
    seen: Dict[str, int] = {}
    values: Dict[str, Optional[str]] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            targets: List[cst.BaseExpression] = []
            value = None
            if isinstance(small, cst.Assign):
                targets, value = [t.target for t in small.targets], small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets, value = [small.target], small.value
            for target in targets:
                if isinstance(target, cst.Name):
                    seen[target.value] = seen.get(target.value, 0) + 1
                    text = _literal(value)
                    if text is not None and _CONSTANT.match(text):
                        values[target.value] = text
                    elif isinstance(value, cst.Name) and value.value == "None":
                        values[target.value] = None
    return {name: values[name] for name in sorted(values) if seen.get(name) == 1}


def _literal(value: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            text = value.evaluated_value
        except Exception:  # noqa: BLE001 - a malformed literal
            return None
        return text if isinstance(text, str) else None
    return None
