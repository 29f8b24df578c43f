"""What a program trains decides what it answers for: a training hook the project's own
trainer calls makes only the programs that run that trainer differentiate (ND205); an
autograd Function's ``backward`` runs only in a program's backward pass; a faiss k-means
or a scikit-learn estimator is not a framework model (the weights a program restores
are overwritten, ND104), and a fit that runs no code of the project answers for no use
reached only through a callback.  Each class has a case that fires and a near miss."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Mapping, Sequence, Tuple

from conftest import lint_files


def lint(root: Path, files: Mapping[str, str], select: Sequence[str]) -> List[Tuple[str, str, int, str]]:
    findings = lint_files(root, {name: textwrap.dedent(text) for name, text in files.items()}, {"select": list(select)})
    prefix = str(root).replace("\\", "/") + "/"
    return sorted((f.path.replace("\\", "/").replace(prefix, ""), f.code, f.line, f.message) for f in findings)


# ---------------------------------------------------------------- training hooks (ND205) -
TASKS = {
    "tasks.py": """
        import torch


        class Task:
            def build_model(self):
                return torch.nn.Embedding(10, 4)

            def train_step(self, model, batch):
                model(batch).sum().backward()
    """,
    "trainer.py": """
        class Trainer:
            def __init__(self, task, model):
                self.task = task
                self.model = model

            def train(self, batch):
                self.task.train_step(self.model, batch)
    """,
}
INFER = """
    import torch
    from tasks import Task

    if __name__ == "__main__":
        model = Task().build_model().cuda()
        with torch.no_grad():
            print(model(torch.ones(2, dtype=torch.long).cuda()))
"""
TRAIN = """
    import torch
    from tasks import Task
    from trainer import Trainer

    if __name__ == "__main__":
        task = Task()
        model = task.build_model().cuda()
        Trainer(task, model).train(torch.ones(2, dtype=torch.long).cuda())
"""
SWITCH = (
    "this program runs on a GPU (`.cuda()` in `{path}` at line {line}) but never turns on "
    "`torch.use_deterministic_algorithms(True)`, so cuDNN autotuning and atomic-add kernels can change its results "
    "from run to run; {ops}turn it on (deterministic kernels can be slower)"
)


def test_a_hook_the_projects_own_trainer_calls_trains_only_where_that_trainer_runs(tmp_path):
    assert lint(tmp_path / "infer", {**TASKS, "infer.py": INFER}, ["ND205"]) == []
    assert lint(tmp_path / "train", {**TASKS, "train.py": TRAIN}, ["ND205"]) == [(
        "train.py", "ND205", 7,
        SWITCH.format(path="train.py", line=7, ops="it runs `torch.nn.Embedding` (tasks.py:6); "),
    )]


def test_a_hook_no_code_of_the_project_calls_may_be_called_by_a_trainer_outside_it(tmp_path):
    # no trainer of the project calls ``train_step``: a library's may (Keras, Lightning);
    # a test that calls it is no trainer, nor is an override that calls its base's
    tasks = {
        "tasks.py": TASKS["tasks.py"],
        "tests/test_tasks.py": "from tasks import Task\n\n\ndef test_step():\n    Task().train_step(None, None)\n",
        "more.py": "from tasks import Task\n\n\nclass More(Task):\n    def train_step(self, model, batch):\n        super().train_step(model, batch)\n",
    }
    assert lint(tmp_path, {**tasks, "infer.py": INFER}, ["ND205"]) == [(
        "infer.py", "ND205", 5,
        SWITCH.format(path="infer.py", line=5, ops="it runs `torch.nn.Embedding` (tasks.py:6); "),
    )]


# ---------------------------------------------------------------- autograd Functions ----
FUNCTION = {
    "ops.py": """
        import torch


        class Scatter(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                torch.autograd.backward(grad)  # a recomputation's backward, as activation checkpointing does
                return torch.nn.functional.embedding(torch.arange(4, device=grad.device), grad.view(4, 1)).view(4)
    """,
}


def test_an_autograd_functions_backward_runs_only_in_a_backward_pass(tmp_path):
    infer = """
        import torch
        from ops import Scatter

        if __name__ == "__main__":
            x = torch.ones(4).cuda()
            with torch.no_grad():
                print(Scatter.apply(x))
    """
    assert lint(tmp_path / "infer", {**FUNCTION, "infer.py": infer}, ["ND205"]) == []
    train = """
        import torch
        from ops import Scatter

        if __name__ == "__main__":
            x = torch.ones(4).cuda().requires_grad_()
            Scatter.apply(x).sum().backward()
    """
    assert lint(tmp_path / "train", {**FUNCTION, "train.py": train}, ["ND205"]) == [(
        "train.py", "ND205", 5,
        SWITCH.format(path="train.py", line=5, ops="it runs `torch.nn.Embedding` (ops.py:12); "),
    )]


CLIPPED = """
    import torch


    def with_clipped_gradient(x):
        def grad_fn(grad):
            return grad.clamp(-1, 1)
        return fn_with_custom_grad(grad_fn)(x)


    def main():
        model = torch.nn.Embedding(10, 4).cuda()
        {step}


    if __name__ == "__main__":
        main()
"""


def test_a_gradient_function_nested_in_another_function_ends_with_it(tmp_path):
    """A function handed on as another's gradient computes no training of its own, and the
    code after the function around it is judged as before it."""
    step = "model(torch.ones(2, dtype=torch.long).cuda()).sum().backward()"
    assert lint(tmp_path / "train", {"train.py": CLIPPED.format(step=step)}, ["ND205"]) == [(
        "train.py", "ND205", 11,
        SWITCH.format(path="train.py", line=11, ops="it runs `torch.nn.Embedding` (train.py:11); "),
    )]
    step = "print(model(torch.ones(2, dtype=torch.long).cuda()))"
    assert lint(tmp_path / "infer", {"train.py": CLIPPED.format(step=step)}, ["ND205"]) == []


# ---------------------------------------------------------------- library models (ND104) -
MODEL = {
    "model.py": """
        import torch


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x):
                return torch.nn.functional.dropout(self.fc(x), p=0.1, training=self.training)
    """,
}
CLUSTER = """
    import numpy as np
    import torch
    {imports}
    from model import Net

    if __name__ == "__main__":
        model = Net()
        model.load_state_dict(torch.load("net.pt"))
        model.eval()
        with torch.no_grad():
            x = model(torch.ones(8, 4)).numpy()
        {fit}
