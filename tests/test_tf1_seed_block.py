"""The TensorFlow seed of TF1-style programs: where the seed block goes in a module that
turns graph mode on, which call it makes (graph-level, TF1, TF2, by the module's spelling
and the project's TensorFlow), what ND105's message names, which TF1 seed calls count, and
graphs made and entered with ``as_default()``.  Each case has a near miss."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Dict, Mapping, Optional

import pytest

from conftest import codes_at, lint_files
from fixtools import fix_project

ND105 = {"select": ["ND105"]}
SEEDS = {"select": ["ND101", "ND102", "ND105"]}


def _message(api: str, evidence: str = "this program never seeds it") -> str:
    return f"TensorFlow global seed used here with no `{api}` before it ({evidence})"


def _fixed(root: Path, files: Mapping[str, str], table: Optional[Mapping] = None) -> Dict[str, str]:
    lint_files(root, files, table)
    outcome, _ = fix_project(root, table)
    return {name: outcome.contents[str(root / name)].decode() for name in files if str(root / name) in outcome.contents}


# ------------------------------------------- a module that turns graph mode on, at the top ----
COMPAT_TOP = (
    "import tensorflow.compat.v1 as tf\n"
    "\n"
    "tf.disable_v2_behavior()\n"
    "\n"
    "\n"
    "def main(_):\n"
    "    w = tf.Variable(tf.random_normal([3, 1]))\n"
    "    opt = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w))\n"
    "    with tf.Session() as sess:\n"
    "        sess.run(opt)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    tf.app.run(main)\n"
)


def test_a_compat_v1_module_that_disables_v2_behavior_is_seeded_after_the_switch(tmp_path):
    """``tf.set_random_seed`` before ``disable_v2_behavior()`` would set the eager context's
    seed, not the graph's: the block goes after the switch, and calls the graph-level
    ``tf.compat.v1.set_random_seed`` through the module's own ``tf`` (no new import)."""
    findings = lint_files(tmp_path / "a", {"train.py": COMPAT_TOP}, ND105)
    assert codes_at(findings) == [("ND105", 7, 21)]
    assert findings[0].message == _message("tf.compat.v1.set_random_seed")
    fixed = _fixed(tmp_path / "b", {"train.py": COMPAT_TOP}, ND105)["train.py"]
    assert fixed == COMPAT_TOP.replace(
        "tf.disable_v2_behavior()\n", "tf.disable_v2_behavior()\n\ntf.set_random_seed(0)\n"
    )
    assert lint_files(tmp_path / "b", {"train.py": fixed}, ND105) == []


def test_a_module_without_the_switch_keeps_the_tf2_seed_after_the_imports(tmp_path):
    """Near miss: the same module with no switch runs eagerly on TensorFlow 2, where
    ``tf.random.set_seed`` after the imports seeds it (``tf.compat.v1`` has no ``random.set_seed``:
    the block imports ``tensorflow``)."""
    source = COMPAT_TOP.replace("tf.disable_v2_behavior()\n\n", "")
    findings = lint_files(tmp_path / "a", {"train.py": source}, ND105)
    assert codes_at(findings) == [("ND105", 5, 21)]
    assert findings[0].message == _message("tf.random.set_seed")
    fixed = _fixed(tmp_path / "b", {"train.py": source}, ND105)["train.py"]
    assert fixed.splitlines()[:5] == ["import tensorflow", "import tensorflow.compat.v1 as tf", "", "tensorflow.random.set_seed(0)", ""]


