"""APIs of TF1-era training code: ``tf.flags`` (absl flags under a TensorFlow name),
``six.moves.urllib`` (the stdlib's ``urllib.request``) and the TF1 input queues that
dequeue in random order.  Each case has a near miss."""

from __future__ import annotations

import libcst as cst

from conftest import codes_at, lint_files
from fixtools import fix_project
from nondet_lint.context import import_bindings
from nondet_lint.names import ImportMap
from nondet_lint.ruledata import load_rules

NONE_SEED = (
    "this seed call is given None by default (`seed` is None by default): it seeds from OS entropy, "
    "so it covers nothing; use a fixed value (log it if it varies on purpose)"
)
UNCHECKED = (
    "`urllib.request.urlretrieve` fetches `uri` at whatever the URL serves, with nothing that checks what "
    "arrived: what it gets changes whenever the source is updated, so two runs can use different weights "
    "or data; compare a `hashlib` digest of the file after the download, or put a commit hash or a release "
    "tag in the URL"
)


def _at(findings, code):
    """(path below the project, line, column, message) of each finding of ``code``."""
    out = []
    for f in findings:
        if f.code == code:
            path = f.path.replace("\\", "/")
            out.append((path[path.find("pkg/"):] if "pkg/" in path else path.rsplit("/", 1)[-1], f.line, f.col + 1, f.message))
    return out


# ---------------------------------------------------------------- tf.flags is absl.flags ----
def test_tf_flags_resolve_as_absl_flags():
    imports = ImportMap(cst.parse_module(
        "import tensorflow.compat.v1 as tf\n"
        "import tensorflow as tf2\n"
        "flags = tf.flags\n"
    ), bindings=import_bindings(load_rules()))
    assert imports.resolve_dotted("flags.DEFINE_integer") == "absl.flags.DEFINE_integer"
    assert imports.resolve_dotted("tf.app.flags.FLAGS") == "absl.flags.FLAGS"
    assert imports.resolve_dotted("tf2.compat.v1.flags.DEFINE_string") == "absl.flags.DEFINE_string"
    # near miss: the rest of TensorFlow stays TensorFlow
    assert imports.resolve_dotted("tf.set_random_seed") == "tensorflow.set_random_seed"


SEED_HELPER = (
    "import random\n"
    "import numpy as np\n"
    "import tensorflow.compat.v1 as tf\n"
    "\n"
    "\n"
    "def set_random_seed(seed):\n"
    "    tf.set_random_seed(seed)\n"
    "    random.seed(seed)\n"
    "    np.random.seed(seed)\n"
)


def _trainer(default: str) -> str:
    return (
        "import numpy as np\n"
        "import tensorflow.compat.v1 as tf\n"
        "from pkg import lib\n"
        "\n"
        "flags = tf.flags\n"
        "FLAGS = flags.FLAGS\n"
        f"flags.DEFINE_integer(\"random_seed\", {default}, \"Random seed.\")\n"
        "\n"
        "\n"
        "def main(argv):\n"
        "    lib.set_random_seed(FLAGS.random_seed)\n"
        "    x = np.random.rand(3)\n"
        "    tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(tf.Variable(x)))\n"
        "\n"
        "\n"
        "if __name__ == \"__main__\":\n"
        "    tf.app.run()\n"
    )


def test_a_tf_flags_seed_defaulting_to_none_seeds_nothing(lint):
    findings = lint({"pkg/__init__.py": "", "pkg/lib.py": SEED_HELPER, "pkg/train.py": _trainer("None")})
    assert _at(findings, "ND107") == [
        ("pkg/lib.py", 7, 5, NONE_SEED), ("pkg/lib.py", 8, 5, NONE_SEED), ("pkg/lib.py", 9, 5, NONE_SEED),
    ]
    assert codes_at([f for f in findings if f.code == "ND102"]) == [("ND102", 12, 9)]


def test_a_tf_flags_seed_with_a_default_seeds(lint):
    findings = lint({"pkg/__init__.py": "", "pkg/lib.py": SEED_HELPER, "pkg/train.py": _trainer("1")})
    assert [f for f in findings if f.code in ("ND107", "ND102")] == []


# ------------------------------------------------------- six.moves.urllib is urllib.request ----
def test_urlretrieve_through_six_moves_is_an_unchecked_download(lint):
    source = (
        "import os\n"
        "import six.moves.urllib_request as urllib\n"
        "from six.moves import urllib as urllib6\n"
        "\n"
        "\n"
        "def maybe_download(directory, filename, uri):\n"
        "    filepath = os.path.join(directory, filename)\n"
        "    urllib.urlretrieve(uri, filepath)\n"
        "    return filepath\n"
        "\n"
        "\n"
        "def fetch(uri):\n"
        "    return urllib6.request.urlretrieve(uri, 'x.csv')\n"
    )
    assert _at(lint({"dl.py": source}), "ND303") == [("dl.py", 8, 5, UNCHECKED), ("dl.py", 13, 12, UNCHECKED)]


def test_urlretrieve_through_six_moves_with_a_digest_check_is_pinned(lint):
    source = (
        "import hashlib\n"
        "import six.moves.urllib_request as urllib\n"
        "\n"
        "\n"
        "def maybe_download(uri, filepath, sha256):\n"
        "    urllib.urlretrieve(uri, filepath)\n"
        "    with open(filepath, 'rb') as f:\n"
        "        if hashlib.sha256(f.read()).hexdigest() != sha256:\n"
        "            raise ValueError(uri)\n"
    )
    assert _at(lint({"dl.py": source}), "ND303") == []


