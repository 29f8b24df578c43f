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


def test_findings_do_not_depend_on_the_order_programs_run(tmp_path, monkeypatch):
    """A sampling script and two training scripts share an unseeded draw in library code:
    whichever program runs first, the draw is charged to a training program (the first by
    path), with the same message."""
    import itertools
    import os
    from pathlib import Path

    from nondet_lint.config import Config, parse_table
    from nondet_lint.engine import run
    from nondet_lint.families.seeding.program import Program

    root = tmp_path / "project"
    lint_case(FIXTURES / "order_independent", root, SELECT)
    config = Config(**parse_table({"select": SELECT}, "fixture"), root=str(root))
    results = set()
    for order in itertools.permutations(["sample.py", "train.py", "finetune.py"]):
        def visit_order(self, order=order):
            assert sorted(os.path.basename(path) for path in self.entry_paths) == sorted(order)
            return sorted(self.entry_paths, key=lambda path: order.index(os.path.basename(path)))

        monkeypatch.setattr(Program, "visit_order", visit_order)
        findings = run([str(root)], config).findings
        results.add(tuple(sorted((Path(f.path).name, f.line, f.col + 1, f.code, f.message) for f in findings)))
    assert results == {(
        ("lib.py", 5, 20, "ND102",
         "NumPy global RNG used here with no `np.random.seed` before it (entry point finetune.py never seeds it)"),
    )}


def test_a_program_that_restores_its_weights_is_judged_on_its_other_draws(tmp_path):
    """The sampling script's layer is overwritten by the restore; its noise is not, and the
    message counts only that draw."""
    from pathlib import Path

    from nondet_lint.config import Config, parse_table
    from nondet_lint.engine import run

    root = tmp_path / "project"
    lint_case(FIXTURES / "weights_restored", root, SELECT)
    config = Config(**parse_table({"select": SELECT}, "fixture"), root=str(root))
    found = [(Path(f.path).name, f.line, f.col + 1, f.message) for f in run([str(root)], config).findings if f.path.endswith("sample.py")]
    assert found == [("sample.py", 9, 17, "PyTorch global RNG used here with no `torch.manual_seed` before it (this program never seeds it)")]


def test_an_option_default_answers_only_programs_that_load_its_declaration(tmp_path, monkeypatch):
    """`--seed` (default None) is declared in a module that recommend.py loads and detect.py
    does not: whichever program runs first (and leaves its memos of seed_everything), only
    recommend.py's run reads None, and detect.py's seeds are taken as given."""
    import os
    from pathlib import Path

    from nondet_lint.config import Config, parse_table
    from nondet_lint.engine import run
    from nondet_lint.families.seeding.program import Program

    root = tmp_path / "project"
    lint_case(FIXTURES / "option_default_other_program", root, SELECT)
    config = Config(**parse_table({"select": SELECT}, "fixture"), root=str(root))
    results = set()
    for order in (["recommend.py", "detect.py"], ["detect.py", "recommend.py"]):
        def visit_order(self, order=order):
            return sorted(self.entry_paths, key=lambda path: order.index(os.path.basename(path)))

        monkeypatch.setattr(Program, "visit_order", visit_order)
        findings = run([str(root)], config).findings
        results.add(tuple(sorted((Path(f.path).name, f.line, f.col + 1, f.code, f.message) for f in findings)))
    none = "`--seed` defaults to None"
    assert results == {(
        ("recommend.py", 11, 8, "ND106", f"the seeding under this condition does not run by default ({none}), "
                                         "so the run people launch is unseeded; give the option a constant default"),
        ("recommend.py", 13, 13, "ND104", "PyTorch global RNG used here with no `torch.manual_seed` before it (this program "
                                          f"seeds it only when an option is set: {none} (recommend.py:11)); 1 more unseeded use in this module"),
        ("recommend.py", 16, 38, "ND102", f"NumPy global RNG used here with no `np.random.seed` before it (this program seeds it with None: {none})"),
        ("seeding.py", 5, 5, "ND107", f"this seed call is given None by default ({none}): it seeds from OS entropy, so it covers nothing; "
                                      "use a fixed value (log it if it varies on purpose)"),
    )}


GUARDED_HELPER = (
    "import argparse\n"
    "import random\n"
    "import torch\n"
    "\n"
    "def set_seed(seed):\n"
    "    random.seed(seed)\n"
    "    torch.manual_seed(seed)\n"
    "\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--seed', type=int, default=None)\n"
    "    args = parser.parse_args()\n"
    "    if args.seed is not None:\n"
    "        set_seed(args.seed)\n"
    "    print(random.random(), torch.randn(3))\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_seed_helper_called_under_a_none_check_is_not_given_none(lint):
    """``if args.seed is not None: set_seed(args.seed)`` (PyTorch's ImageNet example's shape):
    the guard rules the None out, so ``random.seed(seed)`` in the helper is no ND107; the
    seeding is off in the default run (ND106) and the uses say so, not "seeds it only later"."""
    findings = lint({"train.py": GUARDED_HELPER}, {"select": ["ND1"]})
    none = "`--seed` defaults to None"
    assert [(f.line, f.col + 1, f.code, f.message) for f in findings] == [
        (13, 8, "ND106", f"the seeding under this condition does not run by default ({none}), "
                         "so the run people launch is unseeded; give the option a constant default"),
        (15, 11, "ND101", "Python `random` module RNG used here with no `random.seed` before it (this program seeds it "
                          f"only when an option is set: {none} (train.py:13))"),
        (15, 28, "ND104", "PyTorch global RNG used here with no `torch.manual_seed` before it (this program seeds it "
                          f"only when an option is set: {none} (train.py:13))"),
    ]


def test_a_seed_helper_called_unguarded_with_a_none_default_is_nd107(lint):
    source = GUARDED_HELPER.replace("    if args.seed is not None:\n        set_seed(args.seed)\n", "    set_seed(args.seed)\n")
    findings = [f for f in lint({"train.py": source}, {"select": ["ND1"]}) if f.code == "ND107"]
    assert [(f.line, f.col + 1) for f in findings] == [(6, 5)]
    assert findings[0].message.startswith("this seed call is given None by default (`seed` is None by default)")


def test_an_option_read_through_the_object_that_stored_the_parsed_options(tmp_path):
    """``self.cfg.seed`` where the constructor stored ``self.cfg = cfg`` answers as
    ``cfg.seed`` does: the ``--seed`` option's default, None."""
    from pathlib import Path

    from nondet_lint.config import Config, parse_table
    from nondet_lint.engine import run

    lint_case(FIXTURES / "option_on_stored_object", tmp_path, SELECT)
    config = Config(**parse_table({"select": SELECT}, "fixture"), root=str(tmp_path))
    found = sorted(
        (Path(f.path).relative_to(tmp_path).as_posix(), f.line, f.col + 1, f.code, f.message)
        for f in run([str(tmp_path)], config).findings
    )
    assert found == [
        ("pkg/learner.py", 11, 12, "ND106",
         "the seeding under this condition does not run by default (`--seed` defaults to None), so the run people "
         "launch is unseeded; give the option a constant default"),
        ("pkg/learner.py", 16, 22, "ND104",
         "PyTorch global RNG used here with no `torch.manual_seed` before it (entry point train.py seeds it only "
         "when an option is set: `--seed` defaults to None (pkg/learner.py:11))"),
        ("pkg/learner.py", 18, 15, "ND102",
         "NumPy global RNG used here with no `np.random.seed` before it (entry point train.py seeds it only when an "
         "option is set: `--seed` defaults to None (pkg/learner.py:11))"),
    ]
