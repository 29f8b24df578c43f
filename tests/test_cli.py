"""End-to-end behaviour of the command line: exit codes, formats, selection, config."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import run_cli, write_project

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def test_clean_project_exits_zero(tmp_path):
    write_project(tmp_path, {"ok.py": "import torch\nx = 1\n"})
    code, out, err = run_cli([str(tmp_path)])
    assert (code, out, err) == (0, "No findings.\n", "")


def test_findings_exit_one_with_flake8_lines(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    code, out, _ = run_cli([str(tmp_path)])
    assert code == 1
    path = (tmp_path / "train.py").as_posix()
    assert out.startswith(f"{path}:2:1: ND201 [*] ")
    assert out.splitlines()[1:] == ["Found 1 finding in 1 file.", "[*] 1 fixable with the `--fix` option."]


def test_exit_zero_flag(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    assert run_cli([str(tmp_path), "--exit-zero"])[0] == 0


def test_output_sorted_by_path_line_col_code(tmp_path):
    write_project(tmp_path, {
        "b.py": BENCHMARK + BENCHMARK.split("\n")[1] + "\n",
        "a.py": "print 'x'\n",
        "sub/c.py": BENCHMARK,
    })
    _, out, _ = run_cli([str(tmp_path), "--quiet"])
    locations = [line.split(": ")[0] for line in out.splitlines()]
    keys = [(p.rsplit(":", 2)[0], int(p.rsplit(":", 2)[1]), int(p.rsplit(":", 2)[2])) for p in locations]
    assert keys == sorted(keys) and len(keys) == 4


def test_usage_error_exit_two_one_line(tmp_path):
    code, out, err = run_cli(["--select", "XY999", str(tmp_path)])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "XY999" in err


def test_bad_flag_is_usage_error():
    code, _, err = run_cli(["--no-such-flag"])
    assert code == 2 and "no-such-flag" in err and "Traceback" not in err


def test_select_prefix_and_ignore(tmp_path):
    write_project(tmp_path, {"t.py": BENCHMARK, "old.py": "print 'x'\n"})
    assert run_cli(["--select", "ND2", str(tmp_path)])[1].count("ND201") == 1
    _, out, _ = run_cli(["--select", "ND2", str(tmp_path)])
    assert "ND000" not in out
    _, out, _ = run_cli(["--ignore", "ND201", str(tmp_path)])
    assert "ND201" not in out and "ND000" in out
    # the more specific prefix wins, as in ruff
    _, out, _ = run_cli(["--select", "ND201", "--ignore", "ND2", str(tmp_path)])
    assert "ND201" in out
    _, out, _ = run_cli(["--select", "ND0", "--extend-select", "ND201", str(tmp_path)])
    assert "ND201" in out and "ND000" in out


def test_per_file_ignores_flag(tmp_path):
    write_project(tmp_path, {"scripts/t.py": BENCHMARK, "u.py": BENCHMARK})
    _, out, _ = run_cli(["--per-file-ignores", "scripts/*:ND2", str(tmp_path)])
    assert "u.py" in out and "scripts" not in out


def test_json_format_schema(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    code, out, _ = run_cli(["--format", "json", str(tmp_path)])
    document = json.loads(out)
    assert code == 1 and document["version"] == 1
    (finding,) = document["findings"]
    assert finding["line"] == 2 and finding["column"] == 1
    assert finding["end_line"] == 2 and finding["end_column"] == len("torch.backends.cudnn.benchmark") + 1
    assert finding["code"] == "ND201" and finding["name"] == "cudnn-benchmark"
    assert finding["fix"]["applicability"] == "safe"
    assert finding["fix"]["edits"] == [
        {"line": 2, "column": 34, "end_line": 2, "end_column": 38, "content": "False"}
    ]
    assert document["summary"] == {"findings": 1, "by_code": {"ND201": 1}}


def test_rich_format_groups_and_summarises(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    code, out, _ = run_cli(["--format", "rich", str(tmp_path)])
    assert code == 1
    assert "torch.backends.cudnn.benchmark = True" in out  # the offending line
    assert "^^^" in out and "Summary" in out and "cudnn-benchmark" in out


def test_statistics(tmp_path):
    write_project(tmp_path, {"a.py": BENCHMARK, "b.py": BENCHMARK, "c.py": "print 'x'\n"})
    _, out, _ = run_cli(["--statistics", str(tmp_path)])
    assert "2     ND201 cudnn-benchmark" in out
    assert "1     ND000 unreadable-file" in out


def test_explain_and_rule_subcommand():
    code, out, _ = run_cli(["--explain", "ND201"])
    assert code == 0
    for section in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References"):
        assert section in out
    assert run_cli(["rule", "ND201"])[1] == out
    assert run_cli(["--explain", "cudnn-benchmark"])[1] == out
    code, _, err = run_cli(["--explain", "ND999"])
    assert code == 2 and "ND999" in err


def test_list_rules():
    code, out, _ = run_cli(["--list-rules"])
    assert code == 0
    assert any(line.startswith("ND201") and line.endswith("safe") for line in out.splitlines())


def test_python_dash_m_entry_point(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    proc = subprocess.run(
        [sys.executable, "-m", "nondet_lint", str(tmp_path)], capture_output=True, text=True
    )
    assert proc.returncode == 1 and "ND201" in proc.stdout


def test_console_script_installed(tmp_path):
    write_project(tmp_path, {"train.py": BENCHMARK})
    exe = os.path.join(os.path.dirname(sys.executable), "nondet-lint")
    proc = subprocess.run([exe, str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 1 and "ND201" in proc.stdout


def test_default_path_is_current_folder(tmp_path, monkeypatch):
    write_project(tmp_path, {"train.py": BENCHMARK})
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli([])
    assert code == 1 and out.startswith("train.py:2:1: ND201")


def test_internal_error_is_one_line(tmp_path, monkeypatch):
    import nondet_lint.engine as engine

    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(engine, "run", boom)
    write_project(tmp_path, {"a.py": "x = 1\n"})
    code, _, err = run_cli([str(tmp_path)])
    assert code == 2 and err.count("\n") == 1 and "kaput" in err and "Traceback" not in err
    code, _, err = run_cli([str(tmp_path), "--verbose"])
    assert code == 2 and "Traceback" in err
