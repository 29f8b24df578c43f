"""Rule files follow a schema: an unknown key or a wrong type names file, table and key."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nondet_lint import ruledata
from nondet_lint.ruledata import RuleFileError, parse_rule_file

from conftest import write_project


def test_a_typo_in_a_user_rule_file_is_a_usage_error(tmp_path):
    write_project(tmp_path, {
        "pyproject.toml": '[tool.nondet-lint]\nrule-files = ["house.toml"]\n',
        "house.toml": '[ND201.data]\natributes = ["house.fast_mode"]\n',
        "t.py": "x = 1\n",
    })
    done = subprocess.run(
        [sys.executable, "-m", "nondet_lint", "t.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "nondet-lint: error: house.toml: unknown key 'atributes' in [ND201.data] "
        "(known keys: attributes, calls)\n"
    )


@pytest.mark.parametrize("text,message", [
    ('[ND201.data]\n[[ND201.data.calls]]\nnames = ["a.b"]\narg = { name = "x", position = 0 }\n',
     "unknown key 'position' in [ND201.data.calls[0].arg] (known keys: name, pos)"),
    ('[ND201]\ndata = {}\nrequirs = ["torch"]\n', "unknown key 'requirs' in [ND201] (known keys: data, requires)"),
    ('[ND201.data]\nattributes = "a.b"\n', "[ND201.data] key 'attributes' must be an array of strings"),
    ('[ND201.data]\n[[ND201.data.calls]]\nnames = ["a.b"]\narg = { name = "x", pos = "0" }\n',
     "[ND201.data.calls[0].arg] key 'pos' must be an integer"),
    ('[ND305.data.generators."mylib.Gen"]\nkw = "seed"\npos = true\n',
     "[ND305.data.generators.mylib.Gen] key 'pos' must be an integer"),
    ('[family]\nname = "house"\ntitel = "x"\n', "unknown key 'titel' in [family] (known keys: name, requires, title)"),
    ('[ND2O1.data]\nattributes = []\n',
     "unknown table [ND2O1] (a rule file holds [family] and tables named by rule codes)"),
])
def test_schema_errors_name_the_table_and_key(text, message):
    with pytest.raises(RuleFileError) as caught:
        parse_rule_file(text, "house.toml")
    assert str(caught.value) == f"house.toml: {message}"


RULE = """\
[ND201]
name = "house-rule"
summary = "s"
message = "m"
fix = "none"
docs = { what = "w", why = "y", example = "e", use_instead = "u", fix_safety = "f", references = [] }
"""


def test_a_rule_definition_is_checked_down_to_its_examples():
    parse_rule_file(RULE + '[[ND201.fires]]\nsource = "x = 1"\n', "house.toml")
    with pytest.raises(RuleFileError) as caught:
        parse_rule_file(RULE + '[[ND201.fires]]\nsorce = "x = 1"\n', "house.toml")
    assert str(caught.value) == (
        "house.toml: unknown key 'sorce' in [ND201.fires[0]] (known keys: config, files, path, source)"
    )
    with pytest.raises(RuleFileError) as caught:
        parse_rule_file(RULE.replace('fix_safety = "f", ', ""), "house.toml")
    assert str(caught.value) == "house.toml: [ND201.docs] lacks fix_safety"


def test_every_bundled_rule_file_follows_the_schema():
    for name, text in ruledata._bundled_texts():
        parse_rule_file(text, f"rules/{name}")
