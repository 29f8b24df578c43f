"""ND109 with a computed ``shuffle=``: judged the way the default run goes."""

from __future__ import annotations

LOADERS = """
import argparse
import torch
from torch.utils.data import DataLoader, DistributedSampler

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--world", default=None)
    args = parser.parse_args()
    data = list(range(10))
    sampler = DistributedSampler(data) if args.distributed else None
    a = DataLoader(data, shuffle=(sampler is None), sampler=sampler)
    guarded = None
    if args.distributed:
        guarded = DistributedSampler(data)
    b = DataLoader(data, shuffle=guarded is None, sampler=guarded)
    always = DistributedSampler(data, shuffle=False)
    c = DataLoader(data, shuffle=(always is None), sampler=always)
    d = DataLoader(data, shuffle=not args.distributed)
    e = DataLoader(data, shuffle=args.world is not None)
    f = DataLoader(data, shuffle=is_train(data))
    for batch in a:
        torch.tensor(1.0, requires_grad=True).backward()

if __name__ == "__main__":
    main()
"""


def test_computed_shuffle_follows_the_default_run(lint):
    findings = [f for f in lint({"train.py": LOADERS}, {"select": ["ND109"]}) if f.code == "ND109"]
    assert [(f.line, f.col + 1) for f in findings] == [(12, 9), (16, 9), (19, 9)]
    assert findings[0].message.startswith("`DataLoader` shuffles with the PyTorch global RNG: no `generator=` is passed")
    assert findings[0].fix is not None


def test_computed_shuffle_off_in_the_default_run_is_not_reported(lint):
    source = LOADERS.replace('action="store_true"', 'action="store_false"')
    findings = [f for f in lint({"train.py": source}, {"select": ["ND109"]}) if f.code == "ND109"]
    assert [(f.line, f.col + 1) for f in findings] == []


AUGMENT = {
    "aug.py": (
        "import numpy as np\n"
        "def _uniform(low, high):\n"
        "    return np.random.uniform(low, high)\n"
        "def effect_generator(contrast=(0.9, 1.1)):\n"
        "    while True:\n"
        "        yield _uniform(*contrast)\n"
    ),
    "train.py": (
        "import argparse\n"
        "import torch\n"
        "from aug import effect_generator\n"
        "def main():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--random-transform', {option})\n"
        "    args = parser.parse_args()\n"
        "    effects = None\n"
        "    if args.random_transform:\n"
        "        effects = effect_generator()\n"
        "    model = torch.nn.Linear(2, 2)\n"
        "    torch.optim.SGD(model.parameters(), lr=0.1).step()\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    ),
}


def test_draws_in_code_called_only_under_an_option_off_by_default_are_not_judged(tmp_path):
    """The default run never calls what ``if args.random_transform:`` guards when the
    option defaults to off; with the option on by default the draw is reported."""
    from conftest import lint_files

    def run(name, option):
        files = {path: text.replace("{option}", option) for path, text in AUGMENT.items()}
        return lint_files(tmp_path / name, files, {"select": ["ND102"]})

    assert run("off", "action='store_true'") == []
    # an option left at None (required, or filled in at run time) says nothing about the run
    assert len(run("none", "default=None")) == 1
    findings = run("on", "type=int, default=1")
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("aug.py", 3, 12)]
    assert findings[0].message == "NumPy global RNG used here with no `np.random.seed` before it (entry point train.py never seeds it)"


