"""The program model on small whole projects: which entry points exist (launchers, console
scripts), which code is test code, what each program runs, and that one program's facts
(GPU, seeds, switches, frameworks, versions) never decide another program's findings.

Every case lints a project folder through the engine's top-level ``run`` and pins the exact
findings, so the cases hold whatever the module layout of the analyzer."""

from __future__ import annotations

from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

import pytest

from conftest import lint_files, run_cli

SEEDING = ["ND101", "ND102", "ND104", "ND105", "ND106"]
PROGRAM = ["ND205", "ND209"]


def found(findings) -> List[Tuple[str, str, int]]:
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1] if "/" in f.path else f.path, f.code, f.line) for f in findings)


def lint(tmp_path: Path, files: Mapping[str, str], select: Sequence[str], config: Optional[Mapping] = None):
    table = {"select": list(select), **(config or {})}
    findings = lint_files(tmp_path, files, table)
    root = str(tmp_path).replace("\\", "/") + "/"
    return sorted((f.path.replace("\\", "/").replace(root, ""), f.code, f.line) for f in findings)


# ---------------------------------------------------------------- launchers -----------
TRAIN_BODY = """
    model = torch.nn.Conv1d(4, 2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 4)
    model(x).sum().backward()
    opt.step()
"""


def _launched(header: str, footer: str) -> str:
    return f"import torch\n{header}\ndef main(argv=None):{TRAIN_BODY}\n{footer}\n"


LAUNCHERS = {
    "absl": ("from absl import app", "app.run(main)"),
    "tf_v1": ("import tensorflow as tf", "tf.compat.v1.app.run()"),
    "fire": ("import fire", "fire.Fire(main)"),
    "jsonargparse": ("from jsonargparse import CLI", "CLI(main)"),
    "mp_spawn": ("import torch.multiprocessing as mp", "mp.spawn(main, nprocs=2)"),
}


@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
def test_launcher_module_level_call_is_an_entry_point(tmp_path, launcher):
    # the launcher call is the module's only top-level work (no main guard): the function
    # it starts runs, so its unseeded torch RNG is reported
    header, footer = LAUNCHERS[launcher]
    files = {"run.py": _launched(header, footer)}
    assert lint(tmp_path, files, ["ND104"]) == [("run.py", "ND104", 4)]


@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
def test_launcher_in_main_guard_runs_the_function(tmp_path, launcher):
    header, footer = LAUNCHERS[launcher]
    source = f"import torch\n{header}\ndef main(argv=None):{TRAIN_BODY}\nif __name__ == '__main__':\n    {footer}\n"
    assert lint(tmp_path, {"run.py": source}, ["ND104"]) == [("run.py", "ND104", 4)]


def test_launched_function_that_seeds_covers_its_uses(tmp_path):
    source = "import torch\nfrom absl import app\n\ndef main(argv):\n    torch.manual_seed(0)\n    x = torch.randn(3)\n    x.sum()\n    torch.optim.SGD([x], lr=1).step()\n\nif __name__ == '__main__':\n    app.run(main)\n"
    assert lint(tmp_path, {"run.py": source}, ["ND104"]) == []


def test_fastai_call_parse_function_is_an_entry_point(tmp_path):
    source = "import torch\nfrom fastcore.script import call_parse\n\n@call_parse\ndef main(lr: float = 0.1):" + TRAIN_BODY
    assert lint(tmp_path, {"run.py": source}, ["ND104"]) == [("run.py", "ND104", 6)]


CONSOLE_LIB = {
    "pkg/__init__.py": "",
    "pkg/cli.py": "import torch\n\ndef main():" + TRAIN_BODY,
}


def test_project_scripts_function_is_an_entry_point(tmp_path):
    files = {**CONSOLE_LIB, "pyproject.toml": '[project]\nname = "pkg"\nversion = "1"\n\n[project.scripts]\npkg-train = "pkg.cli:main"\n'}
    assert lint(tmp_path, files, ["ND104"]) == [("pkg/cli.py", "ND104", 4)]


def test_setup_py_console_scripts_function_is_an_entry_point(tmp_path):
    files = {
        **CONSOLE_LIB,
        "setup.py": "from setuptools import setup\nsetup(name='pkg', entry_points={'console_scripts': ['pkg-train = pkg.cli:main']})\n",
    }
    assert lint(tmp_path, files, ["ND104"]) == [("pkg/cli.py", "ND104", 4)]


