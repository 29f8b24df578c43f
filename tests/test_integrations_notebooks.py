"""Jupyter notebooks: code cells checked as one program, findings at (cell, line)."""

from __future__ import annotations

import json

import nbformat
import pytest

from conftest import run_cli
from nondet_lint.analysis.entrypoints import EntryFacts
from nondet_lint.config import Config
from nondet_lint.engine import run
from nondet_lint.notebooks import apply_cell_edits, build_program, mask_ipython
from nondet_lint.types import Edit

BENCHMARK = "torch.backends.cudnn.benchmark = True"


def write_notebook(path, cells, **metadata):
    """A real notebook written by nbformat: strings are code cells, ("md", text) markdown."""
    nb = nbformat.v4.new_notebook()
    nb.metadata.update(metadata)
    for cell in cells:
        if isinstance(cell, tuple):
            nb.cells.append(nbformat.v4.new_markdown_cell(cell[1]))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(cell))
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def lint(path, **config):
    return run([str(path)], Config(root=str(path.parent), **config)).findings


def at(findings):
    return [(f.code, f.cell, f.line, f.col + 1) for f in findings]


def test_cells_are_one_program_and_findings_name_the_code_cell(tmp_path):
    nb = write_notebook(tmp_path / "train.ipynb", [
        ("md", "# Training\nimports first"),
        "import torch",
        ("md", "now the switch"),
        "x = 1\n" + BENCHMARK,  # `torch` resolves through the import in the first code cell
    ])
    assert at(lint(nb)) == [("ND201", 2, 2, 1)]


def test_magics_and_shell_escapes_are_skipped_not_parse_errors(tmp_path):
    nb = write_notebook(tmp_path / "n.ipynb", [
        "%matplotlib inline\nimport torch as T\n!pip install torch",
        "files = !ls\nfor name in files:\n    !echo $name\nT.backends.cudnn.benchmark = True",
        "%%bash\nfor f in *; do echo $f; done",
        "T?\n%time y = 1\n" + "T.backends.cudnn.benchmark = True",
        "%%time\nT.backends.cudnn.benchmark = True",
    ])
    assert at(lint(nb)) == [("ND201", 2, 4, 1), ("ND201", 4, 3, 1), ("ND201", 5, 2, 1)]


def test_percent_and_bang_in_python_are_not_magics():
    source = 'msg = ("%d items"\n    % 3)\nok = (1\n!= 2)\ntext = """\n!not a shell line\n"""\n'
    assert mask_ipython(source) == source
    mixed = source + "!ls\n"
    masked = mask_ipython(mixed)
    assert masked.splitlines()[:-1] == source.splitlines()
    assert masked.splitlines()[-1] == "pass"


def test_masking_keeps_line_count_and_indentation():
    source = "for i in range(3):\n    !echo $i\n    x = %timeit f()\n%%capture\n"
    masked = mask_ipython(source)
    assert masked.count("\n") == source.count("\n")
    assert masked.splitlines()[1:3] == ["    pass", "    x = None"]


def test_noqa_inside_a_cell(tmp_path):
    nb = write_notebook(tmp_path / "n.ipynb", ["import torch", BENCHMARK + "  # noqa: ND201", BENCHMARK])
    assert at(lint(nb)) == [("ND201", 3, 1, 1)]


def test_broken_cell_is_reported_and_the_rest_still_checked(tmp_path):
    broken = "def broken(:\n    pass\n"
    nb = write_notebook(tmp_path / "n.ipynb", ["import torch", broken, BENCHMARK])
    (tmp_path / "same.py").write_text(broken)
    [as_file] = lint(tmp_path / "same.py")
    assert at(lint(nb)) == [("ND000", 2, as_file.line, as_file.col + 1), ("ND201", 3, 1, 1)]


