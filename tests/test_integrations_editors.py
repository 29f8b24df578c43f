"""Editors and CI logs: unsaved buffers on standard input, GitHub workflow annotations."""

from __future__ import annotations

import io
import subprocess
import sys

import nbformat

from conftest import run_cli, write_project
from nondet_lint.cli import main

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def run_stdin(args, text: str):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err, stdin=io.BytesIO(text.encode("utf-8")))
    return code, out.getvalue(), err.getvalue()


def test_stdin_filename_lints_the_buffer_not_the_file_on_disk(tmp_path):
    write_project(tmp_path, {"train.py": "x = 1\n"})  # the saved file is clean
    name = str(tmp_path / "train.py")
    code, out, err = run_stdin(["--stdin-filename", name], "# unsaved edit\n" + BENCHMARK)
    assert (code, err) == (1, "")
    assert out.startswith(f"{(tmp_path / 'train.py').as_posix()}:3:1: ND201 ")


def test_dash_reads_stdin_too(tmp_path):
    code, out, _ = run_stdin(["--stdin-filename", str(tmp_path / "a.py"), "-"], BENCHMARK)
    assert code == 1 and ":2:1: ND201 " in out
    code, out, _ = run_stdin(["-"], BENCHMARK)
    assert code == 1 and out.startswith("-:2:1: ND201 ")


def test_stdin_uses_the_config_of_the_named_file(tmp_path):
    write_project(tmp_path, {"pyproject.toml": '[tool.nondet-lint]\nignore = ["ND201"]\n'})
    code, out, _ = run_stdin(["--stdin-filename", str(tmp_path / "pkg" / "train.py")], BENCHMARK)
    assert (code, out) == (0, "No findings.\n")


def test_stdin_notebook_buffer(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(BENCHMARK)]
    code, out, _ = run_stdin(["--stdin-filename", str(tmp_path / "n.ipynb")], nbformat.writes(nb))
    assert code == 1 and f"{(tmp_path / 'n.ipynb').as_posix()}:cell 1:2:1: ND201 " in out


def test_stdin_filename_with_other_paths_is_a_usage_error(tmp_path):
    code, _, err = run_stdin(["--stdin-filename", "a.py", str(tmp_path)], BENCHMARK)
    assert code == 2 and "--stdin-filename" in err


def test_stdin_through_a_real_process(tmp_path):
    """What an editor does: spawn the tool, pipe the buffer, read flake8-style lines."""
    proc = subprocess.run(
        [sys.executable, "-m", "nondet_lint", "--stdin-filename", "buffer.py", "-"],
        input=BENCHMARK.encode(), capture_output=True, cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("buffer.py:2:1: ND201 ")


def test_github_annotations(tmp_path, monkeypatch):
    write_project(tmp_path, {"a, b.py": BENCHMARK, "bad.py": "print 'x'\n"})
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["--format", "github", "."])
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2
    assert lines[0].startswith("::warning file=a%2C b.py,line=2,col=1,endLine=2,endColumn=31,title=ND201 cudnn-benchmark::ND201 ")
    assert lines[1].startswith("::error file=bad.py,line=1,col=")
    assert "::ND000 " in lines[1]


def test_github_annotation_of_a_notebook_names_the_cell(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("hi"), nbformat.v4.new_code_cell(BENCHMARK)]
    nbformat.write(nb, str(tmp_path / "n.ipynb"))
    monkeypatch.chdir(tmp_path)
    _, out, _ = run_cli(["--format", "github", "n.ipynb"])
    # cells are numbered among all cells: the markdown cell is cell 1
    assert out.startswith("::warning file=n.ipynb,title=ND201 cudnn-benchmark::ND201 cell 2, line 2, column 1: ")
