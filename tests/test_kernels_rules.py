"""ND201-ND209 on small projects: codes and positions, programs joined along imports,
target versions, differentiation, GPU detection, and the fixes' edits."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from conftest import codes_at, lint_files
from nondet_lint.config import Config
from nondet_lint.engine import selected_codes
from nondet_lint.families.kernels.gpu import GpuModuleFacts
from nondet_lint.fileanalysis import analyze_source
from nondet_lint.ruledata import load_rules
from nondet_lint.source import decode_source

FIXTURES = Path(__file__).parent / "fixtures" / "kernels"


def found(findings, *codes):
    return [(f.path.rsplit("/", 1)[-1], *codes_at([f])[0]) for f in findings if f.code in codes]


def facts_of(source: str):
    rules = load_rules()
    config = Config()
    text = textwrap.dedent(source).lstrip("\n").encode()
    return analyze_source("m.py", decode_source(text), config, rules, selected_codes(config, rules)).facts


# ---------------------------------------------------------------- fixture projects ----
def lint_fixture(tmp_path, name, config=None):
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return found(lint_files(root, {}, config), "ND201", "ND202", "ND203", "ND204", "ND205", "ND206", "ND207", "ND208", "ND209")


def test_torch_project(tmp_path):
    # model.py's ops are judged by the switch train.py's program sets (utils/determinism.py);
    # evaluate.py's program has no switch; torch 2.1 (pinned) still needs the cuBLAS variable
    assert sorted(lint_fixture(tmp_path, "torch_project")) == [
        ("evaluate.py", "ND205", 6, 11),
        ("model.py", "ND203", 10, 21),  # AdaptiveAvgPool2d backward: train.py differentiates
        ("model.py", "ND203", 21, 20),  # bincount with weights
        ("train.py", "ND209", 9, 27),
    ]


def test_torch_project_on_a_newer_torch(tmp_path):
    findings = lint_fixture(tmp_path, "torch_project", {"target-versions": {"torch": "2.12"}})
    assert ("train.py", "ND209", 9, 27) not in findings
    assert ("evaluate.py", "ND205", 6, 11) in findings


def test_tensorflow_project_pinned_to_2_4(tmp_path):
    # TF_DETERMINISTIC_OPS is on, but before 2.5 nothing makes segment sums or nearest
    # resizing deterministic; bilinear resizing is (switch)
    assert sorted(lint_fixture(tmp_path, "tf_project")) == [
        ("ops.py", "ND204", 5, 12),
        ("ops.py", "ND204", 9, 12),
    ]


def test_tensorflow_project_on_a_current_tensorflow(tmp_path):
    assert lint_fixture(tmp_path, "tf_project", {"target-versions": {"tensorflow": "2.15"}}) == []


# ---------------------------------------------------------------- ND203 ---------------
def test_nd203_positions(lint):
    findings = lint({"train.py": """
        import torch
        x = torch.zeros(4).cuda()
        x.put_(idx, src, accumulate=True)
        y = torch.Tensor.index_add_(x, 0, idx, src)
    """})
    assert found(findings, "ND203") == [("train.py", "ND203", 3, 1), ("train.py", "ND203", 4, 5)]


def test_nd203_ops_without_a_deterministic_kernel_are_reported_whatever_the_switch(lint):
    # put_(accumulate=True) is deterministic on CPU tensors under the switch, but raises
    # on CUDA ones: in a GPU program the CUDA entry wins
    findings = lint({"train.py": """
        import torch
        torch.use_deterministic_algorithms(True)
        x = torch.zeros(4).cuda()
        x.put_(idx, src, accumulate=True)
        y = torch.Tensor.index_add_(x, 0, idx, src)
    """})
    assert found(findings, "ND203") == [("train.py", "ND203", 4, 1)]


def test_nd203_counting_with_ones_is_exact(lint):
    findings = lint({"m.py": """
        import torch
        torch.ones(1).cuda()
        counts.index_add_(0, ids, torch.ones(len(ids)))
        counts.scatter_add_(0, ids, ids.new_ones(ids.shape))
        sums.index_add_(0, ids, values)
        counts.scatter_add_(1, ids, torch.ones(ids.size()).to(counts))
        sums.scatter_add_(1, ids, values.to(sums))
    """})
    assert found(findings, "ND203") == [("m.py", "ND203", 5, 1), ("m.py", "ND203", 7, 1)]


def test_nd203_switch_in_an_unreached_module_counts(lint):
    # a module no entry point imports (loaded dynamically) gets the benefit of the doubt
    findings = lint({
        "train.py": "import torch\nfrom ops import pool\nif __name__ == '__main__':\n    pool(torch.ones(2).cuda())\n",
        "ops.py": "def pool(x):\n    return x.index_add_(0, i, x)\n",
        "plugins/determinism.py": "import torch\ntorch.use_deterministic_algorithms(True)\n",
    })
    assert found(findings, "ND203") == []


def test_nd203_backward_entry_needs_differentiation_somewhere_in_the_program(lint):
    files = {
        "model.py": "import torch.nn as nn\npool = nn.ReflectionPad2d(1)\n",
        "train.py": "import torch\nimport model\nif __name__ == '__main__':\n    torch.ones(1).cuda()\n",
    }
    assert found(lint(files), "ND203") == []
    files["train.py"] += "    loss.backward()\n"
    assert found(lint(files), "ND203") == [("model.py", "ND203", 2, 8)]


def test_nd203_ops_in_a_cpu_program_are_silent(lint):
    assert found(lint({"m.py": "import torch\nx = torch.zeros(3)\nx.index_add_(0, i, v)\ntorch.histc(x)\n"}), "ND203") == []


def test_nd203_receivers_known_to_be_other_libraries(lint):
    findings = lint({"m.py": """
        import numpy as np
        import torch
        torch.ones(1).cuda()
        arr = np.arange(4)
        arr.put([0], [1])
        frame = load()
        tensor = torch.arange(4)
        tensor.put_(torch.tensor([0]), torch.tensor([1]))
    """})
    assert found(findings, "ND203") == [("m.py", "ND203", 8, 1)]


def test_nd203_reports_nothing_for_report_none_entries(lint):
    findings = lint({"m.py": "import torch\nimport torch.nn as nn\nloss_fn = nn.CrossEntropyLoss()\nx = torch.ones(1).cuda()\nv, i = x.topk(1)\n"})
    assert found(findings, "ND203") == []


# ---------------------------------------------------------------- ND204 / ND208 -------
def test_nd204_keras_names_through_tf_keras(lint):
    findings = lint({"m.py": """
        import tensorflow as tf
        from tensorflow.keras import layers
        up = layers.UpSampling2D()
        with tf.GradientTape() as tape:
            y = up(x)
    """})
    assert found(findings, "ND204") == [("m.py", "ND204", 3, 6)]


def test_nd204_raising_ops_are_silent_under_op_determinism(lint):
    source = "import tensorflow as tf\n{switch}\ny = tf.math.bincount(ids, weights=w)\n"
    assert found(lint({"m.py": source.format(switch="")}), "ND204") == [("m.py", "ND204", 3, 5)]
    assert found(lint({"m.py": source.format(switch="tf.config.experimental.enable_op_determinism()")}), "ND204") == []


def test_nd208_at_add_in_a_jax_file_only(tmp_path):
    findings = lint_files(tmp_path / "a", {"m.py": "import jax.numpy as jnp\ny = x.at[i].add(v)\nz = x.at[i].set(v)\nw = x.at[i].add(2)\n"})
    assert found(findings, "ND208") == [("m.py", "ND208", 2, 5)]
    assert found(lint_files(tmp_path / "b", {"n.py": "import torch\ny = x.at[i].add(v)\n"}), "ND208") == []


def test_nd208_scatters_promised_unique_indices_are_not_flagged(lint):
    source = (
        "import jax\nimport jax.numpy as jnp\n"
        "a = x.at[i].add(v, unique_indices=True)\n"
        "b = jax.ops.segment_sum(v, ids, 4, False, True)\n"
        "c = jax.lax.scatter_add(x, i, v, dims, unique_indices=True)\n"
        "d = x.at[i].add(v, unique_indices=False)\n"
        "e = jax.ops.segment_sum(v, ids, 4, indices_are_sorted=True)\n"
        "def total(v, ids, unique=False):\n"
        "    return jax.ops.segment_sum(v, ids, unique_indices=unique)\n"
    )
    findings = lint({"m.py": source})
    assert found(findings, "ND208") == [("m.py", "ND208", 6, 5), ("m.py", "ND208", 7, 5), ("m.py", "ND208", 9, 12)]
    assert [f.message.split("`")[1] for f in findings if f.code == "ND208"] == [
        ".at[].add()", "jax.ops.segment_sum", "jax.ops.segment_sum",
    ]


def test_nd208_exclude_nondeterministic_ops_flag_counts_for_scatters(lint):
    files = {"m.py": "import os\nos.environ['XLA_FLAGS'] = '--xla_gpu_exclude_nondeterministic_ops=true'\nimport jax\ny = jax.ops.segment_sum(v, ids, 4)\n"}
    assert found(lint(files), "ND208") == []


@pytest.mark.parametrize("flags, reported", [
    # appended to what the variable held: nothing turns the switch on
    ("xla_flags = os.environ.get('XLA_FLAGS', '')\nxla_flags += ' --xla_gpu_triton_gemm_any=True'\n", True),
    ("xla_flags = os.getenv('XLA_FLAGS', '') + ' --xla_gpu_triton_gemm_any=True'\n", True),
    # near misses: the name holds the switch, or a value the code does not show
    ("xla_flags = os.environ.get('XLA_FLAGS', '')\nxla_flags += ' --xla_gpu_deterministic_ops=true'\n", False),
    ("xla_flags = read_flags()\n", False),
])
def test_nd208_xla_flags_built_in_a_name_are_judged_by_what_the_name_holds(lint, flags, reported):
    source = "import os\nimport jax\n" + flags + "os.environ['XLA_FLAGS'] = xla_flags\ny = jax.ops.segment_sum(v, ids, 4)\n"
    line = source.count("\n")
    assert found(lint({"m.py": source}), "ND208") == ([("m.py", "ND208", line, 5)] if reported else [])


# ---------------------------------------------------------------- ND205 ---------------
def test_nd205_once_per_entry_point_at_the_first_gpu_selection(lint):
    findings = lint({"train.py": """
        import torch

        def main():
            model = Net()
            model.to("cuda")
            batch = batch.cuda()
            model(batch).sum().backward()

        if __name__ == "__main__":
            main()
    """})
    assert found(findings, "ND205") == [("train.py", "ND205", 5, 14)]


def test_nd205_tensorflow_is_reported_at_its_import(lint):
    findings = lint({"fit.py": "import numpy as np\nimport tensorflow as tf\nmodel = build()\nmodel.fit(x, y)\n"})
    assert found(findings, "ND205") == [("fit.py", "ND205", 2, 1)]


def test_nd205_not_for_scripts_that_use_no_framework(lint):
    findings = lint({
        "prepare.py": "import csv\nrows = list(csv.reader(open('a.csv')))\nwrite(rows)\n",
        "train.py": "import torch\ntorch.use_deterministic_algorithms(True)\nmodel = Net().cuda()\n",
    })
    assert found(findings, "ND205") == []


def test_nd205_switch_from_a_flag_counts(lint):
    findings = lint({"train.py": "import torch\ntorch.use_deterministic_algorithms(args.deterministic)\nmodel = Net().cuda()\n"})
    assert found(findings, "ND205") == []


def test_nd205_comparing_with_cuda_is_not_selecting_it(lint):
    findings = lint({"train.py": "import torch\nif args.device == 'cuda':\n    print('gpu')\nrun(model)\n"})
    assert found(findings, "ND205") == []


def test_nd205_lightning_on_the_cpu_is_not_a_gpu_program(tmp_path):
    files = {"train.py": "import lightning as L\nimport torch\ntrainer = L.Trainer(accelerator='cpu')\ntrainer.fit(model)\n"}
    assert found(lint_files(tmp_path / "cpu", files), "ND205") == []
    files["train.py"] = files["train.py"].replace("accelerator='cpu'", "max_epochs=1")  # "auto": the GPU when there is one
    assert found(lint_files(tmp_path / "auto", files), "ND205") == [("train.py", "ND205", 3, 11)]


# ---------------------------------------------------------------- ND206 / ND207 / ND202
def test_nd206_session_without_config_in_a_seeding_program(lint):
    findings = lint({"m.py": "import tensorflow as tf\ntf.compat.v1.set_random_seed(1)\nsess = tf.compat.v1.Session()\ngood = tf.compat.v1.Session(config=cfg)\n"})
    assert found(findings, "ND206") == [("m.py", "ND206", 3, 8)]


SESSIONS = """
import numpy as np
import tensorflow as tf
import tf_slim as slim

