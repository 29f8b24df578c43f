"""ND205 / ND209: which code a program runs (the GPU it selects, the switches it sets, the
ops it runs), the Lightning default per version, cuDNN coverage, TensorFlow 1 advice,
positions, and the GPU selections recognised (options, ``torch.accelerator``, DDP,
ignite, ``device="auto"``).  Each class has a case that fires and a near miss."""

from __future__ import annotations

from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

import pytest

from conftest import lint_files

TRAIN = """
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 1, 4, 4)).sum().backward()
    opt.step()
"""


def lint(root: Path, files: Mapping[str, str], select: Sequence[str] = ("ND205", "ND209"), config: Optional[Mapping] = None):
    findings = lint_files(root, files, {"select": list(select), **(config or {})})
    prefix = str(root).replace("\\", "/") + "/"
    return sorted((f.path.replace("\\", "/").replace(prefix, ""), f.code, f.line, f.col + 1, f.message) for f in findings)


def where(findings) -> List[Tuple[str, str, int, int]]:
    return [f[:4] for f in findings]


# ---------------------------------------------------------------- code the program runs -
LIBRARY = {
    "lib/__init__.py": "from lib.loader import Loader\nfrom lib.util import to_gpu\n",
    "lib/loader.py": "import torch\n\n\nclass Loader:\n    def __init__(self, device=torch.device('cuda', 0)):\n        self.device = device\n",
    "lib/util.py": "import torch\n\n\ndef to_gpu(model):\n    return model.cuda()\n",
}


def test_a_default_argument_of_a_class_no_program_instantiates_selects_no_gpu(tmp_path):
    main = "import torch\nimport lib\n\nif __name__ == '__main__':\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN
    assert lint(tmp_path, {**LIBRARY, "train.py": main}) == []


def test_a_function_the_program_calls_selects_the_gpu(tmp_path):
    main = "import torch\nimport lib\n\nif __name__ == '__main__':\n    model = lib.to_gpu(torch.nn.Conv2d(1, 1, 3))\n" + TRAIN
    [(path, code, line, col, message)] = lint(tmp_path, {**LIBRARY, "train.py": main})
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)  # the framework import
    assert message.startswith("this program runs on a GPU (`.cuda()` in `lib/util.py` at line 5) but never turns on")
    assert "it runs `torch.nn.Conv2d` (train.py:5)" in message


def test_the_main_block_of_an_imported_module_does_not_run(tmp_path):
    files = {
        "other.py": "import torch\n\nif __name__ == '__main__':\n    model = torch.nn.Conv2d(1, 1, 3).cuda()\n" + TRAIN,
        "train.py": "import torch\nimport other\n\nif __name__ == '__main__':\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN,
    }
    assert where(lint(tmp_path, files)) == [("other.py", "ND205", 4, 13)]  # other.py is its own program


def test_a_switch_in_a_function_the_program_never_calls_does_not_count(tmp_path):
    helper = "import torch\n\n\ndef deterministic():\n    torch.use_deterministic_algorithms(True)\n"
    main = "import torch\nimport helper\n\nif __name__ == '__main__':\n    model = torch.nn.Conv2d(1, 1, 3).cuda()\n{call}" + TRAIN
    files = {"helper.py": helper, "train.py": main.format(call="")}
    assert where(lint(tmp_path / "uncalled", files)) == [("train.py", "ND205", 5, 13)]
    files["train.py"] = main.format(call="    helper.deterministic()\n")
    assert where(lint(tmp_path / "called", files)) == []
    files["requirements.txt"] = "torch==2.1.0\n"  # the switch needs CUBLAS_WORKSPACE_CONFIG there
    assert where(lint(tmp_path / "old", files)) == [("train.py", "ND209", 5, 13)]


def test_ops_listed_are_those_of_code_the_program_runs(tmp_path):
    files = {
        "layers.py": "import torch\n\n\ndef unused():\n    return torch.nn.Embedding(4, 2)\n\n\ndef conv():\n    return torch.nn.Conv2d(1, 1, 3)\n",
        "train.py": "import torch\nimport layers\n\nif __name__ == '__main__':\n    model = layers.conv().cuda()\n" + TRAIN,
    }
    [finding] = lint(tmp_path, files)
    assert "it runs `torch.nn.Conv2d` (layers.py:9);" in finding[4] and "Embedding" not in finding[4]


def test_a_registered_definition_runs_once_the_program_uses_its_registry(tmp_path):
    files = {
        "registry.py": "TASKS = {}\n\n\ndef register_task(cls):\n    TASKS[cls.__name__] = cls\n    return cls\n\n\ndef get_task(name):\n    return TASKS[name]()\n",
        "tasks.py": (
            "import torch\nimport registry\n\n\n@registry.register_task\nclass Train:\n"
            "    def __init__(self):\n        model = torch.nn.Linear(1, 1)\n        torch.optim.SGD(model.parameters(), lr=1).step()\n"
        ),
        "train.py": "import jax\nimport tasks\nimport registry\n\nif __name__ == '__main__':\n    registry.get_task('Train')\n",
        "export.py": "import jax\nimport tasks\n\nif __name__ == '__main__':\n    print(jax.numpy.ones(3))\n",
    }
    assert where(lint(tmp_path, files)) == [("train.py", "ND205", 1, 1)]


# ---------------------------------------------------------------- methods -------------
# a reached class runs its constructors; another method runs once reached code reads its
# name, or reads a name / uses syntax the rule data says calls it
WORKER = """import threading

import torch


class Worker(threading.Thread):
    def __init__(self):
        super().__init__()
        self.jobs = []

    def run(self):
        torch.cuda.set_device(0)

    def place(self):
        torch.cuda.set_device(0)
"""
USES_WORKER = "import torch\nfrom worker import Worker\n\nif __name__ == '__main__':\n    worker = Worker()\n{use}    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN


def test_a_method_no_reached_code_names_selects_no_gpu(tmp_path):
    assert lint(tmp_path, {"worker.py": WORKER, "train.py": USES_WORKER.format(use="")}) == []


def test_a_method_the_program_calls_selects_the_gpu(tmp_path):
    files = {"worker.py": WORKER, "train.py": USES_WORKER.format(use="    worker.place()\n")}
    [(path, code, line, col, message)] = lint(tmp_path, files)
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)  # the framework import
    assert message.startswith("this program runs on a GPU (`torch.cuda.set_device` in `worker.py` at line 15) but never turns on")


def test_starting_a_thread_runs_its_run_method(tmp_path):
    files = {"worker.py": WORKER, "train.py": USES_WORKER.format(use="    worker.start()\n")}
    [(path, code, line, col, message)] = lint(tmp_path, files)
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (`torch.cuda.set_device` in `worker.py` at line 12) but never turns on")


def test_calling_a_module_instance_runs_its_forward(tmp_path):
    net = (
        "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.conv = torch.nn.Conv2d(1, 1, 3)\n\n    def forward(self, x):\n        return self.conv(x.cuda())\n"
    )
    main = "import torch\nfrom net import Net\n\nif __name__ == '__main__':\n    model = Net()\n{use}"
    files = {"net.py": net, "train.py": main.format(use="    torch.save(model, 'net.pt')\n")}
    assert lint(tmp_path / "built", files) == []  # built and saved, never called
    files["train.py"] = main.format(use=TRAIN)
    [(path, code, line, col, message)] = lint(tmp_path / "called", files)
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (`.cuda()` in `net.py` at line 10) but never turns on")
    assert "it runs `torch.nn.Conv2d` (net.py:7)" in message


def test_a_method_of_a_module_level_instance(tmp_path):
    helper = (
        "import torch\n\n\nclass _Helper:\n    def __init__(self):\n        self.rank = 0\n\n"
        "    def make_device(self):\n        return torch.device('cuda')\n\n\nhelper = _Helper()\n"
    )
    main = "import torch\nfrom helper import helper\n\nif __name__ == '__main__':\n    device = {device}\n    model = torch.nn.Conv2d(1, 1, 3).to(device)\n" + TRAIN
    files = {"helper.py": helper, "train.py": main.format(device="'cpu' if helper.rank else 'cpu'")}
    assert lint(tmp_path / "unused", files) == []
    files["train.py"] = main.format(device="helper.make_device()")
    [(path, code, line, col, message)] = lint(tmp_path / "used", files)
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (a `\"cuda\"` device in `helper.py` at line 9) but never turns on")


