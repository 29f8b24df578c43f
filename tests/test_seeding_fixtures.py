"""Multi-file projects for the seeding rules (ND101-ND110), one folder per case.

Each folder under ``tests/fixtures/seeding`` is a small project: its ``.py`` files, an
``expected.txt`` of ``relpath:line:col: CODE`` lines (1-based column; empty when nothing
may be reported) and, optionally, a ``config.toml`` holding a ``[tool.nondet-lint]``-style
table.  Only ND1xx findings are compared, exactly.  Adding a case means adding files.
"""

from __future__ import annotations

import pytest

from fixture_projects import FIXTURES as ALL_FIXTURES, cases, expected_lines, lint_case

FIXTURES = ALL_FIXTURES / "seeding"
CASES = cases("seeding")
SELECT = ["ND1"]


@pytest.mark.parametrize("name", CASES)
def test_fixture_project(name, tmp_path):
    case = FIXTURES / name
    assert lint_case(case, tmp_path / name, SELECT) == expected_lines(case)


def test_there_are_fixture_projects():
    assert len(CASES) >= 10
