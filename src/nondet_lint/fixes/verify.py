"""Fixed contents, checked before anyone sees them.

A fixed Python file must parse (with libcst, and with the running Python's own parser
when the original did), must encode in the file's encoding, and must keep its coding
cookie meaning the same codec; its BOM and newline style are kept (inserted text takes
the file's newlines).  A notebook keeps its JSON layout (``notebooks.apply_cell_edits``)
and its code must still parse.  Anything else is a ``FixError``: the fix is dropped.
"""

from __future__ import annotations

import ast
import codecs
import io
import tokenize
import warnings
from typing import Sequence

import libcst as cst

from nondet_lint import notebooks
from nondet_lint.fixes.apply import apply_text_edits
from nondet_lint.source import BOM, SourceError, SourceFile, decode_source
from nondet_lint.types import Edit


class FixError(Exception):
    """Why a fix cannot be applied (one line, for the report)."""


def encode_source(source: SourceFile, text: str) -> bytes:
    """``text`` in the file's encoding, with its BOM."""
    try:
        body = text.encode(source.encoding)
    except UnicodeEncodeError as exc:
        raise FixError(f"the fixed text cannot be encoded as {source.encoding} ({text[exc.start]!r})") from None
    return (BOM if source.bom else b"") + body


def _codec(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return name


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def check_python(before: SourceFile, text: str, raw: bytes) -> None:
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        reason = str(getattr(exc, "message", exc)).strip().splitlines()
        raise FixError(f"the fixed code would not parse ({reason[0] if reason else 'syntax error'})") from None
    if _compiles(before.text) and not _compiles(text):
        raise FixError("the fixed code would not compile")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:
        raise FixError("the fix would break the coding declaration") from None
    if _codec("utf-8" if encoding == "utf-8-sig" else encoding) != _codec(before.encoding):
        raise FixError("the fix would change the file's coding declaration")


def fixed_python(path: str, raw: bytes, edits: Sequence[Edit]) -> bytes:
    try:
        source = decode_source(raw, path)
    except SourceError as exc:
        raise FixError(f"cannot read: {exc.reason}") from None
    if encode_source(source, source.text) != raw:
        raise FixError(f"the file would not be written back the same in {source.encoding}")
    try:
        text = apply_text_edits(source.text, edits, source.newline)
    except ValueError as exc:
        raise FixError(f"an edit does not fit the file: {exc}") from None
    new = encode_source(source, text)
    check_python(source, text, new)
    return new


def fixed_notebook(raw: bytes, edits: Sequence[Edit]) -> bytes:
    try:
        before = notebooks.build_program(raw)
        new = notebooks.apply_cell_edits(raw, edits)
        after = notebooks.build_program(new)
    except (ValueError, notebooks.NotebookError) as exc:
        raise FixError(f"an edit does not fit the notebook: {exc}") from None
    if _parses(before.text) and not _parses(after.text):
        raise FixError("the fixed notebook code would not parse")
    return new


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return False
    return _compiles(text)


def fixed_bytes(path: str, raw: bytes, edits: Sequence[Edit]) -> bytes:
    """The contents of ``path`` (now ``raw``) with ``edits`` applied and checked."""
    if path.endswith(notebooks.SUFFIX):
        return fixed_notebook(raw, edits)
    return fixed_python(path, raw, edits)
