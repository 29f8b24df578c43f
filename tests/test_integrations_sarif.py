"""Code scanning: ``--format sarif`` validates against the official SARIF 2.1.0 schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import nbformat
import pytest

from conftest import run_cli, write_project
from nondet_lint.ruledata import load_rules

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
BENCHMARK = "import torch\n\ntorch.backends.cudnn.benchmark = True\n"


def sarif_of(args, monkeypatch, cwd):
    monkeypatch.chdir(cwd)
    code, out, err = run_cli(["--format", "sarif", *args])
    assert err == ""
    log = json.loads(out)
    jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(log)
    return code, log


def test_schema_rejects_a_broken_log():
    """The validation below can fail: a result without a message is not SARIF."""
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "ND201"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, SCHEMA)


def test_results_locations_and_fixes(tmp_path, monkeypatch):
    write_project(tmp_path, {"src/train.py": BENCHMARK, "broken.py": "def f(:\n"})
    code, log = sarif_of(["."], monkeypatch, tmp_path)
    assert code == 1
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"ND000", "ND201"}

    nd201 = by_rule["ND201"]
    location = nd201["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 31}
    assert nd201["level"] == "warning" and by_rule["ND000"]["level"] == "error"
    [replacement] = nd201["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacement == {
        "deletedRegion": {"startLine": 3, "startColumn": 34, "endLine": 3, "endColumn": 38},
        "insertedContent": {"text": "False"},
    }
    rules = run["tool"]["driver"]["rules"]
    assert rules[nd201["ruleIndex"]]["id"] == "ND201"


def test_every_rule_is_described_from_its_rule_data(tmp_path, monkeypatch):
    _, log = sarif_of([str(tmp_path)], monkeypatch, tmp_path)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    data = load_rules()
    assert [r["id"] for r in rules] == list(data.codes)
    for descriptor in rules:
        rule = data[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == " ".join(rule.summary.split())
        assert "## Why is this bad?" in descriptor["help"]["markdown"]
    assert log["runs"][0]["results"] == []


def test_fingerprint_survives_moving_the_code(tmp_path, monkeypatch):
    write_project(tmp_path, {"train.py": BENCHMARK})
    _, before = sarif_of(["train.py"], monkeypatch, tmp_path)
    (tmp_path / "train.py").write_text("# a new header\n\n" + BENCHMARK)
    _, after = sarif_of(["train.py"], monkeypatch, tmp_path)
    first, second = before["runs"][0]["results"][0], after["runs"][0]["results"][0]
    assert first["locations"] != second["locations"]
    assert first["partialFingerprints"] == second["partialFingerprints"]


def test_notebook_results_carry_the_cell(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# intro"), nbformat.v4.new_code_cell("import torch"),
        nbformat.v4.new_code_cell(BENCHMARK),
    ]
    nbformat.write(nb, str(tmp_path / "explore.ipynb"))
    _, log = sarif_of(["explore.ipynb"], monkeypatch, tmp_path)
    [result] = log["runs"][0]["results"]
    location = result["locations"][0]
    assert location["properties"] == {"cell": 2, "notebookCell": 3}  # among code cells / among all cells
    assert location["physicalLocation"]["region"]["startLine"] == 3
    assert location["logicalLocations"][0]["name"] == "cell 3"
    assert "fixes" not in result  # cell-relative edits are not edits of the file's text


def test_a_fix_editing_another_file_has_a_change_per_file(tmp_path, monkeypatch):
    from nondet_lint.reporters.sarif import sarif_log
    from nondet_lint.types import Edit, Finding, Fix

    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, {"lib.py": "x = 1\n", "train.py": "import torch\n"})
    fix = Fix("Seed", "unsafe", (Edit(1, 0, 1, 0, "# a\n"), Edit(2, 0, 2, 0, "torch.manual_seed(0)\n", path="train.py")))
    log = sarif_log([Finding("lib.py", 1, 0, "ND201", "m", 1, 1, fix)], load_rules())
    jsonschema.validate(log, SCHEMA)
    changes = log["runs"][0]["results"][0]["fixes"][0]["artifactChanges"]
    assert [c["artifactLocation"]["uri"] for c in changes] == ["lib.py", "train.py"]
    assert changes[1]["replacements"][0]["deletedRegion"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 1}
