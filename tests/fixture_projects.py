"""Fixture projects: folders under ``tests/fixtures/<family>`` holding a small project,
an ``expected.txt`` of ``relpath:line:col: CODE`` lines (1-based column; ``#`` lines are
comments; empty when nothing may be reported) and, optionally, a ``config.toml`` with a
``[tool.nondet-lint]``-style table.  Adding a case means adding files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List, Sequence

from nondet_lint import _toml
from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run

FIXTURES = Path(__file__).parent / "fixtures"
SUPPORT_FILES = ("expected.txt", "config.toml")


def cases(family: str) -> List[str]:
    folder = FIXTURES / family
    return sorted(p.name for p in folder.iterdir() if (p / "expected.txt").is_file())


def expected_lines(case: Path) -> List[str]:
    lines = (case / "expected.txt").read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def lint_case(case: Path, root: Path, select: Sequence[str]) -> List[str]:
    """Copy the case to ``root``, lint it with only ``select`` on, return sorted lines."""
    shutil.copytree(case, root, dirs_exist_ok=True)
    table = {}
    if (root / "config.toml").is_file():
        table = _toml.loads((root / "config.toml").read_text(encoding="utf-8"))
    for name in SUPPORT_FILES:
        (root / name).unlink(missing_ok=True)
    config = Config(**parse_table({"select": list(select), **table}, "fixture"), root=str(root))
    findings = run([str(root)], config).findings
    return sorted(
        f"{Path(f.path).relative_to(root).as_posix()}:{f.line}:{f.col + 1}: {f.code}" for f in findings
    )
