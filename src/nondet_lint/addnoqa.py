"""``--add-noqa``: suppress every current finding with a ``# noqa: CODE`` on its line.

The comment goes where ``suppression`` reads it: at the end of the finding's line (in a
notebook, the line of its cell; requirement, TOML and YAML files take ``#`` comments
too).  A line that already has ``# noqa: CODES`` gets the new codes added to that list;
a bare ``# noqa`` already suppresses everything.  Running it twice changes nothing the
second time: the findings are suppressed by then.  A Python line whose end lies inside
a multi-line string cannot hold a comment and is reported instead.  ND000 (a file that
cannot be read or parsed) is never suppressed, so it gets no comment.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Optional, Sequence, Set, TextIO, Tuple

from nondet_lint import notebooks
from nondet_lint.fixes.writer import WriteError, write_atomically
from nondet_lint.source import BOM, SourceError, decode_source
from nondet_lint.suppression import FILE_NOQA, LINE_NOQA, noqa_codes
from nondet_lint.types import Edit, Finding

# (cell or None, line) -> codes to add
Wanted = Dict[Tuple[Optional[int], int], Set[str]]


def with_noqa(line: str, codes: Set[str]) -> str:
    """``line`` (without its line break) with ``codes`` in its ``# noqa`` comment."""
    match = None if FILE_NOQA.search(line) else LINE_NOQA.search(line)
    if match is None:
        body = line.rstrip()
        return f"{body}  # noqa: {', '.join(sorted(codes))}"
    if not match.group("codes"):
        return line  # a bare noqa suppresses every code already
    present = [code for code in re.split(r"[\s,]+", match.group("codes").strip()) if code]
    covered = noqa_codes(match.group("codes"))
    new = [code for code in sorted(codes) if not any(code.startswith(prefix) for prefix in covered)]
    if not new:
        return line
    start = match.start("codes")
    return line[:start] + ", ".join(present + new) + line[match.end("codes"):]


def string_lines(text: str) -> Set[int]:
    """Lines of Python source whose end is inside a multi-line string (no comment fits)."""
    inside: Set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                inside.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return inside


def _edit_lines(text: str, wanted: Wanted, protected: Set[int]) -> Tuple[str, int, List[int]]:
    """The text with the comments added, how many lines changed, and the lines skipped."""
    lines = text.splitlines(keepends=True)
    changed, skipped = 0, []
    for (_, number), codes in sorted(wanted.items(), key=lambda kv: kv[0][1]):
        if not 0 < number <= len(lines):
            continue
        if number in protected:
            skipped.append(number)
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        updated = with_noqa(body, codes)
        if updated != body:
            lines[number - 1] = updated + line[len(body):]
            changed += 1
    return "".join(lines), changed, skipped


def _notebook(raw: bytes, wanted: Wanted) -> Tuple[bytes, int]:
    document = notebooks.load_notebook(raw)
    cells = {number: notebooks.cell_text(cell).split("\n") for number, _, cell in notebooks.code_cells(document)}
    edits = []
    for (cell, number), codes in wanted.items():
        lines = cells.get(cell or 0, [])
        if not 0 < number <= len(lines):
            continue
        updated = with_noqa(lines[number - 1], codes)
        if updated != lines[number - 1]:
            edits.append(Edit(number, 0, number, len(lines[number - 1]), updated, cell=cell))
    return (notebooks.apply_cell_edits(raw, edits) if edits else raw), len(edits)


def add_noqa_to_file(path: str, wanted: Wanted) -> Tuple[bytes, bytes, int, List[int]]:
    """Original bytes, new bytes, comments added and lines skipped for one file."""
    with open(path, "rb") as handle:
        raw = handle.read()
    if path.endswith(notebooks.SUFFIX):
        new, count = _notebook(raw, wanted)
        return raw, new, count, []
    source = decode_source(raw, path)
    protected = string_lines(source.text) if path.endswith(".py") else set()
    text, count, skipped = _edit_lines(source.text, wanted, protected)
    return raw, (BOM if source.bom else b"") + text.encode(source.encoding), count, skipped


def add_noqa(findings: Sequence[Finding], err: TextIO) -> int:
    """Add the comments, say how many on standard error; exit 1 when a file was not written."""
    by_path: Dict[str, Wanted] = {}
    for finding in findings:
        if finding.code != "ND000":
            by_path.setdefault(finding.path, {}).setdefault((finding.cell, finding.line), set()).add(finding.code)
    added, files, failed = 0, 0, False
    for path, wanted in sorted(by_path.items()):
        try:
            raw, new, count, skipped = add_noqa_to_file(path, wanted)
            for line in skipped:
                err.write(f"nondet-lint: {path}:{line}: no noqa added: the line ends inside a multi-line string\n")
            if new != raw:
                write_atomically(path, raw, new)
        except (OSError, SourceError, notebooks.NotebookError, WriteError, ValueError) as exc:
            err.write(f"nondet-lint: {path}: no noqa added: {exc}\n")
            failed = True
            continue
        if count:
            added += count
            files += 1
    directives = "1 noqa directive" if added == 1 else f"{added} noqa directives"
    err.write(f"nondet-lint: added {directives} to {files} file{'' if files == 1 else 's'}\n")
    return 1 if failed else 0
