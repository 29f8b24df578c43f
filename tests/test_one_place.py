"""Determinism switches and seed helpers are recognised in one place: the rules that ask agree."""

from __future__ import annotations

import pytest

SELECT = {"select": ["ND205", "ND307"]}
PROGRAM = """\
import os
import tensorflow as tf
{switch}
files = tf.data.Dataset.list_files("*.tfrecord")
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(files)
"""


def codes(findings):
    return sorted({(f.code, f.line) for f in findings})


def test_without_a_switch_both_rules_fire(lint):
    assert codes(lint({"train.py": PROGRAM.format(switch="")}, SELECT)) == [("ND205", 2), ("ND307", 4)]


@pytest.mark.parametrize("switch", [
    "os.environ['TF_DETERMINISTIC_OPS'] = '1'",
    "os.environ.setdefault('TF_DETERMINISTIC_OPS', 'true')",
    "os.environ.update({'TF_DETERMINISTIC_OPS': '1'})",
    "os.environ.update(TF_DETERMINISTIC_OPS='1')",
    "os.putenv('TF_DETERMINISTIC_OPS', '1')",
    "os.environ['TF_CUDNN_DETERMINISTIC'] = '1'",
    "tf.config.experimental.enable_op_determinism()",
])
def test_each_spelling_of_tensorflow_op_determinism_silences_both(lint, switch):
    assert codes(lint({"train.py": PROGRAM.format(switch=switch)}, SELECT)) == []


def test_a_switch_turned_off_silences_neither(lint):
    switch = "os.environ.update({'TF_DETERMINISTIC_OPS': '0'})"
    assert codes(lint({"train.py": PROGRAM.format(switch=switch)}, SELECT)) == [("ND205", 2), ("ND307", 4)]


SEEDED_SESSION = """\
import numpy as np
import tensorflow as tf
{seed}
idx = np.random.permutation(100)
train, val = idx[10:], idx[:10]
sess = tf.compat.v1.Session()
"""


@pytest.mark.parametrize("seed", [
    "np.random.seed(0)",
    "from accelerate.utils import set_seed\nset_seed(0)",
    "from transformers.trainer_utils import set_seed\nset_seed(0)",
])
def test_a_seed_helper_counts_for_the_split_rules_and_for_tf_sessions_alike(lint, seed):
    # ND305: the seed covers the shuffle; ND206: a program that seeds wants one-thread sessions
    findings = lint({"train.py": SEEDED_SESSION.format(seed=seed)}, {"select": ["ND206", "ND305"]})
    line = SEEDED_SESSION.format(seed=seed).splitlines().index("sess = tf.compat.v1.Session()") + 1
    assert codes(findings) == [("ND206", line)]


def test_without_a_seed_the_split_is_reported_and_the_session_is_not(lint):
    findings = lint({"train.py": SEEDED_SESSION.format(seed="")}, {"select": ["ND206", "ND305"]})
    assert codes(findings) == [("ND305", 5)]


def test_a_helper_that_reseeds_from_entropy_seeds_nothing(lint):
    findings = lint({"train.py": SEEDED_SESSION.format(seed="import torch\ntorch.seed()")}, {"select": ["ND206", "ND305"]})
    assert codes(findings) == [("ND305", 6)]
