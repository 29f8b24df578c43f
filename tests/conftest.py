"""Shared helpers: write a small project to a temporary folder and lint it."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import pytest

from nondet_lint.cli import main
from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run
from nondet_lint.types import Finding


def write_project(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def lint_files(root: Path, files: Mapping[str, str], config: Optional[Mapping] = None, paths: Sequence[str] = ()) -> List[Finding]:
    write_project(root, files)
    values = parse_table(dict(config or {}), "test")
    cfg = Config(**values, root=str(root))
    targets = [str(root / p) for p in paths] or [str(root)]
    return run(targets, cfg).findings


def codes_at(findings: Sequence[Finding]) -> List[Tuple[str, int, int]]:
    return [(f.code, f.line, f.col + 1) for f in findings]


def run_cli(args: Sequence[str]) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def lint(tmp_path):
    def _lint(files: Mapping[str, str], config: Optional[Mapping] = None, paths: Sequence[str] = ()) -> List[Finding]:
        return lint_files(tmp_path, files, config, paths)

    return _lint
