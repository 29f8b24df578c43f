"""ND305, ND306, ND307: splits, tf.data pipelines, project seeds and op determinism."""

from __future__ import annotations

import textwrap

from nondet_lint.fixes.apply import apply_text_edits

SELECT = {"select": ["ND305", "ND306", "ND307"]}


def at(findings, code):
    return [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings if f.code == code]


def fix_of(findings, code, source):
    finding = next(f for f in findings if f.code == code)
    return apply_text_edits(textwrap.dedent(source).lstrip("\n"), finding.fix.edits)


def test_kfold_only_with_shuffle_and_the_fix_adds_random_state(lint):
    source = """
        from sklearn.model_selection import KFold, StratifiedKFold
        a = KFold(5)
        b = KFold(5, True)
        c = StratifiedKFold(n_splits=5,
                            shuffle=True)
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 3, 5), ("m.py", 4, 5)]
    fixed = fix_of(findings, "ND305", source)
    assert "b = KFold(5, True, random_state=0)" in fixed


def test_random_state_none_is_replaced_with_the_configured_seed(lint):
    source = "from sklearn.model_selection import train_test_split\nx_tr, x_te = train_test_split(x, random_state=None)\n"
    findings = lint({"m.py": source}, {**SELECT, "seed": 1234})
    assert fix_of(findings, "ND305", source).endswith("train_test_split(x, random_state=1234)\n")


def test_permutation_split_is_reported_at_the_slicing_statement(lint):
    source = """
        import numpy as np
        def split(x):
            perm = np.random.permutation(len(x))
            n = len(x) // 10
            val = x[perm[:n]]
            train = x[perm[n:]]
            return train, val
        """
    assert at(lint({"m.py": source}, SELECT), "ND305") == [("m.py", 5, 5)]


def test_a_seed_anywhere_in_the_project_covers_the_global_rng(lint):
    files = {
        "data.py": """
            import numpy as np
            def split(x):
                perm = np.random.permutation(len(x))
                return x[perm[:10]], x[perm[10:]]
            """,
        "train.py": "import numpy as np\nimport data\nnp.random.seed(0)\n",
    }
    assert at(lint(files, SELECT), "ND305") == []
    files["train.py"] = "import random\nimport data\nrandom.seed(0)\n"  # another RNG
    assert at(lint(files, SELECT), "ND305") == [("data.py", 4, 5)]
    files["train.py"] = "import lightning as L\nimport data\nL.seed_everything(0)\n"  # a helper
    assert at(lint(files, SELECT), "ND305") == []


def test_generator_methods_follow_how_the_generator_was_made(lint):
    source = """
        import numpy as np
        import random
        a = np.random.default_rng()
        b = np.random.default_rng(7)
        r = random.Random()
        ia = a.permutation(100)
        ib = b.permutation(100)
        items = list(range(100))
        r.shuffle(items)
        va, ta = ia[:10], ia[10:]
        vb, tb = ib[:10], ib[10:]
        vr, tr = items[:10], items[10:]
        """
    assert at(lint({"m.py": source}, SELECT), "ND305") == [("m.py", 10, 1), ("m.py", 12, 1)]


def test_a_single_slice_is_a_subset_not_a_split(lint):
    source = "import random\ndef pick(xs):\n    random.shuffle(xs)\n    return xs[:3]\n"
    assert at(lint({"m.py": source}, SELECT), "ND305") == []


def test_a_per_fold_slice_of_an_unseeded_shuffle_is_a_held_out_set(tmp_path):
    """``items[fold * k:(fold + 1) * k]``: one fold held out (the rest trains), named as a
    fold or a validation part; the same shape over batches is a minibatch, not a split."""
    from conftest import lint_files

    source = (
        "import random\n"
        "def folds(items, n_folds, fold):\n"
        "    random.shuffle(items)\n"
        "    size = len(items) // n_folds\n"
        "    held_out = items[fold * size:(fold + 1) * size]\n"
        "    return held_out\n"
    )
    findings = lint_files(tmp_path / "fold", {"m.py": source}, SELECT)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND305", 5, 5)]
    assert findings[0].message == (
        "this takes a fixed slice of data shuffled by `random.shuffle`, so which samples are held out for "
        "validation changes every run, because the shuffle is not seeded: seed that shuffle, or split before shuffling"
    )
    batches = (
        "import numpy as np\n"
        "def batches(x, bs):\n"
        "    perm = np.random.permutation(len(x))\n"
        "    for i in range(len(x) // bs):\n"
        "        batch = perm[i * bs:(i + 1) * bs]\n"
        "        yield x[batch]\n"
    )
    assert lint_files(tmp_path / "batch", {"m.py": batches}, SELECT) == []
    seeded = source.replace("random.shuffle(items)", "random.Random(0).shuffle(items)")
    assert lint_files(tmp_path / "seeded", {"m.py": seeded}, SELECT) == []


def test_keras_validation_split_after_an_unseeded_shuffle(lint):
    source = """
        import numpy as np
        from sklearn.utils import shuffle
        def train(model, x, y):
            x, y = shuffle(x, y)
            model.fit(x, y, validation_split=0.2)
            model.fit(x, y, validation_split=0.0)
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 5, 5)]
    assert "x, y = shuffle(x, y, random_state=0)" in fix_of(findings, "ND305", source)