def test_a_console_script_that_trains_on_the_gpu_gets_nd205_at_its_gpu_line(tmp_path):
    # pass 1 takes the module for a library (no main guard): ND205 is reported all the
    # same, at the GPU selection, without a fix
    cli = "import torch\n\ndef main():\n    model = torch.nn.Conv2d(3, 4, 3).cuda()\n" + TRAIN_BODY.split("\n", 1)[1]
    files = {
        "pkg/__init__.py": "", "pkg/cli.py": cli,
        "pyproject.toml": '[project]\nname = "pkg"\nversion = "1"\n\n[project.scripts]\npkg-train = "pkg.cli:main"\n',
    }
    findings = [f for f in lint_files(tmp_path / "console", files, {"select": ["ND205"]})]
    assert [(f.path.replace("\\", "/").rsplit("/", 2)[-2:], f.line, f.col + 1, f.fix) for f in findings] == [
        (["pkg", "cli.py"], 4, 13, None),
    ]
    assert findings[0].message.startswith("this program runs on a GPU (`.cuda()` in `pkg/cli.py` at line 4)")
    # near miss: the same module named by no packaging is library code
    library = {"pkg/__init__.py": "", "pkg/cli.py": cli}
    assert lint_files(tmp_path / "library", library, {"select": ["ND205"]}) == []


def test_library_function_without_console_script_is_not_judged(tmp_path):
    # the same module with no packaging naming it: library code, its callers seed
    assert lint(tmp_path, dict(CONSOLE_LIB), ["ND104"]) == []


# ---------------------------------------------------------------- test code -----------
TEST_BODY = "import numpy as np\nimport torch\n\ndef test_shapes():\n    x = np.random.rand(3)\n    assert x.shape == (3,)\n"


@pytest.mark.parametrize("name", ["test_model.py", "model_test.py", "conftest.py", "tests/check_model.py", "test/check_model.py"])
def test_test_modules_are_not_training_programs(tmp_path, name):
    source = TEST_BODY + "\nx = torch.zeros(2).cuda()\nif __name__ == '__main__':\n    test_shapes()\n"
    assert lint(tmp_path, {name: source}, SEEDING + PROGRAM) == []


@pytest.mark.parametrize("runner", [
    ("import unittest", "unittest.main()"),
    ("import tensorflow as tf", "tf.test.main()"),
    ("from absl.testing import absltest", "absltest.main()"),
    ("import pytest", "pytest.main([__file__])"),
])
def test_main_that_only_starts_a_test_runner_is_test_code(tmp_path, runner):
    header, call = runner
    source = f"{header}\nimport numpy as np\nimport torch\n\ndef check():\n    return np.random.rand(3)\n\nx = torch.zeros(1).cuda()\n\nif __name__ == '__main__':\n    {call}\n"
    assert lint(tmp_path, {"ops_check.py": source}, SEEDING + PROGRAM) == []


OWN_TEST = (
    "import argparse\nimport numpy as np\nimport torch\n\n"
    "def get_args():\n    parser = argparse.ArgumentParser()\n    parser.add_argument('--lr', type=float, default=0.1)\n"
    "    return parser.parse_args()\n\n"
    "def test_dqn(args{default}):\n    noise = np.random.rand(3)\n    net = torch.nn.Conv2d(3, 3, 3).cuda()\n"
    "    opt = torch.optim.SGD(net.parameters(), lr=args.lr)\n    net(torch.ones(1, 3, 8, 8).cuda()).sum().backward()\n    opt.step()\n\n"
    "if __name__ == '__main__':\n    test_dqn({given})\n"
)


@pytest.mark.parametrize("default, given, expected", [
    ("", "get_args()", [("dqn.py", "ND102", 11), ("dqn.py", "ND205", 12)]),
    ("=get_args()", "", [("dqn.py", "ND102", 11), ("dqn.py", "ND205", 12)]),
    ("=None", "", []),
])
def test_a_test_named_function_main_hands_the_command_line_to_is_a_program(tmp_path, default, given, expected):
    """``if __name__ == '__main__': test_dqn(get_args())`` in a module pytest does not
    collect runs a training function with the command line, as a program's main is run
    (so does a ``test_dqn(args=get_args())`` called bare); the near miss, a bare call of a
    test function pytest could call itself, runs the module's own test."""
    source = OWN_TEST.format(default=default, given=given)
    assert lint(tmp_path, {"dqn.py": source}, ["ND102", "ND205"]) == expected


def test_test_code_check_setting_judges_test_modules(tmp_path):
    source = "import numpy as np\nimport torch\n\nx = np.random.rand(3)\nw = torch.nn.Conv1d(2, 2, 1).cuda()\nopt = torch.optim.SGD(w.parameters(), lr=1)\nopt.step()\n"
    assert lint(tmp_path, {"test_train.py": source}, ["ND102", "ND205"], {"test-code": "check"}) == [
        ("test_train.py", "ND102", 4), ("test_train.py", "ND205", 5),
    ]


