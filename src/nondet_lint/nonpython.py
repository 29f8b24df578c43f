"""Files that are not Python but still go through the engine (requirement files, ND401;
CUDA sources, ND207).

The engine hands every discovered non-Python file here.  A *file checker* is chosen by
file name; it reads the text and returns findings and deferred candidates, which travel
in the same ``FileResult`` as a Python file's, so suppression (``# noqa: ND401`` on the
line: requirement, TOML and YAML comments also start with ``#``; ``// noqa: ND207`` in
CUDA sources), per-file ignores, pass 2 decisions and every reporter treat them alike.
"""

from __future__ import annotations

import os
from typing import Any, FrozenSet

from nondet_lint.discovery import is_cuda_source, module_name_for
from nondet_lint.families.environment.requirements import read_text
from nondet_lint.families.files import FILE_CHECKERS
from nondet_lint.results import FileResult
from nondet_lint.suppression import parse_suppressions
from nondet_lint.types import Finding

def analyze_other_path(path: str, config: Any, rules: Any, enabled: FrozenSet[str]) -> FileResult:
    """Pass 1 for a non-Python file on disk (without libcst: ``FILE_CHECKERS``)."""
    module_name, is_package = module_name_for(path)
    result = FileResult(path, module_name, is_package)
    analyze_other_file(result, config, rules, enabled)
    return result


def analyze_other_file(result: Any, config: Any, rules: Any, enabled: FrozenSet[str]) -> None:
    """Fill ``result`` (an engine ``FileResult``) for a non-Python file, if one checker reads it."""
    name = os.path.basename(result.path)
    for matches, analyze in FILE_CHECKERS:
        if not matches(name):
            continue
        text = read_text(result.path)
        if text is None:
            if "ND000" in enabled:
                result.findings.append(Finding(result.path, 1, 0, "ND000", "cannot read file: not readable as UTF-8 text"))
            return
        result.suppressions = parse_suppressions(text, "//" if is_cuda_source(name) else "#")
        findings, deferred = analyze(result.path, text, config, rules, enabled)
        result.findings.extend(findings)
        result.deferred.extend(deferred)
        return
