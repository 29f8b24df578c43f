"""Multi-file projects for the seeding rules (ND101-ND110), one folder per case.

Each folder under ``tests/fixtures/seeding`` is a small project: its ``.py`` files, an
``expected.txt`` of ``relpath:line:col: CODE`` lines (1-based column; empty when nothing
may be reported) and, optionally, a ``config.toml`` holding a ``[tool.nondet-lint]``-style
table.  Only ND1xx findings are compared, exactly.  Adding a case means adding files.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List

import pytest

from nondet_lint import _toml
from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run

FIXTURES = Path(__file__).parent / "fixtures" / "seeding"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.txt").is_file())


def expected_lines(case: Path) -> List[str]:
    lines = (case / "expected.txt").read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def lint_case(case: Path, root: Path) -> List[str]:
    shutil.copytree(case, root, dirs_exist_ok=True)
    table = {}
    if (root / "config.toml").is_file():
        table = _toml.loads((root / "config.toml").read_text(encoding="utf-8"))
    config = Config(**parse_table({"select": ["ND1"], **table}, "fixture"), root=str(root))
    findings = run([str(root)], config).findings
    return sorted(
        f"{Path(f.path).relative_to(root).as_posix()}:{f.line}:{f.col + 1}: {f.code}" for f in findings
    )


@pytest.mark.parametrize("name", CASES)
def test_fixture_project(name, tmp_path):
    case = FIXTURES / name
    assert lint_case(case, tmp_path / name) == expected_lines(case)


def test_there_are_fixture_projects():
    assert len(CASES) >= 10
