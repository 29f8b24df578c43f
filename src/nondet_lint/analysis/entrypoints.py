"""Which modules are entry points: programs that run, as opposed to library code.

An entry point (docs/contract.md) is a module with an ``if __name__ == "__main__":`` block, a module whose
top-level statements do the work (a script), a notebook, a function handed to a launcher
(``absl.app.run(main)``, ``fire.Fire``, fastai ``@call_parse``, ...) or named by the
project's packaging as a console script.  *Test code* (modules pytest or unittest would
collect, and entry points whose main only starts a test runner) is told apart here too:
it is not a training program; so is a *speed benchmark* (a module its name calls a benchmark
whose code reads a clock), a program that does not matter (spec "Programs that matter").  A script is recognised by
top-level loops, or top-level calls that are not the bookkeeping library modules also do
at import (logging setup, warnings filters, registries, ``sys.path`` edits).  Library
modules also fill registries in top-level loops, so a would-be script that another module
of the project imports is library code: the ``Project`` marks it ``imported`` once every
module is indexed (``mark_imported_scripts``).  The folders a module's top-level code
puts on ``sys.path`` are recorded here too (``EntryFacts.path_entries``): the project's
imports look there after the module's own folder.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.check import Check
from nondet_lint.context import FileContext
from nondet_lint.facts import FileFacts, ModuleFact

_SHARED = "entry"  # ``FileContext.shared`` key of this file's ``EntryFacts``

# top-level calls that library modules make at import time: not evidence of a script
_IMPORT_TIME_CALLS = (
    "logging.", "warnings.", "sys.path.", "os.environ.", "atexit.", "register",
    "setattr", "print", "_register", "__all__", "collections.namedtuple", "typing.",
    "dataclasses.", "functools.", "set_verbosity", "get_logger", "getLogger",
)


# how pytest's default ``python_functions`` names a test function: a main block that only
# calls the module's own functions named so runs its self-test
_TEST_FUNCTION_PREFIX = "test"
# calls that start a test runner: a main block made of these is test code
TEST_RUNNERS = frozenset({
    "unittest.main", "tensorflow.test.main", "tensorflow.compat.v1.test.main",
    "absl.testing.absltest.main", "pytest.main", "sys.exit",
})
# calls that run the function they are given (or, given none, the module's ``main``) now
LAUNCHERS = frozenset({
    "absl.app.run", "tensorflow.app.run", "tensorflow.compat.v1.app.run", "fire.Fire",
    "jsonargparse.CLI", "typer.run", "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes",
    "torch_xla.distributed.xla_multiprocessing.spawn", "torch.distributed.elastic.multiprocessing.start_processes",
})
# decorators that make a function the module's program when it runs as a script
LAUNCHER_DECORATORS = frozenset({"fastcore.script.call_parse", "fastai.script.call_parse"})


def is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` in either order."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    has_name = any(isinstance(side, cst.Name) and side.value == "__name__" for side in sides)
    has_main = any(
        isinstance(side, cst.SimpleString) and side.evaluated_value == "__main__" for side in sides
    )
    return has_name and has_main


def _call_name(call: cst.Call) -> str:
    func = call.func
    parts = []
    while isinstance(func, cst.Attribute):
        parts.append(func.attr.value)
        func = func.value
    if isinstance(func, cst.Name):
        parts.append(func.value)
    return ".".join(reversed(parts))


def _is_bookkeeping(call: cst.Call) -> bool:
    name = _call_name(call)
    return any(name.startswith(prefix) or name.endswith(prefix) for prefix in _IMPORT_TIME_CALLS)


@dataclass(frozen=True)
class EntryFacts(ModuleFact):
    """What makes a module an entry point, or test code (``is_entry_point``, ``is_test_code``).

    Pass 1 reads the module alone; the project adds ``imported`` and ``console``.
    """

    key = "entry"

    main_guard: bool = False  # an ``if __name__ == "__main__":`` block
    script: bool = False  # top-level statements that do the work
    notebook: bool = False  # a notebook's code cells run top to bottom (``notebooks`` joins them)
    launcher: bool = False  # a function decorated to run as the program (``@call_parse``)
    test_runner: bool = False  # its main block only starts a test runner
    # what this module imports, to tell scripts from library modules project-wide
    imports: Tuple[str, ...] = ()
    imported: bool = False  # a would-be script another project module imports: library code
    console: Tuple[str, ...] = ()  # its functions the packaging names as console scripts
    speed_benchmark: bool = False  # named a benchmark and reads a clock: it measures speed
    # folders its top-level code puts on ``sys.path``, relative to its own folder
    # (``sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))``: ``..``)
    path_entries: Tuple[str, ...] = ()
    # the functions its main code (the main block, else a script's top-level code) only
    # calls, qualified (``pkg.cli.main`` of ``from pkg.cli import main; main()``): a
    # ``python -m pkg`` shim runs the program of the entry point that runs them
    runs_only: Tuple[str, ...] = ()

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "main_guard": self.main_guard, "script": self.script, "notebook": self.notebook,
            "launcher": self.launcher, "test_runner": self.test_runner, "imports": list(self.imports),
        }
        if self.imported:
            out["imported"] = True
        if self.console:
            out["console"] = list(self.console)
        if self.speed_benchmark:
            out["speed_benchmark"] = True
        if self.path_entries:
            out["path_entries"] = list(self.path_entries)
        if self.runs_only:
            out["runs_only"] = list(self.runs_only)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "EntryFacts":
        return cls(
            bool(data["main_guard"]), bool(data["script"]), bool(data["notebook"]), bool(data["launcher"]),
            bool(data["test_runner"]), tuple(data["imports"]), bool(data.get("imported")),
            tuple(data.get("console", ())), bool(data.get("speed_benchmark")), tuple(data.get("path_entries", ())),
            tuple(data.get("runs_only", ())),
        )


def entry_facts(ctx: FileContext) -> EntryFacts:
    """The file's ``EntryFacts``: read from its top-level statements alone, so checks that
    only matter in entry points can decline other files before the walk."""
    found = ctx.shared.get(_SHARED)
    if isinstance(found, EntryFacts):
        return found
    main_guard = False
    script = False
    test_runner = False
    launcher = False
    own_tests = frozenset(
        stmt.name.value for stmt in ctx.module.body
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith(_TEST_FUNCTION_PREFIX)
        and not _computes_a_default(stmt)
    )
    main_code: List[cst.BaseStatement] = []
    for stmt in ctx.module.body:
        if isinstance(stmt, cst.If) and is_main_guard(stmt.test):
            main_guard = True
            test_runner = _only_starts_tests(stmt, ctx.qualname, own_tests)
            main_code = list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock) else []
        elif isinstance(stmt, cst.FunctionDef) and any(
            ctx.qualname(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) in LAUNCHER_DECORATORS
            for d in stmt.decorators
        ):
            launcher = True
        elif isinstance(stmt, (cst.For, cst.While)):
            script = True
        elif isinstance(stmt, cst.With) and not _with_is_bookkeeping(stmt):
            script = True
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                value = getattr(small, "value", None)
                if isinstance(small, cst.Expr) and isinstance(value, cst.Call) and not _is_bookkeeping(value):
                    script = True
    found = ctx.shared[_SHARED] = EntryFacts(
        main_guard=main_guard,
        script=script,
        notebook=ctx.path.endswith(".ipynb"),
        launcher=launcher,
        test_runner=test_runner,
        imports=tuple(sorted(ctx.imports.imported_modules)),
        path_entries=_path_entries(ctx),
        runs_only=_runs_only(main_code if main_guard else _top_level_code(ctx.module), ctx),
    )
    return found


def _top_level_code(module: cst.Module) -> List[cst.BaseStatement]:
    """A module's top-level statements less its docstring, imports and definitions: what
    it does when run as a script."""
    found: List[cst.BaseStatement] = []
    for index, stmt in enumerate(module.body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(small, (cst.Import, cst.ImportFrom)) or (
                index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)
            )
            for small in stmt.body
        ):
            continue
        found.append(stmt)
    return found


def _runs_only(statements: List[cst.BaseStatement], ctx: FileContext) -> Tuple[str, ...]:
    """The functions ``statements`` do nothing but call (``main()``, ``sys.exit(main())``),
    qualified (a function of the module itself: by its module's name); () where they do
    anything else."""
    own = {stmt.name.value for stmt in ctx.module.body if isinstance(stmt, cst.FunctionDef)}
    found: List[str] = []
    for stmt in statements:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return ()
        for small in stmt.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and ctx.qualname(call.func) in _EXITS and len(call.args) == 1:
                call = call.args[0].value  # ``sys.exit(main())``: the exit status is main's
            if not isinstance(call, cst.Call):
                return ()
            name = ctx.qualname(call.func)
            if name is None and isinstance(call.func, cst.Name) and call.func.value in own:
                name = f"{ctx.module_name}.{call.func.value}" if ctx.module_name else call.func.value
            if name is None or name in _EXITS:
                return ()
            found.append(name)
    return tuple(found)


_EXITS = frozenset({"sys.exit", "builtins.exit", "builtins.quit"})


_PATH_ADDERS = {"sys.path.insert": 1, "sys.path.append": 0}
_FILE = "__file__"  # the module's own file, in the relative paths ``_folder`` computes


def _path_entries(ctx: FileContext) -> Tuple[str, ...]:
    """The folders the module's top-level code (and the blocks of its top-level ``if``
    statements) adds to ``sys.path``, relative to its own folder; literal relative paths
    are relative to the project root, where scripts are started (``root:`` prefix)."""
    statements: List[cst.BaseStatement] = []
    for stmt in ctx.module.body:
        statements.append(stmt)
        if isinstance(stmt, cst.If) and isinstance(stmt.body, cst.IndentedBlock):
            statements.extend(stmt.body.body)
    found: List[str] = []
    for line in statements:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if not isinstance(call, cst.Call):
                continue
            pos = _PATH_ADDERS.get(ctx.qualname(call.func) or "")
            if pos is None or len(call.args) <= pos:
                continue
            folder = _folder(call.args[pos].value, ctx)
            if folder is not None and folder not in found:
                found.append(folder)
    return tuple(found)


def _folder(node: cst.BaseExpression, ctx: FileContext) -> Optional[str]:
    """A path expression built from ``__file__`` (``os.path.dirname``, ``join``,
    ``abspath``, ``pathlib.Path(__file__).parent / "x"``) relative to the module's folder,
    or a literal relative path (``root:`` + the path); None for anything else."""
    if isinstance(node, cst.Name) and node.value == _FILE:
        return _FILE
    if isinstance(node, cst.SimpleString):
        literal = node.evaluated_value
        if isinstance(literal, str) and not os.path.isabs(literal):
            return "root:" + posixpath.normpath(literal)
        return None
    if isinstance(node, cst.Attribute) and node.attr.value == "parent":
        inner = _folder(node.value, ctx)
        return _parent(inner) if inner is not None else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        left, right = _folder(node.left, ctx), node.right
        if left is not None and isinstance(right, cst.SimpleString) and isinstance(right.evaluated_value, str):
            return _join(left, right.evaluated_value)
        return None
    if not isinstance(node, cst.Call):
        return None
    name = ctx.qualname(node.func)
    if name is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("resolve", "absolute"):
        return _folder(node.func.value, ctx)  # ``Path(__file__).resolve()``
    if not node.args:
        return None
    first = _folder(node.args[0].value, ctx)
    if name == "os.path.dirname":
        return _parent(first) if first is not None else None
    if name in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "builtins.str", "pathlib.Path"):
        return first
    if name == "os.path.join" and first is not None:
        for arg in node.args[1:]:
            part = arg.value.evaluated_value if isinstance(arg.value, cst.SimpleString) else None
            if not isinstance(part, str):
                return None
            first = _join(first, part)
        return first
    return None


def _parent(path: str) -> str:
    return _join(path, "..")


def _join(path: str, part: str) -> str:
    """Paths join as text: ``__file__/..`` is the module's folder."""
    prefix = "root:" if path.startswith("root:") else ""
    return prefix + posixpath.normpath(posixpath.join(path[len(prefix):], part))


