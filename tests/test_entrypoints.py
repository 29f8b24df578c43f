"""Entry-point detection feeds the program-level rules."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint_files

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


# ---------------------------------------------------------------- speed benchmarks ----
BENCH = (
    "import time\n"
    "import numpy as np\n"
    "import torch\n"
    "\n"
    "def main():\n"
    "    model = torch.nn.Conv1d(3, 3, 1).cuda()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    x = torch.tensor(np.random.rand(8, 3), device='cuda')\n"
    "    t0 = time.perf_counter()\n"
    "    model(x).sum().backward()\n"
    "    opt.step()\n"
    "    print('step time', time.perf_counter() - t0)\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_program_named_a_benchmark_that_reads_a_clock_does_not_matter(tmp_path):
    """Spec "Programs that matter": a speed benchmark is judged by neither the seeding
    rules nor ND205; a name or a clock alone does not make one."""
    config = {"select": ["ND102", "ND205"]}
    untimed = BENCH.replace("time.perf_counter() - t0", "0").replace("t0 = time.perf_counter()", "t0 = 0")
    cases = [
        ("benchmarks/step_speed.py", BENCH, False), ("tools/amp_benchmark/run_fp32.py", BENCH, False),
        ("train.py", BENCH, True), ("benchmarks/step_speed.py", untimed, True), ("bench/step_speed.py", BENCH, True),
    ]
    for number, (path, source, judged) in enumerate(cases):
        findings = lint_files(tmp_path / str(number), {path: source}, config)
        expected = [("ND205", 6, 13), ("ND102", 8, 22)] if judged else []
        assert [(f.code, f.line, f.col + 1) for f in findings] == expected, path
        if judged:
            assert findings[1].message == "NumPy global RNG used here with no `np.random.seed` before it (this program never seeds it)"



def test_a_speed_benchmark_may_autotune_cudnn_but_nothing_else_may(tmp_path):
    """ND201 is a call-site rule, but cuDNN autotuning is what a speed benchmark measures
    (spec: benchmarks of speed do not matter): not reported in a speed benchmark, still
    reported in a module that is only named like one, or only reads a clock."""
    tuned = BENCH.replace("def main():\n", "def main():\n    torch.backends.cudnn.benchmark = True\n")
    tuned = tuned.replace("    opt.step()\n", "    opt.step()\n    torch.backends.cudnn.flags(benchmark=True)\n")
    untimed = tuned.replace("time.perf_counter() - t0", "0").replace("t0 = time.perf_counter()", "t0 = 0")
    message = (
        "`torch.backends.cudnn.benchmark = True` lets cuDNN pick convolution algorithms by timing, so two runs "
        "can use different algorithms and get different results; set it to False (convolutions with varying "
        "input shapes may run slower)"
    )
    cases = [
        ("benchmarks/step_speed.py", tuned, False), ("tools/amp_benchmark/run_fp32.py", tuned, False),
        ("benchmarks/step_speed.py", untimed, True), ("train.py", tuned, True),
    ]
    for number, (path, source, reported) in enumerate(cases):
        findings = lint_files(tmp_path / str(number), {path: source}, {"select": ["ND201"]})
        expected = [("ND201", 6, 5), ("ND201", 13, 5)] if reported else []
        assert [(f.code, f.line, f.col + 1) for f in findings] == expected, path
        if reported:
            assert findings[0].message == message
            assert findings[0].fix is not None and findings[1].fix is not None