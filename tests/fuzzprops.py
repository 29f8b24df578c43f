"""Properties checked on generated programs, shared by the bounded test
(tests/test_reliability_fuzz.py) and the long fuzz run (benchmarks/fuzz.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import List

import libcst as cst

from nondet_lint import engine, fileanalysis
from nondet_lint.cli import main
from nondet_lint.config import Config
from nondet_lint.results import FileResult
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source


def rule_examples() -> List[str]:
    """Every single-file firing example of every rule: code our checks and fixes act on."""
    return sorted({example.source for rule in load_rules() for example in rule.fires if not example.files})


def mixed(example: str, generated: str) -> str:
    """An example followed by a generated module (both complete modules)."""
    return example.rstrip("\n") + "\n" + generated


def parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except Exception:  # any refusal counts as "does not parse" here
        return False
    return True


def check_analysis_never_raises(text: str, name: str = "generated.py") -> None:
    """Pass 1 and pass 2 finish on any text, and what pass 1 returns is plain JSON data."""
    config = Config(root=".")
    rules = load_rules()
    enabled = engine.selected_codes(config, rules)
    try:
        source = decode_source(text.encode("utf-8", "surrogatepass"), name)
    except Exception:  # undecodable text is the reader's business (ND000), tested elsewhere
        return
    result = fileanalysis.analyze_source(name, source, config, rules, enabled, "generated")
    # what the cache and the workers carry: text of JSON lines, read back the same every time
    text = result.to_text()
    again = FileResult.from_text(text)
    assert again.to_text() == text
    assert json.dumps(again.to_dict()) == json.dumps(result.to_dict())
    engine.resolve_project([again], config, rules, enabled)


def lint(folder: Path, *args: str):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(folder), "--no-cache", "--workers", "1", *args], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def check_fix_is_safe_and_idempotent(folder: Path, text: str, unsafe: bool = False) -> None:
    """With fixes on, a file that parsed still parses, and a second fix pass is a no-op."""
    path = folder / "train.py"
    path.write_text(text, encoding="utf-8")
    flags = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    code, out, err = lint(folder, *flags)
    assert code in (0, 1), err
    assert "internal error" not in err and "Traceback" not in err, err
    after = path.read_text(encoding="utf-8")
    if parses(text):
        assert parses(after), f"fixes broke the file:\n{after}"
    code_again, _, err_again = lint(folder, *flags)
    assert "internal error" not in err_again, err_again
    assert path.read_text(encoding="utf-8") == after, "a second fix pass changed the file"
    assert code_again == code or after == text
