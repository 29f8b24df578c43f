"""``--diff``: what ``--fix`` would write, as a unified diff, and nothing written.

Lines are split the way the engine counts them (``\\r\\n``, ``\\n``, lone ``\\r``; not at
form feeds), and every line keeps its own line break, so the diff shows exactly the
bytes ``--fix`` writes (``tests/test_fix_cli.py`` applies it and compares).  A last line
without a line break is marked as ``diff`` and ``patch`` expect.
"""

from __future__ import annotations

import difflib
from typing import Iterable, List

from nondet_lint import notebooks
from nondet_lint.fixes.apply import line_starts
from nondet_lint.source import SourceError, decode_source

NO_NEWLINE = "\\ No newline at end of file\n"


def split_lines(text: str) -> List[str]:
    starts = line_starts(text)
    bounds = [*starts, len(text)] if starts[-1] != len(text) else starts
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def as_text(path: str, raw: bytes) -> str:
    """The decoded contents a diff shows (a notebook's JSON as it is)."""
    if path.endswith(notebooks.SUFFIX):
        return raw.decode("utf-8-sig", errors="replace")
    try:
        return decode_source(raw, path).text
    except SourceError:
        return raw.decode("utf-8", errors="replace")


def _terminated(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        if line.endswith(("\n", "\r")):
            yield line
        else:
            yield line + "\n" + NO_NEWLINE


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(split_lines(before), split_lines(after), fromfile=path, tofile=path)
    out = []
    for line in lines:
        if line.startswith(("---", "+++")) and not line.endswith("\n"):
            line += "\n"
        out.append(line)
    return "".join(_terminated(out))