def test_shuffle_and_split_inside_a_training_loop_is_repeated(lint):
    source = """
        import numpy as np
        rng = np.random.default_rng(0)
        for epoch in range(3):
            idx = rng.permutation(100)
            train, val = idx[20:], idx[:20]
            loss = model(train)
            loss.backward()
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 5, 5)]
    assert "every epoch" in next(f.message for f in findings if f.code == "ND305")


def test_tf_data_reassigned_and_chained(lint):
    source = """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices(x)
        ds = ds.map(f)
        ds = (ds
              .shuffle(1000)
              .batch(32))
        val, train = ds.take(5), ds.skip(5)
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND306") == [("m.py", 5, 8)]
    assert ".shuffle(1000, reshuffle_each_iteration=False, seed=0)" in fix_of(findings, "ND306", source)


def test_unknown_dataset_in_a_module_that_also_uses_hugging_face_datasets(lint):
    source = "import tensorflow as tf\nimport datasets\ndef split(ds):\n    s = ds.shuffle(10)\n    return s.take(2), s.skip(2)\n"
    assert at(lint({"m.py": source}, SELECT), "ND306") == []
    assert at(lint({"m.py": source.replace("import datasets\n", "")}, SELECT), "ND306") == [("m.py", 3, 12)]


def test_list_files_seed_and_op_determinism(lint):
    source = "import tensorflow as tf\nfiles = tf.data.Dataset.list_files('*.tfrecord')\n"
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND307") == [("m.py", 2, 9)]
    assert fix_of(findings, "ND307", source).endswith("list_files('*.tfrecord', seed=0)\n")
    seeded = {"m.py": source, "main.py": "import keras\nimport m\nkeras.utils.set_random_seed(1)\n"}
    assert at(lint(seeded, SELECT), "ND307") == []
    determinism = {"m.py": source, "main.py": "import os\nos.environ['TF_DETERMINISTIC_OPS'] = '1'\n"}
    assert at(lint(determinism, SELECT), "ND307") == []


def test_a_global_tf_seed_counts_only_for_the_programs_that_set_it(lint):
    pipeline = "import tensorflow as tf\ndef files(pattern):\n    return tf.data.Dataset.list_files(pattern)\n"
    train = "import pipeline\nif __name__ == '__main__':\n    pipeline.files('/data/*.tfrecord')\n"
    other = "import tensorflow as tf\nif __name__ == '__main__':\n    tf.random.set_seed(0)\n"
    # another program's seed does not run in train.py's program
    findings = [f for f in lint({"pipeline.py": pipeline, "train.py": train, "other.py": other}, SELECT) if f.code == "ND307"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("pipeline.py", 3, 12)]
    assert findings[0].message.startswith("`Dataset.list_files` returns the files in a new random order every run")
    # near misses: the program that runs the pipeline seeds; no program runs it (library
    # code, whose callers may seed) while the project seeds somewhere
    seeding = train.replace("import pipeline\n", "import pipeline\nimport tensorflow as tf\ntf.random.set_seed(0)\n")
    assert at(lint({"pipeline.py": pipeline, "train.py": seeding, "other.py": other}, SELECT), "ND307") == []
    assert at(lint({"pipeline.py": pipeline, "other.py": other}, SELECT), "ND307") == []


def test_op_determinism_counts_only_for_the_programs_that_turn_it_on(lint):
    pipeline = "import tensorflow as tf\ndef read(ds):\n    return ds.interleave(tf.data.TFRecordDataset, deterministic=False)\n"
    train = "import pipeline\nif __name__ == '__main__':\n    pipeline.read(None)\n"
    test = "import tensorflow as tf\ndef test_same():\n    tf.config.experimental.enable_op_determinism()\n"
    # a test that turns determinism on does not run in train.py's program
    findings = [f for f in lint({"pipeline.py": pipeline, "train.py": train, "tests/test_same.py": test}, SELECT) if f.code == "ND307"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("pipeline.py", 3, 15)]
    assert findings[0].message.startswith("`interleave(deterministic=False)` yields elements in the order they finish")
    # near misses: the program turns it on; no program runs the pipeline (library code)
    on = train.replace("import pipeline\n", "import pipeline\nimport tensorflow as tf\ntf.config.experimental.enable_op_determinism()\n")
    assert at(lint({"pipeline.py": pipeline, "train.py": on}, SELECT), "ND307") == []
    assert at(lint({"pipeline.py": pipeline, "tests/test_same.py": test}, SELECT), "ND307") == []


