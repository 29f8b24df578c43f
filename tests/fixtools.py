"""Helpers for the fix tests: run the fix loop on a small project, apply a unified diff."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run
from nondet_lint.fixes.apply import line_starts
from nondet_lint.fixes.loop import FixOutcome, FixSession

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def config_for(root: Path, table: Optional[Mapping] = None) -> Config:
    return Config(**parse_table(dict(table or {}), "test"), root=str(root))


def write_bytes(root: Path, files: Mapping[str, bytes]) -> None:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def source_bytes(source: str) -> bytes:
    return (textwrap.dedent(source).lstrip("\n")).encode("utf-8")


def fix_project(root: Path, table: Optional[Mapping] = None, unsafe: bool = False) -> Tuple[FixOutcome, FixSession]:
    """The fix loop over every file under ``root`` (in memory: nothing is written)."""
    config = config_for(root, table)
    session = FixSession(run([str(root)], config), config, unsafe=unsafe)
    return session.fix(), session


def lines_of(text: str) -> List[str]:
    starts = line_starts(text)
    bounds = [*starts, len(text)] if starts[-1] != len(text) else starts
    return [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def apply_unified_diff(original: str, diff: str) -> Dict[str, str]:
    """Apply a unified diff of one or more files, all to ``original``; {path: result}."""
    results: Dict[str, str] = {}
    diff_lines = lines_of(diff)
    index = 0
    while index < len(diff_lines):
        line = diff_lines[index]
        if not line.startswith("--- "):
            index += 1
            continue
        path = diff_lines[index + 1][4:].rstrip("\r\n")
        index += 2
        source = lines_of(original)
        out: List[str] = []
        cursor = 0
        while index < len(diff_lines) and diff_lines[index].startswith("@@"):
            match = HUNK.match(diff_lines[index])
            assert match, diff_lines[index]
            start = int(match.group(1)) - (0 if match.group(2) == "0" else 1)
            out.extend(source[cursor:start])
            cursor = start
            index += 1
            kind = ""
            while index < len(diff_lines) and diff_lines[index][:1] in (" ", "-", "+", "\\"):
                body = diff_lines[index]
                if body.startswith("\\"):
                    if kind in (" ", "+"):  # the line just written has no line break
                        out[-1] = out[-1].rstrip("\r\n")
                elif body.startswith(" "):
                    out.append(source[cursor])
                    cursor += 1
                elif body.startswith("-"):
                    cursor += 1
                else:
                    out.append(body[1:])
                kind = body[:1]
                index += 1
        out.extend(source[cursor:])
        results[path] = "".join(out)
    return results
