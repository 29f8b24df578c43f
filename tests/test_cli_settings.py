"""Config values validated with messages naming key and value, ``--show-settings`` with
where each value comes from, and ``--add-noqa``; all through the real command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import run_cli, write_project

from nondet_lint.config import marked_root

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def command(root, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nondet_lint", "--no-cache", *args], cwd=root, capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("table, message", [
    ('target-versions = { torch = "banana" }',
     "'target-versions.torch' = 'banana' is not a version or range (expected e.g. \"2.5.1\" or \">=2.1,<2.6\")"),
    ('target-versions = { torch = "" }',
     "'target-versions.torch' = '' is not a version or range (expected e.g. \"2.5.1\" or \">=2.1,<2.6\")"),
    ('target-versions = { pandas = "2.1" }',
     "'target-versions' names unknown framework 'pandas' (known: jax, tensorflow, torch)"),
    ('devices = ["tpu"]', "'devices' names unknown device 'tpu' (known: cpu, gpu)"),
])
def test_bad_config_values_name_the_key_and_value(tmp_path, table, message):
    write_project(tmp_path, {"train.py": BENCHMARK, "pyproject.toml": f"[tool.nondet-lint]\n{table}\n"})
    done = command(tmp_path, ".")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"nondet-lint: error: {tmp_path / 'pyproject.toml'}: {message}\n"


@pytest.mark.parametrize("table", [
    'target-versions = { torch = "2.5.1", tensorflow = ">=2.12,<2.16", jax = "0.4.*" }',
    'target-versions = { pytorch = "2.1" }',  # conda's name, an alias the rule data knows
    'devices = ["cpu", "GPU"]',
])
def test_good_config_values_are_accepted(tmp_path, table):
    write_project(tmp_path, {"train.py": BENCHMARK, "pyproject.toml": f"[tool.nondet-lint]\n{table}\n"})
    assert command(tmp_path, ".").returncode == 1


def test_toml_syntax_error_names_file_line_and_column(tmp_path):
    write_project(tmp_path, {"pyproject.toml": "[tool.nondet-lint]\nselect = [\"ND1\"]\ndevices = [cpu\"]\n"})
    done = command(tmp_path, ".")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"nondet-lint: error: {tmp_path / 'pyproject.toml'}:3:12: invalid TOML: ")
    assert done.stderr.count("\n") == 1
    write_project(tmp_path, {"other.toml": "seed = = 1\n"})
    done = command(tmp_path, "--config", "other.toml", ".")
    assert done.returncode == 2
    assert done.stderr.startswith("nondet-lint: error: other.toml:1:8: invalid TOML: ")


def test_show_settings_says_where_each_value_comes_from(tmp_path):
    write_project(tmp_path, {"pyproject.toml": '[tool.nondet-lint]\nseed = 7\ntarget-versions = { torch = "2.5.1" }\n'})
    done = command(tmp_path, "--show-settings", "--ignore", "ND401", "--no-respect-gitignore")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    config = str((tmp_path / "pyproject.toml").resolve())
    assert lines[0] == f"# config file: {config}"
    assert lines[1] == f"# project root: {tmp_path.resolve()}"
    assert f"seed = 7  # {config}" in lines
    assert f'target-versions = {{ "torch" = "2.5.1" }}  # {config}' in lines
    assert 'ignore = ["ND401"]  # command line' in lines
    assert "respect-gitignore = false  # command line" in lines
    assert 'select = ["ND"]  # default' in lines
    assert 'cache-dir = ".nondet_lint_cache"  # default' in lines


def test_show_settings_says_when_no_project_is_around_the_paths(tmp_path):
    if marked_root(tmp_path) is not None:
        pytest.skip("the temporary folder lies inside a project")
    write_project(tmp_path, {"x.py": "x = 1\n"})
    lines = command(tmp_path, "--show-settings", "x.py").stdout.splitlines()
    assert lines[1] == (
        f"# project root: none, only the given paths count (no pyproject.toml, setup.py, setup.cfg, .git at or above {tmp_path.resolve()})"
    )
    (tmp_path / ".git").mkdir()
    assert command(tmp_path, "--show-settings", "x.py").stdout.splitlines()[1] == f"# project root: {tmp_path.resolve()}"


def test_show_settings_without_a_config_file(tmp_path):
    done = command(tmp_path, "--show-settings")
    assert done.stdout.splitlines()[0] == "# config file: none (defaults)"
    assert all(line.endswith("# default") for line in done.stdout.splitlines()[2:])


def test_add_noqa_adds_and_merges_codes_and_is_idempotent(tmp_path):
    source = (
        "import torch\n"
        "torch.backends.cudnn.benchmark = True\n"
        "torch.backends.cudnn.benchmark = True  # noqa: E501\n"
        "torch.backends.cudnn.benchmark = True  # keep this comment\n"
        "doc = '''\n"
        "text'''; torch.backends.cudnn.benchmark = True\n"
    )
    write_project(tmp_path, {"train.py": source})
    done = command(tmp_path, "--add-noqa", ".")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "nondet-lint: added 4 noqa directives to 1 file\n"
    assert (tmp_path / "train.py").read_text() == (
        "import torch\n"
        "torch.backends.cudnn.benchmark = True  # noqa: ND201\n"
        "torch.backends.cudnn.benchmark = True  # noqa: E501, ND201\n"
        "torch.backends.cudnn.benchmark = True  # keep this comment  # noqa: ND201\n"
        "doc = '''\n"
        "text'''; torch.backends.cudnn.benchmark = True  # noqa: ND201\n"
    )
    assert command(tmp_path, ".").returncode == 0
    before = (tmp_path / "train.py").read_bytes()
    again = command(tmp_path, "--add-noqa", ".")
    assert again.stderr == "nondet-lint: added 0 noqa directives to 0 files\n"
    assert (tmp_path / "train.py").read_bytes() == before


def test_add_noqa_leaves_a_line_that_ends_inside_a_string(tmp_path):
    source = "import torch\ntorch.backends.cudnn.benchmark = True; doc = '''\n'''\n"
    write_project(tmp_path, {"train.py": source})
    done = command(tmp_path, "--add-noqa", ".")
    assert done.returncode == 0
    assert done.stderr.splitlines()[0] == (
        "nondet-lint: train.py:2: no noqa added: the line ends inside a multi-line string"
    )
    assert (tmp_path / "train.py").read_text() == source


def test_add_noqa_in_requirement_files_and_notebooks(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
            {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
             "source": ["import torch\n", "torch.backends.cudnn.benchmark = True  # noqa: E501"]},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    write_project(tmp_path, {
        "requirements.txt": "torch>=2.1\nnumpy==1.26.4\n",
        "explore.ipynb": json.dumps(notebook, indent=1) + "\n",
    })
    done = command(tmp_path, "--add-noqa", ".")
    assert done.stderr == "nondet-lint: added 2 noqa directives to 2 files\n"
    assert (tmp_path / "requirements.txt").read_text() == "torch>=2.1  # noqa: ND401\nnumpy==1.26.4\n"
    cells = json.loads((tmp_path / "explore.ipynb").read_text())["cells"]
    assert cells[1]["source"] == ["import torch\n", "torch.backends.cudnn.benchmark = True  # noqa: E501, ND201"]
    assert cells[0] == notebook["cells"][0]
    assert command(tmp_path, ".").returncode == 0


def test_add_noqa_does_not_take_standard_input(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "nondet_lint", "--add-noqa", "-"], input=BENCHMARK, capture_output=True, text=True,
        cwd=tmp_path, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == "nondet-lint: error: --add-noqa edits files: it cannot be used with standard input\n"


def test_show_files_lists_what_would_be_checked(tmp_path):
    write_project(tmp_path, {"a.py": "", "b/c.ipynb": "{}", "requirements.txt": "", "notes.md": "", "build/x.py": ""})
    code, out, err = run_cli(["--show-files", str(tmp_path)])
    assert code == 0 and err == ""
    assert out.splitlines() == [(tmp_path / name).as_posix() for name in ("a.py", "b/c.ipynb", "requirements.txt")]
