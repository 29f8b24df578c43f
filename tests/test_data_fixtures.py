"""Multi-file projects for the data and environment rules (ND301-ND307, ND401).

Each folder under ``tests/fixtures/data`` is a small project with an ``expected.txt`` of
``relpath:line:col: CODE`` lines (1-based column; ``#`` lines are comments).  Only ND3xx
and ND4xx findings are compared, exactly: every line must be reported and nothing else.
Adding a case means adding files.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List

import pytest

from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run

FIXTURES = Path(__file__).parent / "fixtures" / "data"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.txt").is_file())


def expected_lines(case: Path) -> List[str]:
    lines = (case / "expected.txt").read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def lint_case(case: Path, root: Path) -> List[str]:
    shutil.copytree(case, root, dirs_exist_ok=True)
    (root / "expected.txt").unlink()
    config = Config(**parse_table({"select": ["ND3", "ND4"]}, "fixture"), root=str(root))
    findings = run([str(root)], config).findings
    return sorted(f"{Path(f.path).relative_to(root).as_posix()}:{f.line}:{f.col + 1}: {f.code}" for f in findings)


@pytest.mark.parametrize("name", CASES)
def test_fixture_project(name, tmp_path):
    case = FIXTURES / name
    assert lint_case(case, tmp_path / name) == expected_lines(case)


def test_every_rule_has_a_fixture():
    expected = " ".join((FIXTURES / name / "expected.txt").read_text() for name in CASES)
    for code in ("ND301", "ND302", "ND303", "ND304", "ND305", "ND306", "ND307", "ND401"):
        assert code in expected
