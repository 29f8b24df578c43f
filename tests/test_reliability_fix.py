"""``--fix`` never leaves a partial file: with the disk full, when interrupted (a real
Ctrl-C in the middle of a run over many files, or at any step of a write), each file is
its original or its complete fixed version, and no temporary file stays behind.
(Read-only files and files edited during the run: tests/test_fix_cli.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_cli, write_project
from nondet_lint.fixes import writer

ORIGINAL = "import torch\n\ntorch.backends.cudnn.benchmark = True\nmodel = torch.nn.Linear(2, 2)\n"


def fixed_text(tmp_path: Path) -> str:
    probe = tmp_path / "probe"
    write_project(probe, {"m.py": ORIGINAL})
    run_cli(["--fix", "--no-cache", str(probe)])
    text = (probe / "m.py").read_text()
    assert text != ORIGINAL
    return text


def leftovers(root: Path):
    return [path.name for path in root.rglob("*") if path.name.endswith(".nondet-lint.tmp")]


def test_disk_full_while_writing_keeps_the_original(tmp_path, monkeypatch):
    # a full disk shows when the written data is flushed: the temporary file holds part
    # of the new text when the error comes
    write_project(tmp_path, {"m.py": ORIGINAL})

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer.os, "fsync", full)
    code, out, err = run_cli(["--fix", "--no-cache", str(tmp_path)])
    assert (tmp_path / "m.py").read_text() == ORIGINAL
    assert leftovers(tmp_path) == []
    assert code == 1 and "ND201" in out
    assert "No space left on device" in err and "Traceback" not in err


@pytest.mark.parametrize("step", ["fsync", "chmod", "replace"])
def test_interrupt_at_any_step_of_a_write(tmp_path, monkeypatch, step):
    write_project(tmp_path, {"m.py": ORIGINAL})
    fixed = fixed_text(tmp_path / "x")
    real = getattr(writer.os, step)
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(step)
        raise KeyboardInterrupt

    monkeypatch.setattr(writer.os, step, interrupted)
    code, _, err = run_cli(["--fix", "--no-cache", str(tmp_path)])
    monkeypatch.setattr(writer.os, step, real)
    assert calls and code == 130 and err == "nondet-lint: interrupted\n"
    assert (tmp_path / "m.py").read_text() in (ORIGINAL, fixed)
    assert leftovers(tmp_path) == []


SLOW_WRITES = """
import os, time
_replace = os.replace
_started = os.path.join(os.path.dirname(os.path.abspath(__file__)), "writing")
def replace(src, dst):  # a slow disk: the interrupt lands between and inside writes
    if not os.path.exists(_started):
        open(_started, "w").close()  # tells the test that writing began
    time.sleep(0.05)
    _replace(src, dst)
os.replace = replace
"""


PAUSED_WRITES = """
import os, time
_replace = os.replace
_mark = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paused")
_written = []
def replace(src, dst):  # three writes go through; the fourth stalls until a signal comes
    if len(_written) == 3:
        open(_mark, "w").close()
        time.sleep(600)
    _replace(src, dst)
    _written.append(dst)
os.replace = replace
"""


def start_fix_run(root: Path, slow: Path = None) -> subprocess.Popen:
    env = dict(os.environ)
    if slow is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(slow), env.get("PYTHONPATH", "")])
    return subprocess.Popen(
        [sys.executable, "-m", "nondet_lint", "--fix", "--no-cache", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def check_whole(root: Path, process: subprocess.Popen, fixed: str):
    _, err = process.communicate(timeout=120)
    assert "Traceback" not in err
    contents = [path.read_text() for path in sorted(root.rglob("m*.py"))]
    assert set(contents) <= {ORIGINAL, fixed}
    assert leftovers(root) == []
    return process.returncode, contents.count(fixed)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child")
@pytest.mark.parametrize("delay", [0.3, 1.0])
def test_ctrl_c_while_analyzing_writes_nothing(tmp_path, delay):
    fixed = fixed_text(tmp_path / "x")
    root = write_project(tmp_path / "p", {f"pkg{i // 20}/m{i:03d}.py": ORIGINAL for i in range(120)})
    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "sitecustomize.py").write_text(SLOW_WRITES)
    process = start_fix_run(root, marks)
    time.sleep(delay)
    writing = (marks / "writing").exists()  # the run had got past analysis (a fast machine)
    process.send_signal(signal.SIGINT)
    code, done = check_whole(root, process, fixed)
    # 130: stopped cleanly; -SIGINT: stopped before Python took over the signal
    assert code in (0, 1, 130, -signal.SIGINT)
    if not writing:  # interrupted while analysing: nothing written
        assert code in (0, 1) or done == 0
    assert delay > 0.5 or not writing  # at 0.3 s a 120-file fix run is still analysing


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child")
def test_ctrl_c_while_writing_leaves_every_file_whole(tmp_path):
    fixed = fixed_text(tmp_path / "x")
    root = write_project(tmp_path / "p", {f"pkg{i // 20}/m{i:03d}.py": ORIGINAL for i in range(120)})
    paused = tmp_path / "paused"
    paused.mkdir()
    (paused / "sitecustomize.py").write_text(PAUSED_WRITES)
    process = start_fix_run(root, paused)
    files = sorted(root.rglob("m*.py"))
    # the run writes three files, then stalls inside the fourth write until interrupted:
    # waiting for that mark instead of sleeping keeps the test exact on a loaded machine
    deadline = time.time() + 120
    while process.poll() is None and time.time() < deadline and not (paused / "paused").exists():
        time.sleep(0.01)
    assert (paused / "paused").exists(), process.communicate()[1]
    process.send_signal(signal.SIGINT)
    code, done = check_whole(root, process, fixed)
    assert code == 130 and done == 3 < len(files)  # interrupted in the middle of writing