def test_a_method_read_on_self_runs_in_its_lineage_not_in_a_sibling(tmp_path):
    models = (
        "import torch\n\n\nclass Base:\n    def device(self):\n        raise NotImplementedError\n\n\n"
        "class Local(Base):\n    def __init__(self):\n        self.where = self.device()\n\n"
        "    def device(self):\n        return 'cpu'\n\n\n"
        "class Remote(Base):\n    def device(self):\n        return torch.device('cuda')\n\n\n"
        "KINDS = [Local, Remote]\n"
    )
    main = "import torch\nfrom models import Local, Remote\n\nif __name__ == '__main__':\n    node = {make}\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN
    files = {"models.py": models, "train.py": main.format(make="Local()")}
    assert lint(tmp_path / "local", files) == []  # ``Remote`` is a sibling: ``self.device()`` of ``Local`` never runs it
    files["train.py"] = main.format(make="Remote().device()")
    [(path, code, line, col, message)] = lint(tmp_path / "remote", files)
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (a `\"cuda\"` device in `models.py` at line 19) but never turns on")


def test_a_method_a_base_class_calls_on_self_runs_in_the_subclass(tmp_path):
    runner = (
        "import torch\n\n\nclass Runner:\n    def go(self):\n        return self.prepare()\n\n\n"
        "class GpuRunner(Runner):\n    def prepare(self):\n        return torch.device('cuda')\n"
    )
    main = "import torch\nfrom runner import GpuRunner\n\nif __name__ == '__main__':\n    device = GpuRunner().go()\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN
    [(path, code, line, col, message)] = lint(tmp_path, {"runner.py": runner, "train.py": main})
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (a `\"cuda\"` device in `runner.py` at line 11) but never turns on")


def test_a_switch_in_a_method_counts_once_the_method_runs(tmp_path):
    engine = (
        "import torch\n\n\nclass Engine:\n    def deterministic(self):\n        torch.use_deterministic_algorithms(True)\n\n"
        "    def unused(self):\n        pass\n"
    )
    main = "import torch\nfrom engine import Engine\n\nif __name__ == '__main__':\n    engine = Engine()\n{call}    model = torch.nn.Conv2d(1, 1, 3).cuda()\n" + TRAIN
    files = {"engine.py": engine, "requirements.txt": "torch>=2.10\n", "train.py": main.format(call="    engine.unused()\n")}
    assert where(lint(tmp_path / "uncalled", files)) == [("train.py", "ND205", 7, 13)]
    files["train.py"] = main.format(call="    getattr(engine, 'deterministic')()\n")
    assert lint(tmp_path / "called", files) == []


def test_a_lightning_module_handed_to_fit_runs_its_hooks(tmp_path):
    module = (
        "import pytorch_lightning as pl\nimport torch\n\n\nclass Model(pl.LightningModule):\n"
        "    def training_step(self, batch, index):\n        return torch.nn.functional.embedding(batch, self.weight).sum()\n"
    )
    main = "import pytorch_lightning as pl\nfrom model import Model\n\nif __name__ == '__main__':\n    model = Model()\n    trainer = pl.Trainer(accelerator='gpu')\n{use}"
    files = {"model.py": module, "train.py": main.format(use="    trainer.fit(model)\n")}
    [(path, code, line, col, message)] = lint(tmp_path / "fit", files)
    assert (path, code, line, col) == ("train.py", "ND205", 6, 15)
    assert "it runs `torch.nn.Embedding` (model.py:7)" in message
    # not fitted: the hooks do not run, and the model is the project's with no op the
    # switch changes in code that runs (the embedding is in a hook): not reported
    files["train.py"] = main.format(use="    print(trainer)\n")
    assert lint(tmp_path / "unfitted", files) == []


# ---------------------------------------------------------------- Lightning -------------
LIGHTNING = """
import pytorch_lightning as pl
from argparse import ArgumentParser

if __name__ == "__main__":
    parser = ArgumentParser()
    parser = pl.Trainer.add_argparse_args(parser)
    args = parser.parse_args()
    trainer = {trainer}
    trainer.fit(model)
"""


def test_lightning_before_2_0_trains_on_the_cpu_by_default(tmp_path):
    source = LIGHTNING.format(trainer="pl.Trainer.from_argparse_args(args)")
    old = {"train.py": source, "requirements.txt": "pytorch-lightning>1.7.0,<2.0.0\n"}
    assert lint(tmp_path / "old", old) == []
    new = {"train.py": source, "requirements.txt": "pytorch-lightning>=2.0\n"}
    [(path, code, line, col, message)] = lint(tmp_path / "new", new)
    assert (path, code, line, col) == ("train.py", "ND205", 8, 15)
    assert message.startswith("this program runs on a GPU (`pytorch_lightning.Trainer.from_argparse_args` in `train.py` at line 8)")


def test_lightning_gpus_option_that_defaults_to_a_gpu(tmp_path):
    source = LIGHTNING.replace("    args = parser", "    parser.add_argument('--gpus', default={gpus})\n    args = parser")
    source = source.format(trainer="pl.Trainer(gpus=args.gpus)", gpus="{gpus}")
    files = {"train.py": source.format(gpus=1), "requirements.txt": "pytorch-lightning==1.9.5\n"}
    assert where(lint(tmp_path / "one", files)) == [("train.py", "ND205", 9, 15)]
    files["train.py"] = source.format(gpus=0)
    assert lint(tmp_path / "none", files) == []


def test_from_argparse_args_with_deterministic_true_is_a_switch(tmp_path):
    source = LIGHTNING.format(trainer="pl.Trainer.from_argparse_args(args, deterministic=True, accelerator='gpu')")
    assert lint(tmp_path, {"train.py": source}) == []


# ---------------------------------------------------------------- cuDNN coverage -------
CUDNN = """
import torch

torch.backends.cudnn.deterministic = {deterministic}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Conv2d(1, 1, 3){more}).to(device)
opt = torch.optim.Adam(model.parameters())
model(torch.ones(1, 1, 4, 4, device=device)).sum().backward()
opt.step()
"""


def test_a_program_cudnn_determinism_covers_entirely_is_left_alone(tmp_path):
    assert lint(tmp_path / "covered", {"train.py": CUDNN.format(deterministic="True", more="")}) == []
    [finding] = lint(tmp_path / "off", {"train.py": CUDNN.format(deterministic="False", more="")})
    assert "it runs `torch.nn.Conv2d` (train.py:5)" in finding[4]


def test_cudnn_determinism_leaves_other_ops_and_the_message_names_only_them(tmp_path):
    source = CUDNN.format(deterministic="True", more=", torch.nn.Flatten(), torch.nn.EmbeddingBag(4, 2)")
    [finding] = lint(tmp_path, {"train.py": source})
    assert "it runs `torch.nn.functional.embedding_bag` (train.py:5);" in finding[4] and "Conv2d" not in finding[4]
    benchmark = CUDNN.format(deterministic="True", more="") + "torch.backends.cudnn.benchmark = True\n"
    assert where(lint(tmp_path / "benchmark", {"train.py": benchmark})) == [("train.py", "ND205", 4, 23)]


# ---------------------------------------------------------------- TensorFlow 1 ----------
TF1 = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32)\nopt = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(x))\nwith tf.Session() as sess:\n    sess.run(opt)\n"


def test_a_tensorflow_1_program_is_told_the_switch_of_its_version(tmp_path):
    [(_, _, line, _, message)] = lint(tmp_path / "code", {"train.py": TF1}, ["ND205"])
    assert line == 1
    assert "never turns on cuDNN determinism (`TF_CUDNN_DETERMINISTIC=1`; TensorFlow before 1.14 has no switch)" in message
    [(_, _, _, _, message)] = lint(tmp_path / "pinned", {"train.py": TF1, "requirements.txt": "tensorflow==2.5.0\n"}, ["ND205"])
    assert "never turns on op determinism (`TF_DETERMINISTIC_OPS=1`)" in message
    tf2 = "import tensorflow as tf\n\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nmodel.fit(x, y)\n"
    [(_, _, _, _, message)] = lint(tmp_path / "tf2", {"train.py": tf2}, ["ND205"])
    assert "never turns on op determinism (`tf.config.experimental.enable_op_determinism()`)" in message