@pytest.mark.parametrize("content", [
    b"{not json",
    b'{"cells": 3}',
    b'{"cells": [{"cell_type": "code", "source": 5}]}',
    b"\xff\xfe\x00",
    b"[]",
])
def test_malformed_notebook_is_nd000_never_a_traceback(tmp_path, content):
    path = tmp_path / "bad.ipynb"
    path.write_bytes(content)
    code, out, err = run_cli([str(path)])
    assert code == 1 and err == ""
    assert out.startswith(f"{path.as_posix()}:1:1: ND000 ")


def test_notebook_of_another_language_is_skipped(tmp_path):
    nb = write_notebook(tmp_path / "r.ipynb", ["library(torch)\n" + BENCHMARK],
                        language_info={"name": "R"})
    assert lint(nb) == []


def test_notebook_is_an_entry_point(tmp_path):
    nb = write_notebook(tmp_path / "n.ipynb", ["import torch\nmodel = 1"])
    result = run([str(nb)], Config(root=str(tmp_path)))
    assert result.results[0].facts.get(EntryFacts).notebook is True


def test_folders_are_walked_for_notebooks(tmp_path):
    write_notebook(tmp_path / "sub" / "n.ipynb", ["import torch\n" + BENCHMARK])
    (tmp_path / ".ipynb_checkpoints").mkdir()
    write_notebook(tmp_path / ".ipynb_checkpoints" / "n-checkpoint.ipynb", ["import torch\n" + BENCHMARK])
    code, out, _ = run_cli([str(tmp_path), "--quiet"])
    assert code == 1
    assert out.splitlines()[0].startswith(f"{(tmp_path / 'sub' / 'n.ipynb').as_posix()}:cell 1:2:1: ND201 ")
    assert len(out.splitlines()) == 1


def test_json_output_carries_cell_and_cell_relative_fix(tmp_path):
    nb = write_notebook(tmp_path / "n.ipynb", ["import torch", "\n" + BENCHMARK])
    code, out, _ = run_cli(["--format", "json", str(nb)])
    finding = json.loads(out)["findings"][0]
    assert (finding["cell"], finding["line"], finding["column"]) == (2, 2, 1)
    assert finding["fix"]["edits"] == [
        {"line": 2, "column": 34, "end_line": 2, "end_column": 38, "content": "False", "cell": 2}
    ]


def test_fix_edits_apply_to_cells_and_keep_outputs_and_metadata(tmp_path):
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_code_cell("import torch")
    first.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n")]
    first.execution_count = 7
    first.metadata["tags"] = ["setup"]
    nb.cells = [first, nbformat.v4.new_markdown_cell("text"), nbformat.v4.new_code_cell("x = 1\n" + BENCHMARK)]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, str(path))
    raw = path.read_bytes()

    finding = lint(path)[0]
    new = apply_cell_edits(raw, finding.fix.edits)
    after = nbformat.reads(new.decode("utf-8"), as_version=4)
    nbformat.validate(after)
    assert after.cells[2].source == "x = 1\ntorch.backends.cudnn.benchmark = False"
    assert after.cells[0].outputs == nb.cells[0].outputs
    assert after.cells[0].execution_count == 7 and after.cells[0].metadata["tags"] == ["setup"]
    assert after.metadata == nb.metadata
    # untouched notebooks are written back byte for byte
    assert apply_cell_edits(raw, []) == raw
    path.write_bytes(new)
    assert lint(path) == []


def test_cell_edit_outside_its_cell_is_refused(tmp_path):
    path = write_notebook(tmp_path / "n.ipynb", ["import torch"])
    with pytest.raises(ValueError):
        apply_cell_edits(path.read_bytes(), [Edit(5, 0, 5, 0, "x", cell=1)])
    with pytest.raises(ValueError):
        apply_cell_edits(path.read_bytes(), [Edit(1, 0, 1, 0, "x", cell=9)])


def test_program_lines_map_to_cells_with_empty_cells(tmp_path):
    path = write_notebook(tmp_path / "n.ipynb", ["a = 1", "", "b = 2\nc = 3"])
    program = build_program(path.read_bytes())
    assert program.text == "a = 1\nb = 2\nc = 3\n"
    assert [(s.cell, s.start, s.lines) for s in program.cells] == [(1, 1, 1), (2, 2, 0), (3, 2, 2)]


