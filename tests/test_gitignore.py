"""``respect-gitignore``: what git ignores is not checked, through the real command."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import run_cli, write_project

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def checked(root, *args: str, env=None) -> list:
    """The files the command checks in ``root`` (``--show-files``, run as a user runs it)."""
    done = subprocess.run(
        [sys.executable, "-m", "nondet_lint", "--show-files", *args], cwd=root, capture_output=True, text=True,
        timeout=120, env=env,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.splitlines()


def git_init(root) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)


def test_gitignore_patterns_folders_and_negation(tmp_path):
    write_project(tmp_path, {
        ".gitignore": "generated/\n*_pb2.py\n!keep_pb2.py\n/top_only.py\n",
        "train.py": BENCHMARK,
        "generated/model.py": BENCHMARK,
        "proto/msg_pb2.py": BENCHMARK,
        "proto/keep_pb2.py": BENCHMARK,
        "top_only.py": BENCHMARK,
        "sub/top_only.py": BENCHMARK,
    })
    assert checked(tmp_path) == ["proto/keep_pb2.py", "sub/top_only.py", "train.py"]
    assert checked(tmp_path, "--no-respect-gitignore") == [
        "generated/model.py", "proto/keep_pb2.py", "proto/msg_pb2.py", "sub/top_only.py", "top_only.py", "train.py",
    ]


def test_nested_gitignore_applies_to_its_folder_and_wins_there(tmp_path):
    write_project(tmp_path, {
        ".gitignore": "scratch.py\n",
        "a/.gitignore": "local.py\n!scratch.py\n",
        "a/local.py": BENCHMARK,
        "a/scratch.py": BENCHMARK,
        "b/local.py": BENCHMARK,
        "b/scratch.py": BENCHMARK,
    })
    assert checked(tmp_path) == ["a/scratch.py", "b/local.py"]


def test_ignore_files_and_git_excludes(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    git_init(repo)
    write_project(home, {".gitconfig": "[core]\n\texcludesFile = ~/global-ignore\n", "global-ignore": "*.local.py\n"})
    write_project(repo, {
        ".ignore": "vendored/\n",
        ".git/info/exclude": "personal.py\n",
        "pkg/.gitignore": "mine.py\n",
        "pkg/.ignore": "!mine.py\n",  # .ignore wins over .gitignore in the same folder
        "pkg/mine.py": BENCHMARK,
        "vendored/lib.py": BENCHMARK,
        "personal.py": BENCHMARK,
        "cfg.local.py": BENCHMARK,
        "train.py": BENCHMARK,
    })
    assert checked(repo, env={**os.environ, "HOME": str(home)}) == ["pkg/mine.py", "train.py"]
    # without a core.excludesFile setting, git's default place
    write_project(home, {".gitconfig": "[user]\n\tname = x\n", ".config/git/ignore": "train.py\n"})
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_CONFIG_HOME", None)
    assert checked(repo, env=env) == ["cfg.local.py", "pkg/mine.py"]


def test_ignore_files_above_the_given_folder_count_in_a_repository(tmp_path):
    git_init(tmp_path)
    write_project(tmp_path, {".gitignore": "src/gen/\n", "src/gen/out.py": BENCHMARK, "src/train.py": BENCHMARK})
    assert checked(tmp_path / "src", ".") == ["train.py"]


def test_a_folder_named_on_the_command_line_is_walked_even_when_ignored(tmp_path):
    git_init(tmp_path)
    write_project(tmp_path, {
        ".gitignore": "vendor/\n", "vendor/lib/a.py": BENCHMARK, "vendor/lib/.gitignore": "b.py\n", "vendor/lib/b.py": "",
    })
    assert checked(tmp_path) == []
    assert checked(tmp_path, "vendor") == ["vendor/lib/a.py"]  # its own ignore files still apply
    assert checked(tmp_path / "vendor", ".") == ["lib/a.py"]


def test_files_named_on_the_command_line_are_always_checked(tmp_path):
    write_project(tmp_path, {".gitignore": "generated/\n", "generated/model.py": BENCHMARK})
    code, out, _ = run_cli(["--no-cache", str(tmp_path / "generated" / "model.py")])
    assert code == 1 and f"{(tmp_path / 'generated' / 'model.py').as_posix()}:2:1: ND201 [*] " in out
    assert run_cli(["--no-cache", str(tmp_path)]) == (0, "No findings.\n", "")


def test_respect_gitignore_false_in_config(tmp_path):
    write_project(tmp_path, {
        ".gitignore": "generated/\n",
        "generated/model.py": BENCHMARK,
        "pyproject.toml": "[tool.nondet-lint]\nrespect-gitignore = false\n",
    })
    assert checked(tmp_path) == ["generated/model.py", "pyproject.toml"]
    assert checked(tmp_path, "--respect-gitignore") == ["pyproject.toml"]
    assert run_cli(["--no-cache", str(tmp_path)])[0] == 1
