"""Every use of libcst internals, behind a version check, with the public path beside it.

Three speed tricks need more of libcst than its public API gives:

- **Parsing without validation.** Every node checks its fields when it is constructed
  (``CSTNode.__post_init__`` calls ``_validate``). A tree the parser builds from real
  source is valid by construction, and libcst's own comment on ``__post_init__``
  suggests skipping that work when parsing; on timm it is about a tenth of
  ``parse_module``. ``parse_module`` here swaps the hook for a no-op around libcst's
  parse and puts the original back afterwards, exceptions included.
- **Positions of a few nodes.** libcst's ``PositionProvider`` records a range for every
  node of a module (about twice the parse). ``generate`` prints one node with a
  ``CodegenState`` subclass that records the offsets of the asked-for nodes only, and
  ``generate_module`` stops printing the module once they are all known.
- **Code in place.** ``code_in_block`` prints a node with the indentation of the blocks
  around it, as it reads inside them.

These run only on libcst versions whose internals were checked against this module
(``VERIFIED``) and that still have the pieces they use (``FAST``). On any other libcst
the same functions take the public path: ``libcst.parse_module``, positions from
``MetadataWrapper`` and ``PositionProvider``, and ``Module.code_for_node`` on a block
built around the node. Results are the same either way (the tests run both); the
public path is slower.

Thread safety: the validation hook is a class attribute, so while one thread parses
here, nodes another thread of the same process builds are not validated either. Our
own parses take a lock, so two of them never interleave their swaps. nondet-lint is
single-threaded in each process (its workers are processes, and so are flake8's).
"""

from __future__ import annotations

import inspect
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from typing import Callable, ContextManager, Dict, Iterator, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

# libcst releases whose parser, node hook and code generation this module was checked
# against (first and last minor version, both included)
VERIFIED = ((1, 1), (1, 9))

Offsets = Dict[int, Tuple[int, int]]  # id(node) -> (start, end) character offsets
Piece = Tuple[str, Offsets]  # generated text, offsets of the asked-for nodes in it


def _version(text: str) -> Tuple[int, ...]:
    parts = []
    for part in text.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits or digits != part:
            break
        parts.append(int(digits))
    return tuple(parts)


def _installed_version() -> Tuple[int, ...]:
    try:
        return _version(metadata.version("libcst"))
    except metadata.PackageNotFoundError:  # libcst imported from a source tree
        return ()


try:  # the internals the fast path uses; any of them missing means the public path
    from libcst._nodes.internal import CodegenState as _CodegenState

    _FAST_ENOUGH = (
        callable(getattr(cst.CSTNode, "_codegen", None))
        and callable(getattr(cst.CSTNode, "_codegen_impl", None))
        and callable(cst.CSTNode.__dict__.get("__post_init__"))
        and all(hasattr(_CodegenState, name) for name in (
            "indent_tokens", "tokens", "add_indent_tokens", "add_token", "before_codegen",
            "after_codegen", "record_syntactic_position",
        ))
    )
except ImportError:  # pragma: no cover - depends on the libcst installed
    _FAST_ENOUGH = False



def usable(version: Tuple[int, ...]) -> bool:
    """Whether the internals may be used with this libcst version."""
    return _FAST_ENOUGH and VERIFIED[0] <= version[:2] <= VERIFIED[1]


LIBCST_VERSION = _installed_version()
# whether the internals are used: tests set it to False to run the public path
FAST = usable(LIBCST_VERSION)


# ---- parsing ------------------------------------------------------------------------


_PARSE_LOCK = threading.Lock()


def _trusted(self: cst.CSTNode) -> None:
    """Stands in for ``CSTNode.__post_init__`` while libcst's parser builds a tree."""


def parse_module(source: Union[str, bytes]) -> cst.Module:
    """``libcst.parse_module``, without validating each node again on the fast path."""
    if not FAST:
        return cst.parse_module(source)
    with _PARSE_LOCK:
        validating = cst.CSTNode.__dict__["__post_init__"]
        cst.CSTNode.__post_init__ = _trusted  # type: ignore[method-assign]
        try:
            return cst.parse_module(source)
        finally:
            cst.CSTNode.__post_init__ = validating  # type: ignore[method-assign]


# ---- code in place ----------------------------------------------------------------------


def code_for(module: cst.Module, node: cst.CSTNode) -> str:
    """``module.code_for_node(node)``, printed without libcst's per-node position hook on
    the fast path (checks print a node to read words in its code)."""
    if FAST:
        state = _TextState(default_indent=module.default_indent, default_newline=module.default_newline)
        node._codegen(state)
        return "".join(state.tokens)
    return module.code_for_node(node)


