"""``[tool.nondet-lint]`` in pyproject.toml: discovery, keys, errors that name the key."""

from __future__ import annotations

from conftest import run_cli, write_project

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def pyproject(body: str) -> str:
    return "[project]\nname = 'x'\n\n[tool.nondet-lint]\n" + body


def test_nearest_pyproject_applies(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": pyproject('ignore = ["ND2"]\n'),
        "src/pkg/train.py": BENCHMARK,
    })
    assert run_cli([str(tmp_path / "src" / "pkg")])[0] == 0


def test_command_line_wins_over_config(tmp_path):
    write_project(tmp_path, {"pyproject.toml": pyproject('ignore = ["ND2"]\n'), "t.py": BENCHMARK})
    code, out, _ = run_cli([str(tmp_path), "--select", "ND201", "--config", str(tmp_path / "pyproject.toml")])
    # --select ND201 (5 chars) is more specific than the config's ignore ND2
    assert code == 1 and "ND201" in out


def test_unknown_key_is_error_naming_it(tmp_path):
    write_project(tmp_path, {"pyproject.toml": pyproject('selekt = ["ND1"]\n'), "t.py": "x = 1\n"})
    code, out, err = run_cli([str(tmp_path)])
    assert code == 2 and "'selekt'" in err and err.count("\n") == 1


def test_unknown_code_in_config_is_error(tmp_path):
    write_project(tmp_path, {"pyproject.toml": pyproject('ignore = ["ND999"]\n'), "t.py": "x = 1\n"})
    code, _, err = run_cli([str(tmp_path)])
    assert code == 2 and "ND999" in err and "ignore" in err


def test_unknown_code_in_per_file_ignores(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": pyproject('[tool.nondet-lint.per-file-ignores]\n"tests/*" = ["XX1"]\n'),
        "t.py": "x = 1\n",
    })
    code, _, err = run_cli([str(tmp_path)])
    assert code == 2 and "per-file-ignores" in err and "XX1" in err


def test_wrong_type_is_error(tmp_path):
    write_project(tmp_path, {"pyproject.toml": pyproject("seed = 'zero'\n"), "t.py": "x = 1\n"})
    code, _, err = run_cli([str(tmp_path)])
    assert code == 2 and "'seed'" in err


def test_invalid_toml_is_error(tmp_path):
    write_project(tmp_path, {"pyproject.toml": "[tool.nondet-lint\nselect = \n", "t.py": "x = 1\n"})
    code, _, err = run_cli([str(tmp_path)])
    assert code == 2 and "pyproject.toml" in err and "Traceback" not in err


def test_explicit_config_file(tmp_path):
    write_project(tmp_path, {"ci.toml": 'ignore = ["ND201"]\n', "t.py": BENCHMARK})
    assert run_cli([str(tmp_path), "--config", str(tmp_path / "ci.toml")])[0] == 0
    code, _, err = run_cli([str(tmp_path), "--config", str(tmp_path / "missing.toml")])
    assert code == 2 and "missing.toml" in err


def test_per_file_ignores_in_config(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": pyproject('[tool.nondet-lint.per-file-ignores]\n"experiments/*" = ["ND201"]\n'),
        "experiments/t.py": BENCHMARK,
        "train.py": BENCHMARK,
    })
    _, out, _ = run_cli([str(tmp_path)])
    assert "train.py" in out and "experiments" not in out


def test_exclude_and_extend_exclude(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": pyproject('extend-exclude = ["legacy", "scratch_*.py"]\n'),
        "legacy/t.py": BENCHMARK,
        "scratch_1.py": BENCHMARK,
        "train.py": BENCHMARK,
    })
    _, out, _ = run_cli([str(tmp_path)])
    assert out.count("ND201") == 1 and "train.py" in out


def test_sphinx_build_output_is_excluded_by_default_as_in_ruff(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": pyproject(""),
        "doc/_build/html/_downloads/t.py": BENCHMARK,
        "doc/build_notes/t.py": BENCHMARK,
    })
    _, out, _ = run_cli([str(tmp_path)])
    assert out.count("ND201") == 1 and "build_notes" in out and "/_build/" not in out


def test_pyproject_without_our_table_is_skipped(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": pyproject('ignore = ["ND201"]\n'),
        "sub/pyproject.toml": "[project]\nname = 'sub'\n",
        "sub/t.py": BENCHMARK,
    })
    assert run_cli([str(tmp_path / "sub")])[0] == 0
