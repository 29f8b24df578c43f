"""The linter never imports or runs the code it checks, and nothing in the checked tree
(config, rule files, a cache folder, files named like the modules it imports) can make
it run code. Every file here would leave a marker file if it were executed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_project


def payload(name: str) -> str:
    return f"import pathlib\npathlib.Path(__file__).with_name('EXECUTED_{name}').write_text('ran')\n"


HOSTILE = {
    # modules this tool imports: `python -m` would put the working folder first on sys.path
    "libcst.py": payload("libcst"),
    "json.py": payload("json"),
    "rich.py": payload("rich"),
    "tomli.py": payload("tomli"),
    # what test runners, installers and the interpreter would run
    "conftest.py": payload("conftest"),
    "setup.py": payload("setup"),
    "sitecustomize.py": payload("sitecustomize"),
    "usercustomize.py": payload("usercustomize"),
    "nondet_lint_plugins.py": payload("plugins"),
    "pkg/__init__.py": payload("pkg_init"),
    "pkg/__main__.py": payload("pkg_main"),
    "pkg/model.py": "import torch\n" + payload("model") + "torch.backends.cudnn.benchmark = True\n",
    "train.py": "import random\nfrom pkg import model\n" + payload("train") + "if __name__ == '__main__':\n    random.shuffle([1, 2])\n",
    "rules.py": payload("rules"),
}


def notebook() -> str:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": payload("notebook")}
    return json.dumps({"cells": [cell], "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})


def hostile_tree(root: Path, config: str = "") -> Path:
    write_project(root, HOSTILE)
    (root / "analysis.ipynb").write_text(notebook())
    (root / "pyproject.toml").write_text("[project]\nname = 'hostile'\n" + config)
    return root


def executed(root: Path):
    return sorted(path.name for path in root.rglob("EXECUTED_*"))


def lint(root: Path, *args: str) -> subprocess.CompletedProcess:
    # run from inside the tree, as a user (or pre-commit) does
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    return subprocess.run(
        [sys.executable, "-m", "nondet_lint", ".", *args], cwd=root, capture_output=True, text=True, timeout=180, env=env,
    )


@pytest.mark.parametrize("args", [(), ("--fix",), ("--fix", "--unsafe-fixes"), ("--workers", "1", "--format", "json")])
def test_linting_a_hostile_tree_runs_none_of_its_code(tmp_path, args):
    root = hostile_tree(tmp_path)
    done = lint(root, *args)
    assert done.stderr == "" or "Traceback" not in done.stderr
    assert done.returncode in (0, 1), done.stderr
    assert executed(root) == []
    assert "ND201" in done.stdout or "--fix" in args  # it did lint the tree


@pytest.mark.parametrize("config, message", [
    ('[tool.nondet-lint]\nrule-files = ["rules.py"]\n', "rule file"),
    ('[tool.nondet-lint]\nplugins = ["rules"]\n', "unknown key"),
    ('[tool.nondet-lint]\nrule-files = ["pkg/__init__.py"]\n', "rule file"),
])
def test_config_in_the_tree_cannot_load_code(tmp_path, config, message):
    root = hostile_tree(tmp_path, config)
    done = lint(root)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1
    assert executed(root) == []


def test_a_planted_cache_is_data_not_code(tmp_path):
    root = hostile_tree(tmp_path)
    assert lint(root).returncode == 1  # fills the cache
    import pickle

    class Boom:
        def __reduce__(self):
            return (os.system, (f"touch {root / 'EXECUTED_pickle'}",))

    for entry in (root / ".nondet_lint_cache").rglob("*.json"):
        entry.write_bytes(pickle.dumps(Boom()))
    done = lint(root)
    assert done.returncode == 1 and "ND201" in done.stdout
    assert executed(root) == []