# ------------------------------------------------------------- TF1 random shuffle queues ----
def _queue_trainer(seed_line: str, queue_args: str) -> str:
    return (
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "\n"
        "def main(_):\n"
        f"    {seed_line}\n"
        f"    queue = tf.RandomShuffleQueue(500, 100, dtypes=[tf.float32]{queue_args})\n"
        "    x = tf.train.shuffle_batch([queue.dequeue()], 32, 500, 100)\n"
        "    w = tf.Variable(tf.zeros([3]))\n"
        "    tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * x))\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    tf.app.run()\n"
    )


def test_an_unseeded_random_shuffle_queue_draws_from_the_graph_seed(lint):
    findings = lint({"train.py": _queue_trainer("pass", "")})
    nd105 = [f for f in findings if f.code == "ND105"]
    assert codes_at(nd105) == [("ND105", 6, 13)]
    assert nd105[0].message == (
        "TensorFlow global seed used here with no `tf.random.set_seed` before it (this program never seeds it); "
        "1 more unseeded use in this module"
    )


def test_a_random_shuffle_queue_after_the_graph_seed_is_seeded(lint):
    findings = lint({"train.py": _queue_trainer("tf.set_random_seed(0)", "")})
    assert [f for f in findings if f.code == "ND105"] == []


def test_a_random_shuffle_queue_given_its_own_seed_is_not_a_use(lint):
    findings = lint({"train.py": _queue_trainer("pass", ", seed=1")})
    assert codes_at([f for f in findings if f.code == "ND105"]) == [("ND105", 7, 9)]


# ---------------------------------------------- TF1 initializer objects draw from the graph seed ----
TF1_INITIALIZER = (
    "import tensorflow as tf\n"
    "\n"
    "\n"
    "def main(_):\n"
    "    x = tf.placeholder(tf.float32, [None, 784])\n"
    "    w = tf.get_variable('w', [784, 10], initializer=tf.truncated_normal_initializer({args}))\n"
    "    loss = tf.reduce_mean(tf.matmul(x, w))\n"
    "    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)\n"
    "    with tf.Session() as sess:\n"
    "        sess.run(train_op)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    tf.app.run()\n"
)


def test_a_tf1_initializer_with_no_seed_draws_from_the_graph_seed_and_the_fix_seeds_the_tf1_way(tmp_path):
    """``tf.truncated_normal_initializer(stddev=0.1)`` with no ``seed`` takes the graph-level
    seed: unset, the initial weights differ every run.  The module spells TF1-only names
    (``tf.placeholder``, ``tf.Session``), so the fix calls ``tf.set_random_seed``, which
    every TensorFlow 1 has (``tf.random.set_seed`` is TF 2 only).  Near miss: the
    initializer given its own seed."""
    findings = lint_files(tmp_path / "a", {"train.py": TF1_INITIALIZER.format(args="stddev=0.1")}, {"select": ["ND105"]})
    assert codes_at(findings) == [("ND105", 6, 53)]
    outcome, _ = fix_project(tmp_path / "a", {"select": ["ND105"]})
    fixed = outcome.contents[str(tmp_path / "a" / "train.py")].decode()
    assert fixed.splitlines()[:4] == ["import tensorflow as tf", "", "tf.set_random_seed(0)", ""]
    assert lint_files(tmp_path / "b", {"train.py": TF1_INITIALIZER.format(args="stddev=0.1, seed=1")}, {"select": ["ND105"]}) == []


# ------------------------------------------- a NumPy generator seeded from a None parameter ----
BENCHMARK = (
    "from typing import Optional\n"
    "\n"
    "import numpy as np\n"
    "\n"
    "\n"
    "def permuted(n_experiences: int, seed: Optional[int] = None):\n"
    "    rng = np.random.RandomState(seed)\n"
    "    return [rng.permutation(784) for _ in range(n_experiences)]\n"
)


def _generator_trainer(call: str) -> str:
    return (
        "import torch\n"
        "from pkg.bench import permuted\n"
        "\n"
        "\n"
        "def main():\n"
        "    torch.manual_seed(0)\n"
        f"    perms = {call}\n"
        "    model = torch.nn.Linear(784, 10)\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model(torch.randn(2, 784)[:, perms[0]]).sum().backward()\n"
        "    opt.step()\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )


def test_a_generator_seeded_by_a_parameter_no_caller_sets_is_unseeded(lint):
    findings = lint({"pkg/__init__.py": "", "pkg/bench.py": BENCHMARK, "train.py": _generator_trainer("permuted(5)")})
    nd103 = [f for f in findings if f.code == "ND103"]
    assert _at(nd103, "ND103") == [(
        "pkg/bench.py", 7, 11,
        "`np.random.RandomState` is created with no seed (`seed` is None when entry point train.py runs it), so it "
        "draws fresh entropy from the OS and differs every run; pass a seed",
    )]
    assert nd103[0].fix is None


def test_a_generator_seeded_by_a_parameter_the_caller_sets_is_seeded(lint):
    findings = lint({"pkg/__init__.py": "", "pkg/bench.py": BENCHMARK, "train.py": _generator_trainer("permuted(5, seed=1)")})
    assert [f for f in findings if f.code == "ND103"] == []


def test_a_generator_seeded_by_a_parameter_no_program_runs_is_its_callers_choice(lint):
    assert [f for f in lint({"pkg/__init__.py": "", "pkg/bench.py": BENCHMARK}) if f.code == "ND103"] == []