class EntryPoints(Check):
    """Records the module's ``EntryFacts``, with whether it is a speed benchmark: a module
    whose path below the project root has a word of ``[ND000.data.programs] speed_benchmark_words``
    (``benchmarks/nnx_training.py``, ``amp_benchmark/run_fp32.py``) and whose code calls a
    clock of ``clocks`` (``time.perf_counter``, a ``Timer`` handler).  Either alone is
    not enough: training scripts time their epochs, and a folder of benchmarks may hold
    accuracy benchmarks that never read a clock."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.named_benchmark = named_as_benchmark(ctx)
        programs = ctx.rules["ND000"].data.get("programs", {}) if "ND000" in ctx.rules else {}
        self.clocks = tuple(programs.get("clocks", ())) if self.named_benchmark else ()
        self.times = False

    def visit_Call(self, node: cst.Call) -> None:
        if self.clocks and not self.times:
            name = self.ctx.qualname(node.func)
            self.times = name is not None and (name in self.clocks or name.startswith(tuple(c for c in self.clocks if c.endswith("."))))

    def finish(self) -> None:
        facts = entry_facts(self.ctx)
        if self.times:
            facts = replace(facts, speed_benchmark=True)
        self.ctx.facts.put(facts)


def named_as_benchmark(ctx: FileContext) -> bool:
    """Whether the module's path below the project root has a word of
    ``speed_benchmark_words``: the half of being a speed benchmark that pass 1 knows before
    the walk (the other half, reading a clock, is known after it)."""
    programs = ctx.rules["ND000"].data.get("programs", {}) if "ND000" in ctx.rules else {}
    words = frozenset(programs.get("speed_benchmark_words", ()))
    return bool(words) and any(word in words for word in _path_words(ctx.path, ctx.config.root))


def _path_words(path: str, root: str) -> List[str]:
    """The lower-case words (split at ``_``, ``-``, ``.``) of a path's folders below the
    project root and of its file name."""
    full = os.path.abspath(path)
    base = os.path.abspath(root or ".")
    relative = os.path.relpath(full, base) if full.startswith(base + os.sep) else os.path.basename(full)
    stem = os.path.splitext(relative)[0]
    return [word for part in stem.replace("\\", "/").split("/") for word in re.split(r"[_.\-]+", part.lower()) if word]


def _computes_a_default(function: cst.FunctionDef) -> bool:
    """A parameter default made by a call (``def test_dqn(args=get_args())``): the
    function is run with options, as a program's main is, not as pytest runs a test."""
    params = function.params
    return any(
        isinstance(param.default, cst.Call)
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
    )