def test_fix_edits_are_placed_in_the_cells_of_the_file_they_edit(tmp_path):
    """A fix may edit another file (``Edit.path``): a notebook entry point gets cell lines."""
    from nondet_lint.engine import run as engine_run
    from nondet_lint.notebooks import place_findings
    from nondet_lint.types import Finding, Fix

    nb = write_notebook(tmp_path / "train.ipynb", ["import torch", "import data\nmodel = 1"])
    (tmp_path / "data.py").write_text("x = 1\n")
    result = engine_run([str(tmp_path)], Config(root=str(tmp_path)))
    edit = Edit(3, 0, 3, 0, "torch.manual_seed(0)\n", path=result.files[1])
    own = Edit(1, 0, 1, 5, "y", path=None)
    finding = Finding(result.files[0], 1, 0, "ND201", "m", 1, 5, Fix("t", "safe", (edit, own)))
    [placed] = place_findings([finding], result.results)
    assert result.files[1] == str(nb)
    assert placed.fix.edits == (Edit(2, 0, 2, 0, "torch.manual_seed(0)\n", cell=2, path=str(nb)), own)
    assert placed.cell is None and placed.line == 1


def test_cli_fix_edits_the_cell_and_keeps_outputs(tmp_path):
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_code_cell("%matplotlib inline\nimport torch")
    first.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n")]
    first.execution_count = 3
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), first, nbformat.v4.new_code_cell(BENCHMARK + "\nx = 1")]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, str(path))
    code, _, _ = run_cli(["--fix", str(path)])
    assert code == 0
    after = nbformat.read(str(path), as_version=4)
    assert after.cells[2].source == "torch.backends.cudnn.benchmark = False\nx = 1"
    assert after.cells[1] == nb.cells[1] and after.cells[0] == nb.cells[0]


def test_a_notebook_is_not_the_module_of_the_same_name(tmp_path):
    """``import utils`` finds utils.py even when utils.ipynb sorts first beside it."""
    from nondet_lint.analysis.project import ModuleRecord, Project

    write_notebook(tmp_path / "utils.ipynb", ["def helper():\n    pass"])
    (tmp_path / "utils.py").write_text("def helper():\n    return 1\n")
    results = run([str(tmp_path)], Config(root=str(tmp_path))).results
    project = Project(str(tmp_path), Config(), {
        r.path: ModuleRecord(r.path, r.module_name, r.is_package, r.facts) for r in results
    })
    assert project.module("utils").path.endswith("utils.py")
    assert project.module("utils.ipynb").path.endswith("utils.ipynb")


def test_a_notebook_is_a_program_for_program_level_rules(tmp_path):
    """ND205 (a GPU program without deterministic algorithms) is decided per entry point."""
    nb = write_notebook(tmp_path / "gpu.ipynb", ["import torch", "model = torch.nn.Conv1d(2, 2, 1).cuda()\nmodel(torch.ones(2)).sum().backward()"])
    (tmp_path / "lib.py").write_text("import torch\nmodel = torch.nn.Conv1d(2, 2, 1).cuda()\n")
    assert [(f.path.rsplit("/", 1)[-1], f.code, f.cell, f.line) for f in lint(nb) if f.code == "ND205"] == [
        ("gpu.ipynb", "ND205", 2, 1)
    ]
    assert [f for f in lint(tmp_path / "lib.py") if f.code == "ND205"] == []  # a library module


def test_place_text_names_the_cell_for_messages(tmp_path):
    from nondet_lint.facts import FileFacts
    from nondet_lint.notebooks import place_text

    nb = write_notebook(tmp_path / "n.ipynb", [("md", "intro"), "import torch\nx = 1", "torch.manual_seed(0)"])
    [result] = run([str(nb)], Config(root=str(tmp_path))).results
    assert place_text("n.ipynb", 3, result.facts) == "n.ipynb:cell 3:1"  # every cell counts, as shown
    assert place_text("train.py", 3, FileFacts()) == "train.py:3"