def code_in_block(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """The code of ``node`` where the blocks around it are indented by ``indent`` in all
    (its continuation lines carry that indentation); ``indent`` is ``""`` at top level."""
    if FAST:
        state = _TextState(default_indent=module.default_indent, default_newline=module.default_newline)
        if indent:
            state.indent_tokens.append(indent)
        node._codegen(state)
        return "".join(state.tokens)
    if not indent:
        return module.code_for_node(node)
    statement = node if isinstance(node, cst.BaseStatement) else cst.SimpleStatementLine([cst.Expr(node)])  # type: ignore[arg-type]
    block = cst.IndentedBlock(body=[statement], indent=indent)
    code = module.code_for_node(block)[len(module.default_newline):]  # the block's own line break
    if isinstance(node, cst.BaseStatement):  # a statement prints its indentation and line break
        return code
    return code[len(indent): -len(module.default_newline)]


# ---- positions ------------------------------------------------------------------------


class _Done(Exception):
    """Every asked-for node has its range: stop generating code."""


class _NoOp:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NOTHING = _NoOp()


if _FAST_ENOUGH:

    @dataclass(frozen=False)
    class _TextState(_CodegenState):
        """libcst's printer without its position hook: ``record_syntactic_position`` makes
        a generator-based context manager for almost every node, which nothing here reads."""

        def record_syntactic_position(  # type: ignore[override]  # libcst's returns a generator-based one
            self,
            node: cst.CSTNode,
            *,
            start_node: Optional[cst.CSTNode] = None,
            end_node: Optional[cst.CSTNode] = None,
        ) -> "ContextManager[None]":
            return _NOTHING

    @dataclass(frozen=False)
    class _OffsetState(_CodegenState):
        """Counts characters instead of keeping tokens, and records the ranges of targets."""

        targets: Set[int] = field(default_factory=set)
        offset: int = 0
        found: Offsets = field(default_factory=dict)
        starts: Dict[int, int] = field(default_factory=dict)
        remaining: Set[int] = field(default_factory=set)  # asked-for nodes not yet complete

        def add_indent_tokens(self) -> None:
            for token in self.indent_tokens:
                self.offset += len(token)

        def add_token(self, value: str) -> None:
            self.offset += len(value)

        def before_codegen(self, node: cst.CSTNode) -> None:
            if id(node) in self.targets:
                self.starts[id(node)] = self.offset

        def after_codegen(self, node: cst.CSTNode) -> None:
            # nodes without a syntactic range keep the whitespace-inclusive one, as in libcst
            key = id(node)
            if key in self.targets and key not in self.found:
                self.found[key] = (self.starts[key], self.offset)
            if key in self.remaining:
                self.remaining.discard(key)
                if not self.remaining:
                    raise _Done  # the rest of the module cannot move these positions

        def record_syntactic_position(  # type: ignore[override]  # libcst's returns a generator-based one
            self,
            node: cst.CSTNode,
            *,
            start_node: Optional[cst.CSTNode] = None,
            end_node: Optional[cst.CSTNode] = None,
        ) -> "ContextManager[None]":
            # called for almost every node: those not asked about get a shared no-op manager
            # (a generator-based one per node cost about a third of this pass)
            if id(node) not in self.targets:
                return _NOTHING
            return self._recording(node, start_node, end_node)

        @contextmanager
        def _recording(
            self, node: cst.CSTNode, start_node: Optional[cst.CSTNode], end_node: Optional[cst.CSTNode],
        ) -> Iterator[None]:
            # the range may be hoisted from children: make sure they are recorded too
            if start_node is not None:
                self.targets.add(id(start_node))
            if end_node is not None:
                self.targets.add(id(end_node))
            start = self.offset
            yield
            end = self.offset
            if start_node is not None and id(start_node) in self.found:
                start = self.found[id(start_node)][0]
            if end_node is not None and id(end_node) in self.found:
                end = self.found[id(end_node)][1]
            self.found[id(node)] = (start, end)

    @dataclass(frozen=False)
    class _PieceState(_OffsetState):
        """Prints one piece of the module, keeping its text to look it up in the source."""

        def add_indent_tokens(self) -> None:
            for token in self.indent_tokens:
                self.tokens.append(token)
                self.offset += len(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            self.offset += len(value)


def generate(
    module: cst.Module, node: cst.CSTNode, indent: Sequence[str], targets: Set[int], until_found: bool = False,
) -> Optional[Piece]:
    """The code of ``node`` as it is printed inside ``module`` under the indent tokens
    ``indent``, with the offsets in it of the ``targets`` among its nodes; None when
    libcst cannot print the node alone. ``until_found``: stop once every target is
    printed, so the code is only the start of the node's where the targets come early
    (an ``if``'s test, not its body). Fast path only (see ``FAST``)."""
    state = _PieceState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        indent_tokens=list(indent),
        targets=set(targets),
        remaining=set(targets) if until_found else set(),
    )
    try:
        node._codegen(state)
    except _Done:
        pass
    except Exception:  # noqa: BLE001 - a node libcst cannot print alone: try a larger piece
        return None
    return "".join(state.tokens), state.found


def generate_module(module: cst.Module, targets: Set[int]) -> Offsets:
    """Offsets of the ``targets`` in the module's code, printing it only up to the last of
    them. Fast path only (see ``FAST``)."""
    state = _OffsetState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        targets=set(targets),
        remaining=set(targets),
    )
    try:
        module._codegen(state)
    except _Done:
        pass
    return {key: value for key, value in state.found.items() if key in targets}


_ALONE: Dict[type, bool] = {}


def prints_alone(node_type: type) -> bool:
    """Whether nodes of this type print without their parent's help (their code takes
    no default separator or punctuation from it). Fast path only (see ``FAST``)."""
    found = _ALONE.get(node_type)
    if found is None:
        codegen: Callable[..., None] = getattr(node_type, "_codegen_impl")
        found = _ALONE[node_type] = len(inspect.signature(codegen).parameters) == 2
    return found


def metadata_spans(module: cst.Module) -> Dict[int, Tuple[int, int, int, int]]:
    """``{id(node): (line, col, end_line, end_col)}`` for every node, from libcst's public
    ``PositionProvider`` (the module is not copied, so the ids are its nodes')."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {
        id(node): (where.start.line, where.start.column, where.end.line, where.end.column)
        for node, where in positions.items()
    }
