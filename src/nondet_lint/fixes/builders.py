"""Fix builders for checks: libcst edits that change as little text as possible.

Checks build fixes in pass 1, while they hold the tree; the fix machinery applies them
(non-overlapping fixes per round, re-lint, repeat).  Build replacement text with libcst,
never by string surgery on source text.  Two kinds of builder:

**Expression edits** return ``NodeEdit``s for ``ctx.fix(code, edits)``; the engine turns
them into positioned text edits.  An empty list means "nothing to do" (attach no fix).

- ``add_keyword_argument(ctx, call, "random_state", "0")``: add ``random_state=0`` by
  inserting only the new argument (a call with one argument per line gets a new line
  with the same indentation; comments stay where they are).  ``[]`` when the call
  already passes that keyword: it never duplicates one.  Mind ``**kwargs``: a key it may
  hold would clash at run time; such a fix is at most unsafe.
- ``set_keyword_argument(ctx, call, "shuffle", "False")``: replace the value of a keyword
  argument that is there (``[]`` when it already has that value), else add it.
- ``wrap_in_call(ctx, expr, "sorted")``: ``sorted(<expr>)`` by inserting ``sorted(``
  before and ``)`` after, so the expression's own text is untouched; ``[]`` when the
  name is not the builtin there.
- ``replace_expression(ctx, old, new)``: ``old`` replaced by ``new`` (a node or code),
  rendered in place (continuation lines keep the enclosing block's indentation).
- ``render(ctx, node, at)``: that in-place rendering, for checks that build their own.

**Module edits** return positioned ``types.Edit``s: plain data, usable in
``ctx.fix(code, edits)`` as they are, and storable in facts (``Edit.to_dict()``) when the
decision is taken in pass 2.  ``[]`` means nothing to do (already there, or the code
cannot be placed safely: a name it needs is bound to something else).

- ``insert_after_imports(module, statements, imports)``: insert ``statements`` (code of
  one or more top-level statements, e.g. the seed block) after the module's leading
  imports (after a docstring and ``from __future__`` imports), and after the top-level
  imports that bind the names it uses.  ``imports`` are import statements as code
  (``"import numpy as np"``); those already bound at top level are skipped, the others
  are inserted after the last leading import.  Statements already present at top level
  (compared by their ``ast``) are skipped, and when some are present the missing ones go
  right after them: pass the *whole* block each time, and repeated fixes grow one block
  instead of adding another.
- ``insert_before_import(module, ("torch",), statements, imports)``: insert before the
  first top-level import of any of ``modules`` (``os.environ[...]`` that must be set
  before ``torch`` is imported); after the imports when the module imports none.
- ``name_for(module, "numpy.random.seed")``: how to spell a qualified name in this module:
  ``("np.random.seed", None)`` when ``import numpy as np`` is there, else
  ``("numpy.random.seed", "import numpy")``; None when the root name is taken.

Each of these reads the module's top level (``TopLevel``: bindings, statements, their
lines).  A check that builds several edits for one file passes ``top=top_level(ctx)`` so
that this is worked out once per file.

**Deferred findings** (decided in pass 2): pass ``fix=ctx.fix(...)`` to ``ctx.defer``; the
engine positions it and ``resolve`` gets it back as ``deferred.fix`` to put on the
``Finding``.  A fix for a finding in one file that edits another (the seed block goes in
the entry point, the finding is in a library module) gives each such edit that file's
path: ``dataclasses.replace(edit, path=record.path)``.
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint import libcst_shim
from nondet_lint.context import FileContext, NodeEdit
from nondet_lint.names import BUILTIN_NAMES, dotted_name
from nondet_lint.types import Edit
from nondet_lint.walk import children

__all__ = [
    "add_keyword_argument",
    "insert_after_imports",
    "insert_before_import",
    "name_for",
    "render",
    "replace_expression",
    "set_keyword_argument",
    "top_level",
    "wrap_in_call",
]


# ---- expression edits -------------------------------------------------------------


def indentation(ctx: FileContext, node: cst.CSTNode) -> str:
    """The indentation of the block that holds ``node`` (what ``indent=True`` means)."""
    tokens: List[str] = []
    parent = ctx.parent(node)
    while parent is not None:
        if isinstance(parent, cst.IndentedBlock):
            tokens.append(parent.indent if parent.indent is not None else ctx.module.default_indent)
        parent = ctx.parent(parent)
    return "".join(reversed(tokens))


def render(ctx: FileContext, node: cst.CSTNode, at: Optional[cst.CSTNode] = None) -> str:
    """Code of ``node`` as it reads in place of ``at`` (default: ``node``): continuation
    lines carry the enclosing blocks' indentation; an expression's own parentheses are
    left out, because a node's span (what an edit replaces) excludes them."""
    if isinstance(node, cst.BaseExpression) and (getattr(node, "lpar", None) or getattr(node, "rpar", None)):
        node = node.with_changes(lpar=(), rpar=())
    return libcst_shim.code_in_block(ctx.module, node, indentation(ctx, at if at is not None else node))


