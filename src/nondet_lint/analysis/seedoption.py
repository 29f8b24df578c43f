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
  ``app.run``: the value is ``FLAGS.seed``, from the start of that function;
- a config object: ``cfg = Config()`` / ``tyro.cli(Config)`` / ``simple_parsing.parse(Config)``
  / ``HfArgumentParser((..., TrainingArguments)).parse_args_into_dataclasses()``, where the
  class has a seed field whose default is not None: the value is ``cfg.seed``, after that
  statement; an ``ml_collections`` config file flag
  (``config_flags.DEFINE_config_file("config", "configs/default.py")``) whose file sets
  ``config.seed``: the value is ``FLAGS.config.seed`` in the function given to ``app.run``.

Options are read from the module itself.  A config class imported from another project
module, or a config file, is another module's fact: the option then ``needs`` it
(``ConfigNeed``), and pass 2 uses the option only where that module has the seed field
(``config_seeds`` records what a module offers).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Collection, Dict, List, Mapping, Optional, Sequence, Set, Tuple

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
    needs: Optional["ConfigNeed"] = None  # another module's fact the value relies on


@dataclass(frozen=True)
class ConfigNeed:
    """The seed field another module must offer for ``SeedOption.value`` to exist: the
    class ``name`` of the module ``module`` (a dotted name), or, for a config file, the
    module at ``path`` (``name`` is ""); ``field`` is the attribute the value reads."""

    module: str
    path: str
    name: str
    field: str

    def to_json(self) -> Dict[str, str]:
        return {"module": self.module, "path": self.path, "name": self.name, "field": self.field}

    @classmethod
    def from_json(cls, data: Mapping[str, str]) -> "ConfigNeed":
        return cls(data.get("module", ""), data.get("path", ""), data.get("name", ""), data.get("field", ""))


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
    if option is not None and option.needs is None:
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
    return (
        _argparse(ctx, module, functions) or _command(ctx, module, functions) or _absl(ctx, module, functions)
        or _config_object(ctx, module, functions) or _config_file(ctx, module, functions)
    )


def _indent(module: cst.Module, body: cst.IndentedBlock) -> str:
    return body.indent if body.indent is not None else module.default_indent


def _not_none(node: Optional[cst.BaseExpression], ctx: Any) -> bool:
    if node is None:
        return False
    value = literal_value(node, ctx.qualname)
    return value is not None and value is not ABSENT


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
        dest for call in ctx.module_calls()
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
    for call in ctx.module_calls():
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


def _start(module: cst.Module, fn: cst.FunctionDef, value: str, needs: Optional["ConfigNeed"] = None) -> Optional[SeedOption]:
    body = fn.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    first = body.body[0]
    docstring = (
        isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
    return SeedOption(value, fn.name.value, body, 0 if docstring else -1, _indent(module, body), needs)


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
    for call in ctx.module_calls():
        if ctx.qualname(call.func) in _ABSL_DEFINES:
            flag = find_arg(call, "name", 0)  # ``DEFINE_integer("seed", 0, ...)`` or ``name="seed"``
            if (
                isinstance(flag, cst.SimpleString) and flag.evaluated_value in SEED_NAMES
                and _not_none(find_arg(call, "default", 1), ctx)
            ):
                name = str(flag.evaluated_value)
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



# ---------------------------------------------------------------- config objects -----
def _config_data(ctx: Any) -> Mapping[str, Any]:
    """ND106's table of config builders (rule data: decorators, parsers, library classes)."""
    if "ND106" not in ctx.rules:
        return {}
    config: Mapping[str, Any] = ctx.rules["ND106"].data.get("config", {})
    return config


def config_seeds(ctx: Any) -> Dict[str, str]:
    """The seed fields this module offers to other modules' options: config class name ->
    its seed field (a default that is not None), and ``""`` -> ``seed`` for an
    ``ml_collections`` config file that sets ``config.seed``."""
    data = _config_data(ctx)
    module: cst.Module = ctx.module
    out = {name: field for name, (field, _) in _local_classes(ctx, module, data).items()}
    dict_classes = set(data.get("dict_classes", ()))
    made = set()
    for node in ctx.module_assigns():
        target = node.targets[0].target
        if isinstance(node.value, cst.Call) and ctx.qualname(node.value.func) in dict_classes and isinstance(target, cst.Name):
            made.add(target.value)
        elif (
            isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value in made
            and target.attr.value in SEED_NAMES and _not_none(node.value, ctx)
        ):
            out.setdefault("", target.attr.value)
    return out


def _local_classes(ctx: Any, module: cst.Module, data: Mapping[str, Any]) -> Dict[str, Tuple[str, bool]]:
    """Config classes of the module: name -> (seed field, whether its default is known not
    to be None).  A decorated dataclass whose seed field has a literal default."""
    decorators = set(data.get("decorators", ()))
    out: Dict[str, Tuple[str, bool]] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.ClassDef) or not any(
            ctx.qualname(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) in decorators
            for d in stmt.decorators
        ):
            continue
        for line in stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ():
            small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and line.body else None
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.target.value in SEED_NAMES:
                default = small.value
                if isinstance(default, cst.Call) and (dotted_name(default.func) or "").rsplit(".", 1)[-1] == "field":
                    default = find_arg(default, "default", None)  # ``field(default=42)``
                if _not_none(default, ctx):
                    out[stmt.name.value] = (small.target.value, True)
                break
    return out


