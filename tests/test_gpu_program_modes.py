"""ND205: training that a mode argument turns off.  A TensorFlow 1 model builder shared by a
training and a generating program builds its training step only on a branch of a mode
parameter (``if mode == 'train':``) or of an is-training field (``if not self.is_training:
return``); the program that trains passes a value that takes the branch and is reported, the
one that only generates passes a literal that does not and is left alone."""

from __future__ import annotations

from pathlib import Path

from test_gpu_programs import lint

MODE_GRAPH = """import tensorflow as tf


def get_build_graph_fn(mode, config):
    if mode not in ('train', 'eval', 'generate'):
        raise ValueError(mode)

    def build():
        inputs = tf.placeholder(tf.float32, [None, config])
        logits = tf.layers.dense(inputs, 4)
        if mode in ('train', 'eval'):
            loss = tf.reduce_mean(logits)
            if mode == 'train':
                optimizer = tf.train.AdamOptimizer(0.1)
                tf.add_to_collection('train_op', optimizer.minimize(loss))
        elif mode == 'generate':
            tf.add_to_collection('softmax', tf.nn.softmax(logits))

    return build
"""

MODE_TRAIN = """import tensorflow as tf

from model import graph

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_bool('eval', False, 'evaluate')


def main(unused_argv):
    mode = 'eval' if FLAGS.eval else 'train'
    graph.get_build_graph_fn(mode, 8)()


if __name__ == '__main__':
    tf.app.run(main)
"""

MODE_GENERATE = """import tensorflow as tf

from model import graph


def main(unused_argv):
    graph.get_build_graph_fn({arguments})()
    with tf.Session() as sess:
        sess.run(tf.get_collection('softmax'))


if __name__ == '__main__':
    tf.app.run(main)
"""

MESSAGE = (
    "this program runs on a GPU (TensorFlow / JAX use the GPU by default) but never turns on cuDNN determinism "
    "(`TF_CUDNN_DETERMINISTIC=1`; TensorFlow before 1.14 has no switch), so cuDNN autotuning and atomic-add kernels "
    "can change its results from run to run; turn it on (deterministic kernels can be slower)"
)


def _mode_project(generate_arguments: str):
    return {
        "model/__init__.py": "",
        "model/graph.py": MODE_GRAPH,
        "model_train.py": MODE_TRAIN,
        "model_generate.py": MODE_GENERATE.format(arguments=generate_arguments),
    }


def test_the_training_program_of_a_mode_switched_builder_is_reported(tmp_path: Path):
    assert lint(tmp_path, _mode_project("'generate', 8"), ["ND205"]) == [
        ("model_train.py", "ND205", 1, 1, MESSAGE),
    ]


def test_a_program_that_builds_the_graph_to_generate_is_not(tmp_path: Path):
    assert lint(tmp_path, _mode_project("mode='generate', config=8"), ["ND205"]) == [
        ("model_train.py", "ND205", 1, 1, MESSAGE),
    ]


def test_a_generating_program_passing_a_computed_mode_may_train(tmp_path: Path):
    project = _mode_project("FLAGS.mode, 8")
    assert [f[:4] for f in lint(tmp_path, project, ["ND205"])] == [
        ("model_generate.py", "ND205", 1, 1), ("model_train.py", "ND205", 1, 1),
    ]


FIELD_GRAPH = """import tensorflow as tf


class Graph(object):
    def __init__(self, is_training):
        self.is_training = is_training
        inputs = tf.placeholder(tf.float32, [None, 8, 8, 1])
        self.loss = tf.reduce_mean(tf.nn.conv2d(inputs, tf.get_variable('w', [3, 3, 1, 4]), 1, 'SAME'))
        self.setup_optimizer()

    def setup_optimizer(self):
        if not self.is_training:
            self.train_op = tf.no_op()
            return
        self.train_op = tf.train.AdamOptimizer(0.1).minimize(self.loss)


def build_graph(is_training):
    return Graph(is_training=is_training)
"""

FIELD_PROGRAM = """import tensorflow as tf

from model import graph


def {function}(pianorolls):
    return pianorolls


def main(unused_argv):
    model = graph.build_graph(is_training={value})
    with tf.Session() as sess:
        sess.run(model.{output})
    {function}([])


if __name__ == '__main__':
    tf.app.run(main)
"""


def _field_project(value: str, function: str = "sample", output: str = "loss"):
    return {
        "model/__init__.py": "",
        "model/graph.py": FIELD_GRAPH,
        "run.py": FIELD_PROGRAM.format(value=value, function=function, output=output),
    }


def _with_ops(ops: str) -> str:
    return MESSAGE.replace("; turn it on", f"; it runs {ops}; turn it on")


def test_a_program_that_builds_the_model_for_training_is_reported(tmp_path: Path):
    assert lint(tmp_path, _field_project("True", output="train_op"), ["ND205"]) == [
        ("run.py", "ND205", 1, 1, _with_ops("`tf.nn.conv2d` (model/graph.py:8)")),
    ]


def test_a_program_that_builds_it_with_is_training_false_to_sample_is_not(tmp_path: Path):
    assert lint(tmp_path, _field_project("False"), ["ND205"]) == []


def test_a_program_that_builds_it_with_is_training_false_to_evaluate_is_reported(tmp_path: Path):
    # it runs the convolution forward only: cuDNN autotuning is what the switch changes
    assert lint(tmp_path, _field_project("False", function="evaluate"), ["ND205"]) == [
        ("run.py", "ND205", 1, 1, _with_ops("`cuDNN convolution autotuning` (model/graph.py:8)")),
    ]


ESTIMATOR_MODEL = """import tensorflow as tf


def model_fn(features, labels, mode, params):
    logits = tf.layers.dense(features, 4)
    train_op = None
    if mode == tf.estimator.ModeKeys.TRAIN:
        train_op = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_mean(logits))
    return tf.estimator.EstimatorSpec(mode, predictions=logits, train_op=train_op)
"""

ESTIMATOR_PROGRAM = """import tensorflow as tf

from model import model


def main(unused_argv):
    estimator = tf.estimator.Estimator(model_fn=model.model_fn, model_dir='/tmp/model')
    {run}


if __name__ == '__main__':
    tf.app.run(main)
"""


def _estimator_project(run: str):
    return {
        "model/__init__.py": "",
        "model/model.py": ESTIMATOR_MODEL,
        "run.py": ESTIMATOR_PROGRAM.format(run=run),
    }


def test_a_program_that_trains_an_estimator_runs_its_model_functions_training_branch(tmp_path: Path):
    assert lint(tmp_path, _estimator_project("estimator.train(input_fn=None)"), ["ND205"]) == [
        ("run.py", "ND205", 1, 1, MESSAGE),
    ]


def test_a_program_that_only_predicts_with_an_estimator_does_not(tmp_path: Path):
    assert lint(tmp_path, _estimator_project("list(estimator.predict(input_fn=None))"), ["ND205"]) == []
