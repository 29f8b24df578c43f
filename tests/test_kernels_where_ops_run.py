"""Where an op of the kernel tables runs decides whether it is reported: ``tf.data``
parsers reached through parser objects, factories and local names run on the CPU, and
so does a module only such parsers use (ND204); each case has a near miss that keeps
the op on the GPU."""

from __future__ import annotations

from typing import Dict, List, Tuple

TF = {"target-versions": {"tensorflow": "2.15"}}
RESIZE = '`tf.image.resize(method="nearest")` has no deterministic GPU implementation'
SCATTER = "`tf.tensor_scatter_nd_add` adds with atomics on the GPU"

TRAIN = (
    "import tensorflow as tf\n"
    "from proj import reader\n"
    "def main():\n"
    "    ds = reader.InputReader({arg}).read()\n"
    "    model = tf.keras.Sequential([tf.keras.layers.Dense(3)])\n"
    "    with tf.GradientTape() as tape:\n"
    "        loss = tf.reduce_sum(model(next(iter(ds))))\n"
    "    tape.gradient(loss, model.trainable_variables)\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)
PARSER = (
    "import tensorflow as tf\n"
    "from proj import ops\n"
    "class Parser:\n"
    "    def __init__(self, training):\n"
    "        self._parse_fn = self._parse_train if training else self._parse_eval\n"
    "    def __call__(self, data):\n"
    "        return self._parse_fn(data)\n"
    "    def _parse_train(self, data):\n"
    "        return ops.resize_masks(data['masks'])\n"
    "    def _parse_eval(self, data):\n"
    "        return tf.image.resize(data['masks'], [8, 8], method='nearest')\n"
)
OPS = (
    "import tensorflow as tf\n"
    "def resize_masks(masks):\n"
    "    return tf.image.resize(masks, [64, 64], method='nearest')\n"
    "def count_boxes(grid, centers, values):\n"
    "    return tf.tensor_scatter_nd_add(grid, centers, values)\n"
)


def project(reader: str, arg: str = "", **more: str) -> Dict[str, str]:
    files = {
        "proj/__init__.py": "", "proj/reader.py": reader, "proj/parser.py": PARSER, "proj/ops.py": OPS,
        "proj/factory.py": "from proj import parser\ndef parser_generator(training):\n    parser_fn = parser.Parser(training)\n    return parser_fn\n",
        "proj/train.py": TRAIN.format(arg=arg),
    }
    files.update({f"proj/{name}.py": text for name, text in more.items()})
    return files


def nd204(lint, files: Dict[str, str]) -> List[Tuple[str, int, int]]:
    findings = [f for f in lint(files, TF) if f.code == "ND204"]
    assert all(f.message.startswith(SCATTER if f.path.endswith("ops.py") and f.line == 5 else RESIZE) for f in findings)
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings)


FACTORY_READER = (
    "import tensorflow as tf\n"
    "from proj import factory\n"
    "class InputReader:\n"
    "    def __init__(self, training=True):\n"
    "        self._parser_fn = factory.parser_generator(training)\n"
    "    def read(self):\n"
    "        dataset = tf.data.TFRecordDataset(['a.tfrecord'])\n"
    "        return dataset.{method}(self._parser_fn)\n"
)


def test_a_parser_object_built_by_a_factory_into_an_attribute_runs_on_the_cpu(lint):
    # ``self._parser_fn = factory.parser_generator(...)``, mapped: the Parser the factory
    # builds runs its ``__call__``, the method held in ``self._parse_fn`` and what that
    # calls in another module in the pipeline
    assert nd204(lint, project(FACTORY_READER.format(method="map"))) == []


def test_near_miss_the_attribute_is_not_given_to_a_pipeline(lint):
    files = project(FACTORY_READER.format(method="batch"))
    assert nd204(lint, files) == [("ops.py", 3, 12), ("ops.py", 5, 12), ("parser.py", 11, 16)]


LOCAL_READER = (
    "import tensorflow as tf\n"
    "from proj.parser import Parser\n"
    "class InputReader:\n"
    "    def read(self):\n"
    "        parser = Parser(training=True)\n"
    "        dataset = tf.data.TFRecordDataset(['a.tfrecord'])\n"
    "        return dataset.map({mapped})\n"
)


def test_a_parser_object_in_a_local_name_runs_on_the_cpu(lint):
    assert nd204(lint, project(LOCAL_READER.format(mapped="parser"))) == []


def test_near_miss_a_local_name_holding_something_else(lint):
    files = project(LOCAL_READER.format(mapped="tf.identity"))
    assert nd204(lint, files) == [("ops.py", 3, 12), ("ops.py", 5, 12), ("parser.py", 11, 16)]