def _only_starts_tests(guard: cst.If, qualname: Callable[[cst.BaseExpression], Optional[str]],
                       own_tests: FrozenSet[str]) -> bool:
    """A main block whose every statement starts a test runner (``tf.test.main()``,
    ``sys.exit(pytest.main([...]))``) or runs a test function of the module itself
    (``test_mpi_adam()``: a name pytest collects as a test, called as pytest calls it,
    with no arguments: ``test_dqn(get_args())`` hands it the command line, as a program's
    main is called)."""
    calls = []
    for stmt in guard.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                return False
            calls.append(small.value)
    names = [qualname(call.func) for call in calls]
    if names and names[-1] == "sys.exit" and calls[-1].args and isinstance(calls[-1].args[0].value, cst.Call):
        names[-1] = qualname(calls[-1].args[0].value.func)
    own = [isinstance(call.func, cst.Name) and call.func.value in own_tests and not call.args for call in calls]
    return bool(names) and all(mine or (name in TEST_RUNNERS and name != "sys.exit") for name, mine in zip(names, own))


def _with_is_bookkeeping(stmt: cst.With) -> bool:
    return all(isinstance(item.item, cst.Call) and _is_bookkeeping(item.item) for item in stmt.items)


def is_entry_point(facts: FileFacts) -> bool:
    """Whether a module's facts (``ModuleRecord.facts``) describe an entry point."""
    entry = facts.get(EntryFacts)
    if entry is None:
        return False
    script = entry.script and not entry.imported
    return entry.main_guard or entry.notebook or entry.launcher or bool(entry.console) or script


