"""The language server's parts that need no client: the analysis state (``Linter``),
notebook positions in ``.ipynb`` text, and the noqa edit."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

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
