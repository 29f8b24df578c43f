"""The fix modes end to end (``--fix``, ``--diff``, ``--fix-only``, ``--show-fixes``,
``--unsafe-fixes``, ``fixable`` / ``unfixable``) and the safety of writing files.

ND201 (``cudnn.benchmark = True`` → ``False``, a safe fix) is the fixable rule used here;
``test_fix_rules.py`` covers every fixable rule from its data.
"""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path

import pytest

from conftest import run_cli, write_project
from fixtools import apply_unified_diff
from nondet_lint import engine, fileanalysis
from nondet_lint.cli import main
from nondet_lint.context import FileContext
from nondet_lint.fixes import command, writer
from nondet_lint.fixes.apply import apply_text_edits
from nondet_lint.types import Edit, Fix

BENCHMARK = "import torch\n\n# tuned for speed\ntorch.backends.cudnn.benchmark = True  # fast\n"
FIXED = "import torch\n\n# tuned for speed\ntorch.backends.cudnn.benchmark = False  # fast\n"
BROKEN = "print 'x'\n"  # ND000: a finding no fix removes


def _project(tmp_path: Path, **files: str) -> Path:
    write_project(tmp_path, files or {"train.py": BENCHMARK})
    return tmp_path


def test_fix_writes_the_file_and_reports_what_remains(tmp_path):
    _project(tmp_path, **{"train.py": BENCHMARK, "old.py": BROKEN})
    code, out, err = run_cli(["--fix", str(tmp_path)])
    assert (tmp_path / "train.py").read_text() == FIXED
    assert code == 1  # ND000 remains
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()[:-1]] == ["ND000"]
    assert out.splitlines()[-1] == "Found 1 finding in 1 file."
    assert "nondet-lint: fixed 1 of 2 findings (1 fix applied), 1 remaining\n" in err


def test_fix_exits_zero_when_nothing_remains_and_second_run_is_a_no_op(tmp_path):
    _project(tmp_path)
    assert run_cli(["--fix", str(tmp_path)])[:2] == (0, "No findings.\n")
    assert (tmp_path / "train.py").read_text() == FIXED
    code, out, err = run_cli(["--fix", str(tmp_path)])
    assert (code, out, err) == (0, "No findings.\n", "")
    assert (tmp_path / "train.py").read_text() == FIXED


def test_fix_only_reports_nothing_and_exits_zero(tmp_path):
    _project(tmp_path, **{"train.py": BENCHMARK, "old.py": BROKEN})
    code, out, _ = run_cli(["--fix-only", str(tmp_path)])
    assert (code, out) == (0, "")
    assert (tmp_path / "train.py").read_text() == FIXED


