"""The language server's parts that need no client: the analysis state (``Linter``),
notebook positions in ``.ipynb`` text, and the noqa edit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List, Tuple

import nbformat
import pytest
from lsprotocol import types

from nondet_lint.server.documents import Snapshot
from nondet_lint.server.linter import Linter, noqa_edit
from nondet_lint.server.notebook_text import source_lines
from nondet_lint.server.project import ProjectFacts

TRAIN = """\
import torch


def main():
    torch.backends.cudnn.benchmark = True


if __name__ == "__main__":
    main()
"""


def linter(root: Path) -> Tuple[Linter, List[Tuple[types.MessageType, str]]]:
    logged: List[Tuple[types.MessageType, str]] = []
    instance = Linter(len, lambda level, message: logged.append((level, message)), workers=0)
    instance.folders = [str(root)]
    return instance, logged


def snapshot(path: Path, text: str) -> Snapshot:
    return Snapshot(path.as_uri(), str(path), 1, text=text)


def test_an_exception_in_one_analysis_is_logged_and_the_next_one_works(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "train.py").write_text(TRAIN)
    server, logged = linter(tmp_path)
    original = ProjectFacts.update

    def broken(self, path, raw):
        raise RuntimeError("boom")

    monkeypatch.setattr(ProjectFacts, "update", broken)
    assert server.refresh([snapshot(tmp_path / "train.py", TRAIN)]) == {}
    errors = [message for level, message in logged if level == types.MessageType.Error]
    assert errors[0].startswith(f"nondet-lint: internal error while checking {tmp_path / 'train.py'}: RuntimeError: boom\n")
    monkeypatch.setattr(ProjectFacts, "update", original)
    published = server.refresh([snapshot(tmp_path / "train.py", TRAIN)])
    assert [d.code for d in published[(tmp_path / "train.py").as_uri()]] == ["ND201"]


def test_a_bad_config_is_reported_once_and_the_defaults_apply(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.nondet-lint]\nselect = 'ND1'\nbogus = 1\n")
    server, logged = linter(tmp_path)
    for version in (1, 2):
        server.refresh([Snapshot((tmp_path / "train.py").as_uri(), str(tmp_path / "train.py"), version, text=TRAIN)])
    errors = [message for level, message in logged if level == types.MessageType.Error]
    assert len(errors) == 1 and "unknown key 'bogus'" in errors[0] and errors[0].endswith("(using the default settings)")
    assert [d.code for d in server.shown[(tmp_path / "train.py").as_uri()].diagnostics] == ["ND201"]


def test_a_notebook_opened_as_json_text_gets_diagnostics_on_the_source_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("import torch\n\ntorch.backends.cudnn.benchmark = True"),
    ]
    text = nbformat.writes(notebook)
    server, _ = linter(tmp_path)
    path = tmp_path / "explore.ipynb"
    published = server.refresh([snapshot(path, text)])
    (diagnostic,) = published[path.as_uri()]
    row = text.splitlines()[diagnostic.range.start.line]
    assert diagnostic.code == "ND201" and row.strip() == '"torch.backends.cudnn.benchmark = True"'
    assert (diagnostic.range.start.character, diagnostic.range.end.character) == (0, len(row))


def test_source_lines_follow_the_json_layout():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("a = 1\nb = 2"),
        nbformat.v4.new_markdown_cell("text with \"source\": [\"quotes\"]"),
        nbformat.v4.new_code_cell("c = 3"),
    ]
    text = nbformat.writes(notebook)
    rows = text.splitlines()
    lines = source_lines(text)
    assert [[rows[row].strip() for row in lines[cell]] for cell in (1, 2)] == [['"a = 1\\n",', '"b = 2"'], ['"c = 3"']]
    assert source_lines("{not json") == {}


@pytest.mark.parametrize("line, expected", [
    ("x = random.random()", (3, 19, 3, 19, "  # noqa: ND101")),
    ("x = random.random()   ", (3, 19, 3, 22, "  # noqa: ND101")),
    ("x = random.random()  # noqa: ND104", (3, 34, 3, 34, ", ND101")),
    ("x = random.random()  # noqa", None),
])
def test_noqa_edit(line, expected):
    assert noqa_edit(line, 3, "ND101") == expected


# ---- incremental pass 2 ------------------------------------------------------------------

TORCH_PROJECT = Path(__file__).parent / "fixtures" / "kernels" / "torch_project"
OPEN = ("train.py", "model.py", "evaluate.py")


def _edits() -> List[Tuple[str, Dict[str, str]]]:
    """A session of edits on the torch project: (what, {file: its new text})."""
    train = (TORCH_PROJECT / "train.py").read_text()
    model = (TORCH_PROJECT / "model.py").read_text()
    unseeded = train.replace("    setup(0)\n", "")
    seeded_here = train.replace("    setup(0)\n", "    torch.manual_seed(0)\n")
    return [
        ("the seed removed from the entry point", {"train.py": unseeded}),
        ("a seed added in the entry point", {"train.py": seeded_here}),
        ("an import of the other script", {"train.py": seeded_here.replace("from model import Net\n", "from model import Net\nimport evaluate\n")}),
        ("the GPU line changed", {"train.py": seeded_here.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')}),
        ("a comment that moves every line (no fact changes)", {"model.py": "# the model\n" + model}),
        ("the seed removed again", {"train.py": unseeded.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')}),
        ("back to the start", {"train.py": train, "model.py": model}),
    ]


def _cli_findings(capsys, paths: Tuple[str, ...] = OPEN) -> List[Dict[str, Any]]:
    """The findings of a cold run of the command line (no cache, no earlier analysis)."""
    from nondet_lint.cli import main

    capsys.readouterr()
    main([*paths, "--no-cache", "--output-format", "json"])
    return json.loads(capsys.readouterr().out)["findings"]


def _server_findings(server: Linter) -> List[Dict[str, Any]]:
    from nondet_lint.reporters.json_format import finding_dict
    from nondet_lint.ruledata import load_rules

    findings = [finding for shown in server.shown.values() for _, finding in shown.pairs]
    return [finding_dict(f, load_rules()) for f in sorted(findings, key=lambda f: f.sort_key)]


def test_diagnostics_after_each_edit_equal_a_fresh_cli_run(tmp_path, monkeypatch, capsys):
    shutil.copytree(TORCH_PROJECT, tmp_path, dirs_exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    monkeypatch.chdir(tmp_path)
    server, _ = linter(tmp_path)
    server.refresh([snapshot(tmp_path / name, (tmp_path / name).read_text()) for name in OPEN])
    seen = [_server_findings(server)]
    assert seen[0] == _cli_findings(capsys)
    for what, files in _edits():
        for name, text in files.items():
            (tmp_path / name).write_text(text)
        server.refresh([snapshot(tmp_path / name, text) for name, text in files.items()])
        seen.append(_server_findings(server))
        assert seen[-1] == _cli_findings(capsys), what
    assert len({json.dumps(findings, sort_keys=True) for findings in seen}) >= 4  # the edits changed the findings
    assert seen[-1] == seen[0]


REACH_PROJECT = Path(__file__).parent / "fixtures" / "server" / "reach_project"
REACH_FILES = ("train.py", "model.py", "seed.py", "check.py", "tools/finetune.py", "tools/helpers.py", "plugins/extra.py")
SWITCH = "torch.use_deterministic_algorithms(True)\n"


def _reach_edits() -> List[Tuple[str, Dict[str, str]]]:
    """Edits inside and outside the reach of the project's two programs (train.py reaches
    model.py and seed.py, tools/finetune.py reaches tools/helpers.py and model.py, no
    program imports plugins/extra.py)."""
    text = {name: (REACH_PROJECT / name).read_text() for name in REACH_FILES}
    extra_on = text["plugins/extra.py"] + SWITCH
    train_imports = text["train.py"].replace("import torch\n", "import torch\n\nimport plugins.extra\n", 1)
    return [
        ("a switch in a module no program imports (it counts for every program)", {"plugins/extra.py": extra_on}),
        ("train.py imports that module: the switch is its program's alone", {"train.py": train_imports}),
        ("seed.py, in train.py's program only, stops seeding NumPy",
         {"seed.py": text["seed.py"].replace("    np.random.seed(seed)\n", "")}),
        ("tools/helpers.py, in tools/finetune.py's program only, seeds torch",
         {"tools/helpers.py": text["tools/helpers.py"].replace("    return x", "    torch.manual_seed(0)\n    return x")}),
        ("model.py, in both programs, seeds NumPy itself",
         {"model.py": text["model.py"].replace("        self.scale = ", "        np.random.seed(1)\n        self.scale = ")}),
        ("a comment that moves every line of model.py (no fact changes)", {"model.py": "# the model\n" + text["model.py"]}),
        ("check.py, test code, becomes a program that trains",
         {"check.py": text["check.py"].replace("    unittest.main()", "    train_once()")}),
        ("the module no program imports loses its switch, train.py its import",
         {"plugins/extra.py": text["plugins/extra.py"], "train.py": text["train.py"]}),
        ("back to the start", {name: text[name] for name in ("seed.py", "check.py", "tools/helpers.py", "model.py")}),
    ]


def test_diagnostics_after_edits_inside_and_outside_a_programs_reach_equal_a_cold_run(tmp_path, monkeypatch, capsys):
    shutil.copytree(REACH_PROJECT, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    server, logged = linter(tmp_path)
    server.refresh([snapshot(tmp_path / name, (tmp_path / name).read_text()) for name in REACH_FILES])
    seen = [_server_findings(server)]
    assert seen[0] == _cli_findings(capsys, REACH_FILES)
    for what, files in _reach_edits():
        for name, text in files.items():
            (tmp_path / name).write_text(text)
        server.refresh([snapshot(tmp_path / name, text) for name, text in files.items()])
        seen.append(_server_findings(server))
        assert seen[-1] == _cli_findings(capsys, REACH_FILES), what
    assert [level for level, _ in logged if level == types.MessageType.Error] == []
    assert len({json.dumps(findings, sort_keys=True) for findings in seen}) >= 5  # the edits changed the findings
    assert seen[-1] == seen[0]


def test_versions_pinned_on_disk_are_read_again_after_the_earlier_analyses_took_them_over(tmp_path, monkeypatch, capsys):
    shutil.copytree(REACH_PROJECT, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    server, _ = linter(tmp_path)
    server.refresh([snapshot(tmp_path / name, (tmp_path / name).read_text()) for name in REACH_FILES])
    model = (tmp_path / "model.py").read_text()
    server.refresh([snapshot(tmp_path / "model.py", model + "# an edit\n")])  # the earlier analyses hold the pins
    (tmp_path / "requirements.txt").write_text("numpy==1.26.4\ntorch==1.6.0\n")
    server.disk_changed([str(tmp_path / "requirements.txt")])
    (tmp_path / "model.py").write_text(model + SWITCH)
    server.refresh([snapshot(tmp_path / "model.py", model + SWITCH)])  # facts changed: a new project
    found = _server_findings(server)
    assert found == _cli_findings(capsys, REACH_FILES)
    assert any("on torch 1.6.0" in finding["message"] for finding in found)


def test_the_program_view_takes_over_the_import_edges_an_edit_left_alone(tmp_path, monkeypatch):
    from nondet_lint.config import Config
    from nondet_lint.families.kernels import gpu

    shutil.copytree(REACH_PROJECT, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    views: List[gpu.ProgramView] = []
    made = gpu.ProgramView.__init__

    def noted(view: gpu.ProgramView, *args: Any) -> None:
        made(view, *args)
        views.append(view)

    monkeypatch.setattr(gpu.ProgramView, "__init__", noted)
    project = ProjectFacts(Config(root=str(tmp_path)), workers=0)
    project.index()
    model = (tmp_path / "model.py").read_text()

    def edit(name: str, text: str) -> Tuple[gpu.ProgramView, gpu.ProgramView]:
        project.update(name, text.encode())
        project.findings(["train.py", "tools/finetune.py"])
        return views[-2], views[-1]

    project.findings(["train.py", "tools/finetune.py"])
    before, after = edit("model.py", model + SWITCH)  # facts changed, imports did not
    assert after is not before
    assert all(after.edges[path] is before.edges[path] for path in before.edges)
    assert after.closures is before.closures and after.orphans is before.orphans
    before, after = edit("model.py", model + SWITCH + "import plugins.extra\n")  # an import more
    assert after.edges["model.py"] == before.edges["model.py"] | {"plugins/extra.py"}
    assert all(after.edges[path] is before.edges[path] for path in before.edges if path != "model.py")
    assert after.closures["train.py"] == before.closures["train.py"] | {"plugins/extra.py"}
    assert after.orphans == frozenset()


def test_pass_2_decides_again_only_what_an_edit_can_change(tmp_path, monkeypatch):
    from nondet_lint import engine
    from nondet_lint.config import Config

    shutil.copytree(TORCH_PROJECT, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    project = ProjectFacts(Config(root=str(tmp_path)), workers=0)
    project.index()
    decided: List[str] = []
    real = engine.decide_check
    monkeypatch.setattr(engine, "decide_check", lambda check, *args: decided.append(check.__name__) or real(check, *args))
    train, model = (tmp_path / "train.py").read_text(), (tmp_path / "model.py").read_text()

    def edit(name: str, text: str) -> List[str]:
        decided.clear()
        project.update(name, text.encode())
        found = project.findings(["train.py", "model.py"])
        again = sorted(decided)
        fresh = engine.decide(
            [project.results["model.py"], project.results["train.py"]], project.contexts(["train.py", "model.py"]),
            [], project.config, project.rules, project.enabled,
        )
        assert [f for path in ("model.py", "train.py") for f in found[path]] == fresh
        return again

    everything = edit("train.py", train)
    assert everything == ["ProgramSwitches", "Seeding", "TorchOps"]
    assert edit("train.py", train + "# a comment\n") == []  # the same facts, the same candidates
    # the op's candidate moves along its line: only the check deciding it decides again
    assert edit("model.py", model.replace("self.pool = nn.", "self.pool  =  nn.")) == ["TorchOps"]
    assert edit("train.py", train.replace("    setup(0)\n", "")) == everything  # its facts changed


# ---- rule documentation ------------------------------------------------------------------

def test_diagnostics_link_to_the_rule_page_written_from_the_packaged_rule_data(tmp_path, monkeypatch):
    from nondet_lint import __version__
    from nondet_lint.docs import explain
    from nondet_lint.ruledata import load_rules
    from nondet_lint.server import ruledocs

    monkeypatch.setattr(ruledocs, "_written", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(ruledocs.sys, "platform", "linux")
    page = tmp_path / "cache" / "nondet-lint" / "docs" / __version__ / "nd201-cudnn-benchmark.md"
    assert ruledocs.rule_url("ND201") == page.as_uri()
    assert page.read_text(encoding="utf-8") == explain(load_rules()["ND201"])
    assert [p.name for p in page.parent.iterdir()] == [page.name]  # no temporary file left
    assert ruledocs.rule_url("ND999") is None


def test_no_link_when_the_cache_folder_cannot_be_written(tmp_path, monkeypatch):
    from nondet_lint.server import ruledocs

    monkeypatch.setattr(ruledocs, "_written", {})
    (tmp_path / "cache").write_text("a file where the folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(ruledocs.sys, "platform", "linux")
    assert ruledocs.rule_url("ND201") is None
    server, _ = linter(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    published = server.refresh([snapshot(tmp_path / "train.py", TRAIN)])
    (diagnostic,) = published[(tmp_path / "train.py").as_uri()]
    assert (diagnostic.code, diagnostic.code_description) == ("ND201", None)


def test_an_edit_in_one_programs_reach_runs_that_program_again_and_keeps_the_others_runs(tmp_path, monkeypatch, capsys):
    from nondet_lint.families.seeding.program import Program

    shutil.copytree(REACH_PROJECT, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    programs: List[Program] = []
    run_all = Program.run_all

    def noted(program: Program) -> None:
        run_all(program)
        programs.append(program)

    monkeypatch.setattr(Program, "run_all", noted)
    server, logged = linter(tmp_path)

    def runs(program: Program) -> Dict[str, Any]:
        return {str(Path(path).relative_to(tmp_path) if Path(path).is_absolute() else Path(path)): run
                for path, run in program.runs.items()}

    server.refresh([snapshot(tmp_path / name, (tmp_path / name).read_text()) for name in REACH_FILES])
    before = runs(programs[-1])  # the server's (the command line's runs come after)
    cold = _server_findings(server)
    assert cold == _cli_findings(capsys, REACH_FILES)

    seed = (tmp_path / "seed.py").read_text()
    helpers = (tmp_path / "tools/helpers.py").read_text()
    edits = [  # (file, text, the program that runs it)
        ("tools/helpers.py", helpers.replace("    return x", "    torch.manual_seed(0)\n    return x"), "tools/finetune.py"),
        ("seed.py", seed.replace("    np.random.seed(seed)\n", "    np.random.shuffle(ORDER)\n    np.random.seed(seed)\n"), "train.py"),
        ("tools/helpers.py", helpers, "tools/finetune.py"),
        ("seed.py", seed, "train.py"),
    ]
    seen = [cold]
    for name, text, program in edits:
        (tmp_path / name).write_text(text)
        server.refresh([snapshot(tmp_path / name, text)])
        after = runs(programs[-1])
        assert sorted(after) == ["check.py", "tools/finetune.py", "train.py"]
        assert after[program] is not before[program], name  # run again
        assert all(after[other] is before[other] for other in after if other != program), name  # kept
        seen.append(_server_findings(server))
        assert seen[-1] == _cli_findings(capsys, REACH_FILES), name
        before = after
    assert [level for level, _ in logged if level == types.MessageType.Error] == []
    assert len({json.dumps(findings, sort_keys=True) for findings in seen}) == 4  # each edit changed the findings
    assert seen[-1] == cold
