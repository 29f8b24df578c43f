"""The seed option of an entry point, for fixes that insert a seed (spec "Fixes never break
a program": an inserted seed uses the program's own seed option where it has one).

A seed sweep (``--seed 1``, ``--seed 2``, ...) must keep varying the run, so a fix that
seeds writes ``torch.manual_seed(args.seed)``, not ``torch.manual_seed(0)``, and puts it
where that value exists:

- argparse: ``add_argument("--seed", ..., default=<not None>)`` and ``NAME =
  parser.parse_args()`` (or ``parse_known_args``, or a module function that returns
  either) as a statement of the main block or of a top-level function: the value is
  ``NAME.seed``, after that statement;
- click / typer / fire / fastai ``call_parse``: a command function with a ``seed``
  parameter whose default is not None (``@click.option("--seed", default=0)`` names it
  too): the value is the parameter, from the start of the function;
- absl: ``flags.DEFINE_integer("seed", <not None>, ...)`` and the function given to
  ``app.run``: the value is ``FLAGS.seed``, from the start of that function.

Only the module itself is read (an option defined in another module is not followed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from nondet_lint.analysis.entrypoints import LAUNCHER_DECORATORS, LAUNCHERS, is_main_guard
from nondet_lint.callargs import ABSENT, find_arg, literal_value
from nondet_lint.context import FileContext
from nondet_lint.names import dotted_name

# option names that hold the run's seed
SEED_NAMES = ("seed", "random_seed", "manual_seed", "rng_seed")
_PARSE_METHODS = ("parse_args", "parse_known_args")
_ABSL_DEFINES = ("absl.flags.DEFINE_integer", "absl.flags.DEFINE_int")
_COMMAND_DECORATORS = ("command", "callback", "main")  # ``@app.command()``, ``@click.command()``


@dataclass(frozen=True)
class SeedOption:
    """Where the seed option's value can be read, and how it is spelled there."""

    value: str  # ``args.seed``, ``seed``, ``FLAGS.seed``
    function: str  # the top-level function whose body holds it; "" for the main block
    body: cst.IndentedBlock  # the block that holds the value from ``after`` on
    after: int  # index in ``body.body`` of the statement that makes it (-1: from the start)
    indent: str  # the indentation of the statements of ``body``


def seed_option(ctx: FileContext) -> Optional[SeedOption]:
    """The entry module's seed option (worked out once per file), or None."""
    if "seed_option" not in ctx.shared:
        ctx.shared["seed_option"] = _find(ctx)
    found = ctx.shared["seed_option"]
    return found if isinstance(found, SeedOption) else None


def seed_value(ctx: Any, node: cst.CSTNode) -> str:
    """What a fix at ``node`` passes as the seed: the seed option's value where ``node``
    runs after it is known, else the configured constant."""
    option = seed_option(ctx)
    if option is not None:
        child, parent = node, ctx.parent(node)
        while parent is not None and parent is not option.body:
            child, parent = parent, ctx.parent(parent)
        if parent is option.body:
            index = next((i for i, stmt in enumerate(option.body.body) if stmt is child), -1)
            if index > option.after:
                return option.value
    return str(ctx.config.seed)


def _find(ctx: Any) -> Optional[SeedOption]:
    module: cst.Module = ctx.module
    functions = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
    return _argparse(ctx, module, functions) or _command(ctx, module, functions) or _absl(ctx, module, functions)


def _indent(module: cst.Module, body: cst.IndentedBlock) -> str:
    return body.indent if body.indent is not None else module.default_indent


def _not_none(node: Optional[cst.BaseExpression], ctx: Any) -> bool:
    if node is None:
        return False
    value = literal_value(node, ctx.qualname)
    return value is not None and value is not ABSENT


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _calls(node: cst.CSTNode) -> List[cst.Call]:
    collector = _Calls()
    node.visit(collector)
    return collector.calls


def _string_args(call: cst.Call) -> List[str]:
    return [
        arg.value.evaluated_value for arg in call.args
        if arg.keyword is None and isinstance(arg.value, cst.SimpleString) and isinstance(arg.value.evaluated_value, str)
    ]


def _option_dest(call: cst.Call) -> Optional[str]:
    """The seed name an ``add_argument`` / ``click.option`` declares, or None."""
    flags = _string_args(call)
    dest = find_arg(call, "dest", None)
    if isinstance(dest, cst.SimpleString) and isinstance(dest.evaluated_value, str):
        name = dest.evaluated_value
    else:
        longs = [f for f in flags if f.startswith("--")]
        name = (longs[0] if longs else flags[0] if flags else "").lstrip("-").replace("-", "_")
    return name if name in SEED_NAMES else None


# ---------------------------------------------------------------- argparse -----------
def _argparse(ctx: Any, module: cst.Module, functions: Dict[str, cst.FunctionDef]) -> Optional[SeedOption]:
    dests = [
        dest for call in _calls(module)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument"
        for dest in [_option_dest(call)] if dest is not None and _not_none(find_arg(call, "default", None), ctx)
    ]
    if not dests:
        return None
    parsers = {name for name, fn in functions.items() if _returns_parsed(fn)}
    for function, body in _main_bodies(module, functions):
        for index, stmt in enumerate(body.body):
            name = _parsed_name(stmt, parsers)
            if name is not None:
                return SeedOption(f"{name}.{dests[0]}", function, body, index, _indent(module, body))
    return None


