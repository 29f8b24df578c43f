"""``action.yml``: the composite GitHub Action installs from its own checkout and runs the
real command; its steps' shell scripts are run here with GitHub's expressions filled in."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_project

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def steps() -> dict:
    return {step["name"]: step for step in action()["runs"]["steps"]}


def expand(script: str, values: dict) -> str:
    """GitHub's ``${{ expression }}`` replaced as the runner would, from ``values``."""
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: values[m.group(1)], script)


def test_action_is_composite_and_installs_from_its_own_checkout():
    document = action()
    assert document["runs"]["using"] == "composite"
    assert set(document["inputs"]) == {"args", "python", "sarif", "sarif-file"}
    install = steps()["Install nondet-lint from the action's checkout"]["run"]
    assert 'pip install --quiet "${{ github.action_path }}"' in install
    upload = steps()["Upload SARIF to code scanning"]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["if"] == "inputs.sarif == 'true'"
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"


def test_action_steps_run_the_real_command(tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    write_project(tmp_path, {"train.py": BENCHMARK})
    defaults = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action()["inputs"].items()}
    env = {**os.environ, "NONDET_LINT": f"{sys.executable} -m nondet_lint"}

    def run_step(name: str) -> subprocess.CompletedProcess:
        script = expand(steps()[name]["run"], defaults)
        return subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    sarif = run_step("Write SARIF")
    assert sarif.returncode == 0, sarif.stderr
    log = json.loads((tmp_path / "nondet-lint.sarif").read_text())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["ND201"]
    check = run_step("Check (annotations on the pull request)")
    assert check.returncode == 1
    assert check.stdout.startswith("::warning file=train.py,line=2,col=1,")