def test_call_site_rules_still_judge_test_code(tmp_path):
    source = "import os\n\ndef test_listing():\n    first = os.listdir('.')[0]\n    assert first\n"
    assert lint(tmp_path, {"tests/test_io.py": source}, ["ND301"]) == [("tests/test_io.py", "ND301", 4)]


def test_bad_test_code_setting_is_a_clear_error(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.nondet-lint]\ntest-code = "sometimes"\n')
    code, out, err = run_cli([str(tmp_path)])
    assert code == 2
    assert "test-code" in err and "skip" in err and "Traceback" not in err


# ---------------------------------------------------------------- per-program facts ---
SHARED = {
    "utils.py": "import numpy as np\n\ndef jitter(x):\n    return x + np.random.rand()\n\ndef noise():\n    return np.random.rand()\n",
    "train.py": (
        "import torch\nimport numpy as np\nfrom utils import jitter\n\n"
        "np.random.seed(0)\nmodel = torch.nn.Conv1d(2, 2, 1).cuda()\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for step in range(3):\n    loss = model(torch.ones(2, 2).cuda() * jitter(1.0)).sum()\n    loss.backward()\n    opt.step()\n"
    ),
    "plot.py": (
        "import torch\nimport numpy as np\nfrom utils import noise\nimport matplotlib.pyplot as plt\n\n"
        "model = torch.nn.Conv1d(2, 2, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for step in range(3):\n    model(torch.ones(2, 2) * noise()).sum().backward()\n    opt.step()\nplt.plot([1, 2])\n"
    ),
}


def test_nd205_only_for_the_program_that_selects_the_gpu(tmp_path):
    # plot.py imports torch and the same utils, but never puts work on a GPU
    assert lint(tmp_path, SHARED, ["ND205"]) == [("train.py", "ND205", 6)]


def test_seed_in_one_program_does_not_cover_a_use_only_the_other_runs(tmp_path):
    # train.py seeds NumPy; noise() is called only by plot.py, which seeds nothing
    assert lint(tmp_path, SHARED, ["ND102", "ND104"]) == [
        ("plot.py", "ND104", 6), ("train.py", "ND104", 6), ("utils.py", "ND102", 7),
    ]


def test_nd205_message_names_the_gpu_line_and_implicit_ops(tmp_path):
    files = {
        "train.py": (
            "import torch\nfrom model import Net\n\n"
            "torch.manual_seed(0)\ndevice = torch.device('cuda')\n"
            "emb = torch.nn.Embedding(10, 3).to(device)\n"
            "net = Net().to(device)\n"
            "opt = torch.optim.SGD(emb.parameters(), lr=0.1)\n"
            "loss = net(emb(torch.tensor([[1, 2]], device=device))).sum()\nloss.backward()\nopt.step()\n"
        ),
        "model.py": (
            "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.conv = torch.nn.Conv2d(1, 1, 3)\n"
            "\n    def forward(self, x):\n        return self.conv(x)\n"
        ),
    }
    findings = lint_files(tmp_path, files, {"select": ["ND205"]})
    assert [(f.code, f.line) for f in findings] == [("ND205", 5)]
    message = findings[0].message
    assert "(a `\"cuda\"` device in `train.py` at line 5)" in message
    assert "; it runs `torch.nn.Embedding` (train.py:6), `torch.nn.Conv2d` (model.py:6);" in message
    assert [(r.path.rsplit("/", 1)[-1], r.line) for r in findings[0].related] == [("train.py", 6), ("model.py", 6)]


def test_nd205_related_locations_in_sarif(tmp_path):
    import json

    from conftest import write_project

    write_project(tmp_path, {
        "train.py": (
            "import torch\n\ntorch.manual_seed(0)\nemb = torch.nn.Embedding(10, 3).cuda()\n"
            "opt = torch.optim.SGD(emb.parameters(), lr=0.1)\n"
            "emb(torch.tensor([[1, 2]]).cuda()).sum().backward()\nopt.step()\n"
        ),
    })
    code, out, err = run_cli([str(tmp_path / "train.py"), "--select", "ND205", "--format", "sarif"])
    result = json.loads(out)["runs"][0]["results"][0]
    related = result["relatedLocations"]
    assert [r["physicalLocation"]["region"]["startLine"] for r in related] == [4]
    assert related[0]["message"]["text"] == "`torch.nn.Embedding` runs here"