def test_a_module_only_pipeline_code_uses_runs_on_the_cpu_even_where_nothing_calls_it(lint):
    # ``count_boxes`` is called by nobody; ops.py is used only by the parser
    assert nd204(lint, project(LOCAL_READER.format(mapped="parser"), heads="from proj import ops\n")) == []


def test_near_miss_a_module_the_model_also_uses_keeps_its_other_functions_on_the_gpu(lint):
    heads = "from proj import ops\ndef head(x):\n    return ops.count_boxes(x, [[0]], x)\n"
    files = project(LOCAL_READER.format(mapped="parser"), heads=heads)
    files["proj/train.py"] = files["proj/train.py"].replace("from proj import reader\n", "from proj import heads, reader\n").replace(
        "model(next(iter(ds)))", "heads.head(model(next(iter(ds))))")
    assert nd204(lint, files) == [("ops.py", 5, 12)]


# ---------------------------------------------------------------- backward-only ops ----
PAD_MESSAGE = '`torch.nn.functional.pad(mode="reflect")` has no deterministic CUDA implementation'
SPECTRUM = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "class Spectrum(torch.nn.Module):\n"
    "    def forward(self, wave):\n"
    "        return F.pad(wave, [4, 4], mode='reflect')\n"
)
NET = (
    "import torch\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = torch.nn.Linear(3, 3)\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n"
)
TRAIN_NET = (
    "import torch\n"
    "from proj import audio, net\n"
    "def main():\n"
    "    model = {model}.cuda()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    model(torch.ones(3, 3).cuda()).sum().backward()\n"
    "    opt.step()\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)
SYNTHESIZE = (
    "import torch\n"
    "from proj import audio\n"
    "def main():\n"
    "    spectrum = audio.Spectrum().to('cuda')\n"
    "    print(spectrum(torch.ones(1, 1, 16).cuda()))\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def nd203(lint, files: Dict[str, str]) -> List[Tuple[str, int, int]]:
    findings = [f for f in lint(files) if f.code == "ND203"]
    assert all(f.message.startswith(PAD_MESSAGE) for f in findings)
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings)


def torch_project(model: str, synthesize: str = SYNTHESIZE) -> Dict[str, str]:
    return {
        "proj/__init__.py": "", "proj/audio.py": SPECTRUM, "proj/net.py": NET,
        "proj/train.py": TRAIN_NET.format(model=model), "proj/synthesize.py": synthesize,
    }


def test_a_backward_only_op_run_only_by_a_program_that_never_differentiates_is_not_reported(lint):
    # train.py differentiates and imports audio.py but never runs Spectrum; synthesize.py
    # runs it on the GPU without a backward pass
    assert nd203(lint, torch_project("net.Net()")) == []


def test_near_miss_the_training_program_runs_the_layer(lint):
    assert nd203(lint, torch_project("torch.nn.Sequential(net.Net(), audio.Spectrum())")) == [("audio.py", 5, 16)]


def test_a_backward_only_op_that_only_a_cpu_program_differentiates_is_not_reported(lint):
    # the training program runs the layer on the CPU; the GPU program never differentiates
    files = torch_project("torch.nn.Sequential(net.Net(), audio.Spectrum())")
    files["proj/train.py"] = files["proj/train.py"].replace(".cuda()", "")
    assert nd203(lint, files) == []
    files["proj/train.py"] = files["proj/train.py"].replace("torch.ones(3, 3)", "torch.ones(3, 3).cuda()")
    assert nd203(lint, files) == [("audio.py", 5, 16)]


# ---------------------------------------------------------------- TF1 sessions ----
SESSION_MESSAGE = "`tensorflow.Session` runs ops on multi-threaded CPU pools"
TF_UTIL = (
    "import functools\n"
    "import tensorflow as tf\n"
    "def in_session(func):\n"
    "    @functools.wraps(func)\n"
    "    def wrapper(*args, **kwargs):\n"
    "        with tf.Session():\n"
    "            func(*args, **kwargs)\n"
    "    return wrapper\n"
    "def flatgrad(loss, variables):\n"
    "    return tf.gradients(loss, variables)\n"
)
ADAM = (
    "import numpy as np\n"
    "import tensorflow as tf\n"
    "from proj import tf_util\n"
    "def update(loss, variables):\n"
    "    return tf_util.flatgrad(loss, variables)\n"
    "@tf_util.in_session\n"
    "def test_adam():\n"
    "    np.random.seed(0)\n"
    "    tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.Variable(np.zeros(3))))\n"
    "if __name__ == '__main__':\n"
    "    test_adam()\n"
)
TRAIN_TF1 = (
    "import numpy as np\n"
    "import tensorflow as tf\n"
    "from proj import adam, tf_util\n"
    "{decorator}def train():\n"
    "    np.random.seed(0)\n"
    "    loss = tf.reduce_sum(tf.Variable(np.zeros(3)))\n"
    "    tf.train.AdamOptimizer(0.1).minimize(loss)\n"
    "if __name__ == '__main__':\n"
    "    train()\n"
)


def nd206(lint, decorator: str) -> List[Tuple[str, int, int]]:
    files = {"proj/__init__.py": "", "proj/tf_util.py": TF_UTIL, "proj/adam.py": ADAM, "proj/train.py": TRAIN_TF1.format(decorator=decorator)}
    findings = [f for f in lint(files) if f.code == "ND206"]
    assert all(f.message.startswith(SESSION_MESSAGE) for f in findings)
    return sorted((f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings)


def test_a_session_decorator_used_only_by_self_tests_runs_in_no_program(lint):
    # the training program seeds and imports tf_util (which differentiates), but only
    # adam.py's self-test, run by a main block that only calls it, opens the session
    assert nd206(lint, "") == []


def test_near_miss_the_training_function_runs_in_the_session(lint):
    assert nd206(lint, "@tf_util.in_session\n") == [("tf_util.py", 6, 14)]


# ---------------------------------------------------------------- no gradient in a loop ----
DRAW = (
    "import tensorflow as tf\n"
    "def _resize(image, shape):\n"
    "    return tf.image.resize(image, shape, method='nearest')\n"
    "def draw(images, shapes):\n"
    "    def draw_one(pair):\n"
    "        return _resize(pair[0], pair[1])\n"
    "    return tf.map_fn(draw_one, (images, shapes), dtype=tf.uint8{back_prop})\n"
    "def train(model, x):\n"
    "    with tf.GradientTape() as tape:\n"
    "        loss = tf.reduce_sum(draw(model(x), [8, 8]))\n"
    "    return tape.gradient(loss, model.trainable_variables)\n"
    "if __name__ == '__main__':\n"
    "    train(tf.keras.Sequential([tf.keras.layers.Dense(3)]), tf.ones([2, 3]))\n"
)


def test_a_function_mapped_with_back_prop_off_gets_no_gradient(lint):
    # ``draw_one`` and ``_resize``, which it calls, run without gradient
    assert nd204(lint, {"draw.py": DRAW.format(back_prop=", back_prop=False")}) == []


def test_near_miss_a_mapped_function_with_back_prop_on(lint):
    for back_prop in ("", ", back_prop=True"):
        assert nd204(lint, {"draw.py": DRAW.format(back_prop=back_prop)}) == [("draw.py", 3, 12)]


# ---------------------------------------------------------------- code no program is seen to run ----
MODELS = (
    "import torch\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.pool = torch.nn.AdaptiveAvgPool2d((1, 1))\n"
    "    def forward(self, x):\n"
    "        return self.pool(x).flatten()\n"
    "def net_small():\n"
    "    return Net()\n"
    "def get_model(name):\n"
    "    return globals()[name]()\n"
)
TRAIN_BY_NAME = (
    "import torch\n"
    "import models\n"
    "def main():\n"
    "    model = models.get_model('net_small').cuda()\n"
    "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    model(torch.ones(1, 3, 4, 4).cuda()).sum().backward()\n"
    "    opt.step()\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_backward_only_op_no_program_is_seen_to_run_counts_where_its_module_differentiates(lint):
    # the model is looked up by string: no program is seen to run ``Net``, so the training
    # program that imports its module judges it
    findings = [f for f in lint({"models.py": MODELS, "train.py": TRAIN_BY_NAME}) if f.code == "ND203"]
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("models.py", 5, 21)]
    assert findings[0].message.startswith("`torch.nn.AdaptiveAvgPool2d` has no deterministic CUDA implementation")


def test_near_miss_the_module_is_imported_only_by_a_program_that_never_differentiates(lint):
    infer = TRAIN_BY_NAME.replace(
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    model(torch.ones(1, 3, 4, 4).cuda()).sum().backward()\n    opt.step()\n",
        "    print(model(torch.ones(1, 3, 4, 4).cuda()))\n",
    )
    assert "backward" not in infer
    assert [f for f in lint({"models.py": MODELS, "infer.py": infer}) if f.code == "ND203"] == []
