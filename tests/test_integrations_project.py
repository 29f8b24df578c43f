"""Changed files only (pre-commit, editors): facts from the whole project, findings for the given files.

A probe check stands in for a project-level rule: it reports a use of ``torch.rand``
unless some module of the project calls ``torch.manual_seed`` (its code is ND201, and
only ND201 is selected, so the real seed rules do not mix in).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest

from conftest import run_cli, write_project
from nondet_lint import engine
from nondet_lint.families import registry
from nondet_lint.check import Check
from nondet_lint.cli import main
from nondet_lint.config import Config
from nondet_lint.facts import ModuleFact
from nondet_lint.types import Finding

SEEDED_ELSEWHERE = {
    "pyproject.toml": "[project]\nname = 'x'\n",
    "train.py": "import torch\nimport data\ntorch.manual_seed(0)\ntorch.backends.cudnn.benchmark = True\n",
    "pkg/data.py": "import torch\n\ndef batch():\n    return torch.rand(3)\n",
}

# a GPU program (train.py) made deterministic by a helper in another module (ND205)
UTILS = """\
import os
import torch


def make_deterministic(seed=0):
    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)
"""
TRAIN = """\
import torch
from utils import make_deterministic


def main():
    make_deterministic(0)
    model = torch.nn.Conv1d(3, 4, 1).cuda()
    model(torch.ones(1, 3)).sum().backward()


if __name__ == "__main__":
    main()
"""


@dataclass(frozen=True)
class ProbeSeed(ModuleFact):
    """A plugin's own kind of fact: it travels through the JSON form like the built-in ones."""

    key = "probe-seed"

    def to_json(self):
        return {}

    @classmethod
    def from_json(cls, data):
        return cls()


class SeedProbe(Check):
    codes = ("ND201",)

    def visit_Call(self, node):
        name = self.ctx.qualname(node.func)
        if name == "torch.manual_seed":
            self.ctx.facts.put(ProbeSeed())
        elif name == "torch.rand":
            self.ctx.defer(node, "ND201")

    @classmethod
    def resolve(cls, project, deferred, rules):
        if project.facts(ProbeSeed):
            return []
        return [Finding(d.path, d.line, d.col, d.code, "unseeded") for d in deferred]


@pytest.fixture
def probe(monkeypatch):
    real = registry.all_checks
    monkeypatch.setattr(registry, "all_checks", lambda: [*real(), SeedProbe])


def locations(findings):
    return [(f.path.rsplit("/", 1)[-1], f.line, f.code) for f in findings]


def test_a_changed_file_is_judged_with_facts_from_the_rest_of_the_project(tmp_path, probe):
    write_project(tmp_path, SEEDED_ELSEWHERE)
    config = Config(root=str(tmp_path), select=("ND201",))
    # only data.py is reported, and the seed set in train.py counts
    assert engine.run([str(tmp_path / "pkg" / "data.py")], config).findings == []
    (tmp_path / "train.py").write_text("import torch\n")
    assert locations(engine.run([str(tmp_path / "pkg" / "data.py")], config).findings) == [("data.py", 4, "ND201")]


def test_only_given_files_are_reported(tmp_path, probe):
    write_project(tmp_path, {**SEEDED_ELSEWHERE, "train.py": "import torch\ntorch.backends.cudnn.benchmark = True\n"})
    findings = engine.run([str(tmp_path / "pkg")], Config(root=str(tmp_path), select=("ND201",))).findings
    assert locations(findings) == [("data.py", 4, "ND201")]  # train.py's own finding is not reported


def test_cli_discovers_the_root_from_its_markers(tmp_path, probe, monkeypatch):
    write_project(tmp_path, SEEDED_ELSEWHERE)
    monkeypatch.chdir(tmp_path / "pkg")
    assert run_cli(["data.py", "--select", "ND201"])[:2] == (0, "No findings.\n")


def test_stdin_buffer_is_judged_with_the_project_and_replaces_its_file(tmp_path, probe):
    write_project(tmp_path, SEEDED_ELSEWHERE)

    def lint_buffer(name, text):
        out = io.StringIO()
        code = main(
            ["--stdin-filename", str(tmp_path / name), "--select", "ND201", "--quiet"],
            out=out, err=io.StringIO(), stdin=io.BytesIO(text),
        )
        return code, out.getvalue()

    # an unsaved data.py: the seed in train.py (on disk) counts
    assert lint_buffer("pkg/data.py", b"import torch\nx = torch.rand(2)\n") == (0, "")
    # an unsaved train.py whose seed was just deleted: the saved version no longer counts
    code, out = lint_buffer("train.py", b"import torch\nx = torch.rand(2)\n")
    assert code == 1 and out.endswith(":2:5: ND201 unseeded\n")


def test_paths_outside_the_root_index_nothing_else(tmp_path, probe):
    write_project(tmp_path, {"a/train.py": SEEDED_ELSEWHERE["train.py"], "b/data.py": SEEDED_ELSEWHERE["pkg/data.py"]})
    config = Config(root=str(tmp_path / "a"), select=("ND201",))
    assert locations(engine.run([str(tmp_path / "b" / "data.py")], config).findings) == [("data.py", 4, "ND201")]


def test_without_markers_the_root_is_the_start_folder(tmp_path, probe, monkeypatch):
    """No pyproject, setup.py or .git above: nothing above the checked folder is indexed."""
    if any((parent / marker).exists() for parent in tmp_path.parents
           for marker in ("pyproject.toml", "setup.py", "setup.cfg", ".git")):
        pytest.skip("the temporary folder lies inside a project")
    write_project(tmp_path, {"train.py": SEEDED_ELSEWHERE["train.py"], "pkg/data.py": SEEDED_ELSEWHERE["pkg/data.py"]})
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["pkg/data.py", "--select", "ND201"])
    assert code == 1 and out.startswith("pkg/data.py:4:12: ND201 unseeded")


def test_real_program_rule_sees_switches_set_in_an_unchanged_module(tmp_path):
    """ND205: a GPU program must turn on deterministic algorithms; here a helper in
    utils.py does, so checking only train.py (a pre-commit run) reports nothing."""
    write_project(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "utils.py": UTILS, "train.py": TRAIN})
    config = Config(root=str(tmp_path), select=("ND205",))
    assert engine.run([str(tmp_path / "train.py")], config).findings == []
    (tmp_path / "utils.py").write_text("def make_deterministic(seed=0):\n    pass\n")
    assert locations(engine.run([str(tmp_path / "train.py")], config).findings) == [("train.py", 7, "ND205")]