# a training main that draws from TensorFlow and NumPy, spelled for ``{normal}`` and the ``{v1}`` namespace
TRAIN_BODY = (
    "    w = tf.Variable({normal}([3, 1]))\n"
    "    idx = np.random.permutation(3)\n"
    "    opt = {v1}train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.gather(w, idx)))\n"
    "    with {v1}Session() as sess:\n"
    "        sess.run(opt)\n"
)
SPELLED_OUT = (
    "import numpy as np\n"
    "import tensorflow as tf\n"
    "\n"
    "tf.compat.v1.disable_eager_execution()\n"
    "\n"
    "\n"
    "def main():\n"
    + TRAIN_BODY.format(normal="tf.random.normal", v1="tf.compat.v1.")
    + "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_no_block_where_a_draw_runs_before_the_switch(tmp_path):
    """Near miss: a module-level draw before the switch: no place after the switch runs
    before every draw, and a TensorFlow seed above the switch would not reach the graph."""
    source = (
        "import random\n"
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "order = random.sample(range(10), 10)\n"
        "tf.disable_v2_behavior()\n"
        "\n"
        "\n"
        "def main(_):\n"
        "    w = tf.Variable(tf.random_normal([3, 1]))\n"
        "    tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w))\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    tf.app.run(main)\n"
    )
    findings = lint_files(tmp_path, {"train.py": source}, SEEDS)
    assert codes_at(findings) == [("ND101", 4, 9), ("ND105", 9, 21)]
    assert [f.fix for f in findings] == [None, None]


# ------------------------------------------- the switch in a function (magenta's entry points) ----
CONSOLE_ENTRY = (
    "import numpy as np\n"
    "import tensorflow.compat.v1 as tf\n"
    "\n"
    "\n"
    "def main(_):\n"
    + TRAIN_BODY.format(normal="tf.random_normal", v1="tf.")
    + "\n"
    "\n"
    "def console_entry_point():\n"
    "    tf.disable_v2_behavior()\n"
    "    tf.app.run(main)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    console_entry_point()\n"
)


@pytest.mark.parametrize("source, at, fixed", [
    # a spelled-out compat switch at the top: the whole block after it
    (SPELLED_OUT, [("ND105", 8, 21), ("ND102", 9, 11)], SPELLED_OUT.replace(
        "tf.compat.v1.disable_eager_execution()\n",
        "tf.compat.v1.disable_eager_execution()\n\nnp.random.seed(0)\ntf.compat.v1.set_random_seed(0)\n",
    )),
    # the switch in a function (magenta's console entry points): the TensorFlow seed right
    # after it there, NumPy's after the imports
    (CONSOLE_ENTRY, [("ND105", 6, 21), ("ND102", 7, 11)], CONSOLE_ENTRY.replace(
        "import tensorflow.compat.v1 as tf\n", "import tensorflow.compat.v1 as tf\n\nnp.random.seed(0)\n",
    ).replace("    tf.disable_v2_behavior()\n", "    tf.disable_v2_behavior()\n    tf.set_random_seed(0)\n")),
])
def test_the_graph_seed_goes_after_the_switch(tmp_path, source, at, fixed):
    findings = lint_files(tmp_path / "a", {"train.py": source}, SEEDS)
    assert codes_at(findings) == at
    assert findings[0].message == _message("tf.compat.v1.set_random_seed")
    assert _fixed(tmp_path / "b", {"train.py": source}, SEEDS)["train.py"] == fixed
    assert lint_files(tmp_path / "c", {"train.py": fixed}, SEEDS) == []


# ------------------------------------------------------------ TF1 programs: the message ----
LEGACY_LIB = (
    "import tensorflow as tf\n"
    "\n"
    "\n"
    "def build():\n"
    "    w = tf.get_variable('w', [3, 1])\n"
    "    return tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w))\n"
)
LEGACY_TRAIN = (
    "import tensorflow as tf\n"
    "from model import build\n"
    "\n"
    "\n"
    "def main():\n"
    "    opt = build()\n"
    "    with tf.Session() as sess:\n"
    "        sess.run(opt)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_tf1_programs_message_names_the_tf1_seed_its_fix_inserts(tmp_path):
    """The entry point spells ``tf.Session``: its block calls ``tf.set_random_seed``, and the
    library module's finding (which carries that block) names it."""
    findings = lint_files(tmp_path / "a", {"model.py": LEGACY_LIB, "train.py": LEGACY_TRAIN}, ND105)
    assert codes_at(findings) == [("ND105", 5, 9)]
    assert findings[0].message == _message("tf.set_random_seed", "entry point train.py never seeds it")
    assert findings[0].fix is not None and findings[0].fix.edits[0].content == "\ntf.set_random_seed(0)\n"


def test_a_tf2_entry_point_keeps_the_tf2_message(tmp_path):
    """Near miss: the entry point spells no TF1-only name."""
    train = LEGACY_TRAIN.replace("    with tf.Session() as sess:\n        sess.run(opt)\n", "    opt()\n")
    findings = lint_files(tmp_path, {"model.py": LEGACY_LIB, "train.py": train}, ND105)
    assert [f.message for f in findings] == [_message("tf.random.set_seed", "entry point train.py never seeds it")]


# ------------------------------------------------------ the project's TensorFlow decides ----
TF2_SOURCE = (
    "import tensorflow as tf\n"
    "\n"
    "\n"
    "def main():\n"
    "    w = tf.Variable(tf.random.normal([3, 1]))\n"
    "    tf.keras.optimizers.SGD(0.1).apply_gradients([(w, w)])\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


@pytest.mark.parametrize("files, table, api, fixable", [
    # pinned to TensorFlow 1: `tf.random.set_seed` would raise AttributeError; no fix
    ({"requirements.txt": "tensorflow-gpu>=1.8,<2.0\n"}, ND105, "tf.set_random_seed", False),
    ({}, {**ND105, "target-versions": {"tensorflow": "1.15"}}, "tf.set_random_seed", False),
    # near misses: TensorFlow 2, or nothing declared
    ({"requirements.txt": "tensorflow>=2.4\n"}, ND105, "tf.random.set_seed", True),
    ({}, ND105, "tf.random.set_seed", True),
])
def test_the_fix_holds_on_the_projects_tensorflow(tmp_path, files, table, api, fixable):
    findings = lint_files(tmp_path, {**files, "train.py": TF2_SOURCE}, table)
    assert codes_at(findings) == [("ND105", 5, 21)]
    assert findings[0].message == _message(api)
    assert (findings[0].fix is not None) is fixable


def test_a_tf1_spelling_under_a_tf2_pin_gets_no_fix(tmp_path):
    """``tf.set_random_seed`` is not in TensorFlow 2's main namespace: the message names
    the graph-level call TensorFlow 2 has under ``tf.compat.v1``."""
    files = {"requirements.txt": "tensorflow==2.15.0\n", "model.py": LEGACY_LIB, "train.py": LEGACY_TRAIN}
    findings = lint_files(tmp_path, files, ND105)
    assert [f.message for f in findings] == [_message("tf.compat.v1.set_random_seed", "entry point train.py never seeds it")]
    assert findings[0].fix is None


# ----------------------------------------------------------- which TF1 seed calls count ----
@pytest.mark.parametrize("imports, seed", [
    ("import tensorflow as tf", "tf.compat.v1.set_random_seed(0)"),
    ("import tensorflow as tf", "tf.compat.v1.random.set_random_seed(0)"),
    ("import tensorflow as tf", "tf.random.set_random_seed(0)"),
    ("import tensorflow as tf", "tf.set_random_seed(0)"),
    ("import tensorflow.compat.v1 as tf", "tf.set_random_seed(0)"),
    ("import tensorflow.compat.v1 as tf", "tf.random.set_random_seed(0)"),
    ("from tensorflow.compat.v1 import set_random_seed", "set_random_seed(0)"),
])
def test_every_tf1_seed_call_seeds_the_program(tmp_path, imports, seed):
    source = (
        f"{imports}\n"
        "import tensorflow\n"
        "\n"
        "\n"
        "def main():\n"
        f"    {seed}\n"
        "    w = tensorflow.Variable(tensorflow.random.normal([3, 1]))\n"
        "    tensorflow.keras.optimizers.SGD(0.1).apply_gradients([(w, w)])\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    assert lint_files(tmp_path / "a", {"train.py": source}, ND105) == []
    # near miss: the same seed after the draw
    late = source.replace(f"    {seed}\n", "").replace("apply_gradients([(w, w)])\n", f"apply_gradients([(w, w)])\n    {seed}\n")
    assert codes_at(lint_files(tmp_path / "b", {"train.py": late}, ND105)) == [("ND105", 6, 29)]


# ------------------------------------------------------- graphs made and entered ----
def _graph_program(body: str, after: str = "") -> str:
    return (
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "\n"
        "def build():\n"
        "    w = tf.Variable(tf.random_normal([3, 1]))\n"
        "    return tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w))\n"
        "\n"
        "\n"
        "def main(_, fresh=False):\n"
        f"{body}"
        f"{after}"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    tf.disable_v2_behavior()\n"
        "    tf.app.run(main)\n"
    )


NEW_GRAPH = (
    "TensorFlow global seed used here with no `tf.compat.v1.set_random_seed` before it (this program builds it in a "
    "new graph (`with tf.Graph().as_default():`, `tf.reset_default_graph()`), which no graph-level seed set before "
    "reaches; set the seed once that graph is the default)"
)


@pytest.mark.parametrize("body", [
    "    tf.set_random_seed(0)\n    with tf.Graph().as_default():\n        build()\n",
    "    tf.set_random_seed(0)\n    g = tf.Graph()\n    with g.as_default():\n        build()\n",
    # magenta's latent_transfer: the seed, then a new default graph
    "    tf.set_random_seed(0)\n    tf.reset_default_graph()\n    build()\n",
])
def test_a_seed_set_outside_a_new_graph_does_not_reach_it(tmp_path, body):
    findings = lint_files(tmp_path, {"train.py": _graph_program(body)}, ND105)
    assert codes_at(findings) == [("ND105", 5, 21)]
    assert findings[0].message == NEW_GRAPH
    assert findings[0].fix is None  # a seed at the top would not reach that graph either


@pytest.mark.parametrize("body", [
    "    with tf.Graph().as_default():\n        tf.set_random_seed(0)\n        build()\n",
    "    g = tf.Graph()\n    with g.as_default():\n        tf.set_random_seed(0)\n        build()\n",
    # a graph kept in an attribute may be one the program seeded before (stable-baselines)
    "    tf.set_random_seed(0)\n    with self_graph.graph.as_default():\n        build()\n",
    "    tf.reset_default_graph()\n    tf.set_random_seed(0)\n    build()\n",
    # a reset that runs only with an option set is not part of the default run
    "    tf.set_random_seed(0)\n    if fresh:\n        tf.reset_default_graph()\n    build()\n",
])
def test_a_seed_set_in_the_graph_the_ops_are_built_in_covers_them(tmp_path, body):
    assert lint_files(tmp_path, {"train.py": _graph_program(body)}, ND105) == []


def test_a_seed_set_inside_a_new_graph_does_not_seed_what_runs_after_the_block(tmp_path):
    body = "    with tf.Graph().as_default():\n        tf.set_random_seed(0)\n"
    findings = lint_files(tmp_path, {"train.py": _graph_program(body, "    build()\n")}, ND105)
    assert codes_at(findings) == [("ND105", 5, 21)]
    assert findings[0].message == _message("tf.compat.v1.set_random_seed")
    fixed = _fixed(tmp_path, {"train.py": _graph_program(body, "    build()\n")}, ND105)["train.py"]
    assert fixed.endswith("    tf.disable_v2_behavior()\n    tf.set_random_seed(0)\n    tf.app.run(main)\n")


def test_the_other_rngs_are_still_seeded_where_tensorflow_draws_in_a_new_graph(tmp_path):
    """The block cannot seed a graph made later, but it still seeds NumPy: on NumPy's finding."""
    source = (
        "import numpy as np\n"
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "\n"
        "def main(_):\n"
        "    with tf.Graph().as_default():\n"
        + textwrap.indent(TRAIN_BODY.format(normal="tf.random_normal", v1="tf."), "    ")
        + "\n\nif __name__ == '__main__':\n    tf.disable_v2_behavior()\n    tf.app.run(main)\n"
    )
    findings = lint_files(tmp_path, {"train.py": source}, SEEDS)
    assert codes_at(findings) == [("ND105", 7, 25), ("ND102", 8, 15)]
    assert findings[0].fix is None
    assert findings[1].fix is not None
    assert [e.content for e in findings[1].fix.edits] == ["\nnp.random.seed(0)\n"]
