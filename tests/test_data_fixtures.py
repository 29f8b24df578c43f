"""Multi-file projects for the data and environment rules (ND301-ND307, ND401).

Each folder under ``tests/fixtures/data`` is a small project with an ``expected.txt`` of
``relpath:line:col: CODE`` lines (1-based column; ``#`` lines are comments).  Only ND3xx
and ND4xx findings are compared, exactly: every line must be reported and nothing else.
Adding a case means adding files.
"""

from __future__ import annotations

import pytest

from fixture_projects import FIXTURES as ALL_FIXTURES, cases, expected_lines, lint_case

FIXTURES = ALL_FIXTURES / "data"
CASES = cases("data")
SELECT = ["ND3", "ND4"]


@pytest.mark.parametrize("name", CASES)
def test_fixture_project(name, tmp_path):
    case = FIXTURES / name
    assert lint_case(case, tmp_path / name, SELECT) == expected_lines(case)


def test_every_rule_has_a_fixture():
    expected = " ".join((FIXTURES / name / "expected.txt").read_text() for name in CASES)
    for code in ("ND301", "ND302", "ND303", "ND304", "ND305", "ND306", "ND307", "ND401"):
        assert code in expected