@pytest.mark.parametrize(
    "source",
    [
        TF1.replace("import tensorflow as tf", "import tensorflow.compat.v1 as tf"),
        TF1.replace("import tensorflow as tf", "from tensorflow.compat import v1 as tf"),
        TF1.replace("tf.placeholder", "tf.compat.v1.placeholder").replace("tf.train.", "tf.compat.v1.train.").replace("tf.Session", "tf.compat.v1.Session"),
    ],
)
def test_tensorflow_1_code_written_through_compat_v1_targets_the_newest_version(tmp_path, source):
    """``tf.compat.v1`` exists from TensorFlow 1.13 on and is how TF1 code runs on TF 2: code
    spelled through it says nothing of an older version, so the newest switch is advised."""
    [(_, _, line, _, message)] = lint(tmp_path, {"train.py": source}, ["ND205"])
    assert line == 1
    assert "never turns on op determinism (`tf.config.experimental.enable_op_determinism()`)" in message


# ---------------------------------------------------------------- positions -------------
def test_reported_at_the_import_that_brings_the_framework_in(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/run.py": "import tensorflow as tf\n\n\ndef train():\n    tf.keras.Sequential([tf.keras.layers.Dense(1)]).fit(x, y)\n",
        "main.py": '"""Runs the experiment."""\n\nimport os\nimport sys\n\nfrom pkg import run\n\nif __name__ == "__main__":\n    run.train()\n',
    }
    assert where(lint(tmp_path, files, ["ND205"])) == [("main.py", "ND205", 6, 1)]


def test_reported_at_the_entry_points_own_gpu_line_in_code_it_runs(tmp_path):
    source = "import torch\n\n\ndef unused():\n    return torch.ones(1).cuda()\n\n\nmodel = torch.nn.Conv2d(1, 1, 3).to('cuda')\n" + TRAIN.replace("    ", "")
    assert where(lint(tmp_path, {"train.py": source}, ["ND205"])) == [("train.py", "ND205", 8, 37)]


def test_the_message_names_the_line_it_is_reported_at(tmp_path):
    source = (
        "import torch\n\n\nclass Model:\n    def prepare(self):\n        return torch.nn.Conv2d(1, 1, 3).cuda()\n\n"
        "    def load(self):\n        return torch.ones(1).to('cuda')\n\n\n"
        "if __name__ == '__main__':\n    helper = Model()\n    helper.load()\n    model = helper.prepare()\n" + TRAIN
    )
    [(path, code, line, col, message)] = lint(tmp_path, {"train.py": source}, ["ND205"])
    assert (path, code, line, col) == ("train.py", "ND205", 6, 16)
    assert message.startswith("this program runs on a GPU (`.cuda()` in `train.py` at line 6) but never turns on")


# ---------------------------------------------------------------- GPU selections --------
OPTION = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", {option})
args = parser.parse_args()
model = torch.nn.Conv2d(1, 1, 3)
if args.cuda:
    model = model.cuda()