"""
UNSEEDED = "PyTorch global RNG used here with no `torch.manual_seed` before it (entry point cluster.py never seeds it)"


def test_a_faiss_kmeans_trains_no_framework_model_and_runs_no_callback(tmp_path):
    faiss = CLUSTER.format(imports="import faiss", fit="kmeans = faiss.Kmeans(4, 2)\n        kmeans.train(x)")
    assert lint(tmp_path, {**MODEL, "cluster.py": faiss}, ["ND104"]) == []


def test_a_scikit_learn_fit_may_run_callbacks_but_trains_no_framework_model(tmp_path):
    sklearn = CLUSTER.format(imports="from sklearn.cluster import KMeans", fit="KMeans(2).fit(x)")
    # the restore overwrites the Linear's initial weights; the dropout in ``forward`` is reported
    assert lint(tmp_path, {**MODEL, "cluster.py": sklearn}, ["ND104"]) == [("model.py", "ND104", 10, UNSEEDED)]


def test_a_model_of_unknown_type_trains_a_framework_model(tmp_path):
    unknown = CLUSTER.format(imports="", fit="model.train()")
    assert lint(tmp_path, {**MODEL, "cluster.py": unknown}, ["ND104"]) == [
        ("model.py", "ND104", 7, UNSEEDED + "; 1 more unseeded use in this module"),
    ]


# ---------------------------------------------------------------- registries (ND203) ----
REGISTRY = {
    "criterions/__init__.py": """
        import importlib
        import os

        REGISTRY = {}


        def register_criterion(name):
            def wrap(cls):
                REGISTRY[name] = cls
                return cls
            return wrap


        def build_criterion(name):
            return REGISTRY[name]()


        for file in sorted(os.listdir(os.path.dirname(__file__))):
            if file.endswith(".py") and not file.startswith("_"):
                importlib.import_module("criterions." + file[:-3])
    """,
    "criterions/ctc.py": """
        import torch.nn.functional as F
        from criterions import register_criterion


        @register_criterion("ctc")
        class CtcCriterion:
            def __call__(self, lprobs, targets, lengths, target_lengths):
                return F.ctc_loss(lprobs, targets, lengths, target_lengths)
    """,
    "score.py": """
        import torch
        from criterions.ctc import CtcCriterion

        if __name__ == "__main__":
            lprobs = torch.ones(2, 1, 3).cuda()
            with torch.no_grad():
                print(CtcCriterion()(lprobs, torch.ones(1, 1), torch.tensor([2]), torch.tensor([1])))
    """,
}


def test_a_criterion_filed_in_a_registry_runs_in_the_trainer_that_uses_the_registry(tmp_path):
    # score.py imports the criterion and never differentiates; the trainer builds it by
    # name, the registry's package importing its module by a computed name
    assert lint(tmp_path / "scoring", REGISTRY, ["ND203"]) == []
    train = """
        import torch
        from criterions import build_criterion

        if __name__ == "__main__":
            criterion = build_criterion("ctc")
            lprobs = torch.ones(2, 1, 3).cuda().requires_grad_()
            criterion(lprobs, torch.ones(1, 1), torch.tensor([2]), torch.tensor([1])).backward()
    """
    assert lint(tmp_path / "training", {**REGISTRY, "train.py": train}, ["ND203"]) == [(
        "criterions/ctc.py", "ND203", 8,
        "`torch.nn.CTCLoss` has no deterministic CUDA implementation: its result can change from run to run, and under "
        "`torch.use_deterministic_algorithms(True)` it raises; compute the loss on the CPU (`log_probs.cpu()`)",
    )]
