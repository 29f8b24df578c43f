"""The progress display: counts every analyzed file, appears only on long rich runs at a
terminal, and never changes the report."""

from __future__ import annotations

import io

from conftest import write_project
from nondet_lint.cli import main
from nondet_lint.config import Config
from nondet_lint.engine import run

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


class Recorder:
    def __init__(self):
        self.total = 0
        self.done = 0

    def add(self, count):
        self.total += count

    def advance(self, count):
        self.done += count


class Terminal(io.StringIO):
    def isatty(self):
        return True


def many_files(root, count=60):
    write_project(root, {f"pkg/m{i}.py": BENCHMARK for i in range(count)})


def test_engine_reports_every_file_done(tmp_path):
    many_files(tmp_path, 12)
    recorder = Recorder()
    result = run([str(tmp_path)], Config(root=str(tmp_path)), progress=recorder)
    assert recorder.total == recorder.done >= 12
    assert len(result.findings) == 12


def test_bar_on_long_rich_runs_at_a_terminal_only(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    many_files(tmp_path)
    args = ["--format", "rich", "--no-cache", str(tmp_path)]
    out_tty, err_tty = io.StringIO(), Terminal()
    assert main(args, out=out_tty, err=err_tty) == 1
    out_pipe, err_pipe = io.StringIO(), io.StringIO()
    assert main(args, out=out_pipe, err=err_pipe) == 1
    assert "checking" in err_tty.getvalue() and err_pipe.getvalue() == ""
    assert out_tty.getvalue() == out_pipe.getvalue()
    # plain output never shows a bar, even at a terminal
    err_text = Terminal()
    main(["--format", "text", "--no-cache", str(tmp_path)], out=io.StringIO(), err=err_text)
    assert err_text.getvalue() == ""


def test_no_bar_for_a_handful_of_files(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    many_files(tmp_path, 3)
    err = Terminal()
    main(["--format", "rich", "--no-cache", str(tmp_path)], out=io.StringIO(), err=err)
    assert err.getvalue() == ""
