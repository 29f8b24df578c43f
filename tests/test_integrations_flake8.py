"""The flake8 plugin, driven through the real flake8 (its command line and its API)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import run_cli, write_project

flake8_application = pytest.importorskip("flake8.main.application")

from nondet_lint import flake8_plugin  # noqa: E402
from nondet_lint.config import marked_root  # noqa: E402
from nondet_lint.families import registry  # noqa: E402
from test_integrations_project import SEEDED_ELSEWHERE, SeedProbe  # noqa: E402

SOURCE = (
    "import torch\n"
    "from torch.backends import cudnn\n"
    "def setup():\n"
    "    cudnn.benchmark = True\n"
    "    x = 1; torch.backends.cudnn.benchmark = True  # noqa: ND201\n"
)


def flake8(args, cwd):
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", *args], capture_output=True, text=True, cwd=cwd,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def test_plugin_is_registered_with_flake8(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert "nondet-lint" in proc.stdout


def test_same_line_and_column_as_nondet_lint(tmp_path):
    write_project(tmp_path, {"train.py": SOURCE})
    code, out = flake8(["--select", "ND", "--disable-noqa", "train.py"], tmp_path)
    ours = run_cli([str(tmp_path / "train.py"), "--quiet"])[1]
    assert code == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == ["train.py:4:5", "train.py:5:12"]
    assert {line.split(": ")[0].rsplit(":", 2)[1:] == ["4", "5"] for line in ours.splitlines()} == {True}
    # the same text but nondet-lint's [*] (fixable) marker, which flake8 has no notion of
    assert out.splitlines()[0].split(":", 1)[1] == ours.splitlines()[0].split(":", 1)[1].replace(" [*] ", " ", 1)


def test_flake8_owns_noqa(tmp_path):
    write_project(tmp_path, {"train.py": SOURCE})
    _, out = flake8(["--select", "ND", "train.py"], tmp_path)
    assert [line.split(": ")[0] for line in out.splitlines()] == ["train.py:4:5"]
    _, out = flake8(["--select", "ND", "--disable-noqa", "train.py"], tmp_path)
    assert len(out.splitlines()) == 2


def test_flake8_selection_and_per_file_ignores(tmp_path):
    write_project(tmp_path, {"train.py": SOURCE, "tests/test_x.py": SOURCE})
    code, out = flake8(["--select", "ND", "--per-file-ignores", "tests/*:ND201", "."], tmp_path)
    assert code == 1 and [line.split(":")[0] for line in out.splitlines()] == ["./train.py"]
    code, out = flake8(["--select", "ND", "--extend-ignore", "ND2", "."], tmp_path)
    assert (code, out) == (0, "")


def test_project_config_is_read(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": '[tool.nondet-lint]\nper-file-ignores = { "legacy/*" = ["ND201"] }\n',
        "legacy/old.py": SOURCE,
        "new.py": SOURCE,
    })
    _, out = flake8(["--select", "ND", "."], tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["./new.py"]


def test_nondet_config_option_from_the_flake8_config(tmp_path):
    write_project(tmp_path, {
        "setup.cfg": "[flake8]\nnondet-config = ci/nondet.toml\n",
        "ci/nondet.toml": 'ignore = ["ND201"]\n',
        "src/train.py": SOURCE,
    })
    assert flake8(["--select", "ND", "src"], tmp_path) == (0, "")
    assert flake8(["--select", "ND", "--isolated", "src"], tmp_path)[0] == 1


def test_bad_config_is_one_finding_not_a_traceback(tmp_path):
    write_project(tmp_path, {"pyproject.toml": "[tool.nondet-lint]\nno-such-key = 1\n", "a.py": "x = 1\n"})
    code, out = flake8(["--select", "ND", "a.py"], tmp_path)
    assert code == 1 and out.startswith("a.py:1:1: ND000 ") and "no-such-key" in out


@pytest.fixture
def probe(monkeypatch, tmp_path_factory):
    from nondet_lint.cache import ENV_DIR

    monkeypatch.setenv(ENV_DIR, str(tmp_path_factory.mktemp("cache")))  # results of the probe stay here
    real = registry.all_checks
    monkeypatch.setattr(registry, "all_checks", lambda: [*real(), SeedProbe])
    flake8_plugin._INDEX.clear()
    yield
    flake8_plugin._INDEX.clear()


def run_in_process(paths, capsys):
    """flake8 in this process (one job), so the probe check patched in here runs."""
    app = flake8_application.Application()
    app.run(["--select", "ND201", "--jobs", "1", *paths])
    return app.result_count, capsys.readouterr().out


def test_project_facts_from_the_rest_of_the_project(tmp_path, probe, capsys, monkeypatch):
    write_project(tmp_path, SEEDED_ELSEWHERE)
    monkeypatch.chdir(tmp_path)
    assert run_in_process(["pkg/data.py"], capsys) == (0, "")
    (tmp_path / "train.py").write_text("import torch\n")
    flake8_plugin._INDEX.clear()  # a new flake8 process would index again
    total, out = run_in_process(["pkg/data.py"], capsys)
    assert total == 1 and out.startswith("pkg/data.py:4:12: ND201 unseeded")


def test_project_index_shares_the_content_cache_with_nondet_lint(tmp_path, probe, capsys, monkeypatch):
    from nondet_lint.cache import ENV_DIR

    def entries():
        return sorted(name for _, _, names in os.walk(os.environ[ENV_DIR]) for name in names if name.endswith(".json"))

    write_project(tmp_path, SEEDED_ELSEWHERE)
    monkeypatch.chdir(tmp_path)
    run_cli(["."])
    capsys.readouterr()
    after_cli = entries()
    assert len(after_cli) >= 2  # train.py and pkg/data.py
    run_in_process(["pkg/data.py"], capsys)
    assert entries() == after_cli  # flake8 found every file of the project in the cache


LOOSE = {
    "train.py": "import torch\ntorch.manual_seed(0)\n",
    "data.py": "import torch\n\ndef batch():\n    return torch.rand(3)\n",
}


def test_a_file_with_no_project_around_it_is_its_own_project(tmp_path, probe, capsys, monkeypatch):
    """No pyproject.toml, setup.py, setup.cfg or .git at or above the file (a script in
    /tmp): no other file of its folder is read, by flake8 as by nondet-lint (flake8 on
    one file in /tmp used to index all of /tmp)."""
    if marked_root(tmp_path) is not None:
        pytest.skip("the temporary folder lies inside a project")
    write_project(tmp_path / "loose", LOOSE)
    monkeypatch.chdir(tmp_path)
    total, out = run_in_process(["loose/data.py"], capsys)
    assert total == 1 and out.startswith("loose/data.py:4:12: ND201 unseeded")  # train.py's seed is not read
    assert flake8_plugin._INDEX == {}
    code, cli_out, _ = run_cli(["--select", "ND201", "--no-cache", "loose/data.py"])
    assert code == 1 and cli_out.startswith("loose/data.py:4:12: ND201 unseeded")
    # given together, or with a project marker, the files are one project
    assert run_cli(["--select", "ND201", "--no-cache", "loose"])[:2] == (0, "No findings.\n")
    (tmp_path / "loose" / "setup.py").write_text("")
    flake8_plugin._INDEX.clear()  # a new flake8 process would find the project
    flake8_plugin._config_for.cache_clear()
    assert run_in_process(["loose/data.py"], capsys) == (0, "")
    assert run_cli(["--select", "ND201", "--no-cache", "loose/data.py"])[:2] == (0, "No findings.\n")