np.random.seed(0)


def sample(ckpt):
    saver = tf.compat.v1.train.Saver()
    sess = tf.compat.v1.Session()
    saver.restore(sess, ckpt)
    return sess.run("x:0")


def stylise(ckpt):
    with tf.compat.v1.Session() as sess:
        init_fn = slim.assign_from_checkpoint_fn(ckpt, slim.get_variables_to_restore())
        init_fn(sess)
        return sess.run("y:0")


def resume(ckpt):
    saver = tf.compat.v1.train.Saver()
    sess = tf.compat.v1.Session()
    saver.restore(sess, ckpt)
    sess.run("train")
    saver.save(sess, ckpt)


def finetune(ckpt, loss):
    step = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss)
    sess = tf.compat.v1.Session()
    tf.compat.v1.train.init_from_checkpoint(ckpt, {"/": "/"})
    sess.run(step)


def fresh():
    sess = tf.compat.v1.Session()
    return sess.run("z:0")


if __name__ == "__main__":
    sample("a"), stylise("b"), resume("c"), finetune("d", None), fresh()
"""


def test_nd206_a_session_that_only_runs_a_restored_model_forward_is_not_judged(lint):
    # sample / stylise restore a trained model and neither train nor save: inference.
    # resume saves a checkpoint, finetune builds an optimizer, fresh restores nothing
    findings = lint({"m.py": SESSIONS})
    assert found(findings, "ND206") == [("m.py", "ND206", 24, 12), ("m.py", "ND206", 32, 12), ("m.py", "ND206", 38, 12)]


LOADED_PLAYER = {
    "agent/__init__.py": "",
    "agent/util.py": (
        "import random\nimport numpy as np\nimport tensorflow as tf\n\n\n"
        "def set_global_seeds(seed):\n    tf.compat.v1.set_random_seed(seed)\n    np.random.seed(seed)\n    random.seed(seed)\n"
    ),
    "agent/simple.py": (
        "import tensorflow as tf\nfrom agent.util import set_global_seeds\n\n\n"
        "def load(path):\n    sess = tf.compat.v1.Session()\n    return sess.run(path)\n\n\n"
        "def learn(loss, steps, seed=0):\n    set_global_seeds(seed)\n    step = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss)\n"
        "    sess = tf.compat.v1.Session()\n    for _ in range(steps):\n        sess.run(step)\n"
    ),
    "train.py": "from agent import simple\n\nif __name__ == '__main__':\n    simple.learn(None, 10)\n",
}


@pytest.mark.parametrize("enjoy, expected", [
    # the player's program holds the module that seeds, but nothing it runs seeds
    ("from agent import simple\n\nif __name__ == '__main__':\n    act = simple.load('model.pkl')\n",
     [("simple.py", "ND206", 13, 12)]),
    # near miss: the player seeds before loading
    ("from agent import simple\nfrom agent.util import set_global_seeds\n\n"
     "if __name__ == '__main__':\n    set_global_seeds(1)\n    act = simple.load('model.pkl')\n",
     [("simple.py", "ND206", 6, 12), ("simple.py", "ND206", 13, 12)]),
])
def test_nd206_a_session_that_only_programs_running_no_seed_open_is_not_judged(lint, enjoy, expected):
    # train.py runs learn, which seeds: its session is judged.  enjoy.py runs load's session
    # and imports the seeding helper's module, but runs no seed unless it calls the helper
    findings = lint({**LOADED_PLAYER, "enjoy.py": enjoy})
    assert found(findings, "ND206") == expected


def test_nd207_integer_atomics_and_sources_in_lists(lint):
    findings = lint({"m.py": """
        from numba import cuda
        from torch.utils.cpp_extension import load_inline

        @cuda.jit
        def k(out, idx, val, count):
            cuda.atomic.add(count, 0, 1)
            cuda.atomic.add(out, idx[0], val[0])

        CUDA = "__global__ void f(float* out, const float* v, int* n) { atomicAdd(n, 2); atomicAdd(&out[0], v[0]); }"
        INT_ONLY = "__global__ void g(int* n, long long* m) { atomicAdd(n, 1); atomicAdd(&m[0], 3); }"
        ext = load_inline("ext", cpp_sources=[""], cuda_sources=[CUDA])
        ints = load_inline("ints", cpp_sources=[""], cuda_sources=[INT_ONLY])
    """})
    assert found(findings, "ND207") == [("m.py", "ND207", 7, 5), ("m.py", "ND207", 11, 7)]


def test_nd202_flags_context_manager_in_a_gpu_program(lint):
    findings = lint({"m.py": "import torch\nwith torch.backends.cudnn.flags(True, False, 10, False):\n    y = net(x.cuda())\n"})
    assert found(findings, "ND202") == [("m.py", "ND202", 2, 6)]


# ---------------------------------------------------------------- fixes ---------------
def fix_of(findings, code):
    [finding] = [f for f in findings if f.code == code]
    return [(e.line, e.col, e.end_line, e.end_col, e.content) for e in finding.fix.edits]


def test_nd205_fix_uses_the_module_alias_and_adds_no_duplicate(lint):
    # torch 2.10: no CUBLAS_WORKSPACE_CONFIG needed
    findings = lint({"train.py": "import torch as T\nimport numpy as np\n\nmodel = Net().cuda()\nmodel(x).sum().backward()\n"},
                    {"target-versions": {"torch": "2.10"}})
    [(line, col, _, _, text)] = fix_of(findings, "ND205")
    assert line == 3 and text.strip() == "T.use_deterministic_algorithms(True)"


def test_nd205_fix_for_old_tensorflow_sets_the_environment_variable(lint):
    findings = lint({"train.py": "import tensorflow as tf\nmodel.fit(x)\n"}, {"target-versions": {"tensorflow": "2.4"}})
    # `import os` where isort puts it (before the third-party imports), the variable after them
    assert fix_of(findings, "ND205") == [
        (1, 0, 1, 0, "import os\n\n"), (2, 0, 2, 0, '\nos.environ["TF_DETERMINISTIC_OPS"] = "1"\n\n'),
    ]


def test_nd205_fix_imports_torch_when_only_a_module_does(lint):
    findings = lint({
        "train.py": "from model import Net, train\nnet = Net().cuda()\ntrain(net)\n",
        "model.py": "import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n        self.conv = torch.nn.Conv2d(1, 1, 3)\ndef train(net):\n    net(1).sum().backward()\n",
    })
    text = "".join(edit[-1] for edit in fix_of(findings, "ND205"))
    assert "import torch" in text and "torch.use_deterministic_algorithms(True)" in text


def test_nd209_fix_goes_after_the_imports_and_reuses_import_os(lint):
    findings = lint({"train.py": "import os\nimport torch\ntorch.use_deterministic_algorithms(True)\nm = Net().cuda()\n"},
                    {"target-versions": {"torch": "2.1"}})
    # cuBLAS reads it at its first call: after the imports (no E402), before the switch's code
    assert fix_of(findings, "ND209") == [(3, 0, 3, 0, '\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n\n')]


# ---------------------------------------------------------------- facts ---------------
def test_facts_are_plain_data_and_record_switches():
    facts = facts_of("""
        import os
        import torch
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":16:8"
        os.environ.update({"XLA_FLAGS": os.environ.get("XLA_FLAGS", "") + " --xla_gpu_deterministic_ops=true"})
        torch.backends.cudnn.deterministic = True
        torch.use_deterministic_algorithms(mode)
        model = Net().to(device="cuda:1")
        loss.backward()
    """)
    gpu = GpuModuleFacts.from_json(json.loads(json.dumps(facts.to_json()))["gpu"])  # cacheable
    assert gpu.switches == {"cublas": "on", "cudnn_deterministic": "on", "torch": "unknown", "xla": "on", "xla_scatter": "on"}
    assert gpu.selects_gpu and gpu.differentiates and gpu.frameworks == ("torch",)


@pytest.mark.parametrize("source", [
    "import os\nos.environ[1] = 2\nos.environ['XLA_FLAGS'] = f'{x}'\n",
    "import torch\ntorch.use_deterministic_algorithms()\ntorch.use_deterministic_algorithms(*args)\n",
    "import torch\nx.put_(*a, **k)\ntorch.backends.cudnn.flags(**opts)\n",
    "import cupy\ncupy.RawKernel(*src)\ncupy.RawKernel('atomicAdd(')\n",
    "import jax\nx.at[...].add()\n",
])
def test_odd_code_never_raises(source):
    facts_of(source)


def test_nd205_evidence_comes_from_the_entry_points_own_program(lint):
    # an unrelated module nobody imports uses convolutions and TensorFlow: the torch
    # entry point's message must not cite them, nor ask for TensorFlow's switch
    findings = lint({
        "train.py": """
            import torch
            model = torch.nn.Embedding(4, 2).to("cuda")
            if __name__ == "__main__":
                model(torch.zeros(1, 4)).sum().backward()
        """,
        "scratch/old_tf.py": """
            import tensorflow as tf
            import torch
            layer = tf.keras.layers.Dense(3)
            conv = torch.nn.Conv2d(3, 8, 3)
        """,
    })
    nd205 = [f for f in findings if f.code == "ND205" and f.path.endswith("train.py")]
    assert len(nd205) == 1
    assert "Conv2d" not in nd205[0].message and "bias_add" not in nd205[0].message
    assert "enable_op_determinism" not in nd205[0].message


@pytest.mark.parametrize("source,selects", [
    ('"cuda"', True), ("'cuda:0'", True), ('r"cuda"', True), ('"""cuda"""', True), ('u"cuda"', True),
    ('"\\x63uda"', True), ('"cu" "da"', True), ('b"cuda"', False), ('"cpu"', False), ('"my cuda"', False),
])
def test_device_literals_read_with_and_without_escapes(source, selects):
    from nondet_lint.families.kernels.gpu import is_device_literal

    assert is_device_literal(cst.parse_expression(source), r"^(cuda|gpu)") is selects