def _twins(tmp_path: Path) -> None:
    """Two copies of the same project, ``a`` and ``b``: one to inspect, one to fix."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        write_project(tmp_path / folder, {"train.py": BENCHMARK})


def test_diff_writes_nothing_exits_one_and_matches_what_fix_writes(tmp_path):
    _twins(tmp_path)
    code, out, _ = run_cli(["--diff", str(tmp_path / "a")])
    assert code == 1
    assert (tmp_path / "a" / "train.py").read_text() == BENCHMARK
    path = str(tmp_path / "a" / "train.py")
    assert out.startswith(f"--- {path}\n+++ {path}\n")
    run_cli(["--fix", str(tmp_path / "b")])
    assert apply_unified_diff(BENCHMARK, out) == {path: (tmp_path / "b" / "train.py").read_text()}


def test_diff_without_changes_exits_zero(tmp_path):
    _project(tmp_path, **{"train.py": FIXED})
    assert run_cli(["--diff", str(tmp_path)])[:2] == (0, "")


def test_show_fixes_lists_the_fixes_per_file_and_code(tmp_path):
    _project(tmp_path, **{"train.py": BENCHMARK + "torch.backends.cudnn.benchmark = True\n"})
    code, out, _ = run_cli(["--fix", "--show-fixes", str(tmp_path)])
    assert code == 0
    assert "Fixed 2 findings:" in out
    assert f"- {tmp_path / 'train.py'}:" in out and "2 × ND201 (cudnn-benchmark)" in out


def test_unsafe_fixes_apply_only_with_the_flag(tmp_path, monkeypatch):
    original = FileContext.fix

    def unsafe_fix(self, code, edits, applicability=None, **values):
        return original(self, code, edits, "unsafe", **values)

    monkeypatch.setattr(FileContext, "fix", unsafe_fix)
    _project(tmp_path)
    code, out, _ = run_cli(["--fix", str(tmp_path)])
    assert code == 1 and "ND201" in out
    assert (tmp_path / "train.py").read_text() == BENCHMARK
    assert run_cli(["--fix", "--unsafe-fixes", str(tmp_path)])[0] == 0
    assert (tmp_path / "train.py").read_text() == FIXED


@pytest.mark.parametrize("setting", ["unfixable = ['ND2']", "fixable = ['ND0']", "unfixable = ['ND201']"])
def test_fixable_and_unfixable_config(tmp_path, setting):
    _project(tmp_path, **{"train.py": BENCHMARK, "pyproject.toml": f"[tool.nondet-lint]\n{setting}\n"})
    code, out, _ = run_cli(["--fix", str(tmp_path)])
    assert code == 1 and "ND201" in out
    assert (tmp_path / "train.py").read_text() == BENCHMARK


def test_fixable_flags_win_over_config(tmp_path):
    _project(tmp_path, **{"train.py": BENCHMARK, "pyproject.toml": "[tool.nondet-lint]\nunfixable = ['ND2']\n"})
    assert run_cli(["--fix", "--unfixable", "ND0", str(tmp_path)])[0] == 0
    assert (tmp_path / "train.py").read_text() == FIXED
    _project(tmp_path, **{"train.py": BENCHMARK})
    assert run_cli(["--fix", "--fixable", "ND0", str(tmp_path)])[0] == 1
    assert run_cli(["--fix", "--unfixable", "ND9", str(tmp_path)])[0] == 2  # unknown code


def test_suppressed_findings_are_not_fixed(tmp_path):
    source = "import torch\ntorch.backends.cudnn.benchmark = True  # noqa: ND201\n"
    _project(tmp_path, **{"train.py": source})
    assert run_cli(["--fix", str(tmp_path)])[0] == 0
    assert (tmp_path / "train.py").read_text() == source


def test_json_edits_apply_as_fix_writes(tmp_path):
    _twins(tmp_path)
    _, out, _ = run_cli(["--format", "json", str(tmp_path / "a")])
    edits = [Edit.from_dict(e) for f in json.loads(out)["findings"] for e in f["fix"]["edits"]]
    run_cli(["--fix", str(tmp_path / "b")])
    assert apply_text_edits(BENCHMARK, edits) == (tmp_path / "b" / "train.py").read_text()


def test_standard_input_is_fixed_to_standard_output(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = main(["--fix", "--stdin-filename", str(tmp_path / "train.py")], out=out, err=err, stdin=io.BytesIO(BENCHMARK.encode()))
    assert code == 0 and out.getvalue() == FIXED
    assert not (tmp_path / "train.py").exists()


# ---- safety ----------------------------------------------------------------------------


def test_permission_bits_are_kept(tmp_path):
    _project(tmp_path)
    path = tmp_path / "train.py"
    path.chmod(0o751)
    run_cli(["--fix", str(tmp_path)])
    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o751


def test_symlink_is_followed_and_kept(tmp_path):
    (tmp_path / "real").mkdir()
    write_project(tmp_path / "real", {"train.py": BENCHMARK})
    (tmp_path / "src").mkdir()
    link = tmp_path / "src" / "train.py"
    link.symlink_to(tmp_path / "real" / "train.py")
    run_cli(["--fix", str(link)])
    assert link.is_symlink() and (tmp_path / "real" / "train.py").read_text() == FIXED


def test_read_only_file_is_reported_not_written(tmp_path):
    _project(tmp_path)
    path = tmp_path / "train.py"
    path.chmod(0o444)
    code, out, err = run_cli(["--fix", str(tmp_path)])
    assert path.read_text() == BENCHMARK
    assert code == 1 and "ND201" in out  # reported as it is on disk
    assert "read-only" in err and "Traceback" not in err
    assert run_cli(["--fix-only", str(tmp_path)])[0] == 1


def test_file_changed_on_disk_is_not_overwritten(tmp_path, monkeypatch):
    _project(tmp_path)
    path = tmp_path / "train.py"
    real_write = command.write_atomically

    def edited_meanwhile(target, original, new):
        path.write_text("import torch\n# edited in an editor meanwhile\n")
        real_write(target, original, new)

    monkeypatch.setattr(command, "write_atomically", edited_meanwhile)
    code, _, err = run_cli(["--fix", str(tmp_path)])
    assert path.read_text() == "import torch\n# edited in an editor meanwhile\n"
    assert "changed on disk" in err and code == 1


def test_failed_write_leaves_the_file_and_no_temporary_file(tmp_path, monkeypatch):
    _project(tmp_path)

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer.os, "replace", fail)
    code, _, err = run_cli(["--fix", str(tmp_path)])
    assert (tmp_path / "train.py").read_text() == BENCHMARK
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".nondet-lint.tmp")]
    assert "No space left on device" in err and code == 1


def test_interrupted_write_leaves_no_partial_file(tmp_path, monkeypatch):
    path = tmp_path / "train.py"
    path.write_bytes(b"old")
    real_fdopen = writer.os.fdopen

    class Interrupted(Exception):
        pass

    class HalfWritten:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[:2])
            raise Interrupted()

    monkeypatch.setattr(writer.os, "fdopen", lambda fd, mode: HalfWritten(real_fdopen(fd, mode)))
    with pytest.raises(Interrupted):
        writer.write_atomically(str(path), b"old", b"new contents")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["train.py"]


def _broken_edits(monkeypatch, content: str) -> None:
    """Make every fix insert ``content`` at the start of the reported line."""
    real = fileanalysis.to_edits

    def to_edits(fix, spans):
        good = real(fix, spans)
        first = good.edits[0]
        return Fix(good.title, good.applicability, (Edit(first.line, 0, first.line, 0, content),))

    monkeypatch.setattr(fileanalysis, "to_edits", to_edits)


def test_fix_whose_result_does_not_parse_is_dropped_and_reported(tmp_path, monkeypatch):
    _broken_edits(monkeypatch, "(")
    _project(tmp_path)
    code, out, err = run_cli(["--fix", str(tmp_path)])
    assert (tmp_path / "train.py").read_text() == BENCHMARK
    assert code == 1 and "ND201" in out
    assert "ND201 fix not applied: the fixed code would not parse" in err


def test_fixes_that_never_settle_stop_after_the_cap(tmp_path, monkeypatch):
    _broken_edits(monkeypatch, "# again\n")
    _project(tmp_path)
    code, _, err = run_cli(["--fix", str(tmp_path)])
    assert "did not settle" in err and code == 1
    assert 1 <= (tmp_path / "train.py").read_text().count("# again") <= 10


def test_writer_refuses_a_file_that_changed(tmp_path):
    path = tmp_path / "x.py"
    path.write_bytes(b"now\n")
    with pytest.raises(writer.WriteError, match="changed on disk"):
        writer.write_atomically(str(path), b"then\n", b"new\n")
    assert path.read_bytes() == b"now\n"


def test_notebook_cell_is_fixed_and_outputs_kept(tmp_path):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Train\n"]},
            {
                "cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}],
                "source": ["import torch\n", "torch.backends.cudnn.benchmark = True"],
            },
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}, "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(notebook, indent=1) + "\n")
    code, _, err = run_cli(["--fix", str(tmp_path)])
    assert code == 0, err
    fixed = json.loads(path.read_text())
    assert "".join(fixed["cells"][1]["source"]) == "import torch\ntorch.backends.cudnn.benchmark = False"
    assert fixed["cells"][1]["outputs"] == notebook["cells"][1]["outputs"]
    assert fixed["cells"][0] == notebook["cells"][0]


def test_the_seed_setting_is_the_value_fixes_insert(tmp_path):
    source = "from sklearn.ensemble import RandomForestClassifier\n\nclf = RandomForestClassifier(n_estimators=10)\n"
    _project(tmp_path, **{"train.py": source, "pyproject.toml": "[tool.nondet-lint]\nseed = 1234\nselect = ['ND108']\n"})
    code, out, err = run_cli(["--fix", str(tmp_path)])
    assert code == 0, out + err
    assert "RandomForestClassifier(n_estimators=10, random_state=1234)" in (tmp_path / "train.py").read_text()
