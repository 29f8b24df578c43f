"""Entry-point detection feeds the program-level rules."""

from __future__ import annotations

import textwrap

import pytest

from nondet_lint.analysis.entrypoints import is_entry_point
from nondet_lint.config import Config
from nondet_lint.engine import selected_codes
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source


def facts(source: str):
    rules = load_rules()
    config = Config()
    text = textwrap.dedent(source).encode()
    return analyze_source("m.py", decode_source(text), config, rules, selected_codes(config, rules)).facts


@pytest.mark.parametrize("source", [
    'def main():\n    pass\n\nif __name__ == "__main__":\n    main()\n',
    "if '__main__' == __name__:\n    run()\n",
    "import torch\nmodel = build()\nfor epoch in range(3):\n    step(model)\n",
    "import trainer\ntrainer.fit(config)\n",
])
def test_entry_points(source):
    assert is_entry_point(facts(source))


@pytest.mark.parametrize("source", [
    "import logging\nlogger = logging.getLogger(__name__)\n\ndef train():\n    pass\n",
    "import warnings\nwarnings.filterwarnings('ignore')\nclass Net:\n    pass\n",
    '"""Docstring."""\nfrom .models import *\n__all__ = ["Net"]\n',
    "MODELS = {}\nregister_model('resnet')\n",
])
def test_library_modules(source):
    assert not is_entry_point(facts(source))


def test_script_imported_by_another_module_is_library(lint):
    # a registry filled in a top-level loop looks like a script, until something imports it
    from nondet_lint.analysis.project import ModuleRecord, Project
    from nondet_lint.config import Config

    registry = facts("REGISTRY = {}\nfor name in ('a', 'b'):\n    REGISTRY[name] = name.upper()\n")
    user = facts("from pkg.layers import registry\nregistry.REGISTRY.clear()\n")
    lonely = facts("for epoch in range(3):\n    step()\n")
    project = Project(".", Config(), {
        "pkg/layers/registry.py": ModuleRecord("pkg/layers/registry.py", "pkg.layers.registry", False, registry),
        "run.py": ModuleRecord("run.py", "run", False, user),
        "loop.py": ModuleRecord("loop.py", "loop", False, lonely),
    })
    assert not is_entry_point(project.modules["pkg/layers/registry.py"].facts)
    assert is_entry_point(project.modules["run.py"].facts)
    assert is_entry_point(project.modules["loop.py"].facts)