HPARAMS = {
    "configs.py": (
        "class HParams(object):\n"
        "    def __init__(self, **kwargs):\n"
        "        self.__dict__.update(kwargs)\n"
        "DEFAULT_HPARAMS = HParams(batch_size=8, jitter_amount_ms=0, transform_audio=False)\n"
    ),
    "data.py": (
        "import random\n"
        "import numpy as np\n"
        "def preprocess(x, hparams, is_training):\n"
        "    if is_training and hparams.jitter_amount_ms > 0:\n"
        "        x = x + np.random.choice(hparams.jitter_amount_ms)\n"
        "    if hparams.transform_audio:\n"
        "        x = x + random.random()\n"
        "    return x\n"
    ),
    "train.py": (
        "import torch\n"
        "import configs\n"
        "import data\n"
        "def main():\n"
        "    hparams = configs.DEFAULT_HPARAMS\n"
        "    model = torch.nn.Linear(2, 2)\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in range(3):\n"
        "        data.preprocess(x, hparams, is_training=True)\n"
        "        opt.step()\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    ),
}


def test_draws_under_a_config_field_nothing_in_the_project_turns_on_are_not_judged(tmp_path):
    """``hparams.jitter_amount_ms > 0`` where every setting of ``jitter_amount_ms`` in the
    project is ``0``: the default run skips the draw.  Where some code sets the field to
    another value (another config, an assignment), the draw may run and is reported."""
    from conftest import lint_files

    def run(name, extra):
        files = dict(HPARAMS)
        files["configs.py"] += extra
        return [(f.code, f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1, f.message)
                for f in lint_files(tmp_path / name, files, {"select": ["ND101", "ND102"]})]

    assert run("settled", "") == []
    assert run("other", "AUGMENTED = HParams(batch_size=8, jitter_amount_ms=5)\n") == [
        ("ND102", "data.py", 5, 17, "NumPy global RNG used here with no `np.random.seed` before it (entry point train.py never seeds it)"),
    ]
    assert run("assigned", "def augment(h):\n    h.transform_audio = True\n") == [
        ("ND101", "data.py", 7, 17, "Python `random` module RNG used here with no `random.seed` before it (entry point train.py never seeds it)"),
    ]
    # a value that is not a literal may be anything
    assert [r[:3] for r in run("computed", "def augment(h, on):\n    h.transform_audio = on\n")] == [("ND101", "data.py", 7)]


DATACONFIG = {
    "cfg.py": (
        "import dataclasses\n"
        "from typing import Optional\n"
        "@dataclasses.dataclass\n"
        "class DataConfig:\n"
        "    is_training: Optional[bool] = None\n"
        "    dp_config: Optional[str] = dataclasses.field(default=None)\n"
    ),
    "task.py": (
        "import tensorflow as tf\n"
        "from cfg import DataConfig\n"
        "def build_inputs(params: DataConfig, dataset):\n"
        "    if params.dp_config:\n"
        "        dataset = dataset.map(lambda x: x + tf.random.normal([1]))\n"
        "    return dataset.shuffle(10)\n"
    ),
    "train.py": (
        "import tensorflow as tf\n"
        "from cfg import DataConfig\n"
        "from task import build_inputs\n"
        "def run(params: DataConfig):\n"
        "    data = build_inputs(params, tf.data.Dataset.range(10))\n"
        "    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "    model.compile('sgd', 'mse')\n"
        "    model.fit(data)\n"
        "def main():\n"
        "    run(load_params())\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    ),
}


def test_an_optional_config_field_left_none_by_the_whole_project_is_off(tmp_path):
    """``dp_config: Optional[str] = field(default=None)`` that no code sets: the noise it
    guards is not drawn in the default run (the shuffle after it is).  An experiment that
    sets the field keeps the draw reported."""
    from conftest import lint_files

    def run(name, extra):
        files = dict(DATACONFIG)
        files["cfg.py"] += extra
        found = lint_files(tmp_path / name, files, {"select": ["ND105"]})
        return [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in found if f.path.endswith("task.py")]

    assert run("none", "") == [("task.py", 6, 12)]
    # reported at its first unseeded use, the shuffle counted as one more in the module
    assert run("set", "PRIVATE = DataConfig(dp_config='dp.yaml')\n") == [("task.py", 5, 45)]


NESTED = {
    "cfgs.py": (
        "import dataclasses\n"
        "from typing import Optional\n"
        "@dataclasses.dataclass\n"
        "class CommonConfig:\n"
        "    quantization_config_path: Optional[str] = dataclasses.field(default=None, metadata={'help': 'path'})\n"
        "@dataclasses.dataclass\n"
        "class Config:\n"
        "    common: CommonConfig = CommonConfig()\n"
    ),
    "quant.py": (
        "import random\n"
        "class Quantizer:\n"
        "    def __init__(self, config_path):\n"
        "        self.config_path = config_path\n"
        "    def step(self):\n"
        "        return random.random()\n"
    ),
    "train.py": (
        "import torch\n"
        "from cfgs import Config\n"
        "from quant import Quantizer\n"
        "def main(cfg: Config):\n"
        "    if cfg.common.quantization_config_path is not None:\n"
        "        quantizer = Quantizer(config_path=cfg.common.quantization_config_path)\n"
        "    else:\n"
        "        quantizer = None\n"
        "    model = torch.nn.Linear(2, 2)\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for _ in range(3):\n"
        "        opt.step()\n"
        "        if quantizer is not None:\n"
        "            quantizer.step()\n"
        "if __name__ == '__main__':\n"
        "    main(load())\n"
    ),
}


def test_a_field_of_a_field_left_none_by_the_project_keeps_its_branch_off(tmp_path):
    """``cfg.common.quantization_config_path is not None`` where the field is declared
    ``field(default=None)`` and set nowhere: the quantizer made under it, and its methods,
    do not run by default; a config that sets the path makes the draw reported."""
    from conftest import lint_files

    def run(name, extra):
        files = dict(NESTED)
        files["cfgs.py"] += extra
        return [(f.code, f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1)
                for f in lint_files(tmp_path / name, files, {"select": ["ND101"]})]

    assert run("unset", "") == []
    assert run("set", "QUANTIZED = CommonConfig(quantization_config_path='pq.yaml')\n") == [("ND101", "quant.py", 6, 16)]


PARAMETER = """
import torch
from torch.utils.data import DataLoader


def train(data, sampler=None):
    loader = DataLoader(data, batch_size=2, shuffle=(sampler is None), sampler=sampler)
    for batch in loader:
        torch.tensor(1.0, requires_grad=True).backward()


def main():
    train(list(range(10)){extra})


if __name__ == "__main__":
    main()
"""


def test_a_parameter_every_call_leaves_out_has_its_default_in_the_default_run(lint):
    """``shuffle=(sampler is None)`` where ``sampler`` defaults to None and the only call
    passes no sampler: the loader shuffles. A call that passes one (by keyword or by
    position) makes the flag unknown, and the literal-only judgement stays silent."""
    def run(extra):
        source = PARAMETER.replace("{extra}", extra)
        return [(f.line, f.col + 1, f.message) for f in lint({"train.py": source}, {"select": ["ND109"]})]

    assert run("") == [(
        6, 14,
        "`DataLoader` shuffles with the PyTorch global RNG: no `generator=` is passed and no "
        "`torch.manual_seed` runs before it (this program never seeds it); pass a seeded generator",
    )]
    assert run(", sampler=make_sampler()") == []
    assert run(", make_sampler()") == []
    assert run(", *extra") == []


def test_default_run_reads_orderings_negative_numbers_and_set_defaults():
    import libcst as cst

    from nondet_lint.analysis.defaultrun import DefaultRun

    source = (
        "parser.add_argument('--gpu', type=int, default=0)\n"
        "parser.add_argument('--threads', type=int, default=2)\n"
        "parser.set_defaults(gpu=-1)\n"
    )
    module = cst.parse_module(source)
    run = DefaultRun(module, lambda node: None)
    text = run.text
    assert text(cst.parse_expression("'/gpu:0' if args.gpu >= 0 else '/cpu:0'"), [module]) == "/cpu:0"
    assert text(cst.parse_expression("'/gpu:0' if args.threads > 1 else '/cpu:0'"), [module]) == "/gpu:0"
    assert text(cst.parse_expression("'/gpu:0' if args.other >= 0 else '/cpu:0'"), [module]) is None
    assert text(cst.parse_expression("'/gpu:{}'.format(args.gpu)"), [module]) is None
    # two set_defaults that disagree leave the option unknown
    module = cst.parse_module(source + "parser.set_defaults(gpu=1)\n")
    run = DefaultRun(module, lambda node: None)
    assert run.text(cst.parse_expression("'/gpu:0' if args.gpu >= 0 else '/cpu:0'"), [module]) is None


def test_default_run_reads_a_field_of_a_config_known_from_its_annotation():
    import libcst as cst

    from nondet_lint.analysis.defaultrun import DefaultRun

    source = (
        "class EvalConfig:\n"
        "    compare: bool = False\n"
        "    fast: bool = True\n"
        "    path: Optional[str] = None\n"
        "    given: bool = False\n"
        "def main(config: EvalConfig, other):\n"
        "    x = 1\n"
        "def rebound(config: EvalConfig):\n"
        "    config = load()\n"
        "    x = 1\n"
        "main(EvalConfig(given=True), 0)\n"
    )
    module = cst.parse_module(source)
    run = DefaultRun(module, lambda node: None)

    def truth(expr: str, function: int):
        scope = module.body[function]
        statement = scope.body.body[-1]  # the function's last statement
        return run.truth(cst.parse_expression(expr), [module, scope, scope.body, statement])

    assert truth("config.compare", 1) is False
    assert truth("config.fast", 1) is True
    assert truth("config.path", 1) is None  # declared None: the run fills it in
    assert truth("config.given", 1) is None  # a call of the class gives it a value
    assert truth("other.compare", 1) is None  # no annotation
    assert truth("config.compare", 2) is None  # bound again before