from hypothesis import given, settings, strategies as st  # noqa: E402

LINES = st.sampled_from([
    "x = 1", "%time f()", "!ls -la", "y = !pwd", "obj?", "for i in x:", "    !echo $i", '"""', "'''",
    "s = ('a'", "     % b)", "a = [1,", "2]", "# %not a magic", "%%bash", "%%time", "\\", "def f():",
    "    return 1", "print('!')", "",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, max_size=12))
def test_masking_never_fails_and_keeps_every_line(lines):
    source = "\n".join(lines)
    masked = mask_ipython(source)
    assert masked.count("\n") == source.count("\n")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["cells", "cell_type", "source", "metadata", "language_info", "name", "code"]), inner, max_size=4,
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | JSON.map(lambda doc: json.dumps({"cells": doc}).encode()) | JSON.map(lambda doc: json.dumps(doc).encode()))
def test_any_bytes_are_a_notebook_or_a_notebook_error(raw):
    from nondet_lint.notebooks import NotebookError

    try:
        build_program(raw)
    except NotebookError:
        pass


CELL = st.fixed_dictionaries({
    "cell_type": st.sampled_from(["code", "code", "markdown", "raw"]),
    "source": st.lists(LINES.map(lambda line: line + "\n"), max_size=5) | LINES,
})


@settings(max_examples=60, deadline=None)
@given(st.lists(CELL, max_size=5))
def test_any_cells_give_findings_never_an_internal_error(tmp_path_factory, cells):
    path = tmp_path_factory.mktemp("nb") / "n.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    code, _, err = run_cli([str(path)])
    assert code in (0, 1) and err == ""


def test_cells_are_numbered_among_all_cells_as_ruff_does(tmp_path):
    """ruff (0.17, checked by hand) reports ``nb.ipynb:cell 4:...`` for the second code cell
    behind two markdown cells: every cell counts. JSON keeps ``cell`` among code cells."""
    nb = write_notebook(tmp_path / "n.ipynb", [("md", "# Title"), "import torch", ("md", "notes"), BENCHMARK])
    code, out, _ = run_cli(["--quiet", str(nb)])
    assert code == 1
    assert out.startswith(f"{nb.as_posix()}:cell 4:1:1: ND201 [*] ")
    finding = json.loads(run_cli(["--format", "json", str(nb)])[1])["findings"][0]
    assert (finding["cell"], finding["notebook_cell"], finding["line"]) == (2, 4, 1)
    assert finding["fix"]["edits"][0]["cell"] == 2  # edits address code cells, as before
    plain = json.loads(run_cli(["--format", "json", str(tmp_path)])[1])
    assert all(("notebook_cell" in f) == (f["cell"] is not None) for f in plain["findings"])


def test_program_messages_name_notebook_places_by_cell(tmp_path):
    """ND205's message names the GPU line and the ops as the finding's own location is
    shown (cell, counting every cell, and the line in it), not as lines of the joined program."""
    nb = write_notebook(tmp_path / "gpu.ipynb", [
        ("md", "# demo"),
        "import torch",
        "idx = torch.tensor([[1, 2]])\nmodel = torch.nn.EmbeddingBag(10, 3, mode='sum').cuda()\n"
        "loss = model(idx.cuda()).sum()\nloss.backward()",
    ])
    [finding] = [f for f in lint(nb) if f.code == "ND205"]
    assert (finding.shown_cell, finding.line) == (3, 2)
    assert finding.message.startswith(
        "this program runs on a GPU (`.cuda()` in `gpu.ipynb` at cell 3, line 2) but never turns on"
    )
    assert "it runs `torch.nn.functional.embedding_bag` (gpu.ipynb:cell 3:2)" in finding.message