def replace_expression(ctx: FileContext, old: cst.BaseExpression, new: Union[str, cst.BaseExpression]) -> NodeEdit:
    """Replace ``old`` by ``new`` (a node, or code parsed as an expression)."""
    node = cst.parse_expression(new) if isinstance(new, str) else new
    return NodeEdit(old, render(ctx, node, at=old))


def _keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def _same_code(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a.strip(), mode="eval")) == ast.dump(ast.parse(b.strip(), mode="eval"))
    except SyntaxError:
        return False


def _new_keyword(name: str, value_code: str) -> cst.Arg:
    return cst.Arg(
        value=cst.parse_expression(value_code),
        keyword=cst.Name(name),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )


def _bare_generator(arg: cst.Arg) -> bool:
    return isinstance(arg.value, cst.GeneratorExp) and not arg.value.lpar


def add_keyword_argument(ctx: FileContext, call: cst.Call, name: str, value_code: str) -> List[NodeEdit]:
    """Edits that add ``name=value_code`` to ``call``; ``[]`` when it already has ``name``."""
    if _keyword(call, name) is not None:
        return []
    new_arg = _new_keyword(name, value_code)
    args = call.args
    if not args or (len(args) == 1 and _bare_generator(args[0])):
        # ``f()`` has no node between its parentheses to anchor on, and ``f(x for x in y)``
        # needs its generator parenthesized: render the call (libcst keeps the rest).
        fixed = [a.with_changes(value=a.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])) if _bare_generator(a) else a for a in args]
        if fixed:
            fixed[-1] = fixed[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return [replace_expression(ctx, call, call.with_changes(args=[*fixed, new_arg]))]
    text = f"{name}={ctx.module.code_for_node(new_arg.value)}"
    last = args[-1]
    before_last = args[-2].comma if len(args) > 1 else None
    separator = before_last.whitespace_after if isinstance(before_last, cst.Comma) else call.whitespace_before_args
    if isinstance(separator, cst.ParenthesizedWhitespace):  # one argument per line
        indent = (indentation(ctx, call) if separator.indent else "") + separator.last_line.value
        newline = ctx.module.default_newline
        after = last.comma.whitespace_after if isinstance(last.comma, cst.Comma) else last.whitespace_after_arg
        if isinstance(after, cst.ParenthesizedWhitespace):
            # a new line before the closing parenthesis; the last argument's comment stays
            comma = "," if isinstance(last.comma, cst.Comma) else ""
            edits = [NodeEdit(after.first_line, f"{indent}{text}{comma}{newline}", "after")]
            if not comma:
                edits.insert(0, NodeEdit(last, ",", "after"))
            return edits
    return [NodeEdit(last, f", {text}", "after")]


def set_keyword_argument(ctx: FileContext, call: cst.Call, name: str, value_code: str) -> List[NodeEdit]:
    """Edits that make ``call`` pass ``name=value_code`` (replacing another value)."""
    arg = _keyword(call, name)
    if arg is None:
        return add_keyword_argument(ctx, call, name, value_code)
    if _same_code(ctx.module.code_for_node(arg.value.with_changes(lpar=(), rpar=())), value_code):
        return []
    return [replace_expression(ctx, arg.value, value_code)]


def wrap_in_call(ctx: FileContext, expr: cst.CSTNode, func: str = "sorted") -> List[NodeEdit]:
    """Edits that turn ``expr`` into ``func(expr)``, leaving the text of ``expr`` alone."""
    if func in BUILTIN_NAMES and (
        ctx.qualname(cst.Name(func)) != f"builtins.{func}" or top_level(ctx).first_binding(func) is not None
    ):
        return []  # ``sorted`` is rebound here: calling it would not sort
    if isinstance(expr, cst.Tuple) and not expr.lpar:
        return [NodeEdit(expr, f"{func}((", "before"), NodeEdit(expr, "))", "after")]
    return [NodeEdit(expr, f"{func}(", "before"), NodeEdit(expr, ")", "after")]


# ---- module edits -----------------------------------------------------------------


def _line_breaks(text: str) -> int:
    """Line breaks as the engine counts them (``\\r\\n``, ``\\n`` or a lone ``\\r``)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _inner_statements(stmt: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Small statements that run with a statement: descending into ``if`` / ``try`` /
    loops, not into the bodies of functions and classes."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from node.body
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        for attr in ("body", "orelse", "finalbody", "handlers"):
            part = getattr(node, attr, None)
            if part is None:
                continue
            if isinstance(part, (list, tuple)):
                stack.extend(part)
            elif isinstance(part, cst.IndentedBlock):
                stack.extend(part.body)
            else:
                stack.append(part)


def _import_bindings(node: cst.CSTNode) -> List[Tuple[str, Optional[str]]]:
    """(name bound, what it is) for an import statement; relative imports bind unknowns."""
    out: List[Tuple[str, Optional[str]]] = []
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                out.append((alias.asname.name.value, full))
            else:
                root = full.split(".")[0]
                out.append((root, root))
    elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
        base = dotted_name(node.module) if node.module is not None else ""
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            bound = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound = alias.asname.name.value
            out.append((bound, None if node.relative else f"{base}.{name}"))
    return out


def _assigned_names(node: cst.CSTNode) -> List[str]:
    targets: List[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        targets = [node.target]
    names: List[str] = []
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            names.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(e.value for e in target.elements)
    return names


def _is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_import_statement(stmt: cst.CSTNode) -> bool:
    """An import line, or a ``try`` / ``if`` that only imports (with fallbacks)."""
    inner = list(_inner_statements(stmt))
    if not any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in inner):
        return False
    if isinstance(stmt, cst.SimpleStatementLine):
        return all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in inner)
    return isinstance(stmt, (cst.Try, cst.If)) and all(
        isinstance(s, (cst.Import, cst.ImportFrom, cst.Pass, cst.Assign, cst.Expr)) for s in inner
    )


_E402_KEYWORDS = (cst.If, cst.Try, cst.With)


def _e402_neutral(stmt: cst.CSTNode) -> bool:
    """A top-level statement after which pycodestyle still accepts imports: ``if`` /
    ``try`` / ``with`` blocks (conditional imports) and dunder assignments (``__all__``)."""
    if isinstance(stmt, _E402_KEYWORDS):
        return True
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], (cst.Assign, cst.AnnAssign)):
        names = _assigned_names(stmt.body[0])
        return bool(names) and all(n.startswith("__") and n.endswith("__") for n in names)
    return False


STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}


@lru_cache(maxsize=64)
def first_party_modules(root: str) -> FrozenSet[str]:
    """The top-level names isort and ruff count as first-party by default: folders and
    ``.py`` files directly in the project root or its ``src/`` (ruff's default ``src``)."""
    found: Set[str] = set()
    for folder in (root, os.path.join(root, "src")):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name[:-3] if entry.name.endswith(".py") else entry.name
            if name.isidentifier() and not name.startswith(".") and (entry.is_dir() or entry.name.endswith(".py")):
                found.add(name)
    return frozenset(found)


def _import_sort_key(small: cst.CSTNode, first_party: FrozenSet[str] = frozenset()) -> Optional[Tuple[int, int, str]]:
    """Where isort / ruff put an import: (section, ``from`` after ``import``, module in
    lower case); sections: ``__future__``, standard library, third party, first party
    (the project's own top-level packages).  None for relative imports (local: they go
    last and are never our neighbours)."""
    if isinstance(small, cst.Import):
        name, kind = dotted_name(small.names[0].name) or "", 0
    elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
        name, kind = dotted_name(small.module) or "", 1
    else:
        return None
    root = name.split(".")[0]
    section = 0 if root == "__future__" else 1 if root in STDLIB else 3 if root in first_party else 2
    return section, kind, name.lower()


def _import_runs(top: "TopLevel") -> List[List[Tuple[int, Tuple[int, int, str]]]]:
    """The leading import lines in runs (isort sections as the file writes them: a blank
    line or a comment starts a new one), each line with its sort key."""
    runs: List[List[Tuple[int, Tuple[int, int, str]]]] = []
    for index in range(top.imports_end + 1):
        stmt = top.module.body[index]
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            runs.append([])
            continue
        key = _import_sort_key(stmt.body[0], top.first_party)
        if key is None:
            runs.append([])
            continue
        if not runs or stmt.leading_lines:
            runs.append([])
        runs[-1].append((index, key))
    return [run for run in runs if run]


def _own_line(top: "TopLevel", index: int) -> int:
    """The line where top-level statement ``index`` itself starts (after its leading
    blank lines and comments)."""
    return top.start_line(index) + len(top.module.body[index].leading_lines)


def _import_edit(top: "TopLevel", code: str) -> Edit:
    """An edit inserting import line ``code`` where isort would put it among the leading
    imports: in the run of its section, in order; else as a run of its own between the
    sections around it."""
    newline = top.module.default_newline
    statement = cst.parse_statement(code)
    if not isinstance(statement, cst.SimpleStatementLine):
        raise ValueError(f"not an import line: {code!r}")
    key = _import_sort_key(statement.body[0], top.first_party)
    runs = _import_runs(top)
    if key is None or not runs:
        return _insertion(top, top.header_end, code + newline)
    section = key[0]
    same = next((run for run in runs if all(k[0] == section for _, k in run)), None)
    if same is None:
        same = next((run for run in runs if any(k[0] == section for _, k in run)), None)
    if same is not None:
        later = next((index for index, k in same if k > key), None)
        if later is not None:
            line = _own_line(top, later)
            return Edit(line, 0, line, 0, code + newline)
        return _insertion(top, same[-1][0], code + newline)
    after = next((run for run in runs if run[0][1][0] > section), None)
    if after is not None:
        line = _own_line(top, after[0][0])
        return Edit(line, 0, line, 0, code + newline + newline)
    return _insertion(top, runs[-1][-1][0], newline + code + newline)


def _statement_key(code: str) -> Optional[str]:
    try:
        tree = ast.parse(textwrap.dedent(code).strip())
    except SyntaxError:
        return None
    return ast.dump(tree)


def _used_names(stmt: cst.CSTNode) -> Set[str]:
    """Root names a statement reads (``torch`` in ``torch.manual_seed(SEED)``, and ``SEED``)."""

    class Collector(cst.CSTVisitor):
        def __init__(self) -> None:
            self.names: Set[str] = set()

        def visit_Name(self, node: cst.Name) -> None:
            self.names.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

    collector = Collector()
    stmt.visit(collector)
    return collector.names


def top_level(ctx: FileContext) -> "TopLevel":
    """The file's ``TopLevel``, built once per file: checks that build several module
    edits (one per framework option, say) pass it as ``top=`` to share its work."""
    found = ctx.shared.get("top_level")
    if found is None:
        first_party = first_party_modules(os.path.abspath(ctx.config.root)) | {ctx.module_name.split(".")[0]}
        found = ctx.shared["top_level"] = TopLevel(ctx.module, first_party=frozenset(first_party))
    return found


@dataclass
class TopLevel:
    """What the top level of a module binds and holds, by statement index."""

    module: cst.Module
    first_party: FrozenSet[str] = frozenset()  # the project's top-level packages (an import section of their own)
    bindings: Dict[str, List[Tuple[int, Optional[str]]]] = field(default_factory=dict)
    header_end: int = -1  # last statement of the leading docstring / imports
    # last top-level import line that flake8's E402 accepts: code inserted before it would
    # make it (and the imports between) "module level import not at top of file"
    imports_end: int = -1

    def __post_init__(self) -> None:
        # id(small statement) -> (the statement, its ``ast`` key), rendered when first compared
        self._keys: Dict[int, Tuple[cst.BaseSmallStatement, Optional[str]]] = {}
        self._starts: List[int] = []  # start lines of the first statements, as far as asked
        body = self.module.body
        leading = True
        # pycodestyle's E402 state: a statement that is not an import ran; the first string
        # literal it meets counts as the docstring wherever it stands (imports may follow it)
        code_seen = docstring_seen = False
        for index, stmt in enumerate(body):
            if leading and ((index == 0 and _is_docstring(stmt)) or _is_import_statement(stmt)):
                self.header_end = index
            else:
                leading = False
            if isinstance(stmt, cst.SimpleStatementLine) and _is_import_statement(stmt):
                if not code_seen:
                    self.imports_end = index
            elif _is_docstring(stmt) and not docstring_seen:
                docstring_seen = True
            elif not _e402_neutral(stmt):
                code_seen = True
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self._bind(stmt.name.value, index, None)
            for small in _inner_statements(stmt):
                for name, target in _import_bindings(small):
                    self._bind(name, index, target)
                for name in _assigned_names(small):
                    self._bind(name, index, None)

    def last_index_of(self, stmt: cst.BaseStatement, key: str) -> Optional[int]:
        """The last top-level index holding a simple statement equal to ``stmt`` (``key``
        is its ``ast``), or None.  Only statements of the same kind that start with the
        same name are rendered and compared: rendering every top-level statement (a
        module's big constant tables among them) cost more than the rest of a fix."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        kind = type(stmt.body[0])
        first = _first_name(stmt.body[0])
        found = None
        for index, small in self._smalls_of_kind(kind):
            if _first_name(small) != first:
                continue  # statements with equal ``ast`` have the same names in the same order
            cached = self._keys.get(id(small))
            if cached is None:
                cached = self._keys[id(small)] = (small, _statement_key(self.module.code_for_node(small)))
            if cached[1] == key:
                found = index
        return found

    def _smalls_of_kind(self, kind: type) -> Iterable[Tuple[int, cst.BaseSmallStatement]]:
        for index, stmt in enumerate(self.module.body):
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if type(small) is kind:
                        yield index, small

    def start_line(self, index: int) -> int:
        """1-based line where top-level statement ``index`` starts (its leading comments
        included); ``len(body)`` is the line after the last.  Statements are rendered once,
        and only as far as asked."""
        starts, module = self._starts, self.module
        if not starts:
            starts.append(1 + sum(_line_breaks(module.code_for_node(h)) for h in module.header))
        while len(starts) <= index:
            starts.append(starts[-1] + _line_breaks(module.code_for_node(module.body[len(starts) - 1])))
        return starts[index]

    def _bind(self, name: str, index: int, target: Optional[str]) -> None:
        self.bindings.setdefault(name, []).append((index, target))

    def first_binding(self, name: str, before: Optional[int] = None) -> Optional[Tuple[int, Set[Optional[str]]]]:
        """The first statement binding ``name`` (before ``before``) and what it binds it to
        there (several: ``try: import x`` / ``except ImportError: x = None``)."""
        indexes = [i for i, _ in self.bindings.get(name, ()) if before is None or i < before]
        if not indexes:
            return None
        first = min(indexes)
        return first, {t for i, t in self.bindings[name] if i == first}


@dataclass
class _Block:
    """Statements and imports to insert, parsed and compared with what is there."""

    missing: List[cst.BaseStatement]
    present_at: int  # last index of a block statement already there, or -1
    imports: List[str]  # import statements to add (code)
    needs: Dict[str, int]  # name used -> index of the top-level statement binding it


def _first_name(node: cst.CSTNode) -> Optional[str]:
    """The first name in a statement (``os`` in ``os.environ["X"] = "1"``), or None."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            return current.value
        stack.extend(reversed(children(current)))
    return None


@lru_cache(maxsize=256)
def _block_statements(statements: str) -> Tuple[Tuple[cst.BaseStatement, Optional[str]], ...]:
    """The statements of a block to insert, each with its ``ast`` key.  The same few
    blocks (seed blocks, switches) are placed in file after file: parsed once per run."""
    parsed = cst.parse_module(textwrap.dedent(statements).strip("\n") + "\n")
    return tuple((stmt, _statement_key(parsed.code_for_node(stmt))) for stmt in parsed.body)


def _plan_block(top: TopLevel, statements: str, imports: Sequence[str], before: Optional[int] = None) -> Optional[_Block]:
    """None when the block cannot be placed (a name it uses is unbound or taken)."""
    missing, present_at = [], -1
    used: Set[str] = set()
    bound_inside: Set[str] = set()
    for stmt, key in _block_statements(statements):
        index = top.last_index_of(stmt, key) if key is not None else None
        if index is not None and (before is None or index < before):
            present_at = max(present_at, index)
            continue
        if index is not None:  # there, but too late to help: still never duplicate it
            continue
        missing.append(stmt)
        used |= _used_names(stmt) - bound_inside
        for small in _inner_statements(stmt):
            bound_inside.update(_assigned_names(small))
    to_add: List[str] = []
    provided: Set[str] = set()
    for code in imports:
        line = cst.parse_statement(textwrap.dedent(code).strip())
        new = False
        for name, target in [b for small in _inner_statements(line) for b in _import_bindings(small)]:
            found = top.first_binding(name, before)
            if found is None:
                new = True
            elif target not in found[1]:
                return None  # the name means something else here
            provided.add(name)
        if new:
            to_add.append(textwrap.dedent(code).strip())
    needs: Dict[str, int] = {}
    for name in used:
        found = top.first_binding(name, before)
        if found is not None:
            needs[name] = found[0]
        elif name not in provided and name not in BUILTIN_NAMES:
            return None  # the block would raise NameError
    return _Block(missing, present_at, to_add, needs)


def _insertion(top: TopLevel, after: int, text: str) -> Edit:
    """An edit inserting whole lines ``text`` after top-level statement ``after`` (-1: at
    the top, below the header comments such as a shebang and a coding cookie)."""
    module = top.module
    last = len(module.body) - 1
    if after >= last and not module.has_trailing_newline and module.body:
        # the file ends without a line break: add one, then the text
        code = module.code
        end_line = 1 + _line_breaks(code)
        end_col = len(code) - (max(code.rfind("\n"), code.rfind("\r")) + 1)
        return Edit(end_line, end_col, end_line, end_col, module.default_newline + text.rstrip("\r\n"))
    line = top.start_line(after + 1)
    return Edit(line, 0, line, 0, text)


def _starts_with_blank(stmt: Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]) -> bool:
    lines = stmt.leading_lines
    return bool(lines) and lines[0].comment is None


def _code(module: cst.Module, stmts: Sequence[cst.BaseStatement]) -> str:
    return "".join(module.code_for_node(s.with_changes(leading_lines=())) for s in stmts)


def insert_after_imports(
    module: cst.Module, statements: str, imports: Sequence[str] = (), top: Optional[TopLevel] = None,
    after: int = -1,
) -> List[Edit]:
    """Edits inserting ``statements`` after the leading imports (see the module docs).
    ``top``: the module's ``TopLevel`` when the caller holds it (``top_level(ctx)``).
    ``after``: a top-level statement the block must follow (a switch it depends on)."""
    top = top or TopLevel(module)
    block = _plan_block(top, statements, imports)
    if block is None or (not block.missing and not block.imports):
        return []
    newline = module.default_newline
    # after every import flake8 accepts at the top: none of them may follow code (E402)
    anchor = max([top.header_end, top.imports_end, block.present_at, after, *block.needs.values()])
    continuing = block.present_at >= 0 and anchor == block.present_at
    body_text = _code(module, block.missing)
    following = module.body[anchor + 1] if anchor + 1 < len(module.body) else None
    blank_after = following is not None and not continuing and not _starts_with_blank(following)
    if top.imports_end < 0:  # no imports to sort among: imports, a blank line, the block
        after_docstring = top.header_end >= 0 and _is_docstring(module.body[top.header_end])
        imports_text = "".join(code + newline for code in block.imports)
        if imports_text and after_docstring:
            imports_text = newline + imports_text
        if anchor == top.header_end:
            text = imports_text
            if body_text:
                if text or anchor >= 0:
                    text += newline
                text += body_text + (newline if blank_after else "")
            return [_insertion(top, anchor, text)]
        edits = []
        if imports_text:
            first = module.body[top.header_end + 1]
            gap = newline if top.header_end < 0 and not _starts_with_blank(first) else ""
            edits.append(_insertion(top, top.header_end, imports_text + gap))
    else:  # each import where isort puts it, so the import block stays sorted
        edits = [_import_edit(top, code) for code in block.imports]
    if body_text:
        lead = "" if continuing else newline
        edits.append(_insertion(top, anchor, lead + body_text + (newline if blank_after else "")))
    return _merged(edits)


def insert_in_block(
    module: cst.Module, body: cst.IndentedBlock, after: int, statements: Sequence[str], imports: Sequence[str],
    spans: Dict[int, Tuple[int, int, int, int]], top: Optional[TopLevel] = None,
) -> List[Edit]:
    """Edits inserting ``statements`` (one line each) into a function or main block: after
    its statement ``after`` (-1: before its first statement), with its indentation; the
    ``imports`` they need go among the module's imports, sorted.  ``spans`` holds the
    position of that statement (``positions.node_spans``).  ``[]`` when an import's name
    is bound to something else."""
    top = top or TopLevel(module)
    indent = body.indent if body.indent is not None else module.default_indent
    newline = module.default_newline
    anchor = body.body[after] if after >= 0 else body.body[0]
    span = spans.get(id(anchor))
    if span is None:
        return []
    line, col, end_line, end_col = span
    if after >= 0:
        if after == len(body.body) - 1 and not module.has_trailing_newline:
            return []  # the block ends the file without a line break
        at = end_line if end_col == 0 else end_line + 1
    else:
        at = line
    prefix = ("\t" if "\t" in indent else " ") * col  # the block's statements start at ``col``
    text = "".join(prefix + statement + newline for statement in statements)
    edits = []
    for code in imports:
        line_node = cst.parse_statement(textwrap.dedent(code).strip())
        new = False
        for name, target in [b for small in _inner_statements(line_node) for b in _import_bindings(small)]:
            found = top.first_binding(name)
            if found is None:
                new = True
            elif target not in found[1]:
                return []
        if new:
            edits.append(_import_edit(top, textwrap.dedent(code).strip()))
    edits.append(Edit(at, 0, at, 0, text))
    return _merged(edits)


def merged_edits(edits: List[Edit]) -> List[Edit]:
    """Insertions of several builders at the same place made one, in order."""
    return _merged(sorted(edits, key=lambda e: (e.line, e.col)))


def _merged(edits: List[Edit]) -> List[Edit]:
    """Insertions at the same place made one, in order (a fix's edits must not overlap)."""
    out: List[Edit] = []
    for edit in edits:
        same = next((i for i, e in enumerate(out) if (e.line, e.col, e.end_line, e.end_col) == (edit.line, edit.col, edit.end_line, edit.end_col)), None)
        if same is None:
            out.append(edit)
        else:
            out[same] = Edit(edit.line, edit.col, edit.end_line, edit.end_col, out[same].content + edit.content)
    return out


def _imports_module(stmt: cst.CSTNode, modules: Sequence[str]) -> bool:
    for small in _inner_statements(stmt):
        names: List[str] = []
        if isinstance(small, cst.Import):
            names = [dotted_name(alias.name) or "" for alias in small.names]
        elif isinstance(small, cst.ImportFrom) and not small.relative and small.module is not None:
            names = [dotted_name(small.module) or ""]
        if any(n == m or n.startswith(m + ".") for n in names for m in modules):
            return True
    return False


def insert_before_import(
    module: cst.Module, modules: Sequence[str], statements: str, imports: Sequence[str] = (),
    top: Optional[TopLevel] = None,
) -> List[Edit]:
    """Edits inserting ``statements`` (and the ``imports`` they need that are not bound
    before that point) right before the first top-level import of any of ``modules``."""
    first = next((i for i, stmt in enumerate(module.body) if _imports_module(stmt, modules)), None)
    if first is None:
        return insert_after_imports(module, statements, imports, top)
    top = top or TopLevel(module)
    block = _plan_block(top, statements, imports, before=first)
    if block is None or not block.missing:
        return []
    newline = module.default_newline
    text = "".join(code + newline for code in block.imports) + _code(module, block.missing)
    if first > 0 and _is_docstring(module.body[first - 1]) and not _starts_with_blank(module.body[first]):
        text = newline + text
    return [_insertion(top, first - 1, text)]


def name_for(
    module: cst.Module, qualified: str, import_module: Optional[str] = None, top: Optional[TopLevel] = None,
) -> Optional[Tuple[str, Optional[str]]]:
    """``(spelling, import code or None)`` for a qualified name in ``module``.

    Uses what a top-level import already binds (the longest match); otherwise spells the
    full name and asks for ``import <import_module or the top package>``.  None when that
    root name is bound to something else."""
    top = top or TopLevel(module)
    best: Optional[Tuple[int, str]] = None
    for name, bindings in top.bindings.items():
        for _, target in bindings:
            if target and (qualified == target or qualified.startswith(target + ".")):
                if best is None or len(target) > best[0]:
                    best = (len(target), name + qualified[len(target):])
    if best is not None:
        return best[1], None
    package = import_module or qualified.split(".")[0]
    root = package.split(".")[0]
    if top.first_binding(root) is not None:
        return None
    return qualified, f"import {package}"
