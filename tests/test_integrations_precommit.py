"""pre-commit: the hooks of ``.pre-commit-hooks.yaml`` run through the real ``pre-commit try-repo``.

pre-commit builds its own virtual environment and pip-installs this repository into it,
which needs the package index; without one the test is skipped, saying so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_project
from test_integrations_project import TRAIN, UTILS

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "src", "rules")
OFFLINE = (
    "Could not find a version", "No matching distribution", "NewConnectionError",
    "Temporary failure in name resolution", "Network is unreachable", "ConnectionError",
    "Failed to establish a new connection", "ProxyError",
)


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """This project as a git repository at one commit (what pre-commit installs from)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("hook-repo")
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in PROJECT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=ignore)
        else:
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "snapshot")
    return repo


def pre_commit(target: Path, home: Path, *args: str):
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=target, capture_output=True, text=True, env=env, timeout=900,
    )
    output = proc.stdout + proc.stderr
    if "An unexpected error" in output and any(marker in output for marker in OFFLINE):
        pytest.skip("pre-commit could not install the hook: no package index reachable")
    assert "An unexpected error" not in output, output
    return proc.returncode, output


def target_repo(path: Path) -> Path:
    write_project(path, {
        "pyproject.toml": "[project]\nname = 'demo'\n",
        "utils.py": UTILS,  # unchanged: its switches count for train.py all the same
        "train.py": TRAIN,  # a GPU program made deterministic by utils.py: nothing to report
        "data.py": "import torch\nfrom torch.backends import cudnn\ncudnn.benchmark = True\n",
        "other.py": "import torch\ntorch.backends.cudnn.benchmark = True\n",  # unchanged
        "notes.md": "not checked\n",
    })
    git(path, "init", "-q")
    git(path, "add", "-A")
    return path


def test_try_repo_runs_both_hooks_on_the_changed_files_only(hook_repo, tmp_path):
    """``pre-commit try-repo`` with no hook id runs every hook of the repository, in order:
    the check reports the changed files, judged with the facts of the whole project, then
    the fix hook fixes them (one env build)."""
    from nondet_lint.cli import build_parser

    target = target_repo(tmp_path / "target")
    code, output = pre_commit(
        target, tmp_path / "home", "try-repo", str(hook_repo), "--verbose", "--files", "train.py", "data.py", "notes.md",
    )
    assert code == 1, output
    check, _, fix = output.partition("nondet-lint (fix)")
    assert "Failed" in check and "data.py:3:1: ND201 " in check, output
    assert "train.py" not in output  # judged with the switches set in utils.py
    assert "other.py" not in output  # not among the changed files, though it has a finding
    assert "benchmark = True" in (target / "other.py").read_text()
    if "--fix" in build_parser().format_help():
        assert "Failed" in fix and "files were modified by this hook" in fix, output
        assert "cudnn.benchmark = False" in (target / "data.py").read_text()


def test_hook_file_filter_matches_what_nondet_lint_checks():
    """pre-commit's filter and the tool's own discovery agree on which files matter."""
    import yaml

    from nondet_lint.discovery import is_checkable

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {h["id"]: h["entry"] for h in hooks} == {"nondet-lint": "nondet-lint", "nondet-lint-fix": "nondet-lint --fix"}
    names = [
        "train.py", "pkg/data.py", "notebooks/explore.ipynb", "requirements.txt", "requirements-dev.in",
        "sub/requirements/base.txt", "pyproject.toml", "setup.cfg", "environment.yml", "env/environment.yaml",
        "README.md", "data.csv", "setup.py.orig", "notrequirements.txt", "config.yaml",
    ]
    for hook in hooks:
        pattern = re.compile(hook["files"])
        assert hook["require_serial"] is True
        for name in names:
            assert bool(pattern.search(name)) == is_checkable(name.rsplit("/", 1)[-1]), name


def test_readme_snippets_name_the_shipped_hooks():
    import yaml

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    configs = [yaml.safe_load(b) for b in blocks if "repos:" in b]
    ids = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    used = {hook["id"] for config in configs for repo in config["repos"] for hook in repo["hooks"]}
    assert configs and used <= ids


def test_readme_local_hook_runs_on_requirement_files_too(tmp_path):
    """The README's ``repo: local`` snippet, as written there, checks requirement files
    (ND401) as well as Python files; nondet-lint comes from this environment's PATH."""
    import yaml

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [snippet] = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "repo: local" in b]
    hook = yaml.safe_load(snippet)["repos"][0]["hooks"][0]
    assert "text" in hook["types_or"] and hook["require_serial"] is True
    target = target_repo(tmp_path / "target")
    write_project(target, {"requirements.txt": "torch>=2.1\n", ".pre-commit-config.yaml": snippet})
    git(target, "add", "-A")
    env_path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"], cwd=target, capture_output=True,
        text=True, timeout=300,
        env={**os.environ, "PATH": env_path, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PRE_COMMIT_COLOR": "never"},
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "requirements.txt:1:1: ND401 torch is not pinned" in output
    assert "data.py:3:1: ND201 [*] " in output
    assert "notes.md" not in output