def test_list_files_shuffled_whenever_the_program_trains(lint):
    """``list_files(pattern, shuffle=is_training)`` shuffles with no seed in every training
    run.  Near misses: a flag that does not name training, and a seed."""
    source = """
        import tensorflow as tf
        def train_files(pattern, is_training):
            return tf.data.Dataset.list_files(pattern, shuffle=is_training)
        def other_files(pattern, randomize):
            return tf.data.Dataset.list_files(pattern, shuffle=randomize)
        def seeded_files(pattern, is_training):
            return tf.data.Dataset.list_files(pattern, shuffle=is_training, seed=7)
        class Reader:
            def read(self):
                return tf.data.Dataset.list_files(self._pattern, shuffle=self._is_training)
        """
    findings = [f for f in lint({"m.py": source}, SELECT) if f.code == "ND307"]
    assert [(f.line, f.col + 1) for f in findings] == [(3, 12), (10, 16)]
    assert "(`shuffle=self._is_training` in training, no `seed=`)" in findings[1].message
    assert findings[0].message.startswith(
        "`Dataset.list_files` returns the files in a new random order every run (`shuffle=is_training` in training, no `seed=`)")
    assert fix_of(findings, "ND307", source).splitlines()[2].endswith("list_files(pattern, shuffle=is_training, seed=0)")


def test_deterministic_false_only_on_tf_data(lint):
    source = """
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).interleave(f, deterministic=False)
        """
    plain = "def run(pool, f):\n    return pool.map(f, deterministic=False)\n"
    assert at(lint({"m.py": source, "n.py": plain}, SELECT), "ND307") == [("m.py", 2, 37)]


def test_options_off_whenever_the_program_trains(lint):
    """``options.experimental_deterministic = not is_training`` is False in every training
    run. Near misses: a flag that does not name training, and True."""
    source = """
        import tensorflow as tf
        def make(dataset, is_training, is_eval):
            options = tf.data.Options()
            options.experimental_deterministic = not is_training
            options.deterministic = not is_eval
            options.deterministic = True
            return dataset.with_options(options)
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND307") == [("m.py", 4, 5)]
    assert findings[0].message == (
        "`options.experimental_deterministic = not is_training` turns it off in training and lets every parallel "
        "`tf.data` step yield elements in the order they finish, so element order changes between runs: set it to True"
    )
    assert "options.experimental_deterministic = True\n" in fix_of(findings, "ND307", source)


def test_unseeded_shuffle_before_fixed_folds(lint):
    source = """
        from sklearn.model_selection import StratifiedKFold
        def folds(df):
            df = df.sample(frac=1).reset_index(drop=True)
            skf = StratifiedKFold(n_splits=5)
            for fold, (tr, va) in enumerate(skf.split(df, df.label)):
                print(fold, va)
        def minibatches(x):
            x = x.sample(frac=1)
            for start in range(0, len(x), 32):
                batch = x[start:start + 32]
        def seeded(df):
            df = df.sample(frac=1, random_state=0)
            for tr, va in StratifiedKFold(5).split(df, df.label):
                print(va)
        def one_middle_part(x):
            x = x.sample(frac=1)
            return x[10:20]
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 5, 5)]
    first = next(f for f in findings if f.code == "ND305")
    assert first.message == (
        "this takes a fixed slice of data shuffled by `DataFrame.sample`, so which samples are held out for validation "
        "changes every run, because the shuffle is not seeded: seed that shuffle, or split before shuffling"
    )
    assert fix_of(findings, "ND305", source).splitlines()[2] == "    df = df.sample(frac=1, random_state=0).reset_index(drop=True)"


