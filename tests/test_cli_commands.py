"""Subcommands through the real command: ``check`` (the default), ``rule``, ``version``,
``server``, and first words that are neither a subcommand nor a path."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import run_cli, write_project
from nondet_lint import __version__
from nondet_lint.ruledata import load_rules

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def command(*args: str, cwd=None) -> subprocess.CompletedProcess:
    """``python -m nondet_lint ARGS`` in its own process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "nondet_lint", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
    )


def test_check_is_the_default_subcommand(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    explicit = command("check", "--no-cache", ".", cwd=tmp_path)
    implicit = command("--no-cache", ".", cwd=tmp_path)
    assert explicit.returncode == implicit.returncode == 1
    assert explicit.stdout == implicit.stdout
    assert explicit.stdout.startswith("train.py:2:1: ND201 [*] ")
    assert "ND000" not in explicit.stdout
    assert command("check", "--no-cache", cwd=tmp_path).stdout == explicit.stdout  # default path: .


def test_rule_subcommand_prints_one_rule_or_all():
    code, out, _ = run_cli(["rule", "ND201"])
    assert code == 0 and out.startswith("# ND201 (cudnn-benchmark)")
    assert run_cli(["--explain", "ND201"])[1] == out
    assert run_cli(["rule", "cudnn-benchmark"])[1] == out
    code, everything, _ = run_cli(["rule", "--all"])
    assert code == 0
    assert [line.split()[1] for line in everything.splitlines() if line.startswith("# ND")] == list(load_rules().codes)
    assert out.rstrip("\n") in everything


def test_rule_without_a_code_is_a_usage_error():
    done = command("rule")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "nondet-lint: error: rule: give one rule CODE or --all (see --list-rules for the codes)\n"
    assert run_cli(["rule", "ND999"])[0] == 2
    assert run_cli(["rule", "ND201", "--all"])[0] == 2


def test_version_subcommand_and_flag_agree():
    done = command("version")
    assert (done.returncode, done.stdout) == (0, f"nondet-lint {__version__}\n")
    assert command("--version").stdout == done.stdout


def test_unknown_word_is_a_usage_error_with_a_suggestion(tmp_path):
    done = command("chek", ".", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "nondet-lint: error: 'chek' is neither a subcommand (check, rule, server, version) "
        "nor an existing file or folder (did you mean 'check'?)\n"
    )
    far = command("frobnicate", cwd=tmp_path)
    assert far.returncode == 2 and "did you mean" not in far.stderr and "ND000" not in far.stdout


def test_a_path_that_does_not_exist_is_still_reported_as_nd000(tmp_path):
    done = command("--no-cache", "missing.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("missing.py:1:1: ND000 cannot read: no such file or directory\n")


def test_folder_named_like_a_subcommand_is_checked_as_a_path(tmp_path):
    write_project(tmp_path, {"check/train.py": BENCHMARK, "data/train.py": BENCHMARK})
    for done in (command("--no-cache", "./check", cwd=tmp_path), command("check", "--no-cache", "check", cwd=tmp_path)):
        assert done.returncode == 1, done.stderr
        assert done.stdout.splitlines()[0].startswith("check/train.py:2:1: ND201 ")
    # a first word that is an existing folder is a path: old command lines keep working
    assert command("--no-cache", "data", cwd=tmp_path).stdout.startswith("data/train.py:2:1: ND201 ")


def test_server_without_the_extra_says_how_to_install_it():
    script = textwrap.dedent("""
        import sys
        sys.modules["nondet_lint.server"] = None  # as when the module or pygls is not installed
        from nondet_lint.cli import main
        sys.exit(main(["server"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == 'nondet-lint server needs the server extra: pip install "nondet-lint[server]"\n'


def test_server_without_pygls_says_how_to_install_it():
    script = textwrap.dedent("""
        import sys
        sys.modules["pygls"] = None  # pygls missing: the server module's own import fails on it
        import importlib.abc, importlib.machinery
        class Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "nondet_lint.server":
                    return importlib.machinery.ModuleSpec(name, Loader())
        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return None
            def exec_module(self, module):
                import pygls.server  # noqa: F401
        sys.modules.pop("nondet_lint.server", None)
        sys.meta_path.insert(0, Finder())
        from nondet_lint.cli import main
        sys.exit(main(["server"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr == 'nondet-lint server needs the server extra: pip install "nondet-lint[server]"\n'


def test_server_subcommand_runs_the_server_main_with_the_rest_of_the_arguments():
    script = textwrap.dedent("""
        import sys, types
        server = types.ModuleType("nondet_lint.server")
        def main(argv):
            print("server main", argv)
            return 0
        server.main = main
        sys.modules["nondet_lint.server"] = server
        from nondet_lint.cli import main as cli_main
        sys.exit(cli_main(["server", "--stdio"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "server main ['--stdio']\n", "")


def test_help_lists_the_subcommands():
    done = command("--help")
    assert done.returncode == 0
    for line in ("check [PATHS...]", "rule CODE | --all", "server", "version"):
        assert line in done.stdout
    assert "--output-format" in done.stdout and "--format" in done.stdout
