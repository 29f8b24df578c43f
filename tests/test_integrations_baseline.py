"""Baselines: existing findings are recorded, only new ones are reported."""

from __future__ import annotations

import json

import nbformat

from conftest import run_cli, write_project

SWITCH = "torch.backends.cudnn.benchmark = True\n"


def test_write_then_only_new_findings(tmp_path, monkeypatch):
    write_project(tmp_path, {"train.py": "import torch\n" + SWITCH, "eval.py": "import torch\n" + SWITCH})
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli([".", "--baseline", "nd-baseline.json", "--write-baseline"])
    assert (code, out) == (0, "") and "2 finding(s)" in err
    assert run_cli([".", "--baseline", "nd-baseline.json"])[:2] == (0, "No findings.\n")

    # code moved down and re-indented keeps its key; a new occurrence is reported
    (tmp_path / "train.py").write_text(
        "import torch\n\n\ndef setup():\n    " + SWITCH + "\n\n" + SWITCH
    )
    code, out, _ = run_cli([".", "--baseline", "nd-baseline.json", "--quiet"])
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == ["train.py:8:1"]


def test_baseline_keys_are_relative_to_the_baseline_file(tmp_path, monkeypatch):
    write_project(tmp_path, {"proj/train.py": "import torch\n" + SWITCH})
    baseline = tmp_path / "proj" / "baseline.json"
    monkeypatch.chdir(tmp_path)
    run_cli(["proj", "--baseline", str(baseline), "--write-baseline"])
    document = json.loads(baseline.read_text())
    assert [(e["path"], e["code"], e["count"]) for e in document["findings"]] == [("train.py", "ND201", 1)]
    monkeypatch.chdir(tmp_path / "proj")
    assert run_cli([".", "--baseline", "baseline.json"])[:2] == (0, "No findings.\n")


def test_a_different_code_on_the_same_line_is_new(tmp_path, monkeypatch):
    write_project(tmp_path, {"train.py": "import torch\n" + SWITCH})
    monkeypatch.chdir(tmp_path)
    run_cli([".", "--baseline", "b.json", "--write-baseline"])
    document = json.loads((tmp_path / "b.json").read_text())
    document["findings"][0]["code"] = "ND000"
    (tmp_path / "b.json").write_text(json.dumps(document))
    code, out, _ = run_cli([".", "--baseline", "b.json"])
    assert code == 1 and " ND201 " in out


def test_notebook_findings_in_a_baseline(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import torch"), nbformat.v4.new_code_cell(SWITCH)]
    nbformat.write(nb, str(tmp_path / "n.ipynb"))
    monkeypatch.chdir(tmp_path)
    run_cli([".", "--baseline", "b.json", "--write-baseline"])
    nb.cells.insert(0, nbformat.v4.new_code_cell("x = 1"))  # the finding moves to cell 3
    nbformat.write(nb, str(tmp_path / "n.ipynb"))
    assert run_cli([".", "--baseline", "b.json"])[:2] == (0, "No findings.\n")


def test_missing_or_bad_baseline_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli([".", "--baseline", "missing.json"])
    assert code == 2 and "missing.json" in err and "--write-baseline" in err
    (tmp_path / "bad.json").write_text("[1, 2]")
    code, _, err = run_cli([".", "--baseline", "bad.json"])
    assert code == 2 and "bad.json" in err
    code, _, err = run_cli([".", "--write-baseline"])
    assert code == 2 and "--baseline" in err
