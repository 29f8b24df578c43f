"""The linter's own output is deterministic: byte-identical across ``PYTHONHASHSEED``
values, worker counts and cache states, in every machine-readable format.

The project linted is made of every rule's firing examples (so every check and every
project-level decision takes part), each in a folder of its own with its extra files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nondet_lint.ruledata import load_rules


def example_project(root: Path) -> Path:
    for rule in load_rules():
        for number, example in enumerate(rule.fires):
            folder = root / f"{rule.code.lower()}_{number}"
            files = {example.path: example.source, **example.files}
            for name, text in files.items():
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    (root / "pyproject.toml").write_text("[project]\nname = 'examples'\n")
    return root


def lint(root: Path, *args: str, seed: str, cwd: Path) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env.pop("PRE_COMMIT", None)
    done = subprocess.run(
        [sys.executable, "-m", "nondet_lint", str(root), *args],
        capture_output=True, env=env, cwd=cwd, timeout=300,
    )
    assert done.returncode == 1, done.stderr.decode()
    assert done.stderr == b""
    return done.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return example_project(tmp_path_factory.mktemp("examples"))


def test_json_is_byte_identical_across_hash_seeds_workers_and_cache(project, tmp_path):
    cache = str(tmp_path / "cache")
    runs = {
        "seed 0, 1 worker, no cache": lint(project, "--format", "json", "--workers", "1", "--no-cache", seed="0", cwd=tmp_path),
        "seed 1, 2 workers, cold cache": lint(project, "--format", "json", "--workers", "2", "--cache-dir", cache, seed="1", cwd=tmp_path),
        "seed 4242, 2 workers, warm cache": lint(project, "--format", "json", "--workers", "2", "--cache-dir", cache, seed="4242", cwd=tmp_path),
        "seed random, 1 worker, warm cache": lint(project, "--format", "json", "--workers", "1", "--cache-dir", cache, seed="random", cwd=tmp_path),
    }
    first = next(iter(runs.values()))
    assert first.count(b'"code": "ND') > 100  # the examples do fire
    for name, output in runs.items():
        assert output == first, f"{name} differs"


@pytest.mark.parametrize("fmt", ["text", "sarif"])
def test_text_and_sarif_are_byte_identical_across_hash_seeds_workers_and_cache(project, tmp_path, fmt):
    cache = str(tmp_path / "cache")
    cold = lint(project, "--format", fmt, "--workers", "1", "--cache-dir", cache, seed="0", cwd=tmp_path)
    warm = lint(project, "--format", fmt, "--workers", "2", "--cache-dir", cache, seed="1", cwd=tmp_path)
    assert cold.count(b"ND") > 100
    assert warm == cold
