"""ND000: files that cannot be read are reported with a reason; the rest is still checked."""

from __future__ import annotations

import os
import sys

import pytest

from conftest import run_cli, write_project

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def test_python2_file_reported_and_others_checked(tmp_path):
    write_project(tmp_path, {"old.py": "import os\n\nprint 'hello'\n", "new.py": BENCHMARK})
    code, out, err = run_cli([str(tmp_path)])
    lines = out.splitlines()
    assert code == 1 and err == ""
    assert lines[0].startswith(f"{(tmp_path / 'new.py').as_posix()}:2:1: ND201")
    assert lines[1].startswith(f"{(tmp_path / 'old.py').as_posix()}:3:")
    assert "ND000 cannot parse" in lines[1] and "Python 2" in lines[1]


def test_undecodable_bytes_position(tmp_path):
    (tmp_path / "bad.py").write_bytes(b"x = 1\ny = '\xff\xfe'\n")
    code, out, _ = run_cli([str(tmp_path)])
    assert code == 1
    assert out.startswith(f"{(tmp_path / 'bad.py').as_posix()}:2:6: ND000 cannot read file: cannot decode as utf-8")


def test_latin1_cookie_is_honoured(tmp_path):
    (tmp_path / "ok.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9'\n")
    assert run_cli([str(tmp_path)])[0] == 0


def test_wrong_coding_cookie(tmp_path):
    (tmp_path / "bad.py").write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    code, out, _ = run_cli([str(tmp_path)])
    assert code == 1 and "ND000" in out and "klingon" in out


def test_binary_file_named_py(tmp_path):
    (tmp_path / "blob.py").write_bytes(b"\x7fELF\x02\x01\x00\x00binary")
    code, out, _ = run_cli([str(tmp_path)])
    assert code == 1 and "ND000" in out and "null bytes" in out


def test_bom_and_empty_files(tmp_path):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfimport torch\ntorch.backends.cudnn.benchmark = True\n")
    (tmp_path / "empty.py").write_bytes(b"")
    code, out, _ = run_cli([str(tmp_path)])
    assert code == 1 and out.startswith(f"{(tmp_path / 'bom.py').as_posix()}:2:1: ND201")


def test_missing_path_reported(tmp_path):
    write_project(tmp_path, {"t.py": BENCHMARK})
    code, out, err = run_cli([str(tmp_path / "nope"), str(tmp_path)])
    assert code == 1 and "nope:1:1: ND000 cannot read: no such file or directory" in out and "ND201" in out


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_symlink_loop_reported_not_fatal(tmp_path):
    write_project(tmp_path, {"pkg/t.py": BENCHMARK})
    os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "again")
    os.symlink(tmp_path / "self_loop", tmp_path / "self_loop")
    code, out, _ = run_cli([str(tmp_path)])
    assert code == 1
    assert out.count("ND201") == 1
    assert "symbolic link loop" in out


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file_and_folder(tmp_path):
    write_project(tmp_path, {"secret.py": "x = 1\n", "closed/t.py": "x = 1\n", "t.py": BENCHMARK})
    os.chmod(tmp_path / "secret.py", 0)
    os.chmod(tmp_path / "closed", 0)
    try:
        code, out, _ = run_cli([str(tmp_path)])
    finally:
        os.chmod(tmp_path / "secret.py", 0o644)
        os.chmod(tmp_path / "closed", 0o755)
    assert code == 1 and "secret.py:1:1: ND000" in out and "closed:1:1: ND000" in out and "ND201" in out


def test_skipped_folders(tmp_path):
    files = {f"{folder}/t.py": BENCHMARK for folder in (".git", "build", "dist", "__pycache__", "node_modules", "myenv")}
    files["myenv/pyvenv.cfg"] = "home = /usr\n"
    files["src/t.py"] = BENCHMARK
    write_project(tmp_path, files)
    _, out, _ = run_cli([str(tmp_path)])
    assert out.count("ND201") == 1 and "src/t.py" in out


def test_explicit_file_always_checked(tmp_path):
    write_project(tmp_path, {"build/t.py": BENCHMARK})
    assert run_cli([str(tmp_path)])[0] == 0
    assert run_cli([str(tmp_path / "build" / "t.py")])[0] == 1