def test_entry_point_order_does_not_change_findings(tmp_path):
    lib = "import numpy as np\n\ndef sample():\n    return np.random.rand()\n"
    sampler = "from lib import sample\nprint(sample())\n"
    trainer = (
        "import torch\nfrom lib import sample\n\nmodel = torch.nn.Conv1d(1, 1, 1)\ntorch.manual_seed(0)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel(torch.ones(1) * sample()).sum().backward()\nopt.step()\n"
    )
    first = lint(tmp_path / "a", {"lib.py": lib, "a_sample.py": sampler, "z_train.py": trainer}, ["ND102"])
    second = lint(tmp_path / "b", {"lib.py": lib, "z_sample.py": sampler, "a_train.py": trainer}, ["ND102"])
    assert first == second == [("lib.py", "ND102", 4)]


# ---------------------------------------------------------------- seeds ----------------
def test_base_class_seed_through_super_init(tmp_path):
    source = (
        "import torch\n\nclass Base:\n    def __init__(self):\n        torch.manual_seed(0)\n\n"
        "class Trainer(Base):\n    def __init__(self):\n        super().__init__()\n        self.w = torch.randn(3)\n\n"
        "t = Trainer()\nopt = torch.optim.SGD([t.w], lr=1)\nopt.step()\n"
    )
    assert lint(tmp_path, {"train.py": source}, ["ND104"]) == []


BASE_SEEDED_BY_OPTION = """\
import torch

class Model(torch.nn.Module):
    def __init__(self, width, random_seed=None):
        super().__init__()
        if random_seed is not None:
            torch.manual_seed(random_seed)
        self.layer = torch.nn.Linear(width, 1)
"""


@pytest.mark.parametrize("forward, expected", [
    # the seed reaches the base through ``**kwargs`` handed on whole, at every level
    ("super().__init__(width=4, **kwargs)", []),
    # near miss: the middle class keeps its keywords to itself, the base's seed stays None
    ("super().__init__(width=4)", [("models.py", "ND104", 8)]),
])
def test_a_seed_passed_by_keyword_through_kwargs_reaches_the_base(tmp_path, forward, expected):
    """``Deep(random_seed=42)`` with ``Deep.__init__(self, **kwargs)`` handing its keywords to
    ``Middle`` and on to ``Model``: the base seeds before it builds its layers."""
    files = {
        "models.py": BASE_SEEDED_BY_OPTION + (
            "\nclass Middle(Model):\n    def __init__(self, depth=1, **kwargs):\n"
            f"        {forward}\n        self.depth = depth\n"
            "\nclass Deep(Middle):\n    def __init__(self, **kwargs):\n        super().__init__(depth=2, **kwargs)\n"
        ),
        "train.py": (
            "import torch\nfrom models import Deep\n\nmodel = Deep(random_seed=42)\n"
            "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel(torch.ones(2, 4)).sum().backward()\nopt.step()\n"
        ),
    }
    assert lint(tmp_path, files, ["ND104", "ND106"]) == expected


@pytest.mark.parametrize("made, expected", [
    # a class handed to the base inside a ``dict(...)`` of options is made by the base, after it seeds
    ("super().__init__(options=dict(tokenizer=Tokenizer), random_seed=random_seed)", []),
    # near miss: made here, before the seeding base runs
    ("self.tokens = Tokenizer()()\n        super().__init__(options={}, random_seed=random_seed)", [("models.py", "ND104", 5)]),
])
def test_a_class_held_in_a_container_argument_runs_with_the_call(tmp_path, made, expected):
    files = {
        "models.py": (
            "import torch\n\nclass Tokenizer:\n    def __call__(self):\n        return torch.randperm(10)\n\n"
            "class Model(torch.nn.Module):\n    def __init__(self, options, random_seed=None):\n        super().__init__()\n"
            "        if random_seed is not None:\n            torch.manual_seed(random_seed)\n"
            "        self.tokens = options['tokenizer']()() if options else None\n        self.layer = torch.nn.Linear(4, 1)\n"
            "\nclass Pieces(Model):\n    def __init__(self, random_seed=None):\n"
            f"        {made}\n"
        ),
        "train.py": (
            "import torch\nfrom models import Pieces\n\nmodel = Pieces(random_seed=42)\n"
            "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel(torch.ones(2, 4)).sum().backward()\nopt.step()\n"
        ),
    }
    assert lint(tmp_path, files, ["ND104"]) == expected


def test_project_determinism_helper_counts_for_nd205_and_nd209(tmp_path):
    files = {
        "utils.py": (
            "import os\nimport random\nimport numpy as np\nimport torch\n\n"
            "def init_seeds(seed=0, deterministic=False):\n    random.seed(seed)\n    np.random.seed(seed)\n    torch.manual_seed(seed)\n"
            "    if deterministic:\n        torch.use_deterministic_algorithms(True)\n"
            "        os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n"
        ),
        "train.py": (
            "import torch\nfrom utils import init_seeds\n\ninit_seeds(0, deterministic=True)\n"
            "model = torch.nn.Conv1d(2, 2, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "model(torch.ones(2, 2).cuda()).sum().backward()\nopt.step()\n"
        ),
        "requirements.txt": "torch==2.1.0\n",
    }
    assert lint(tmp_path, files, ["ND205", "ND209", "ND104"]) == []


