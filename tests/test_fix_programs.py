"""Fixes that never break a program (spec "Fixes never break a program"), end to end.

Each folder under ``fixtures/fixes`` holds a project (``before/``) and the files the real
command ``nondet-lint --fix`` must turn it into (``after/``; every other file stays as it
was).  The fixed files must compile, add no flake8 E402 and keep ruff's import order
(I001), and a second ``--fix`` must change nothing.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import lint_files

FIXTURES = Path(__file__).parent / "fixtures" / "fixes"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "before").is_dir())
# TensorFlow's switch is unsafe where an op raises under it: that case runs with --unsafe-fixes
FLAGS = {"tensorflow_raising": ["--unsafe-fixes"]}


def files_of(root: Path) -> Dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*")) if p.is_file() and ".nondet_lint_cache" not in p.parts
    }


def nondet_lint(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nondet_lint", *args, "--no-cache", "."], cwd=root, capture_output=True, text=True,
    )


def tool(root: Path, module: str, *args: str) -> List[str]:
    done = subprocess.run([sys.executable, "-m", module, *args], cwd=root, capture_output=True, text=True)
    return [line for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("case", CASES)
def test_fix_turns_the_project_into_the_expected_files(case, tmp_path):
    before, after = FIXTURES / case / "before", FIXTURES / case / "after"
    root = tmp_path / case
    shutil.copytree(before, root)
    done = nondet_lint(root, "--fix", *FLAGS.get(case, []))
    assert done.returncode in (0, 1), done.stderr
    expected = {**files_of(before), **files_of(after)}
    assert files_of(root) == expected
    for name in expected:
        if name.endswith(".py"):
            ast.parse(expected[name])  # still compiles
    # the fixed project passes the linters its imports are checked with
    assert tool(root, "flake8", "--select", "E402,E999", ".") == []
    assert tool(root, "ruff", "check", "--quiet", "--no-cache", "--isolated", "--select", "I001", "--output-format", "concise", ".") == []
    # nothing left to do
    again = nondet_lint(root, "--fix", *FLAGS.get(case, []))
    assert files_of(root) == expected, again.stderr


def test_the_before_projects_are_import_sorted_and_e402_clean():
    # so that the fixed files are held to the same standard as the originals
    for case in CASES:
        root = FIXTURES / case / "before"
        assert tool(root, "flake8", "--select", "E402", ".") == [], case
        assert tool(root, "ruff", "check", "--quiet", "--no-cache", "--isolated", "--select", "I001", "--output-format", "concise", ".") == [], case


def lint_case(case: str, tmp_path: Path, **config):
    files = {str(p.relative_to(FIXTURES / case / "before")): p.read_text() for p in (FIXTURES / case / "before").rglob("*") if p.is_file()}
    return lint_files(tmp_path, files, config)


def test_the_switch_names_the_ops_that_would_raise(tmp_path):
    [finding] = [f for f in lint_case("torch_raising_ops", tmp_path) if f.code == "ND205"]
    assert finding.message.endswith(
        "; `torch.nn.AdaptiveAvgPool2d` (backward) and `torch.nn.ReflectionPad2d` (backward) have no deterministic "
        "implementation on torch 1.0.1 to 2.15.0 and would raise under it, so the fix passes `warn_only=True`"
    )
    assert finding.fix.applicability == "safe"
    assert finding.fix.title == (
        "Turn on torch determinism after the imports with `warn_only=True` "
        "(`torch.nn.AdaptiveAvgPool2d` (backward) and `torch.nn.ReflectionPad2d` (backward) would raise)"
    )


def test_a_pinned_torch_without_raising_ops_gets_the_strict_switch_and_no_cublas(tmp_path):
    [finding] = [f for f in lint_case("torch_range_new", tmp_path) if f.code == "ND205"]
    assert "warn_only" not in finding.message
    assert [e.content for e in finding.fix.edits] == ["\ntorch.use_deterministic_algorithms(True)\n"]


def test_a_range_that_allows_old_torch_names_the_versions_that_need_cublas(tmp_path):
    [finding] = [f for f in lint_case("torch_range_old", tmp_path) if f.code == "ND205"]
    assert finding.fix.title == (
        "Turn on torch determinism after the imports, with `CUBLAS_WORKSPACE_CONFIG` (torch 2.4.1 to 2.9.0 need it)"
    )


def test_tensorflow_switch_is_unsafe_where_an_op_raises_unimplemented_error(tmp_path):
    [finding] = [f for f in lint_case("tensorflow_raising", tmp_path) if f.code == "ND205"]
    assert finding.message.endswith(
        "; `keras.layers.UpSampling2D` (backward) has no deterministic GPU implementation on TensorFlow 2.15.1 and "
        "would raise `UnimplementedError` under op determinism, so the fix is unsafe"
    )
    assert finding.fix.applicability == "unsafe"
    # without --unsafe-fixes the seed is inserted, the switch is not
    root = tmp_path / "safe_only"
    shutil.copytree(FIXTURES / "tensorflow_raising" / "before", root)
    nondet_lint(root, "--fix")
    text = (root / "train.py").read_text()
    assert "tf.random.set_seed(0)" in text and "enable_op_determinism" not in text


def test_a_draw_at_import_time_says_why_it_has_no_fix(tmp_path):
    [finding] = [f for f in lint_case("library_module", tmp_path) if f.path.endswith("data.py")]
    assert finding.fix is None
    assert finding.message.endswith(
        "; no fix: it draws when `pkg/data.py` is imported, before any code of `other.py` can seed it "
        "(seed in that module, or draw later)"
    )


def run_training(root: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "train.py", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def test_a_fixed_training_script_gives_the_same_result_twice_and_still_follows_its_seed_option(tmp_path):
    # a small CPU training run (Python's `random` only, so it runs everywhere): unseeded,
    # two runs differ; after `--fix` they agree, and `--seed` still changes the run
    root = tmp_path / "train"
    shutil.copytree(FIXTURES / "train_pure_python" / "before", root)
    assert run_training(root) != run_training(root)
    done = nondet_lint(root, "--fix")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fixed 1 of 1 finding (1 fix applied), 0 remaining" in done.stderr
    first = run_training(root)
    assert run_training(root) == first
    assert run_training(root, "--seed", "6") != first