def _config_class(ctx: Any, node: Optional[cst.BaseExpression], local: Mapping[str, Tuple[str, bool]],
                  data: Mapping[str, Any]) -> Optional[Tuple[str, Optional[ConfigNeed]]]:
    """The seed field of the config class ``node`` names, and what it needs from another
    module (None: known here)."""
    if isinstance(node, cst.Name) and node.value in local:
        return local[node.value][0], None
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return None
    qualname = ctx.qualname(node)
    if qualname is None:
        return None
    library = data.get("library_classes", {})
    if qualname in library:
        return str(library[qualname]), None
    module, _, name = qualname.rpartition(".")
    if not module or module == ctx.module_name or module.split(".")[0] in _library_roots(ctx, data):
        return None
    return "seed", ConfigNeed(module, "", name, "seed")  # a project module's class: pass 2 checks it


def _library_roots(ctx: Any, data: Mapping[str, Any]) -> Set[str]:
    names = [*data.get("parsers", ()), *data.get("parser_classes", ()), *data.get("library_classes", {}), *data.get("dict_classes", ())]
    return {name.split(".")[0] for name in names} | {"dataclasses", "argparse", "typing"}


def _config_object(ctx: Any, module: cst.Module, functions: Dict[str, cst.FunctionDef]) -> Optional[SeedOption]:
    data = _config_data(ctx)
    if not data:
        return None
    local = _local_classes(ctx, module, data)
    for function, body in _main_bodies(module, functions):
        parsers: Dict[str, List[Optional[cst.BaseExpression]]] = {}  # ``parser = HfArgumentParser((A, B))``
        for index, stmt in enumerate(body.body):
            made = _config_made(ctx, stmt, local, data, parsers)
            if made is not None:
                name, field, needs = made
                return SeedOption(f"{name}.{field}", function, body, index, _indent(module, body), needs)
    return None


def _config_made(ctx: Any, stmt: cst.BaseStatement, local: Mapping[str, Tuple[str, bool]], data: Mapping[str, Any],
                 parsers: Dict[str, List[Optional[cst.BaseExpression]]]) -> Optional[Tuple[str, str, Optional[ConfigNeed]]]:
    """``(name, field, needs)`` when ``stmt`` makes a config object with a seed field: a
    plain assignment, or an ``if``/``else`` whose branches both end making it."""
    if isinstance(stmt, cst.If) and isinstance(stmt.orelse, cst.Else):
        ends = [branch.body[-1] for branch in (stmt.body, stmt.orelse.body) if isinstance(branch, cst.IndentedBlock) and branch.body]
        made = [_config_made(ctx, end, local, data, parsers) for end in ends]
        return made[0] if len(made) == 2 and made[0] is not None and made[0] == made[1] else None
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return None
    assign = stmt.body[0]
    target, value = assign.targets[0].target, assign.value
    if not isinstance(value, cst.Call):
        return None
    called = ctx.qualname(value.func)
    if isinstance(target, cst.Name) and called in data.get("parser_classes", ()):
        first = find_arg(value, "dataclass_types", 0)
        parsers[target.value] = [e.value for e in first.elements] if isinstance(first, (cst.Tuple, cst.List)) else [first]
        return None
    if (
        isinstance(value.func, cst.Attribute) and isinstance(value.func.value, cst.Name)
        and value.func.value.value in parsers and value.func.attr.value in data.get("parser_methods", ())
        and isinstance(target, (cst.Tuple, cst.List))
    ):
        classes = parsers[value.func.value.value]
        for element, cls in zip(target.elements, classes):
            seed = _config_class(ctx, cls, local, data)
            if seed is not None and isinstance(element.value, cst.Name):
                return element.value.value, seed[0], seed[1]
        return None
    if not isinstance(target, cst.Name):
        return None
    if called in data.get("parsers", ()):
        cls = find_arg(value, "config_class", 0)
    else:
        # constructed here: a class of this module or of a library; another project
        # module's class counts only when a parser makes it (any class can be called)
        field = _config_class(ctx, value.func, local, data)
        if field is None or field[1] is not None or _passes_none(value, field[0]):
            return None
        cls = value.func
    found = _config_class(ctx, cls, local, data)
    return (target.value, found[0], found[1]) if found is not None else None


def _passes_none(call: cst.Call, field: str) -> bool:
    """``Config(seed=None)``: the object is made without a seed."""
    value = find_arg(call, field, None)
    return isinstance(value, cst.Name) and value.value == "None"


def _config_file(ctx: Any, module: cst.Module, functions: Dict[str, cst.FunctionDef]) -> Optional[SeedOption]:
    """``config_flags.DEFINE_config_file("config", "configs/default.py")`` and the function
    given to ``app.run``: ``FLAGS.config.seed``, if the file (a project module, relative to
    this one's folder as the examples run it) sets ``config.seed``."""
    data = _config_data(ctx)
    flags_defines = set(data.get("file_flags", ()))
    for call in ctx.module_calls():
        if ctx.qualname(call.func) not in flags_defines:
            continue
        flag = _string_args(call)[:1]
        default = find_arg(call, "default", 1)
        if not flag or not isinstance(default, cst.SimpleString) or not isinstance(default.evaluated_value, str):
            continue
        config_path = default.evaluated_value.split(":", 1)[0]  # ``file.py:override``
        path = os.path.normpath(os.path.join(os.path.dirname(ctx.path), config_path))
        flags = _flags_name(ctx, module)
        for launched in _launched(ctx, module):
            fn = functions.get(launched)
            if fn is not None and flags is not None:
                return _start(module, fn, f"{flags}.{flag[0]}.seed", ConfigNeed("", path, "", "seed"))
    return None
