"""ND204 / ND206 near misses: updates are not scatter-adds, tf.data functions run on the
CPU, backward-only ops on inputs without a gradient, sessions no seeding program runs."""

from __future__ import annotations

import libcst as cst

from conftest import codes_at
from nondet_lint.families.kernels.cpuside import CpuSide, carries_no_gradient, cpu_side_functions
from nondet_lint.ruledata import load_rules

SIDE = CpuSide.from_rule_data(load_rules()["ND204"].data)  # the bundled rule data

TAPE = "with tf.GradientTape() as tape:\n    loss = model(x)\n"


def nd(findings, code):
    return [(f.path.rsplit("/", 1)[-1], *codes_at([f])[0]) for f in findings if f.code == code]


def test_nd204_updates_are_not_reported_but_adds_are(lint):
    source = (
        "import tensorflow as tf\n"
        "a = tf.tensor_scatter_nd_update(t, i, u)\n"
        "b = tf.compat.v1.scatter_update(v, i, u)\n"
        "c = tf.compat.v1.scatter_nd_update(v, i, u)\n"
        "d = tf.tensor_scatter_nd_add(t, i, u)\n"
    )
    assert nd(lint({"m.py": source}, {"target-versions": {"tensorflow": "2.15"}}), "ND204") == [("m.py", "ND204", 5, 5)]


def test_nd204_ops_of_tf_data_functions_run_on_the_cpu(lint):
    source = (
        "import tensorflow as tf\n"
        "def helper(x):\n"
        "    return tf.image.adjust_contrast(x, 2.0)\n"
        "def parse(x):\n"
        "    return helper(x)\n"
        "def model_side(x):\n"
        "    return tf.image.adjust_contrast(x, 2.0)\n"
        "ds = tf.data.Dataset.range(3).map(parse).filter(lambda x: tf.image.adjust_contrast(x, 1.0) > 0)\n"
    )
    assert nd(lint({"m.py": source}), "ND204") == [("m.py", "ND204", 7, 12)]


def test_pipeline_functions_follow_methods_and_keywords():
    module = cst.parse_module(
        "class P:\n"
        "    def _parse(self, x):\n        return self._crop(x)\n"
        "    def _crop(self, x):\n        return x\n"
        "    def other(self, x):\n        return x\n"
        "    def build(self, ds, decoder):\n"
        "        return ds.map(self._parse).interleave(map_func=decoder.decode)\n"
        "def decode(x):\n    return x\n"
    )
    names = sorted(f.name.value for f in cpu_side_functions(module, SIDE, lambda node: None).on_cpu if isinstance(f, cst.FunctionDef))
    assert names == ["_crop", "_parse", "decode"]


def test_nd204_backward_ops_on_inputs_without_gradient(lint):
    source = (
        "import tensorflow as tf\n"
        + TAPE
        + "a = tf.image.resize(labels, s, method='nearest')\n"
        "b = tf.image.resize(tf.stop_gradient(x), s, method='nearest')\n"
        "c = tf.image.crop_and_resize(tf.expand_dims(tf.cast(m, tf.int32), -1), b, i, s)\n"
        "d = tf.image.resize(features, s, method='nearest')\n"
        "e = tf.image.resize(tf.cast(m, tf.float32), s, method='nearest')\n"
    )
    assert nd(lint({"m.py": source}), "ND204") == [("m.py", "ND204", 7, 5), ("m.py", "ND204", 8, 5)]


def test_carries_no_gradient_reads_names_through_subscripts():
    call = cst.parse_expression("f(groundtruth['masks'][0])")
    assert carries_no_gradient(call.args[0].value, lambda node: None, SIDE)
    assert not carries_no_gradient(cst.parse_expression("logits[0]"), lambda node: None, SIDE)


SESSION = "import tensorflow as tf\ndef lookup(t):\n    with tf.compat.v1.Session() as sess:\n        return sess.run(t)\n"


def test_nd206_session_needs_a_seeding_program_that_runs_it(lint):
    train = "import numpy as np\n{imp}if __name__ == '__main__':\n    np.random.seed(0)\n"
    trains = SESSION + "def step(opt, loss):\n    return opt.minimize(loss)\n"
    files = {"encoder.py": trains, "train.py": train.format(imp="")}
    assert nd(lint(files), "ND206") == []
    files["train.py"] = train.format(imp="import encoder\n")
    assert nd(lint(files), "ND206") == [("encoder.py", "ND206", 3, 10)]


def test_nd206_sessions_in_test_code_are_not_reported(lint):
    source = "import numpy as np\nimport tensorflow as tf\nnp.random.seed(0)\nsess = tf.compat.v1.Session()\n"
    assert nd(lint({"encoder_test.py": source}), "ND206") == []
    assert nd(lint({"encoder.py": source}), "ND206") == [("encoder.py", "ND206", 4, 8)]


def test_nd206_library_sessions_count_only_where_the_module_trains(lint):
    train = "import numpy as np\nimport encoder\nif __name__ == '__main__':\n    np.random.seed(0)\n"
    files = {"encoder.py": SESSION, "train.py": train}
    assert nd(lint(files), "ND206") == []
    files["encoder.py"] = SESSION + "def step(opt, loss):\n    return opt.minimize(loss)\n"
    assert nd(lint(files), "ND206") == [("encoder.py", "ND206", 3, 10)]


