"""Bad input of every kind gets one clear line (ND000 or a usage error), never a traceback
or a crash, and the rest of the project is still checked. (More cases: test_bad_input.py.)

Code nested too deeply for libcst's native parser would kill the process or take
minutes; these run the command in a subprocess so that a regression shows as a failed
test, not a dead test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli, write_project
from nondet_lint import nesting

BENCH = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def lint_in_subprocess(root: Path, *args: str, timeout: int = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nondet_lint", str(root), "--no-cache", "--quiet", *args],  # findings only
        capture_output=True, text=True, timeout=timeout, **kwargs,
    )


DEEP = {
    # name: (source, line reported)
    "brackets": ("x = 1\ny = " + "(" * 250 + "1" + ")" * 250 + "\n", 2),
    "lists": ("x = " + "[" * 3000 + "]" * 3000 + "\n", 1),
    "sum": ("import os\n\ntotal = 1" + " + 1" * 3000 + "\n", 3),
    "sum_over_lines": ("total = (\n    1\n" + "    + 1\n" * 3000 + ")\n", 1),
    "and_chain": ("ok = x" + " and x" * 20000 + "\n", 1),
    "unary": ("x = " + "-" * 20000 + "1\n", 1),
    "subscripts": ("def f(a):\n    return a" + "[0]" * 1000 + "\n", 2),
    "attributes": ("x = a" + ".b" * 20000 + "\n", 1),
    "calls": ("x = f" + "()" * 5000 + "\n", 1),
    "lambdas": ("f = " + "lambda: " * 5000 + "1\n", 1),
    "conditional": ("x = 1" + " if c else 1" * 3000 + "\n", 1),
}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deeply_nested_code_is_nd000_at_its_line(tmp_path, shape):
    source, line = DEEP[shape]
    (tmp_path / "deep.py").write_text(source)
    (tmp_path / "ok.py").write_text(BENCH)
    done = lint_in_subprocess(tmp_path)
    assert done.returncode == 1 and done.stderr == ""
    first, second = done.stdout.splitlines()
    assert first.startswith(f"{(tmp_path / 'deep.py').as_posix()}:{line}:1: ND000 cannot parse: ")
    assert "nested" in first
    assert ":2:1: ND201" in second


@pytest.mark.parametrize("source", [
    "x = " + "(" * 150 + "1" + ")" * 150 + "\n",  # deep, but Python allows it
    "total = 1" + " + 1" * 250 + "\n",
    "values = [" + "1, " * 20000 + "]\n",  # long but flat
    "s = '" + "(" * 5000 + "'\n# " + "[" * 5000 + "\n",  # brackets in strings and comments
])
def test_deep_but_valid_code_is_checked(tmp_path, source):
    (tmp_path / "ok.py").write_text(source + BENCH)
    assert nesting.too_deep(source) is None
    done = lint_in_subprocess(tmp_path)
    assert done.returncode == 1 and done.stderr == ""
    assert [line.split(": ")[1].split()[0] for line in done.stdout.splitlines()] == ["ND201"]


def test_nesting_bound_is_never_below_the_real_depth():
    # the cheap scan must not let through what the exact measure would refuse
    import ast

    for source, _ in DEEP.values():
        try:
            depth = nesting.tree_depth(ast.parse(source))[0]
        except (RecursionError, MemoryError, SyntaxError):
            continue
        skel = nesting.skeleton(source)
        bound = max((nesting.chain_bound(skel, start, end) for start, end, _ in nesting.long_statements(skel)[2]), default=0)
        assert bound >= min(depth, nesting.MAX_DEPTH)


def test_fifty_thousand_line_generated_file(tmp_path):
    # (libcst alone needs about 4 s for it; a list per line instead takes 12 s)
    lines = ["import torch", *(f"w{i} = {i}" for i in range(50000)), "torch.backends.cudnn.benchmark = True"]
    (tmp_path / "generated.py").write_text("\n".join(lines) + "\n")
    code, out, err = run_cli([str(tmp_path), "--no-cache"])
    assert (code, err) == (1, "")
    assert out.startswith(f"{(tmp_path / 'generated.py').as_posix()}:50002:1: ND201")


def test_ten_thousand_files(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(10000):
        (folder / f"m{number:05d}.py").write_text("")
    (folder / "m05000.py").write_text(BENCH)
    code, out, err = run_cli([str(tmp_path), "--no-cache", "--quiet"])
    assert (code, err) == (1, "")
    assert [line.split(":")[0].rsplit("/", 1)[-1] for line in out.splitlines()] == ["m05000.py"]


def test_malformed_pyproject_and_requirements_do_not_stop_the_run(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": "[project\nname = 'broken'\n",  # no nondet-lint table: not our config
        "requirements.txt": "torch==\n--index-url\n\x00\n-r missing.txt\n[[[\n",
        "requirements-dev.txt": "",
        "train.py": BENCH,
    })
    (tmp_path / "requirements-gpu.txt").write_bytes(b"\xff\xfe\x00t\x00o\x00r\x00c\x00h")
    code, out, err = run_cli([str(tmp_path), "--no-cache"])
    assert err == "" and code == 1
    assert any(":2:1: ND201" in line and "train.py" in line for line in out.splitlines())
    assert "Traceback" not in out


def test_malformed_pyproject_with_our_table_is_a_usage_error(tmp_path):
    write_project(tmp_path, {"pyproject.toml": "[tool.nondet-lint]\nselect = [\n", "train.py": BENCH})
    code, out, err = run_cli([str(tmp_path)])
    assert code == 2 and out == ""
    assert err.startswith("nondet-lint: error: ") and len(err.splitlines()) == 1


def test_unreadable_file_and_folder_simulated(tmp_path, monkeypatch):
    # test_bad_input checks real permissions, which root (containers, CI) ignores: here
    # the operating system refuses, whoever runs the tests
    from nondet_lint import discovery, parallel, source

    write_project(tmp_path, {"secret.py": "x = 1\n", "closed/t.py": "x = 1\n", "t.py": BENCH})
    real_scandir, real_open = os.scandir, open

    def scandir(path="."):
        if Path(path).name == "closed":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def guarded_open(path, *args, **kwargs):
        if Path(path).name == "secret.py":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    monkeypatch.setattr(source, "open", guarded_open, raising=False)
    monkeypatch.setattr(parallel, "open", guarded_open, raising=False)
    code, out, err = run_cli([str(tmp_path), "--no-cache", "--quiet", "--workers", "1"])
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{(tmp_path / 'closed').as_posix()}:1:1: ND000 cannot read: permission denied",
        f"{(tmp_path / 'secret.py').as_posix()}:1:1: ND000 cannot read file: Permission denied",
        out.splitlines()[2],
    ]
    assert out.splitlines()[2].startswith(f"{(tmp_path / 't.py').as_posix()}:2:1: ND201")