# ---------------------------------------------------------------- frameworks ----------
def test_framework_imported_only_on_a_non_default_branch(tmp_path):
    source = (
        "import argparse\nimport torch\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--format', default='onnx')\nargs = parser.parse_args()\n"
        "torch.use_deterministic_algorithms(True)\n"
        "model = torch.nn.Conv1d(2, 2, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "model(torch.ones(2, 2).cuda()).sum().backward()\nopt.step()\n"
        "if args.format == 'tflite':\n    import tensorflow as tf\n    tf.lite.TFLiteConverter\n"
    )
    assert lint(tmp_path, {"train.py": source, "requirements.txt": "torch==2.11.0\n"}, ["ND205", "ND209"]) == []


# ---------------------------------------------------------------- programs that matter -
@pytest.mark.parametrize("body", [
    "import tensorflow as tf\nw = tf.Variable(tf.random.normal([3]))\ntrain_op = tf.compat.v1.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w))\n",
    "import jax\nimport optax\nimport numpy as np\nw = np.random.rand(3)\ng = jax.grad(lambda p: (p ** 2).sum())(w)\nupdates, state = optax.sgd(0.1).update(g, optax.sgd(0.1).init(w))\n",
    "import numpy as np\nfrom sklearn.linear_model import SGDClassifier\nx = np.random.rand(10, 2)\nSGDClassifier(random_state=0).partial_fit(x, [0, 1] * 5, classes=[0, 1])\n",
    "import numpy as np\nw = np.random.rand(3)\nx = np.ones(3)\nfor step in range(100):\n    grad = 2 * (w @ x - 1) * x\n    w -= 0.1 * grad\n",
])
def test_training_evidence_makes_library_uses_judged(tmp_path, body):
    # the unseeded draw sits in a helper module: reported only when the program trains
    files = {"helpers.py": "import random\n\ndef pick(xs):\n    return random.choice(xs)\n", "train.py": "from helpers import pick\n" + body + "pick([1, 2])\n"}
    assert lint(tmp_path, files, ["ND101"]) == [("helpers.py", "ND101", 4)]


@pytest.mark.parametrize("body", [
    "import json\nprint(json.dumps(pick([1, 2])))\n",
    # reading a TF1 checkpoint (``tf.train`` holds readers too) is not training
    "import tensorflow as tf\nweights = tf.train.load_variable('ckpt', 'w')\nprint(pick([1, 2]), tf.train.list_variables('ckpt'))\n",
])
def test_converter_does_not_judge_library_uses(tmp_path, body):
    files = {"helpers.py": "import random\n\ndef pick(xs):\n    return random.choice(xs)\n", "convert.py": "from helpers import pick\n" + body}
    assert lint(tmp_path, files, ["ND101"]) == []


# ---------------------------------------------------------------- versions ------------
ND209_PROJECT = (
    "import torch\n\ntorch.manual_seed(0)\ntorch.use_deterministic_algorithms(True)\n"
    "model = torch.nn.Conv1d(2, 2, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "model(torch.ones(2, 2).cuda()).sum().backward()\nopt.step()\n"
)


@pytest.mark.parametrize("spec, reported", [
    ("torch>=2.1,<2.3", True),
    ("torch~=2.2.0", True),
    ("torch>=2.1,!=2.10.0", False),  # the newest known version it allows needs nothing
    ("torch==2.11.0", False),
])
def test_nd209_target_version_from_ranges(tmp_path, spec, reported):
    files = {"train.py": ND209_PROJECT, "requirements.txt": spec + "\n"}
    expected = [("train.py", "ND209", 5)] if reported else []
    assert lint(tmp_path, files, ["ND209"]) == expected


def test_nearest_requirement_file_to_the_entry_point(tmp_path):
    files = {
        "old/train.py": ND209_PROJECT,
        "old/requirements.txt": "torch==2.1.0\n",
        "new/train.py": ND209_PROJECT,
        "new/requirements.txt": "torch==2.11.0\n",
        "requirements.txt": "torch==2.11.0\n",
    }
    assert lint(tmp_path, files, ["ND209"]) == [("old/train.py", "ND209", 5)]


# ---------------------------------------------------------------- ND000 ---------------
def test_nd000_at_the_line_cpython_names(tmp_path):
    files = {"old.py": "import os\n\nprint 'hello'\nx = 1\n"}
    findings = lint_files(tmp_path, files, {"select": ["ND000"]})
    assert [(f.code, f.line) for f in findings] == [("ND000", 3)]
    assert "Python 2" in findings[0].message


