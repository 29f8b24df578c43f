"""The flake8 plugin: ``flake8 --select ND`` runs the nondet-lint engine on each file.

Registered as the ``ND`` entry point of ``flake8.extension``.  flake8 hands over the
lines it read; the engine checks them with the project's ``[tool.nondet-lint]`` config,
and project facts (seeds, switches, entry points) come from the rest of the file's
project, indexed once per flake8 process and only for files that need them.

Suppression belongs to flake8: a ``# noqa`` comment is left to flake8 (so
``--disable-noqa`` shows the findings), while the file-wide ``# nondet-lint: noqa``,
which flake8 does not know, is honoured here.  Columns are yielded 0-based, so flake8
prints the same ``line:col`` as ``nondet-lint``.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from nondet_lint import __version__
from nondet_lint.cache import open_cache, resolve_dir
from nondet_lint.config import Config, discover_config
from nondet_lint.discovery import discover, module_name_for
from nondet_lint.engine import resolve_project, selected_codes
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.parallel import analyze_files
from nondet_lint.results import FileResult
from nondet_lint.ruledata import RuleSet, load_rules
from nondet_lint.source import SourceFile
from nondet_lint.suppression import Suppressions
from nondet_lint.types import Finding, UsageError

Result = Tuple[int, int, str, type]


@lru_cache(maxsize=64)
def _config_for(folder: str, config_file: Optional[str]) -> Config:
    return discover_config([folder], config_file, load_rules().codes)


_INDEX: Dict[Tuple[str, str], Tuple[FileResult, ...]] = {}


def _as_shown(root: str) -> str:
    """The root as ``nondet-lint`` run from the current folder names it (relative inside
    it), so both front ends key the content cache by the same paths."""
    here = os.path.normcase(os.path.realpath(os.getcwd()))
    if root == here or root.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(root)
    return root


def _project_index(root: str, config: Config) -> Tuple[FileResult, ...]:
    """Facts of every checkable file under ``root`` (once per process and config),
    through the content cache that ``nondet-lint`` runs fill and read."""
    key = (root, config.fingerprint())
    if key not in _INDEX:
        rules = load_rules(tuple(config.rule_files))
        enabled = selected_codes(config, rules)
        files, _ = discover([_as_shown(root)], (*config.exclude, *config.extend_exclude), config.respect_gitignore)
        cache = open_cache(config, rules, enabled, resolve_dir(config))  # shared with nondet-lint runs
        _INDEX[key] = tuple(r.facts_only() for r in analyze_files(files, config, rules, enabled, None, cache))
    return _INDEX[key]


def _others(config: Config, filename: str) -> List[FileResult]:
    """The rest of the file's project; nothing when the file lies outside the config's
    root, or has no project around it (``nondet-lint`` reads no other file then either)."""
    root = os.path.normcase(os.path.realpath(config.root))
    here = os.path.normcase(os.path.realpath(filename))
    if not config.project_found or not os.path.isdir(root) or not here.startswith(root.rstrip(os.sep) + os.sep):
        return []
    return [r for r in _project_index(root, config) if os.path.normcase(os.path.realpath(r.path)) != here]


def lint_lines(filename: str, lines: Sequence[str], config: Config) -> List[Finding]:
    """The findings for one file's text, before flake8 applies its own ``noqa``."""
    rules: RuleSet = load_rules(tuple(config.rule_files))
    enabled = selected_codes(config, rules)
    text = "".join(lines)
    module_name, is_package = module_name_for(filename)
    source = SourceFile(filename, text, "utf-8", False, "\n", text.encode("utf-8", "surrogatepass"))
    result = analyze_source(filename, source, config, rules, enabled, module_name, is_package)
    result.suppressions = Suppressions(file=result.suppressions.file)
    others = _others(config, filename) if result.deferred else []
    return resolve_project([result, *others], config, rules, enabled)


class Plugin:
    """flake8 tree plugin; asks for ``tree`` only so flake8 runs it once per file."""

    name = "nondet-lint"
    version = __version__
    config_file: Optional[str] = None

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option(
            "--nondet-config", parse_from_config=True, normalize_paths=True, default=None,
            help="nondet-lint settings file (default: [tool.nondet-lint] of the nearest pyproject.toml)",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        cls.config_file = getattr(options, "nondet_config", None)

    def run(self) -> Iterator[Result]:
        folder = os.path.dirname(os.path.abspath(self.filename)) if self.filename not in ("-", "stdin") else os.getcwd()
        try:
            config = _config_for(folder, self.config_file)
        except UsageError as exc:  # a bad config is one finding, not a flake8 traceback
            yield 1, 0, f"ND000 nondet-lint configuration: {exc}", type(self)
            return
        for finding in lint_lines(self.filename, self.lines, config):
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
