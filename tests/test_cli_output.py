"""Output through the real command: ``[*]`` markers and the summary, ``-q`` / ``--silent``,
the formats added for other tools (each read with its own parser) and ``--output-file``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conftest import run_cli, write_project
from nondet_lint.context import FileContext

BENCHMARK = "import torch\ntorch.backends.cudnn.benchmark = True\n"
REQUIREMENTS = "torch>=2.1\n"
MESSAGE = "`torch.backends.cudnn.benchmark = True` lets cuDNN pick convolution algorithms by timing"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """train.py with a safe fix (ND201, twice) and requirements.txt with a finding without one."""
    write_project(tmp_path, {"train.py": BENCHMARK + "torch.backends.cudnn.benchmark = True\n", "requirements.txt": REQUIREMENTS})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def unsafe_fixes(monkeypatch):
    original = FileContext.fix

    def unsafe_fix(self, code, edits, applicability=None, **values):
        return original(self, code, edits, "unsafe", **values)

    monkeypatch.setattr(FileContext, "fix", unsafe_fix)


def test_text_marks_fixable_findings_and_ends_with_the_summary(project):
    code, out, err = run_cli(["--no-cache", "."])
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("requirements.txt:1:1: ND401 torch is not pinned")
    assert lines[1].startswith(f"train.py:2:1: ND201 [*] {MESSAGE}")
    assert lines[2].startswith("train.py:3:1: ND201 [*] ")
    assert lines[3:] == ["Found 3 findings in 2 files.", "[*] 2 fixable with the `--fix` option."]


def test_hidden_unsafe_fixes_are_counted_and_marked_with_the_flag(project, monkeypatch):
    unsafe_fixes(monkeypatch)
    out = run_cli(["--no-cache", "."])[1]
    assert "[*]" not in out
    assert out.splitlines()[-1] == "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option)."
    code, out, err = run_cli(["--no-cache", "--unsafe-fixes", "."])
    assert out.count(" ND201 [*] ") == 2
    assert out.splitlines()[-1] == "[*] 2 fixable with the `--fix` option."
    assert err == (
        "nondet-lint: hint: --unsafe-fixes applies fixes only with --fix, --fix-only or --diff; "
        "here it only marks unsafe fixes [*]\n"
    )


def test_mixed_safe_and_hidden_fixes(tmp_path, monkeypatch):
    write_project(tmp_path, {"train.py": BENCHMARK})
    monkeypatch.chdir(tmp_path)
    out = run_cli(["--no-cache", "."])[1]
    assert out.splitlines()[-1] == "[*] 1 fixable with the `--fix` option."
    unsafe_fixes(monkeypatch)
    write_project(tmp_path, {"other.py": BENCHMARK})
    out = run_cli(["--no-cache", "."])[1]
    assert out.splitlines()[-1] == "No fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option)."


def test_unfixable_codes_are_not_marked(project):
    out = run_cli(["--no-cache", "--unfixable", "ND201", "."])[1]
    assert "[*]" not in out and out.splitlines()[-1] == "Found 3 findings in 2 files."


def test_clean_run_says_so_and_quiet_leaves_the_summary_out(tmp_path):
    write_project(tmp_path, {"ok.py": "x = 1\n"})
    assert run_cli(["--no-cache", str(tmp_path)]) == (0, "No findings.\n", "")
    assert run_cli(["--no-cache", "-q", str(tmp_path)]) == (0, "", "")


def test_quiet_prints_the_findings_only(project):
    code, out, _ = run_cli(["--no-cache", "--quiet", "."])
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == ["requirements.txt", "train.py", "train.py"]


def test_silent_prints_nothing_and_keeps_the_exit_code(project):
    assert run_cli(["--no-cache", "--silent", "."]) == (1, "", "")
    assert run_cli(["--no-cache", "--silent", "--exit-zero", "."]) == (0, "", "")
    assert run_cli(["--no-cache", "--silent", "--fix", "."]) == (1, "", "")  # ND401 remains
    assert "benchmark = False" in (project / "train.py").read_text()


def test_rich_output_marks_fixes_and_ends_with_the_summary(project):
    out = run_cli(["--no-cache", "--output-format", "rich", "."])[1]
    assert "ND201 [*] " in out and "ND401 [*]" not in out
    assert out.rstrip().splitlines()[-2:] == ["Found 3 findings in 2 files.", "[*] 2 fixable with the `--fix` option."]
    quiet = run_cli(["--no-cache", "--output-format", "rich", "-q", "."])[1]
    assert "Found 3 findings" not in quiet and "Summary" not in quiet and "ND201 [*] " in quiet


def test_concise_is_text_and_format_is_an_alias(project):
    text = run_cli(["--no-cache", "--output-format", "text", "."])
    assert run_cli(["--no-cache", "--output-format", "concise", "."]) == text
    assert run_cli(["--no-cache", "--format", "concise", "."]) == text


def test_full_shows_the_source_lines_and_the_fix(project):
    out = run_cli(["--no-cache", "--output-format", "full", "train.py"])[1]
    first = out.split("\n\n")[0]
    assert first.splitlines() == [
        f"ND201 [*] {first.splitlines()[0].split(' [*] ', 1)[1]}",
        " --> train.py:2:1",
        "  |",
        "1 | import torch",
        "2 | torch.backends.cudnn.benchmark = True",
        "  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "3 | torch.backends.cudnn.benchmark = True",
        "  |",
        "help: Set `benchmark` to False",
    ]
    assert first.splitlines()[0].startswith(f"ND201 [*] {MESSAGE}")
    assert out.endswith("Found 2 findings in 1 file.\n[*] 2 fixable with the `--fix` option.\n")


def test_gitlab_code_quality_has_the_documented_fields(project):
    code, out, _ = run_cli(["--no-cache", "--output-format", "gitlab", "."])
    assert code == 1
    issues = json.loads(out)
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
        ("ND401 unpinned-framework", "requirements.txt", 1),
        ("ND201 cudnn-benchmark", "train.py", 2),
        ("ND201 cudnn-benchmark", "train.py", 3),
    ]
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert isinstance(issue["description"], str) and issue["description"]
        assert len(issue["fingerprint"]) == 64
    assert issues[1]["description"].startswith(MESSAGE)
    # two findings on identical lines still have their own fingerprints, stable from run to run
    assert len({i["fingerprint"] for i in issues}) == 3
    assert json.loads(run_cli(["--no-cache", "--output-format", "gitlab", "."])[1]) == issues


def test_junit_parses_as_xml_with_a_failure_per_finding(project):
    out = run_cli(["--no-cache", "--output-format", "junit", "."])[1]
    root = ET.fromstring(out)
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "3"
    suites = {suite.get("name"): suite for suite in root.findall("testsuite")}
    assert sorted(suites) == ["requirements.txt", "train.py"]
    cases = suites["train.py"].findall("testcase")
    assert [c.get("name") for c in cases] == ["ND201 cudnn-benchmark"] * 2
    assert [c.get("line") for c in cases] == ["2", "3"]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("message", "").startswith(MESSAGE)
    assert failure.text is not None and failure.text.startswith(f"line 2, col 1: {MESSAGE}")


def test_junit_of_a_clean_run_is_one_passing_case(tmp_path):
    write_project(tmp_path, {"ok.py": "x = 1\n"})
    root = ET.fromstring(run_cli(["--no-cache", "--output-format", "junit", str(tmp_path)])[1])
    assert root.get("tests") == "0" and root.get("failures") == "0"
    assert [c.get("name") for c in root.iter("testcase")] == ["No findings"]
    assert root.find(".//failure") is None


def test_pylint_and_azure_lines(project):
    out = run_cli(["--no-cache", "--output-format", "pylint", "train.py"])[1]
    assert out.splitlines()[0].startswith(f"train.py:2: [ND201] {MESSAGE}")
    assert len(out.splitlines()) == 2
    out = run_cli(["--no-cache", "--output-format", "azure", "train.py"])[1]
    assert out.splitlines()[0].startswith(
        "##vso[task.logissue type=warning;sourcepath=train.py;linenumber=2;columnnumber=1;code=ND201;]ND201 "
        + MESSAGE
    )


def test_output_file_holds_the_report(project):
    report = project / "out" / "report.json"
    report.parent.mkdir()
    code, out, err = run_cli(["--no-cache", "--output-format", "json", "--output-file", str(report), "."])
    assert (code, out, err) == (1, "", "")
    assert json.loads(report.read_text())["summary"]["findings"] == 3
    code, out, _ = run_cli(["--no-cache", "-o", str(report), "."])
    assert out == "" and report.read_text().endswith("Found 3 findings in 2 files.\n[*] 2 fixable with the `--fix` option.\n")


def test_output_file_that_cannot_be_written_is_a_usage_error(project):
    code, out, err = run_cli(["--no-cache", "--output-file", str(project / "missing" / "r.txt"), "."])
    assert code == 2 and out == ""
    assert err.startswith(f"nondet-lint: error: --output-file: cannot write {project / 'missing' / 'r.txt'}: ")


def test_fix_counts_add_up_when_one_fix_settles_several_findings(tmp_path):
    from test_seeding import PROGRAM

    write_project(tmp_path, {**PROGRAM, "pyproject.toml": "[tool.nondet-lint]\nselect = ['ND1']\n"})
    code, out, err = run_cli(["--no-cache", "--fix", str(tmp_path)])
    assert (code, out) == (0, "No findings.\n")
    assert err == "nondet-lint: fixed 4 of 4 findings (1 fix applied), 0 remaining\n"