def test_op_rules_judge_an_op_by_the_programs_that_run_it(tmp_path):
    # the float accumulation runs only in the CPU statistics script; the GPU trainer
    # elsewhere in the repository does not make it a GPU op
    files = {
        "stats/hist.py": "import torch\n\ndef counts(x, i):\n    return torch.zeros(4).index_add_(0, i, x)\n",
        "stats/report.py": "import torch\nfrom hist import counts\n\nif __name__ == '__main__':\n    print(counts(torch.ones(3), torch.tensor([0, 1, 1])))\n",
        "train/train.py": (
            "import torch\n\ntorch.manual_seed(0)\ntorch.use_deterministic_algorithms(True)\n"
            "model = torch.nn.Conv1d(2, 2, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "model(torch.ones(2, 2).cuda()).sum().backward()\nopt.step()\n"
        ),
    }
    assert lint(tmp_path, files, ["ND203"]) == []
    files["stats/report.py"] = files["stats/report.py"].replace("torch.ones(3)", "torch.ones(3).cuda()")
    assert lint(tmp_path / "gpu", files, ["ND203"]) == [("stats/hist.py", "ND203", 4)]


@pytest.mark.parametrize("spec, reported", [("tensorflow~=2.14.0", False), ("tensorflow>=2.16", True)])
def test_keras_2_or_3_from_the_tensorflow_version(tmp_path, spec, reported):
    # TF < 2.16 ships Keras 2, whose layers draw from TF's global seed; Keras 3 needs
    # keras.utils.set_random_seed
    source = (
        "import tensorflow as tf\n\ntf.random.set_seed(0)\n"
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nmodel.compile('sgd', 'mse')\nmodel.fit([[1.0]], [[1.0]])\n"
    )
    expected = [("train.py", "ND105", 4)] if reported else []
    assert lint(tmp_path, {"train.py": source, "requirements.txt": spec + "\n"}, ["ND105"]) == expected


@pytest.mark.parametrize("initializer, reported", [("TruncatedNormal(stddev=0.02)", True), ("Zeros()", False)])
def test_tf_initializers_are_the_keras_initializers_they_alias(tmp_path, initializer, reported):
    # TF 2 exports tf.keras.initializers.TruncatedNormal as tf.initializers.TruncatedNormal:
    # unseeded, it draws from TF's global seed when called; Zeros draws nothing
    source = (
        "import tensorflow as tf\n\n\ndef train(grads):\n"
        f"    init = tf.initializers.{initializer}\n"
        "    weights = tf.Variable(init([4, 4]))\n"
        "    tf.keras.optimizers.SGD().apply_gradients([(grads, weights)])\n\n\n"
        "if __name__ == '__main__':\n    train(tf.ones([4, 4]))\n"
    )
    expected = [("train.py", "ND105", 5)] if reported else []
    assert lint(tmp_path, {"train.py": source, "requirements.txt": "tensorflow~=2.14.0\n"}, ["ND105"]) == expected


def test_imports_under_type_checking_add_no_module_to_the_program(tmp_path):
    # a package whose __init__ lists its whole library for type checkers only (as lazy
    # packages do): a converter importing it does not run the GPU benchmark module
    files = {
        "lib/__init__.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .bench import Bench\n",
        "lib/bench.py": "import torch\n\nclass Bench:\n    device = torch.device('cuda')\n",
        "convert.py": (
            "import torch\nimport lib\n\nif __name__ == '__main__':\n"
            "    state = torch.load('w.pt')\n    torch.nn.functional.conv1d(state['x'], state['w']).sum().backward()\n"
        ),
    }
    assert lint(tmp_path, files, ["ND205"]) == []
    # it names the class, but the module that defines it never runs
    files["convert.py"] = files["convert.py"].replace("    state =", "    lib.Bench()\n    state =")
    assert lint(tmp_path / "named", files, ["ND205"]) == []
    files["lib/__init__.py"] = "from .bench import Bench\n"
    assert lint(tmp_path / "eager", files, ["ND205"]) == [("convert.py", "ND205", 1)]


LIBRARY_GPU = {
    "lib/__init__.py": "",
    "lib/devices.py": "import torch\n\ndef available():\n    found = {'cpu'}\n    found.add('cuda')\n    return found\n",
    # the constructor puts the model on the GPU: it runs wherever a ``Net`` is made
    # its forward pass copies by index, an op the switch makes deterministic
    "lib/model.py": (
        "import torch\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.cuda()\n\n"
        "    def forward(self, x):\n        return x.index_copy_(0, x.long(), x)\n"
    ),
}