AVERAGING = (
    "import numpy as np\n"
    "import tensorflow as tf\n"
    "from six.moves import zip\n"
    "np.random.seed(0)\n"
    "\n"
    "def main(values, tf_vars, placeholders):\n"
    "    {ops} = [{call}(v, p) for v, p in zip(tf_vars, placeholders)]\n"
    "    saver = tf.train.Saver(tf.global_variables())\n"
    "    init_op = tf.initializers.global_variables()\n"
    "    with tf.Session() as sess:\n"
    "        sess.run(init_op)\n"
    "        for p, op, value in zip(placeholders, {ops}, values):\n"
    "            sess.run(op, {{p: value}})\n"
    "        saver.save(sess, 'averaged.ckpt')\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main([], [], [])\n"
)


def test_nd206_a_session_that_only_copies_given_values_in_does_no_float_work(lint):
    """Checkpoint averaging: the session assigns averages computed in NumPy and saves."""
    copies = AVERAGING.format(ops="assign_ops", call="tf.assign")
    assert nd(lint({"avg.py": copies}), "ND206") == []
    # near miss: the ops it runs add, which threads can reorder
    adds = AVERAGING.format(ops="add_ops", call="tf.add")
    found = [f for f in lint({"avg.py": adds}) if f.code == "ND206"]
    assert [(f.line, f.col + 1) for f in found] == [(10, 10)]
    assert found[0].message.startswith("`tensorflow.Session` runs ops on multi-threaded CPU pools")


CONVERTER = (
    "import numpy as np\n"
    "import tensorflow as tf\n"
    "\n"
    "tf.compat.v1.set_random_seed(0)\n"
    "\n"
    "def convert(checkpoint, output):\n"
    "    config = tf.compat.v1.ConfigProto(device_count={{'GPU': 0}})\n"
    "    with tf.compat.v1.Session(config=config) as sess:\n"
    "        for name, _ in tf.train.list_variables(checkpoint):\n"
    "            value = tf.train.load_variable(checkpoint, name)\n"
    "            tf.Variable(value.astype(np.float16), name=name)\n"
    "{train}"
    "        saver = tf.compat.v1.train.Saver()\n"
    "        sess.run(tf.compat.v1.global_variables_initializer())\n"
    "        saver.save(sess, output)\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    convert('in.ckpt', 'out.ckpt')\n"
)


def test_nd206_a_checkpoint_converter_entry_point_is_not_reported(lint):
    """It reads a checkpoint's variables by name, casts them and saves: nothing trains."""
    assert nd(lint({"convert.py": CONVERTER.format(train="")}), "ND206") == []
    # near miss: the same function also builds a training step
    trains = CONVERTER.format(train="        tf.compat.v1.train.AdamOptimizer().minimize(tf.reduce_sum(value))\n")
    found = [f for f in lint({"convert.py": trains}) if f.code == "ND206"]
    assert [(f.line, f.col + 1) for f in found] == [(7, 14)]
    assert found[0].message == (
        "`tensorflow.ConfigProto` runs ops on multi-threaded CPU pools, so results can change from run to run "
        "although the program seeds; pass `tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, "
        "inter_op_parallelism_threads=1)` (slower), or move to TF2 with op determinism"
    )


# ---------------------------------------------------------------- values of (values, indices) ----
MEDIAN = (
    "`torch.median(dim=...)` has no deterministic CUDA implementation: its result can change from run "
    "to run, and under `torch.use_deterministic_algorithms(True)` it raises; with ties the returned "
    "index can vary; use `torch.sort(..., stable=True)` and take the middle element"
)
GPU_MEDIANS = (
    "import torch\n"
    "x = torch.randn(8, 4, device='cuda')\n"
    "a = torch.median(x, dim=0).values\n"
    "b = x.median(dim=1)[0]\n"
    "c, _ = torch.median(x, 0)\n"
    "d = torch.median(x, dim=0).indices\n"
    "e, f = x.median(dim=1)\n"
    "g = torch.median(x, dim=0)[1]\n"
    "h = x.kthvalue(2, dim=1).values\n"
)


def test_nd203_median_whose_values_only_are_kept_is_not_reported_at_the_call(lint):
    findings = [f for f in lint({"m.py": GPU_MEDIANS}, {"target-versions": {"torch": "2.4"}}) if f.code == "ND203"]
    # the values do not vary; the index (d, f, g) does
    assert [(f.line, f.col + 1) for f in findings] == [(6, 5), (7, 8), (8, 5)]
    assert {f.message for f in findings} == {MEDIAN}


def test_nd205_still_counts_a_median_whose_values_only_are_kept(lint):
    source = (
        "import torch\n"
        "torch.manual_seed(0)\n"
        "model = torch.nn.Linear(4, 1).cuda()\n"
        "x = torch.randn(8, 4, device='cuda')\n"
        "loss = model(x - torch.median(x, dim=0).values).sum()\n"
        "loss.backward()\n"
    )
    findings = lint({"m.py": source}, {"target-versions": {"torch": "2.4"}})
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND205", 3, 9)]
    assert "`torch.median(dim=...)` has no deterministic implementation on torch 2.4 and would raise under it, so the fix passes `warn_only=True`" in findings[0].message


def test_nd204_a_scatter_of_a_bool_or_integer_fill_adds_exactly(lint):
    source = (
        "import tensorflow as tf\n"
        "a = tf.scatter_nd(i, tf.fill(shape, True), dims)\n"
        "b = tf.scatter_nd(i, tf.fill(shape, value=2), dims)\n"
        "c = tf.scatter_nd(i, tf.fill(shape, 0.5), dims)\n"
        "d = tf.scatter_nd(i, tf.fill(shape, v), dims)\n"
    )
    findings = [f for f in lint({"m.py": source}, {"target-versions": {"tensorflow": "2.15"}}) if f.code == "ND204"]
    assert [(f.line, f.col + 1) for f in findings] == [(4, 5), (5, 5)]
    assert findings[0].message.startswith("`tf.scatter_nd` ")