def test_columns_and_rows_taken_from_shuffled_data_keep_its_order(lint):
    """``X, y = df.drop(columns=["target"]), df["target"]`` after an unseeded ``sample(frac=1)``
    (a Kaggle-style cross-validation): dropping or renaming columns, filling or dropping
    missing values keeps the shuffled row order, so fixed folds of ``X`` are held out at
    random."""
    source = """
        from sklearn.model_selection import StratifiedKFold
        def cross_validate(df):
            df = df.sample(frac=1)
            X, y = df.drop(columns=["target"]).fillna(0), df["target"]
            for tr, va in StratifiedKFold(n_splits=5).split(X, y):
                print(va)
        def from_a_fresh_frame(df, raw):
            df = df.sample(frac=1)
            X = raw.drop(columns=["target"])
            for tr, va in StratifiedKFold(n_splits=5).split(X, raw["target"]):
                print(va)
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 5, 5)]


def test_hugging_face_shuffle_and_train_test_split_without_a_seed(lint):
    source = """
        from datasets import load_dataset
        def splits():
            ds = load_dataset("imdb", split="train").shuffle()
            val = ds.select(range(1000))
            train = ds.select(range(1000, len(ds)))
            parts = load_dataset("imdb", split="train").train_test_split(test_size=0.1)
            fixed = load_dataset("imdb", split="train").train_test_split(test_size=0.1, seed=0)
            ordered = load_dataset("imdb", split="train").train_test_split(test_size=0.1, shuffle=False)
            sample = load_dataset("imdb", split="train").shuffle().select(range(100))
            return val, train, parts, fixed, ordered, sample
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 4, 5), ("m.py", 6, 13)]
    messages = [f.message for f in findings if f.code == "ND305"]
    assert messages[0].startswith("this takes a fixed slice of data shuffled by `Dataset.shuffle`")
    assert messages[1].startswith("`Dataset.train_test_split` shuffles with no `seed`, so which samples are held out")
    fixed = fix_of(findings[1:], "ND305", source)
    assert 'train_test_split(test_size=0.1, seed=0)' in fixed.splitlines()[5]
    seeded = "import numpy as np\nnp.random.seed(0)\n" + textwrap.dedent(source).lstrip("\n")
    assert at(lint({"m.py": seeded}, SELECT), "ND305") == []


def test_permutation_cut_where_it_is_drawn(lint):
    source = """
        import numpy as np
        def split(n):
            rng = np.random.default_rng()
            val_idx = rng.permutation(n)[:100]
            for step in range(10):
                batch = rng.permutation(n)[:32]
            seeded = np.random.default_rng(0).permutation(n)[:100]
            return val_idx, batch, seeded
        """
    findings = lint({"m.py": source}, SELECT)
    assert at(findings, "ND305") == [("m.py", 4, 5)]
    assert next(f for f in findings if f.code == "ND305").message.startswith(
        "this takes a fixed slice of data shuffled by `np.random.default_rng.permutation`"
    )


def test_a_split_in_test_code_is_not_reported_unless_test_code_is_checked(lint):
    """Which samples a test holds out decides whether the test passes; the same split in
    a training script (near miss), or in test code with ``test-code = "check"``, is
    reported."""
    split = """
        from sklearn.model_selection import train_test_split
        def split(x, y):
            return train_test_split(x, y, test_size=0.2)
        """
    files = {"tests/test_loader.py": split, "train.py": split}
    findings = [f for f in lint(files, SELECT) if f.code == "ND305"]
    assert at(findings, "ND305") == [("train.py", 3, 12)]
    assert "`train_test_split` shuffles with no `random_state`" in findings[0].message
    checked = lint(files, {**SELECT, "test-code": "check"})
    assert sorted(at(checked, "ND305")) == [("test_loader.py", 3, 12), ("train.py", 3, 12)]


def test_a_numpy_seed_that_surely_runs_before_a_splitter_covers_it(lint):
    source = """
        import numpy as np
        from sklearn.model_selection import KFold, train_test_split

        def folds():
            return KFold(n_splits=5, shuffle=True)

        before = train_test_split([1, 2, 3])
        np.random.seed(42)
        after = train_test_split([1, 2, 3])
        """
    # the module-level seed covers the split after it and the module's function
    assert at(lint({"m.py": source}, SELECT), "ND305") == [("m.py", 7, 10)]


def test_a_seed_under_a_condition_or_in_another_scope_does_not_cover_a_splitter(lint):
    source = """
        import numpy as np
        from sklearn.model_selection import KFold, train_test_split

        def maybe_seeded(seed=None):
            if seed is not None:
                np.random.seed(seed)
            return KFold(n_splits=5, shuffle=True)

        def seeded():
            np.random.seed(1)
            return KFold(n_splits=5, shuffle=True)

        def other():
            return train_test_split([1, 2, 3])

        if __name__ == "__main__":
            np.random.seed(0)
            part = train_test_split([1, 2, 3])
        """
    # the main guard's seed covers only the split after it in the main guard
    assert at(lint({"m.py": source}, SELECT), "ND305") == [("m.py", 7, 12), ("m.py", 14, 12)]


def test_a_numpy_seed_in_another_module_does_not_cover_a_splitter(lint):
    files = {
        "data.py": "from sklearn.model_selection import train_test_split\ndef split(x):\n    return train_test_split(x)\n",
        "train.py": "import numpy as np\nimport data\nnp.random.seed(0)\n",
    }
    assert at(lint(files, SELECT), "ND305") == [("data.py", 3, 12)]
    files["data.py"] = "import lightning as L\n" + files["data.py"] + "L.seed_everything(7)\n"
    assert at(lint(files, SELECT), "ND305") == []