def test_naming_a_device_does_not_select_it(tmp_path):
    files = {**LIBRARY_GPU, "run.py": "import torch\nfrom lib.devices import available\n\nif __name__ == '__main__':\n    torch.manual_seed(0)\n    print(available())\n"}
    files["lib/model.py"] = "import torch\n"
    assert lint(tmp_path, files, ["ND205"]) == []


@pytest.mark.parametrize("body, expected", [
    # a converter: loads, checks an output, saves; the library selects the GPU elsewhere
    ("    model = Net()\n    model.eval()\n    model.save_pretrained('out')\n", []),
    # an evaluation that reports results: it matters
    ("    model = Net()\n    model.eval()\n    print(model(torch.ones(1)))\n", [("run.py", "ND205", 1)]),
])
def test_program_using_a_gpu_library_matters_when_it_evaluates(tmp_path, body, expected):
    files = {**LIBRARY_GPU, "run.py": "import torch\nfrom lib.model import Net\n\nif __name__ == '__main__':\n" + body}
    assert lint(tmp_path, files, ["ND205"]) == expected


def test_switch_asked_for_the_framework_the_entry_point_is_written_in(tmp_path):
    # the library also holds JAX modules; the PyTorch script needs only PyTorch's switch
    files = {
        "lib/__init__.py": "from . import flax_utils, torch_utils\n",
        "lib/flax_utils.py": "import jax\n",
        "lib/torch_utils.py": "import torch\n",
        "train.py": (
            "import torch\nimport lib\n\ntorch.manual_seed(0)\ntorch.use_deterministic_algorithms(True)\n"
            "model = torch.nn.Conv1d(2, 2, 1).cuda()\ntorch.optim.SGD(model.parameters(), lr=1).step()\n"
        ),
        "requirements.txt": "torch==2.11.0\n",
    }
    assert lint(tmp_path, files, ["ND205"]) == []
    files["train.py"] = files["train.py"].replace("import torch\nimport lib", "import torch\nimport jax\nimport lib")
    assert lint(tmp_path / "both", files, ["ND205"]) == [("train.py", "ND205", 7)]


# ---------------------------------------------------------------- scale ----------------
def _optional_stars(count: int) -> str:
    """A package ``__init__`` that re-exports optional modules the project lacks (fairseq's
    ``try: from .rawvideoprocessor import * ... except ImportError: pass``)."""
    lines = "".join(f"    from .optional_{i} import *\n" for i in range(count))
    return f"try:\n{lines}except ImportError:\n    pass\n"


def _shared_package_project(entries: int, stages: int = 6) -> dict:
    """Many entry points over one package whose names are all re-exports: a seed helper two
    packages down, a call chain ending in an unseeded NumPy draw, and a name nothing defines
    (every lookup of it searches all the star imports)."""
    chain = "".join(f"def stage_{i}(x):\n    return stage_{i + 1}(x)\n\n" for i in range(stages))
    files = {
        "pkg/__init__.py": "from .core import *\nfrom .util import *\n" + _optional_stars(12),
        "pkg/core.py": f"import numpy as np\n\n{chain}def stage_{stages}(x):\n    return x + np.random.rand()\n",
        "pkg/util/__init__.py": "from .seeding import *\n" + _optional_stars(12),
        "pkg/util/seeding.py": "import numpy as np\n\ndef seed_everything(seed):\n    np.random.seed(seed)\n",
    }
    for i in range(entries):
        seed = "    pkg.seed_everything(0)\n" if i % 2 == 0 else ""
        files[f"scripts/run_{i:02d}.py"] = (
            f"import torch\nimport pkg\n\ndef main():\n{seed}    pkg.stage_0(1.0)\n    pkg.missing_{i}()\n{TRAIN_BODY}\n"
            "if __name__ == '__main__':\n    main()\n"
        )
    return files


def test_many_entry_points_over_star_reexports_of_missing_modules(tmp_path):
    # each optional module the project lacks used to be read as an attribute of the package
    # that star-imports it again: the lookup of a name nothing defines branched 12 ways per
    # level and never finished. The seed helper still resolves through two packages of
    # re-exports (even entry points are seeded), and the draw is charged to the first
    # program that runs it unseeded.
    findings = lint_files(tmp_path, _shared_package_project(40), {"select": ["ND102"]})
    assert [(f.path.replace("\\", "/").rsplit("/", 2)[-2:], f.code, f.line) for f in findings] == [
        (["pkg", "core.py"], "ND102", 22),
    ]
    assert "scripts/run_01.py" in findings[0].message
    assert "run_00" not in findings[0].message