""" + TRAIN.replace("    ", "")


def test_an_option_selected_gpu_follows_the_options_default(tmp_path):
    assert where(lint(tmp_path / "on", {"train.py": OPTION.format(option="type=int, default=1")}, ["ND205"])) == [
        ("train.py", "ND205", 9, 13)
    ]
    assert lint(tmp_path / "off", {"train.py": OPTION.format(option='action="store_true"')}, ["ND205"]) == []


def test_accelerate_cpu_option_that_defaults_to_off_is_a_gpu(tmp_path):
    source = (
        "import argparse\nimport torch\nfrom accelerate import Accelerator\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--cpu', action={action})\nargs = parser.parse_args()\n"
        "accelerator = Accelerator(cpu=args.cpu)\nmodel = accelerator.prepare(model)\nloss.backward()\n"
    )
    assert where(lint(tmp_path / "off", {"train.py": source.format(action="'store_true'")}, ["ND205"])) == [("train.py", "ND205", 7, 15)]
    assert lint(tmp_path / "on", {"train.py": source.format(action="'store_false'")}, ["ND205"]) == []


def test_a_library_trainer_makes_a_pytorch_program_of_a_script_that_never_imports_torch(tmp_path):
    """``transformers.Trainer``, ``accelerate`` and Stable-Baselines3 compute with PyTorch
    (their rule data's ``framework``): a fine-tuning script that imports only the library
    is a PyTorch GPU program, told PyTorch's switch; the near miss asks for the CPU."""
    source = (
        "from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments\n\n"
        "model = AutoModelForSequenceClassification.from_pretrained('bert-base-uncased', num_labels=2)\n"
        "trainer = Trainer(model=model, args=TrainingArguments('out'), train_dataset=data)\n"
        "trainer.train()\n"
    )
    assert lint(tmp_path / "hf", {"finetune.py": source}, ["ND205"]) == [(
        "finetune.py", "ND205", 4, 11,
        "this program runs on a GPU (`transformers.Trainer` in `finetune.py` at line 4) but never turns on"
        " `torch.use_deterministic_algorithms(True)`, so cuDNN autotuning and atomic-add kernels can change its"
        " results from run to run; turn it on (deterministic kernels can be slower)",
    )]
    sb3 = "from stable_baselines3 import PPO\n\nmodel = PPO('MlpPolicy', 'CartPole-v1'{device})\nmodel.learn(10000)\n"
    assert where(lint(tmp_path / "sb3", {"agent.py": sb3.format(device="")}, ["ND205"])) == [("agent.py", "ND205", 3, 9)]
    assert lint(tmp_path / "sb3cpu", {"agent.py": sb3.format(device=", device='cpu'")}, ["ND205"]) == []


def test_gpu_selections_recognised(tmp_path):
    cases = {
        "accelerator.py": "import torch\n\ndevice = torch.accelerator.current_accelerator()\n",
        "default_device.py": "import torch\n\ntorch.set_default_device('cuda')\n",
        "ddp.py": "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\nmodel = DDP(net, device_ids=[rank])\n",
        "ignite_device.py": "import torch\nimport ignite.distributed as idist\n\ndevice = idist.device()\n",
        "sb3_auto.py": "import torch\nfrom stable_baselines3 import PPO\n\nmodel = PPO('MlpPolicy', env)\n",
        "auto.py": "import torch\n\nagent = make_agent(device='auto')\n",
        "config.py": "import torch\n\n\nclass Cfg:\n    pass\n\n\n_C = Cfg()\n_C.DEVICE = 'cuda'\n",
        "cuda_context.py": "import torch\n\nwith torch.cuda.device(1):\n    pass\n",
        "cuda_fstring.py": "import torch\n\ndevice = torch.device(f'cuda:{rank}' if torch.cuda.is_available() else 'cpu')\n",
    }
    for name, source in cases.items():
        body = source + "model = torch.nn.Conv2d(1, 1, 3)\ntorch.optim.SGD(model.parameters(), lr=1).step()\n"
        assert [f[1] for f in lint(tmp_path / name[:-3], {name: body}, ["ND205"])] == ["ND205"], name


def test_selections_that_follow_a_placement_or_ask_for_the_cpu_are_not_gpu(tmp_path):
    cases = {
        "ddp_follows.py": "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\nmodel = DDP(net, device_ids=[module.device])\n",
        "sb3_cpu.py": "import torch\nfrom stable_baselines3 import PPO\n\nmodel = PPO('MlpPolicy', env, device='cpu')\n",
        "ddp_no_ids.py": "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\nmodel = DDP(net)\n",
        "context_follows.py": "import torch\n\nwith torch.cuda.device(x.device):\n    pass\n",
        "named_fstring.py": "import torch\n\nlog = open(f'cuda_{rank}.log', 'w')\n",
        "every_device.py": (
            "import torch\n\nfor index, state in enumerate(states):\n    torch.cuda.set_rng_state(state, f'cuda:{index}')\n"
            "warm = [torch.rand(1, device=f'cuda:{i}') for i in range(torch.cuda.device_count())]\n"
        ),
    }
    for name, source in cases.items():
        body = source + "model = torch.nn.Linear(1, 1)\ntorch.optim.SGD(model.parameters(), lr=1).step()\n"
        assert lint(tmp_path / name[:-3], {name: body}, ["ND205"]) == [], name


# ---------------------------------------------------------------- programs that matter --
def test_a_speed_benchmark_does_not_matter(tmp_path):
    source = (
        "import google_benchmark\nimport jax\n\n\n@google_benchmark.register\ndef bench(state):\n"
        "    while state:\n        w = 1.0 - 0.1 * jax.grad(lambda v: v * v)(1.0)\n\n\nif __name__ == '__main__':\n    google_benchmark.main()\n"
    )
    assert lint(tmp_path / "bench", {"bench.py": source}, ["ND205"]) == []
    training = source.replace("google_benchmark.main()", "bench([1])").replace("import google_benchmark\n", "import google_benchmark as gb\n")
    training = training.replace("@google_benchmark.register\n", "")
    assert where(lint(tmp_path / "train", {"train.py": training}, ["ND205"])) == [("train.py", "ND205", 2, 1)]


LOOP = (
    "import torch\n\n\ndef build():\n    return torch.nn.Conv2d(3, 4, 3).cuda()\n\n\n"
    "def train(steps):\n    model = build()\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    for _ in range(steps):\n        model(torch.randn(8, 3, 8, 8, device='cuda')).sum().backward()\n"
    "        opt.step()\n    return model\n"
)


def test_a_script_that_trains_through_a_function_and_saves_the_model_matters(tmp_path):
    # its own code writes a model out, but the function it calls trains it: not a converter
    run = "import torch\nfrom lib.loop import train\n\nmodel = train(10)\ntorch.save(model.state_dict(), 'model.pt')\n"
    found = lint(tmp_path / "train", {"lib/__init__.py": "", "lib/loop.py": LOOP, "run.py": run}, ["ND205"])
    assert where(found) == [("run.py", "ND205", 1, 1)]
    assert found[0][4].startswith("this program runs on a GPU (`.cuda()` in `lib/loop.py` at line 5)")
    # near miss: it only loads the model and writes it out again (a converter)
    convert = (
        "import torch\nfrom lib.loop import build\n\nmodel = build()\n"
        "model.load_state_dict(torch.load('model.pt'))\ntorch.save(model.half().state_dict(), 'half.pt')\n"
    )
    assert lint(tmp_path / "convert", {"lib/__init__.py": "", "lib/loop.py": LOOP, "convert.py": convert}, ["ND205"]) == []


LIGHTNING_CLI = (
    "import torch\n"
    "from lightning.pytorch import LightningModule\n"
    "from lightning.pytorch.cli import LightningCLI\n"
    "\n"
    "\n"
    "class Net(LightningModule):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.conv = torch.nn.Conv2d(3, 4, 3)\n"
    "\n"
    "    def training_step(self, batch, batch_idx):\n"
    "        return self.conv(batch).sum()\n"
    "\n"
    "    def configure_optimizers(self):\n"
    "        return torch.optim.SGD(self.parameters(), lr=0.1)\n"
    "\n"
    "\n"
    "def main():\n"
    "    LightningCLI(Net{arguments})\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_lightning_cli_trains_on_the_gpu_and_seeds_with_its_default_seed(tmp_path):
    found = lint(tmp_path / "cli", {"main.py": LIGHTNING_CLI.format(arguments="")}, ["ND104", "ND205"])
    assert where(found) == [("main.py", "ND104", 9, 21), ("main.py", "ND205", 19, 5)]
    assert found[1][4].startswith(
        "this program runs on a GPU (`lightning.pytorch.cli.LightningCLI` in `main.py` at line 19) but never turns on "
        "`torch.use_deterministic_algorithms(True)`"
    )
    seeded = LIGHTNING_CLI.format(arguments=", seed_everything_default=0")
    assert where(lint(tmp_path / "seeded", {"main.py": seeded}, ["ND104", "ND205"])) == [("main.py", "ND205", 19, 5)]
    # near misses: the switch in the Trainer's defaults; a Lightning whose accelerator defaulted to the CPU
    deterministic = LIGHTNING_CLI.format(arguments=", trainer_defaults={'deterministic': True}")
    assert lint(tmp_path / "switch", {"main.py": deterministic}, ["ND205"]) == []
    other_key = LIGHTNING_CLI.format(arguments=", trainer_defaults=dict(max_epochs=3)")
    assert where(lint(tmp_path / "other", {"main.py": other_key}, ["ND205"])) == [("main.py", "ND205", 19, 5)]
    old = {"main.py": LIGHTNING_CLI.format(arguments=""), "requirements.txt": "lightning==1.9.5\n"}
    assert lint(tmp_path / "old", old, ["ND205"]) == []


PROFILER = (
    "import torch\n"
    "from torch.utils.flop_counter import FlopCounterMode\n"
    "from models import create_model\n"
    "\n"
    "\n"
    "def profile(name):\n"
    "    model = create_model(name).cuda().eval()\n"
    "    counter = FlopCounterMode(display=False)\n"
    "    with torch.no_grad(), counter:\n"
    "        model(torch.randn(1, 3, 224, 224, device='cuda'))\n"
    "    return counter.get_total_flops()\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    print(profile('resnet'))\n"
)
MODELS = (  # its forward pass adds with atomics: an evaluation that runs it matters
    "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
    "        index = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)\n"
    "        return torch.zeros(4, device=x.device).index_add_(0, index, x[:, 0, 0, 0])\n"
    "\n\ndef create_model(name):\n    return Net()\n"
)


def test_a_program_that_counts_its_model_flops_and_nothing_else_does_not_matter(tmp_path):
    assert lint(tmp_path / "cost", {"profile.py": PROFILER, "models.py": MODELS}, ["ND205"]) == []
    # near misses: one that evaluates on a dataset, one that trains, both also counting FLOPs
    evaluates = PROFILER.replace(
        "    return counter.get_total_flops()\n",
        "    data = torchvision.datasets.CIFAR10('data', train=False)\n    return counter.get_total_flops(), data\n",
    ).replace("import torch\n", "import torch\nimport torchvision\n", 1)
    assert where(lint(tmp_path / "eval", {"profile.py": evaluates, "models.py": MODELS}, ["ND205"])) == [("profile.py", "ND205", 8, 13)]
    trains = PROFILER.replace(
        "    return counter.get_total_flops()\n",
        "    model(torch.randn(1, 3, 224, 224, device='cuda')).sum().backward()\n    return counter.get_total_flops()\n",
    )
    assert where(lint(tmp_path / "train", {"profile.py": trains, "models.py": MODELS}, ["ND205"])) == [("profile.py", "ND205", 7, 13)]


def test_a_device_option_that_defaults_to_auto_selects_the_gpu(tmp_path):
    source = (
        "import argparse\nimport torch\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--device', default={default})\nargs = parser.parse_args()\n"
        "agent = ALGOS['ppo'](env, device=args.device)\n"
        "model = torch.nn.Linear(1, 1)\ntorch.optim.SGD(model.parameters(), lr=1).step()\n"
    )
    [(_, _, line, col, message)] = lint(tmp_path / "auto", {"train.py": source.format(default="'auto'")}, ["ND205"])
    assert (line, col) == (7, 9) and message.startswith("this program runs on a GPU (`--device` in `train.py` at line 7)")
    assert lint(tmp_path / "cpu", {"train.py": source.format(default="'cpu'")}, ["ND205"]) == []
    undeclared = source.replace("parser.add_argument('--device', default={default})\n", "")
    assert lint(tmp_path / "elsewhere", {"train.py": undeclared}, ["ND205"]) == []


def _optional_stars(count: int) -> str:
    """``try: from .optional_0 import * ... except ImportError: pass`` over modules the
    project lacks (fairseq's processors package)."""
    lines = "".join(f"    from .optional_{i} import *\n" for i in range(count))
    return f"try:\n{lines}except ImportError:\n    pass\n"


def test_names_behind_star_imports_of_missing_modules_resolve_without_blowing_up(tmp_path):
    # each missing star module used to be searched again for every name the package does
    # not define, 14 ways per level to depth 8: the program's code was never worked out.
    # The GPU helper two star re-exports down still resolves; the missing modules add nothing.
    files = {
        "pkg/__init__.py": "from .core import *\nfrom .util import *\n" + _optional_stars(12),
        "pkg/core.py": "import torch\n\n\ndef build():\n    return torch.nn.Conv2d(1, 1, 3)\n",
        "pkg/util/__init__.py": "from .devices import *\n" + _optional_stars(12),
        "pkg/util/devices.py": "def to_gpu(model):\n    return model.cuda()\n",
    }
    for i in range(6):
        gpu = "pkg.to_gpu(model)" if i % 2 == 0 else "model"
        files[f"run_{i}.py"] = (
            f"import torch\nimport pkg\n\nif __name__ == '__main__':\n    model = {gpu}\n    model = pkg.build()\n"
            f"    pkg.missing_{i}()\n" + TRAIN
        )
    found = lint(tmp_path, files, ("ND205",))
    assert where(found) == [(f"run_{i}.py", "ND205", 1, 1) for i in (0, 2, 4)]
    assert "(`.cuda()` in `pkg/util/devices.py` at line 2)" in found[0][4]


# ----------------------------------------------------------- which class a read reaches -
SUPER_LIBRARY = {
    "lib/__init__.py": "",
    "lib/models.py": (
        "import torch\n\n\nclass Base:\n    def __init__(self):\n        self.ready = True\n\n\n"
        "class Quiet(Base):\n    def __init__(self):\n        super().__init__()\n\n\n"
        "class Other:\n    def __init__(self):\n        torch.cuda.set_device(0)\n\n\n"
        "KNOWN = (Quiet, Other)\n"
    ),
}


def test_super_init_runs_the_bases_constructor_only(tmp_path):
    main = "import torch\nfrom lib.models import Quiet\n\nif __name__ == '__main__':\n    Quiet()\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN
    assert lint(tmp_path, {**SUPER_LIBRARY, "train.py": main}) == []


def test_a_listed_class_the_program_names_is_instantiated(tmp_path):
    main = "import torch\nfrom lib.models import Other\n\nif __name__ == '__main__':\n    Other()\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN
    [(path, code, line, col, message)] = lint(tmp_path, {**SUPER_LIBRARY, "train.py": main})
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (`torch.cuda.set_device` in `lib/models.py` at line 16)")


FACTORY_LIBRARY = {
    "lib/__init__.py": "",
    "lib/models.py": (
        "import torch\n\n\nclass Net:\n    def __init__(self):\n        torch.cuda.set_device(0)\n\n"
        "    @classmethod\n    def from_name(cls, name):\n        return cls()\n\n\n"
        "def get_models():\n    return {\"net\": Net.from_name}\n"
    ),
}


def test_a_class_method_a_registry_lists_instantiates_its_class(tmp_path):
    main = "import torch\nfrom lib.models import get_models\n\nif __name__ == '__main__':\n    get_models()['net']('a')\n    model = torch.nn.Conv2d(1, 1, 3)\n" + TRAIN
    [(path, code, line, col, message)] = lint(tmp_path, {**FACTORY_LIBRARY, "train.py": main})
    assert (path, code, line, col) == ("train.py", "ND205", 1, 1)
    assert message.startswith("this program runs on a GPU (`torch.cuda.set_device` in `lib/models.py` at line 6)")


# ---------------------------------------------------------------- models seen completely -
MLP = (
    "import torch\n\n\nclass MLP(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Dropout(0.1), {layer})\n\n"
    "    def forward(self, x):\n        return self.net(x)\n"
)
MLP_TRAIN = (
    "import torch\nfrom model import MLP\n\nif __name__ == '__main__':\n    model = {build}.to('cuda')\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    x = torch.ones(2, 4, device='cuda')\n"
    "    loss = torch.nn.CrossEntropyLoss()(model(x), torch.zeros(2, dtype=torch.long, device='cuda'))\n"
    "    loss.backward()\n    opt.step()\n"
)


def test_a_trained_model_of_deterministic_layers_is_not_reported(tmp_path):
    files = {"model.py": MLP.format(layer="torch.nn.Linear(8, 2)"), "train.py": MLP_TRAIN.format(build="MLP()")}
    assert lint(tmp_path, files, ["ND205"]) == []


def test_a_trained_model_with_a_convolution_is_reported(tmp_path):
    files = {"model.py": MLP.format(layer="torch.nn.Conv1d(8, 2, 1)"), "train.py": MLP_TRAIN.format(build="MLP()")}
    [(path, code, line, col, message)] = lint(tmp_path, files, ["ND205"])
    assert (path, code, line, col) == ("train.py", "ND205", 5, 22)  # the "cuda" of ``.to('cuda')``
    assert "it runs `torch.nn.Conv1d` (model.py:7)" in message


def test_a_model_whose_code_is_outside_the_project_is_reported(tmp_path):
    files = {
        "model.py": MLP.format(layer="torch.nn.Linear(8, 2)"),
        "train.py": "import torchvision\n" + MLP_TRAIN.format(build="torchvision.models.resnet18()"),
    }
    [(path, code, line, _, message)] = lint(tmp_path / "torchvision", files, ["ND205"])
    assert (path, code, line) == ("train.py", "ND205", 6) and "it runs" not in message
    files["train.py"] = MLP_TRAIN.format(build="Net()")  # a class the script never defines
    assert where(lint(tmp_path / "unknown", files, ["ND205"])) == [("train.py", "ND205", 5, 22)]
    files["train.py"] = MLP_TRAIN.format(build="MLP.from_pretrained('mlp')")
    assert where(lint(tmp_path / "pretrained", files, ["ND205"])) == [("train.py", "ND205", 5, 43)]


def test_an_op_the_switch_changes_in_code_the_training_program_runs_is_reported(tmp_path):
    files = {"model.py": MLP.format(layer="torch.nn.Linear(8, 2)"), "train.py": MLP_TRAIN.format(build="MLP()")}
    files["train.py"] += "    torch.zeros(3, device='cuda').index_add_(0, torch.tensor([0], device='cuda'), x[:1, :3])\n"
    assert where(lint(tmp_path / "used", files, ["ND205"])) == [("train.py", "ND205", 5, 22)]
    # the same op in a function no code of the program calls changes nothing it runs
    files["model.py"] += "\n\ndef unused(x):\n    return x.index_add_(0, x, x)\n"
    files["train.py"] = MLP_TRAIN.format(build="MLP()")
    assert lint(tmp_path / "unused", files, ["ND205"]) == []


# ---------------------------------------------------------------- parameter defaults ----
PARAMETER = (
    "import torch\n\n\ndef evaluate(model, cuda):\n    device = 'cpu'\n    if cuda:\n        device = 'cuda'\n"
    "    model.to(device)\n\n\ndef main(seed=1, cuda=0):\n    model = torch.nn.Conv2d(1, 1, 3)\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    model(torch.ones(1, 1, 4, 4)).sum().backward()\n"
    "    opt.step()\n    evaluate(model, cuda)\n\n\nif __name__ == '__main__':\n    {call}\n"
)


def test_a_gpu_chosen_by_a_parameter_follows_its_default(tmp_path):
    assert lint(tmp_path / "default", {"train.py": PARAMETER.replace("{call}", "main()")}, ["ND205"]) == []
    [(path, code, line, col, message)] = lint(tmp_path / "given", {"train.py": PARAMETER.replace("{call}", "main(cuda=1)")}, ["ND205"])
    assert (path, code, line, col) == ("train.py", "ND205", 7, 18)
    assert message.startswith("this program runs on a GPU (a `\"cuda\"` device in `train.py` at line 7)")
    # positionally, too
    assert where(lint(tmp_path / "positional", {"train.py": PARAMETER.replace("{call}", "main(1, True)")}, ["ND205"])) == [
        ("train.py", "ND205", 7, 18),
    ]


# ---------------------------------------------------------------- unseen project code ---
TASK = (
    "import tensorflow as tf\n\n\nclass Task:\n    def train_step(self, model, x):\n"
    "        with tf.GradientTape() as tape:\n            loss = model(x)\n"
    "        return tape.gradient(loss, model.trainable_variables)\n"
)
TRAINER = "class Trainer:\n    def __init__(self, task):\n        self.task = task\n\n    def train(self, model, x):\n        return self.task.train_step(model, x)\n"


def test_a_hook_the_project_calls_trains_where_the_program_hands_its_task_to_unseen_project_code(tmp_path):
    files = {
        "pkg/__init__.py": "", "pkg/task.py": TASK, "pkg/trainer.py": TRAINER,
        "run.py": "import tensorflow as tf\nfrom pkg import task\nfrom pkg.missing import train_lib\n\n"
                  "if __name__ == '__main__':\n    train_lib.run_experiment(task=task.Task())\n",
    }
    [(path, code, line, col, _)] = lint(tmp_path / "missing", files, ["ND205"])
    assert (path, code, line, col) == ("run.py", "ND205", 1, 1)
    # the same program without the call to code the checkout lacks builds the task and trains nothing
    files["run.py"] = "import tensorflow as tf\nfrom pkg import task\n\nif __name__ == '__main__':\n    print(task.Task())\n"
    assert lint(tmp_path / "present", files, ["ND205"]) == []


HANDS_TASK = "\n\nif __name__ == '__main__':\n    {use}\n"


@pytest.mark.parametrize("header, use, extra", [
    # the optional import of a part the checkout lacks (a compiled extension not built, an
    # internal add-on): the program is written to run without it
    ("try:\n    from pkg.missing import train_lib\nexcept ImportError:\n    train_lib = None\n",
     "train_lib.run_experiment(task=task.Task())", {}),
    ("try:\n    import pkg.missing.train_lib as train_lib\nexcept (KeyError, ModuleNotFoundError):\n    train_lib = None\n",
     "train_lib.run_experiment(task=task.Task())", {}),
    # a module of the package that the checkout holds, named as a module
    ("from pkg import helpers\n", "print(helpers, task.Task())", {"pkg/helpers.py": "def go(task):\n    return task\n"}),
    # a name the package ``__init__`` binds by unpacking (a registry and its builder)
    ("import pkg\n", "print(pkg.REGISTRY, task.Task())", {"pkg/__init__.py": "(build, REGISTRY) = (dict, {})\n"}),
])
def test_code_the_checkout_holds_or_the_program_can_do_without_is_not_unseen(tmp_path, header, use, extra):
    files = {
        "pkg/__init__.py": "", "pkg/task.py": TASK, "pkg/trainer.py": TRAINER,
        "run.py": "import tensorflow as tf\nfrom pkg import task\n" + header + HANDS_TASK.format(use=use), **extra,
    }
    assert lint(tmp_path, files, ["ND205"]) == []


def test_an_import_guarded_by_another_error_still_reaches_unseen_code(tmp_path):
    header = "try:\n    from pkg.missing import train_lib\nexcept KeyError:\n    train_lib = None\n"
    files = {
        "pkg/__init__.py": "", "pkg/task.py": TASK, "pkg/trainer.py": TRAINER,
        "run.py": "import tensorflow as tf\nfrom pkg import task\n" + header
                  + HANDS_TASK.format(use="train_lib.run_experiment(task=task.Task())"),
    }
    assert where(lint(tmp_path, files, ["ND205"])) == [("run.py", "ND205", 1, 1)]


# ------------------------------------------------ ops under ``if self.x is not None:`` --
GATED_KERNEL = {
    "gp/__init__.py": "from gp.kernel import Kernel, RBFKernel\n",
    "gp/kernel.py": (
        "import torch\n"
        "\n"
        "\n"
        "class Kernel(torch.nn.Module):\n"
        "    def __init__(self, ard_num_dims=None, active_dims=None):\n"
        "        super().__init__()\n"
        "        if active_dims is not None and not torch.is_tensor(active_dims):\n"
        "            active_dims = torch.tensor(active_dims, dtype=torch.long)\n"
        "        self.register_buffer('active_dims', active_dims)\n"
        "\n"
        "    def __call__(self, x1, x2):\n"
        "        if self.active_dims is not None:\n"
        "            x1 = x1.index_select(-1, self.active_dims)\n"
        "        return self.forward(x1, x2)\n"
        "\n"
        "    def evaluate(self, x):\n"
        "        saved = self.active_dims\n"
        "        self.active_dims = None\n"
        "        out = self(x, x)\n"
        "        self.active_dims = saved\n"
        "        return out\n"
        "\n"
        "\n"
        "class RBFKernel(Kernel):\n"
        "    def __init__(self, active_dims=None, **kwargs):\n"
        "        super().__init__(active_dims=active_dims, **kwargs)\n"
        "        self.lengthscale = torch.nn.Parameter(torch.ones(1))\n"
        "\n"
        "    def forward(self, x1, x2):\n"
        "        return torch.exp(-((x1 - x2) ** 2).sum(-1) / self.lengthscale)\n"
    ),
    "train.py": (
        "import torch\n"
        "from gp import RBFKernel\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    kernel = RBFKernel({args}).cuda()\n"
        "    opt = torch.optim.Adam(kernel.parameters(), lr=0.1)\n"
        "    x = torch.randn(10, 3).cuda()\n"
        "    kernel.evaluate(x).sum().backward()\n"
        "    opt.step()\n"
    ),
}


def test_an_op_under_an_attribute_no_code_of_the_program_sets_does_not_run(tmp_path):
    """``if self.active_dims is not None: x.index_select(...)`` where the attribute comes
    from a constructor parameter defaulting to None that the program never passes (its
    subclass hands it on, a method saves and restores it): the op does not run, and with
    nothing else the switch changes, a model seen completely gets no ND205.  A program that
    passes ``active_dims`` runs it."""
    def run(name, args):
        files = {**GATED_KERNEL, "train.py": GATED_KERNEL["train.py"].format(args=args)}
        return lint(tmp_path / name, files, ("ND205",))

    assert run("unset", "") == []
    [(path, code, line, col, message)] = run("set", "active_dims=[0, 1]")
    assert (path, code, line, col) == ("train.py", "ND205", 5, 14)
    assert "it runs `torch.index_select` (gp/kernel.py:13);" in message
    # an attribute the class sets itself (or one it never sets, ``self.training``) gates nothing
    files = {**GATED_KERNEL, "train.py": GATED_KERNEL["train.py"].format(args="")}
    files["gp/kernel.py"] = files["gp/kernel.py"].replace("'active_dims', active_dims)", "'active_dims', torch.tensor([0]))")
    assert where(lint(tmp_path / "own", files, ("ND205",))) == [("train.py", "ND205", 5, 14)]
    files["gp/kernel.py"] = GATED_KERNEL["gp/kernel.py"].replace("if self.active_dims is not None:", "if self.training:")
    assert where(lint(tmp_path / "framework", files, ("ND205",))) == [("train.py", "ND205", 5, 14)]


# ---------------------------------------------------------------- ops not shown ---------
def test_a_loss_that_raises_only_with_inputs_not_shown_keeps_no_covered_program_reported(tmp_path):
    # CrossEntropyLoss raises under the switch only on 4-D inputs, which the code does not
    # show: the fix still warns, but cuDNN determinism covers everything else it runs
    source = CUDNN.format(deterministic="{deterministic}", more="").replace(
        "model(torch.ones(1, 1, 4, 4, device=device)).sum().backward()",
        "torch.nn.CrossEntropyLoss()(model(torch.ones(1, 1, 4, 4, device=device)).flatten(1), torch.zeros(1).long()).backward()",
    )
    assert lint(tmp_path / "covered", {"train.py": source.format(deterministic="True")}) == []
    [(path, code, line, col, message)] = lint(tmp_path / "off", {"train.py": source.format(deterministic="False")})
    assert (path, code, line, col) == ("train.py", "ND205", 4, 23)
    assert "it runs `torch.nn.Conv2d` (train.py:5)" in message
    assert "`torch.nn.NLLLoss` (with some inputs) has no deterministic implementation" in message


INFERENCE_LIB = (
    "import torch\n\n\ndef pool(x, idx):\n    return torch.zeros(4, device=x.device).index_add_(0, idx, x)\n\n\n"
    "def scale(x):\n    return x * 2\n"
)


def test_an_inference_program_is_judged_by_the_ops_of_code_it_runs(tmp_path):
    # it never differentiates: an op of an imported module's function it never calls
    # changes nothing it runs; calling that function does
    main = "import torch\nimport ops\n\nif __name__ == '__main__':\n    x = torch.ones(4).cuda()\n    print(ops.{fn})\n"
    files = {"ops.py": INFERENCE_LIB, "infer.py": main.format(fn="scale(x)")}
    assert lint(tmp_path / "uncalled", files) == []
    files["infer.py"] = main.format(fn="pool(x, torch.zeros(4).long().cuda())")
    [(path, code, line, col, message)] = lint(tmp_path / "called", files)
    assert (path, code, line, col) == ("infer.py", "ND205", 5, 9)
    assert message.startswith("this program runs on a GPU (`.cuda()` in `infer.py` at line 5) but never turns on")


DEVICES = (
    "import torch\n\n\nclass Placement:\n    def __init__(self):\n        self.kind = torch.ones(1).device.type\n\n"
    "    def device(self):\n        return torch.device('cuda')\n\n\nPLACEMENT = Placement()\n"
)


def test_a_name_read_as_data_runs_no_method_of_that_name(tmp_path):
    # ``torch.ones(1).device.type`` reads a tensor's attribute: it runs no ``device()``
    # method of a project class; calling ``PLACEMENT.device()`` does
    main = "import torch\nimport placement\n\nif __name__ == '__main__':\n    model = torch.nn.Conv2d(1, 1, 3)\n    {use}\n" + TRAIN
    files = {"placement.py": DEVICES, "train.py": main.format(use="print(placement.PLACEMENT.kind)")}
    assert lint(tmp_path / "data", files) == []
    files["train.py"] = main.format(use="model = model.to(placement.PLACEMENT.device())")
    [(path, code, line, col, message)] = lint(tmp_path / "called", files)
    assert (path, code) == ("train.py", "ND205")
    assert message.startswith("this program runs on a GPU (a `\"cuda\"` device in `placement.py` at line 9)")


def test_an_inference_program_that_loads_a_model_by_name_is_judged(tmp_path):
    # its own code runs no op the switch changes, but the model it loads is not seen
    main = "import torch\nimport transformers\n\nif __name__ == '__main__':\n    model = {build}\n    model.to(torch.device('cuda'))\n    print(model)\n"
    files = {"setup_model.py": main.format(build="transformers.AutoModel.from_pretrained('gpt2')")}
    [(path, code, line, col, message)] = lint(tmp_path / "outside", files)
    assert (path, code, line, col) == ("setup_model.py", "ND205", 6, 27)
    files = {"setup_model.py": main.format(build="torch.nn.Linear(4, 2)")}
    assert lint(tmp_path / "seen", files) == []


# ---------------------------------------------------------------- device scopes ---------
CPU_SCOPED_LIBRARY = {
    "lib/__init__.py": "",
    "lib/trainer.py": "def train(agent, steps):\n    for _ in range(steps):\n        agent.train()\n",
    "lib/agent.py": (
        "import tensorflow as tf\n\n\nclass Agent:\n    def __init__(self):\n        self.w = tf.Variable(tf.zeros([3]))\n"
        "        self.opt = tf.keras.optimizers.SGD(0.1)\n\n    def train(self):\n        with tf.GradientTape() as tape:\n"
        "            loss = tf.reduce_sum(tf.gather(self.w, [0, 1]))\n"
        "        self.opt.apply_gradients(zip(tape.gradient(loss, [self.w]), [self.w]))\n"
    ),
}


def _scoped_main(body: str) -> str:
    return "import tensorflow as tf\nfrom lib import agent, trainer\n\n\ndef main():\n" + body + "\n\nif __name__ == '__main__':\n    main()\n"


def test_training_called_under_a_cpu_device_scope_runs_on_the_cpu(tmp_path):
    """``with tf.device('/CPU:0'): trainer.train(agent)``: in TensorFlow 2 the scope holds
    every op the called functions create, so the training in ``Agent.train`` (another
    module, reached through the trainer) runs on the CPU: no GPU program.  Near misses: no
    scope, a GPU scope, and the same training called once more outside the scope."""
    cases = {
        "cpu_scope.py": ("    with tf.device('/CPU:0'):\n        trainer.train(agent.Agent(), 10)\n", False),
        "no_scope.py": ("    trainer.train(agent.Agent(), 10)\n", True),
        "gpu_scope.py": ("    with tf.device('/GPU:0'):\n        trainer.train(agent.Agent(), 10)\n", True),
        "again_outside.py": (
            "    with tf.device('/CPU:0'):\n        trainer.train(agent.Agent(), 10)\n    trainer.train(agent.Agent(), 5)\n", True
        ),
    }
    for name, (body, reported) in cases.items():
        found = lint(tmp_path / name[:-3], {**CPU_SCOPED_LIBRARY, name: _scoped_main(body)}, ["ND205"])
        expected = [(name, "ND205", 1, 1, (
            "this program runs on a GPU (TensorFlow / JAX use the GPU by default) but never turns on op determinism"
            " (`tf.config.experimental.enable_op_determinism()`), so cuDNN autotuning and atomic-add kernels can change"
            " its results from run to run; it runs `tf.gather` (lib/agent.py:11); turn it on (deterministic kernels can be slower)"
        ))] if reported else []
        assert found == expected, name


# ---------------------------------------------------------------- layers applied --------
# a layer runs its kernels where it is applied, not where it is made: one a method binds to
# its instance (``self.bag = nn.EmbeddingBag(...)``) counts only where code applies ``bag``
LAYERS = """import torch
import torch.nn as nn


class Net({base}):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4)
        self.emb = nn.Embedding(10, 4)
        nn.init.normal_(self.bag.weight)
        if self.bag is None:
            raise ValueError("no bag")

    def forward(self, x):
{forward}
"""
LAYERS_TRAIN = """import torch
from net import Net

if __name__ == "__main__":
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.zeros(3, dtype=torch.long).cuda()
    model(x).sum().backward(){more}
    opt.step()
"""


def _layers(base: str = "nn.Module", forward: str = "        return self.emb(x)", more: str = "") -> dict:
    return {"net.py": LAYERS.format(base=base, forward=forward), "train.py": LAYERS_TRAIN.format(more=more)}


def test_a_layer_made_but_never_applied_is_not_listed(tmp_path):
    [(path, code, line, col, message)] = lint(tmp_path, _layers())
    assert (path, code, line, col) == ("train.py", "ND205", 5, 13)  # `Net().cuda()`
    assert message.endswith(
        "can change its results from run to run; it runs `torch.nn.Embedding` (net.py:9); turn it on (deterministic kernels can be slower)"
    )


def test_a_layer_the_program_applies_is_listed(tmp_path):
    applied = {
        "self": "        return self.emb(x) + self.bag(x.view(1, -1))",
        "forward": "        return self.emb(x) + self.bag.forward(x.view(1, -1))",
        "handed": "        return nn.Sequential(self.bag)(x.view(1, -1)) + self.emb(x)",
        "children": "        return [layer(x) for layer in self.children()]",
    }
    for name, forward in applied.items():
        [finding] = lint(tmp_path / name, _layers(forward=forward))
        assert "it runs `torch.nn.functional.embedding_bag` (net.py:8), `torch.nn.Embedding` (net.py:9);" in finding[4], name


def test_a_layer_another_module_applies_by_name_is_listed(tmp_path):
    [finding] = lint(tmp_path, _layers(more="\n    model.bag(x.view(1, -1))"))
    assert "it runs `torch.nn.functional.embedding_bag` (net.py:8), `torch.nn.Embedding` (net.py:9);" in finding[4]


def test_a_layer_of_a_container_class_runs_with_it(tmp_path):
    forward = "        return super().forward(x)"
    [finding] = lint(tmp_path, _layers(base="nn.Sequential", forward=forward))
    assert "it runs `torch.nn.functional.embedding_bag` (net.py:8), `torch.nn.Embedding` (net.py:9);" in finding[4]


INFERENCE_LSTM = """import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head({use})


if __name__ == "__main__":
    model = Tagger().cuda()
    with torch.no_grad():
        print(model(torch.ones(2, 3, 4).cuda()).argmax(-1))
"""


def test_an_inference_program_runs_only_the_layers_it_applies(tmp_path):
    # an LSTM's cuDNN forward is one the switch changes: a program that evaluates needs it only where it applies it
    assert lint(tmp_path / "unused", {"infer.py": INFERENCE_LSTM.format(use="x")}) == []
    [finding] = lint(tmp_path / "used", {"infer.py": INFERENCE_LSTM.format(use="self.rnn(x)[0]")})
    assert finding[:4] == ("infer.py", "ND205", 16, 13)
    assert "it runs `torch.nn.LSTM` (infer.py:8);" in finding[4]


@pytest.mark.parametrize("layer", ["GRU", "RNN"])
def test_each_recurrent_layer_is_named_as_the_code_builds_it(tmp_path, layer):
    source = INFERENCE_LSTM.format(use="self.rnn(x)[0]").replace("nn.LSTM(4, 4)", f"nn.{layer}(4, 4)")
    [finding] = lint(tmp_path, {"infer.py": source})
    assert f"it runs `torch.nn.{layer}` (infer.py:8);" in finding[4]


# ---------------------------------------------------------------- GPUs hidden from a framework -
HIDDEN = """import jax
import jax.numpy as jnp
import optax
import tensorflow as tf


def batches():
    return tf.data.Dataset.range(8).batch(2).as_numpy_iterator()


def main():
    tf.config.experimental.set_visible_devices([], "GPU")
    params = jnp.zeros(3)
    tx = optax.sgd(0.1)
    state = tx.init(params)
    for batch in batches():
        grads = jax.grad(lambda p: jnp.sum(p * jnp.asarray(batch).sum()))(params)
        updates, state = tx.update(grads, state)
        params = optax.apply_updates(params, updates)


if __name__ == "__main__":
    main()
"""


def test_a_framework_whose_gpus_the_program_hides_needs_no_switch(tmp_path):
    """Flax's examples read their data with ``tf.data`` and hide the GPUs from TensorFlow:
    only JAX computes on the GPU, so only its switch is asked for, at its import."""
    found = lint(tmp_path, {"train.py": HIDDEN, "requirements.txt": "tensorflow==2.16.1\njax==0.4.38\n"}, ("ND205",))
    assert where(found) == [("train.py", "ND205", 1, 1)]
    assert "never turns on `XLA_FLAGS=--xla_gpu_deterministic_ops=true`, so" in found[0][4]
    assert "enable_op_determinism" not in found[0][4]


def test_gpus_hidden_only_under_a_condition_still_count(tmp_path):
    source = HIDDEN.replace('    tf.config.experimental.set_visible_devices([], "GPU")\n',
                            '    if jax.process_index() == 0:\n        tf.config.experimental.set_visible_devices([], "GPU")\n')
    found = lint(tmp_path, {"train.py": source, "requirements.txt": "tensorflow==2.16.1\njax==0.4.38\n"}, ("ND205",))
    assert where(found) == [("train.py", "ND205", 4, 1)]
    assert "op determinism (`tf.config.experimental.enable_op_determinism()`) and `XLA_FLAGS=" in found[0][4]


def test_hiding_one_gpu_of_several_hides_nothing(tmp_path):
    source = HIDDEN.replace('set_visible_devices([], "GPU")', 'set_visible_devices(tf.config.list_physical_devices("GPU")[:1], "GPU")')
    found = lint(tmp_path, {"train.py": source, "requirements.txt": "tensorflow==2.16.1\njax==0.4.38\n"}, ("ND205",))
    assert "enable_op_determinism" in found[0][4] and "XLA_FLAGS" in found[0][4]


def test_a_tensorflow_program_that_hides_its_gpus_is_no_gpu_program(tmp_path):
    source = (
        "import tensorflow as tf\n\n"
        "tf.config.set_visible_devices([], 'GPU')\n"
        "model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "model.compile('sgd', 'mse')\n"
        "model.fit(tf.zeros((4, 2)), tf.zeros((4, 1)))\n"
    )
    assert lint(tmp_path, {"train.py": source, "requirements.txt": "tensorflow==2.16.1\n"}, ("ND205",)) == []
    shown = source.replace("tf.config.set_visible_devices([], 'GPU')\n", "")
    assert where(lint(tmp_path / "shown", {"train.py": shown, "requirements.txt": "tensorflow==2.16.1\n"}, ("ND205",))) == [
        ("train.py", "ND205", 1, 1)]


def test_jax_platforms_set_to_the_cpu_hide_its_gpus(tmp_path):
    source = "import os\nos.environ['JAX_PLATFORMS'] = 'cpu'\n" + HIDDEN.replace(
        '    tf.config.experimental.set_visible_devices([], "GPU")\n', "")
    found = lint(tmp_path, {"train.py": source, "requirements.txt": "tensorflow==2.16.1\njax==0.4.38\n"}, ("ND205",))
    assert where(found) == [("train.py", "ND205", 6, 1)]
    assert "never turns on op determinism (`tf.config.experimental.enable_op_determinism()`), so" in found[0][4]


# ------------------------------------------------ a project that is Lightning itself -----
# (pytorch-lightning 1.2.10's sdist ships its examples, ``pl_examples``): the examples run on
# the project's own version, and its ``Trainer`` is judged by the rule data that describes
# it, not by walking into the accelerator its body may pick
OWN_LIGHTNING = {
    "pytorch_lightning/__init__.py": "from pytorch_lightning.trainer import Trainer\nfrom pytorch_lightning.core import LightningModule\n",
    "pytorch_lightning/core.py": "import torch\n\n\nclass LightningModule(torch.nn.Module):\n    pass\n",
    "pytorch_lightning/accelerators.py": (
        "import torch\n\n\nclass GPUAccelerator:\n    def setup(self, model):\n        torch.cuda.set_device(0)\n"
        "        return model.cuda()\n\n\nclass CPUAccelerator:\n    def setup(self, model):\n        return model\n"
    ),
    "pytorch_lightning/trainer.py": (
        "from pytorch_lightning.accelerators import CPUAccelerator, GPUAccelerator\n\n\nclass Trainer:\n"
        "    def __init__(self, gpus=None):\n        self.accelerator = GPUAccelerator() if gpus else CPUAccelerator()\n\n"
        "    @classmethod\n    def from_argparse_args(cls, args):\n        return cls(**vars(args))\n\n"
        "    @staticmethod\n    def add_argparse_args(parser):\n        parser.add_argument('--gpus', default=None)\n        return parser\n\n"
        "    def fit(self, model):\n        model = self.accelerator.setup(model)\n        model.training_step(None, 0).backward()\n"
    ),
    "pl_examples/train.py": (
        "from argparse import ArgumentParser\n\nimport pytorch_lightning as pl\nimport torch\n\n\n"
        "class Model(pl.LightningModule):\n    def training_step(self, batch, index):\n"
        "        return torch.nn.functional.embedding(batch, self.weight).sum()\n\n\n"
        "if __name__ == '__main__':\n    parser = pl.Trainer.add_argparse_args(ArgumentParser())\n"
        "    trainer = {trainer}\n    trainer.fit(Model())\n"
    ),
}


def _own_lightning(version: str, trainer: str = "pl.Trainer.from_argparse_args(parser.parse_args())") -> Mapping[str, str]:
    files = dict(OWN_LIGHTNING)
    files["pl_examples/train.py"] = files["pl_examples/train.py"].replace("{trainer}", trainer)
    files["PKG-INFO"] = f"Metadata-Version: 2.1\nName: pytorch-lightning\nVersion: {version}\n\n"
    return files


def test_lightning_itself_before_2_0_runs_its_examples_on_the_cpu(tmp_path):
    # 1.2.10: Trainer.from_argparse_args with --gpus left at None trains on the CPU; the
    # GPUAccelerator the Trainer's body may pick is not counted as run
    assert lint(tmp_path / "one", _own_lightning("1.2.10")) == []
    # 2.x: "auto" takes the GPU
    [(path, code, line, col, message)] = lint(tmp_path / "two", _own_lightning("2.1.4"))
    assert (path, code, line, col) == ("pl_examples/train.py", "ND205", 14, 15)
    assert message.startswith(
        "this program runs on a GPU (`pytorch_lightning.Trainer.from_argparse_args` in `pl_examples/train.py` at line 14)"
    )


def test_lightning_itself_asked_for_a_gpu_is_a_gpu_program(tmp_path):
    # near miss: 1.2.10 with gpus=1 given takes the GPU, told by the rule data
    [(path, code, line, col, message)] = lint(tmp_path / "gpus", _own_lightning("1.2.10", "pl.Trainer(gpus=1)"))
    assert (path, code, line, col) == ("pl_examples/train.py", "ND205", 14, 15)
    assert message.startswith("this program runs on a GPU (`pytorch_lightning.Trainer` in `pl_examples/train.py` at line 14)")


PLACED = """
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)
        self._device = torch.device("cpu")

    @property
    def device(self):
        device = self._device
        if {test}:
            return torch.device(f"cuda:{{torch.cuda.current_device()}}")
        return device


if __name__ == "__main__":
    model = Net()
    print(model.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.nn.functional.embedding(torch.tensor([0, 1]), model.layer.weight).sum().backward()
    opt.step()
"""


@pytest.mark.parametrize("test", ['device.type == "cuda" and device.index is None', "device.is_cuda", '"cuda" == device.type'])
def test_a_cuda_value_under_a_test_that_a_value_is_on_cuda_selects_nothing(tmp_path, test):
    assert lint(tmp_path, {"train.py": PLACED.format(test=test)}) == []


def test_a_cuda_value_under_another_test_selects_the_gpu(tmp_path):
    # near miss: ``device.index is None`` alone says nothing of where the value is
    [(path, code, line, col, message)] = lint(tmp_path, {"train.py": PLACED.format(test="device.index is None")})
    assert (path, code, line, col) == ("train.py", "ND205", 14, 33)
    assert message.startswith("this program runs on a GPU (a `\"cuda\"` device in `train.py` at line 14)")