def _main_bodies(module: cst.Module, functions: Dict[str, cst.FunctionDef]) -> List[Tuple[str, cst.IndentedBlock]]:
    """The main block, then the top-level functions (``main`` first): where options are parsed."""
    bodies = [
        ("", stmt.body) for stmt in module.body
        if isinstance(stmt, cst.If) and is_main_guard(stmt.test) and isinstance(stmt.body, cst.IndentedBlock)
    ]
    ordered = sorted(functions.values(), key=lambda fn: fn.name.value != "main")
    bodies.extend((fn.name.value, fn.body) for fn in ordered if isinstance(fn.body, cst.IndentedBlock))
    return bodies


def _parse_call(node: cst.BaseExpression, parsers: Collection[str]) -> bool:
    """``parser.parse_args(...)`` or a call of a module function that returns one."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.attr.value in _PARSE_METHODS
    return isinstance(func, cst.Name) and func.value in parsers


def _parsed_name(stmt: cst.BaseStatement, parsers: Collection[str]) -> Optional[str]:
    """``args`` for ``args = parser.parse_args()`` / ``args, _ = parser.parse_known_args()``."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if not isinstance(small, (cst.Assign, cst.AnnAssign)) or small.value is None or not _parse_call(small.value, parsers):
        return None
    target: cst.BaseExpression = small.targets[0].target if isinstance(small, cst.Assign) else small.target
    if isinstance(target, cst.Tuple) and target.elements:
        target = target.elements[0].value
    return target.value if isinstance(target, cst.Name) else None


def _returns_parsed(fn: cst.FunctionDef) -> bool:
    """A helper such as ``def get_args(): ...; return parser.parse_args()``."""
    returned = [small.value for small in _smalls(fn) if isinstance(small, cst.Return) and small.value is not None]
    parsed = {_parsed_name(stmt, ()) for stmt in _lines(fn)} - {None}
    return any(
        _parse_call(value, ()) or (isinstance(value, cst.Name) and value.value in parsed) for value in returned
    )


def _lines(fn: cst.FunctionDef) -> List[cst.SimpleStatementLine]:
    body = fn.body
    return [stmt for stmt in body.body if isinstance(stmt, cst.SimpleStatementLine)] if isinstance(body, cst.IndentedBlock) else []


def _smalls(fn: cst.FunctionDef) -> List[cst.BaseSmallStatement]:
    return [small for stmt in _lines(fn) for small in stmt.body]


# ---------------------------------------------------------------- commands -----------
def _launched(ctx: Any, module: cst.Module) -> List[str]:
    """Functions handed to a launcher (``typer.run(main)``, ``app.run(main)``, ``fire.Fire(main)``)."""
    names = []
    for call in _calls(module):
        if ctx.qualname(call.func) in LAUNCHERS:
            first = find_arg(call, None, 0)
            if isinstance(first, cst.Name):
                names.append(first.value)
    return names


def _is_command(ctx: Any, fn: cst.FunctionDef, launched: Sequence[str]) -> bool:
    if fn.name.value in launched:
        return True
    for decorator in fn.decorators:
        target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        name = dotted_name(target) or ""
        if ctx.qualname(target) in LAUNCHER_DECORATORS or name.rsplit(".", 1)[-1] in _COMMAND_DECORATORS:
            return True
    return False


def _start(module: cst.Module, fn: cst.FunctionDef, value: str) -> Optional[SeedOption]:
    body = fn.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    first = body.body[0]
    docstring = (
        isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
    return SeedOption(value, fn.name.value, body, 0 if docstring else -1, _indent(module, body))


def _command(ctx: Any, module: cst.Module, functions: Dict[str, cst.FunctionDef]) -> Optional[SeedOption]:
    launched = _launched(ctx, module)
    for fn in functions.values():
        if not _is_command(ctx, fn, launched):
            continue
        params = {p.name.value: p for p in (*fn.params.params, *fn.params.kwonly_params)}
        for decorator in fn.decorators:
            call = decorator.decorator
            if isinstance(call, cst.Call) and (dotted_name(call.func) or "").endswith("option"):
                dest = _option_dest(call)
                if dest in params and _not_none(find_arg(call, "default", None), ctx):
                    return _start(module, fn, dest)
        for name in SEED_NAMES:
            param = params.get(name)
            if param is None or param.default is None:
                continue
            default: Optional[cst.BaseExpression] = param.default
            if isinstance(default, cst.Call) and (dotted_name(default.func) or "").endswith("Option"):
                default = find_arg(default, "default", 0)  # ``typer.Option(0, ...)``
            if _not_none(default, ctx):
                return _start(module, fn, name)
    return None


# ---------------------------------------------------------------- absl ---------------
def _absl(ctx: Any, module: cst.Module, functions: Dict[str, cst.FunctionDef]) -> Optional[SeedOption]:
    name = None
    for call in _calls(module):
        if ctx.qualname(call.func) in _ABSL_DEFINES:
            flag = _string_args(call)[:1]
            if flag and flag[0] in SEED_NAMES and _not_none(find_arg(call, "default", 1), ctx):
                name = flag[0]
                break
    if name is None:
        return None
    flags = _flags_name(ctx, module)
    for launched in _launched(ctx, module):
        fn = functions.get(launched)
        if fn is not None and flags is not None:
            return _start(module, fn, f"{flags}.{name}")
    return None


def _flags_name(ctx: Any, module: cst.Module) -> Optional[str]:
    """How the module spells ``absl.flags.FLAGS``: a top-level ``FLAGS = flags.FLAGS``, or
    the attribute itself."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and ctx.qualname(small.value) == "absl.flags.FLAGS":
                    target = small.targets[0].target
                    if isinstance(target, cst.Name):
                        return target.value
    spelled = [name for name, target in ctx.imports.aliases.items() if target == "absl.flags"]
    return f"{spelled[0]}.FLAGS" if spelled else None