def test_star_reexport_of_a_missing_module_hides_nothing_the_package_defines(tmp_path):
    # the near miss: a function the package defines itself and one a present module
    # re-exports still seed (a.py, b.py); only the missing module provides nothing (c.py)
    files = {
        "pkg/__init__.py": "from .seeding import *\n" + _optional_stars(2) + "\ndef local_seed():\n    seed_everything(1)\n",
        "pkg/seeding.py": "import numpy as np\n\ndef seed_everything(seed):\n    np.random.seed(seed)\n",
        "draw.py": "import numpy as np\n\ndef draw():\n    return np.random.rand()\n",
    }
    for name, seed in (("a", "pkg.local_seed()"), ("b", "pkg.seed_everything(0)"), ("c", "pkg.optional_0.seed_everything(0)")):
        files[f"{name}.py"] = f"import torch\nimport pkg\nfrom draw import draw\n\ndef main():\n    {seed}\n    draw()\n{TRAIN_BODY}\nmain()\n"
    findings = lint_files(tmp_path, files, {"select": ["ND102"]})
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.code, f.line) for f in findings] == [("draw.py", "ND102", 4)]
    assert "entry point c.py never seeds it" in findings[0].message


# ---------------------------------------------------------------- built metadata ------
def test_metadata_requirements_read_unconditional_requires_dist(tmp_path):
    from nondet_lint.analysis.packaging import metadata_requirements

    (tmp_path / "demo-1.0.dist-info").mkdir()
    (tmp_path / "demo-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: demo\nRequires-Dist: tensorflow ~=2.15.0\nRequires-Dist: numpy (>=1.20)\n"
        "Requires-Dist: Keras_Tuner>=1\nRequires-Dist: keras>=3; extra == \"k3\"\n\nRequires-Dist: torch\n",
        encoding="utf-8",
    )
    assert metadata_requirements(str(tmp_path)) == {"tensorflow": "~=2.15.0", "numpy": ">=1.20", "keras-tuner": ">=1"}


def test_metadata_requirements_prefer_pkg_info_and_tolerate_none(tmp_path):
    from nondet_lint.analysis.packaging import metadata_requirements

    assert metadata_requirements(str(tmp_path)) == {}
    (tmp_path / "PKG-INFO").write_text("Name: demo\nRequires-Dist: torch>=2.1\n", encoding="utf-8")
    assert metadata_requirements(str(tmp_path)) == {"torch": ">=2.1"}


def test_an_sdist_without_requires_dist_declares_its_requirements_in_egg_info(tmp_path):
    """setuptools writes an old source distribution's requirements to
    ``*.egg-info/requires.txt``, not to ``PKG-INFO``: the unconditional ones (before the
    first ``[extra]`` section) are its target versions."""
    from nondet_lint.analysis.packaging import metadata_requirements

    (tmp_path / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: demo\nVersion: 0.8\n", encoding="utf-8")
    (tmp_path / "demo.egg-info").mkdir()
    (tmp_path / "demo.egg-info" / "requires.txt").write_text(
        "numpy~=1.21\ntensorflow~=2.4\nscikit-learn==1.*,>=1.0\n\n[dev]\ntorch>=2\n", encoding="utf-8")
    assert metadata_requirements(str(tmp_path)) == {"numpy": "~=1.21", "tensorflow": "~=2.4", "scikit-learn": "==1.*,>=1.0"}


ESTIMATOR = """import tensorflow as tf


def main():
    optimizer = tf.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9)
    loss = tf.reduce_sum(tf.Variable([1.0]))
    optimizer.minimize(loss)


if __name__ == "__main__":
    main()
"""


def test_every_rule_reads_the_same_target_versions_from_built_metadata(tmp_path):
    """A TF1-era call (``tf.train.MomentumOptimizer``) implies TensorFlow 1 only where
    nothing declares the version; an sdist's ``requires.txt`` saying ``tensorflow~=2.4``
    does, so ND205 gives TensorFlow 2's switch."""
    files = {"train.py": ESTIMATOR, "PKG-INFO": "Metadata-Version: 2.1\nName: demo\nVersion: 0.8\n"}
    found = lint_files(tmp_path / "bare", files, {"select": ["ND205"]})
    assert [(f.line, f.code) for f in found] == [(1, "ND205")]
    assert "cuDNN determinism (`TF_CUDNN_DETERMINISTIC=1`" in found[0].message
    files["demo.egg-info/requires.txt"] = "tensorflow~=2.4\n"
    found = lint_files(tmp_path / "declared", files, {"select": ["ND205"]})
    assert [(f.line, f.code) for f in found] == [(1, "ND205")]
    assert "never turns on op determinism (`tf.config.experimental.enable_op_determinism()`)" in found[0].message