_TEST_FOLDERS = frozenset({"tests", "test"})


def is_test_module(relpath: str) -> bool:
    """A module pytest or unittest would collect: ``test_*.py``, ``*_test.py``,
    ``conftest.py``, or any file under a ``tests`` / ``test`` folder (``relpath`` is
    relative to the project root)."""
    parts = relpath.replace("\\", "/").split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if stem.startswith("test_") or stem.endswith("_test") or stem == "conftest":
        return True
    return any(part in _TEST_FOLDERS for part in parts[:-1])


def is_test_code(relpath: str, facts: FileFacts) -> bool:
    """Test code (spec "Terms"): a collected test module, or an entry point whose main
    only starts a test runner."""
    entry = facts.get(EntryFacts)
    return is_test_module(relpath) or (entry is not None and entry.test_runner)


def is_speed_benchmark(facts: FileFacts) -> bool:
    """A program that measures speed (``EntryPoints``): it does not matter."""
    entry = facts.get(EntryFacts)
    return entry is not None and entry.speed_benchmark


def imported_names(all_facts: Iterable[FileFacts]) -> Set[str]:
    """Every module name that some module of the project imports."""
    names: Set[str] = set()
    for facts in all_facts:
        entry = facts.get(EntryFacts)
        if entry is not None:
            names.update(entry.imports)
    return names


def mark_imported_scripts(records: Dict[str, FileFacts], module_names: Mapping[str, str]) -> None:
    """Mark would-be scripts that other project modules import as library code.

    ``records`` maps path to facts (updated in place with copies); ``module_names`` maps
    path to dotted module name.  A module answers to every dotted suffix of its name
    (``pkg.layers.act`` is also ``layers.act``), as imports in ML repositories vary.
    """
    imported = imported_names(records.values())
    for path, facts in records.items():
        entry = facts.get(EntryFacts)
        if entry is None or not entry.script or entry.main_guard:
            continue
        parts = module_names[path].split(".")
        if any(".".join(parts[i:]) in imported for i in range(len(parts))):
            records[path] = facts.with_fact(replace(entry, imported=True))
