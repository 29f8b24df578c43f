"""ND301 and ND302 through the engine: what is followed, where it is reported, the fixes."""

from __future__ import annotations

from nondet_lint.fixes.apply import apply_text_edits

ND3 = {"select": ["ND301", "ND302"]}


def found(lint, source, code, name="m.py"):
    return [(f.line, f.col + 1) for f in lint({name: source}, ND3) if f.code == code]


def fixed(lint, source, code):
    findings = [f for f in lint({"m.py": source}, ND3) if f.code == code]
    assert findings and findings[0].fix is not None
    import textwrap

    return apply_text_edits(textwrap.dedent(source).lstrip("\n"), findings[0].fix.edits), findings[0].fix.applicability


# ---- ND301 --------------------------------------------------------------------------
def test_listing_kept_through_assignments_is_reported_at_the_call(lint):
    source = """
        import os
        def load(root):
            names = os.listdir(root)
            chosen = names
            return chosen[0]
        """
    assert found(lint, source, "ND301") == [(3, 13)]


def test_listing_kept_through_a_long_chain_of_copies_is_reported(lint):
    """Two listings copied with ``list()``, each turned into parallel lists by
    comprehensions that are concatenated and stored in records the function returns (a
    dataset class's file table): the chain is deeper than a few steps and still keeps the
    order; sorting both listings (near miss) leaves nothing."""
    source = """
        import glob
        def load_files(root):
            flat = list(
                glob.glob(root + "/*/*.jpg")
            )
            nested = list(
                glob.glob(root + "/*/*/*.jpg")
            )
            scenes = [p.split("/")[-2] for p in flat] + [p.split("/")[-3] for p in nested]
            images = flat + nested
            files = [dict(image=i, scene=s) for i, s in zip(images, scenes)]
            return files
        """
    assert found(lint, source, "ND301") == [(4, 9), (7, 9)]
    assert found(lint, source.replace("glob.glob(root", "sorted(glob.glob(root").replace('.jpg")\n', '.jpg"))\n'), "ND301") == []


def test_sort_later_in_the_function_is_enough(lint):
    source = """
        import glob
        def load(pattern):
            files = glob.glob(pattern)
            count = len(files)
            files.sort()
            return files[:count]
        """
    assert found(lint, source, "ND301") == []


def test_use_before_the_sort_still_counts(lint):
    source = """
        import glob
        def load(pattern):
            files = glob.glob(pattern)
            first = files[0]
            files.sort()
            return first
        """
    assert found(lint, source, "ND301") == [(3, 13)]


def test_conditional_resort_and_single_element_guard(lint):
    source = """
        import glob
        def load(pattern, sort=True):
            files = glob.glob(pattern)
            if sort:
                files = sorted(files)
            return files
        def only(pattern):
            found = glob.glob(pattern)
            assert len(found) == 1
            return found[0]
        """
    assert found(lint, source, "ND301") == []


def test_rebinding_in_one_branch_does_not_hide_the_other(lint):
    source = """
        import os
        def pick(root, flag):
            names = os.listdir(root)
            if flag:
                names = []
            return names[0]
        """
    assert found(lint, source, "ND301") == [(3, 13)]


def test_unknown_callee_is_not_a_use_of_order_but_a_dataset_is(lint):
    source = """
        import glob
        import shutil
        def backup(pattern, target):
            for path in glob.glob(pattern):
                shutil.copy(path, target)
            upload(glob.glob(pattern))
            return ImageDataset(glob.glob(pattern))
        """
    assert found(lint, source, "ND301") == [(7, 25)]


def test_return_is_followed_into_callers_of_the_module(lint):
    source = """
        import os
        def names(root):
            return [n for n in os.listdir(root) if n.endswith(".png")]
        def counted(root):
            return len(names(root))
        def ordered(root):
            return sorted(names(root))
        """
    assert found(lint, source, "ND301") == []
    kept = source.rstrip(" ") + "        def first(root):\n            return names(root)[0]\n"
    assert found(lint, kept, "ND301") == [(3, 24)]


def test_a_yielded_listing_is_followed_into_callers_of_the_generator(tmp_path):
    """A generator's callers decide: one that sorts it or makes a set of it at once drops
    the order; one that keeps it is named in the message; one that hands the generator on
    to another function (a writer consuming the stream) keeps it."""
    from conftest import lint_files

    source = (
        "import glob\n"
        "import numpy as np\n"
        "def my_glob(folder):\n"
        "    for p in [f'{folder}/*', f'{folder}/*/*']:\n"
        "        for f in glob.glob(p):\n"
        "            yield f\n"
        "def names(folder):\n"
        "    return sorted(set(my_glob(folder)))\n"
    )
    assert lint_files(tmp_path / "sorted", {"m.py": source}, ND3) == []
    kept = source + "def arrays(folder):\n    return np.stack([np.load(f) for f in my_glob(folder)])\n"
    findings = lint_files(tmp_path / "kept", {"m.py": kept}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 5, 18)]
    assert findings[0].message == (
        "`glob.glob` returns entries in filesystem order, which differs between machines, filesystems and copies "
        "of the data, and here that order is kept (the listing is yielded item by item in a loop by `my_glob()` "
        "and passed to `stack`): sort it"
    )
    handed_on = source + "def write(folder, writer):\n    writer.write_shards(my_glob(folder))\n"
    findings = lint_files(tmp_path / "handed", {"m.py": handed_on}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 5, 18)]
    assert "(the listing is yielded item by item in a loop)" in findings[0].message


def test_a_generator_called_through_a_name_and_only_counted_drops_the_order(tmp_path):
    """``gen = a if flag else b`` then ``for item in gen(): n += len(item)``: the callers of
    a generator include calls through a name bound to it, and a loop over it that only
    counts keeps no order. Near miss: the same loop collecting into a returned list."""
    from conftest import lint_files

    source = (
        "import glob\n"
        "def count_examples(pattern, name, convert):\n"
        "    def _file_generator():\n"
        "        for f in glob.glob(pattern):\n"
        "            yield convert(f)\n"
        "    def _other_generator():\n"
        "        yield convert(name)\n"
        "    generator = _other_generator if name else _file_generator\n"
        "    total = 0\n"
        "    for item in generator():\n"
        "        total += len(item)\n"
        "    return total\n"
    )
    assert lint_files(tmp_path / "counted", {"m.py": source}, ND3) == []
    kept = source.replace("    total = 0\n", "    total, items = 0, []\n").replace(
        "        total += len(item)\n    return total\n", "        items.append(item)\n    return items\n")
    findings = lint_files(tmp_path / "kept", {"m.py": kept}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 4, 18)]
    assert "(the listing is yielded item by item in a loop by `_file_generator()` and collected into `items` in a loop" in findings[0].message


def test_what_a_loop_does_only_for_an_entry_of_a_given_name_keeps_no_order(tmp_path):
    """A branch on ``entry == "name"`` (or the base name of an entry of one folder) runs
    for at most one entry. Near misses: a recursive pattern, where a name can come twice,
    and a test that many entries pass (``"Color" in name``)."""
    from conftest import lint_files

    source = (
        "import glob\n"
        "import os\n"
        "def load(root):\n"
        "    images, meta = [], []\n"
        "    for entry in glob.glob(root + os.path.sep + '*'):\n"
        "        dir_name = entry.split(os.path.sep)[-1]\n"
        "        if 'Color' == dir_name:\n"
        "            for f in sorted(os.listdir(entry)):\n"
        "                images.append(f)\n"
        "        elif os.path.basename(entry) == 'Seg':\n"
        "            images.append(entry)\n"
        "    for name in os.listdir(root):\n"
        "        if name == 'meta.json':\n"
        "            meta.append(name)\n"
        "    return images, meta\n"
    )
    assert lint_files(tmp_path / "named", {"m.py": source}, ND3) == []
    recursive = source.replace("root + os.path.sep + '*'", "root + '/*/*'")
    findings = lint_files(tmp_path / "recursive", {"m.py": recursive}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 5, 18)]
    assert "(the listing is collected into `images` in a loop, which is returned)" in findings[0].message
    many = source.replace("if name == 'meta.json':", "if 'meta' in name:")
    findings = lint_files(tmp_path / "many", {"m.py": many}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 12, 17)]


def test_split_folders_routed_by_name_keep_no_order(tmp_path):
    """The folders of a dataset root (a pattern ending with a separator) each tested for a
    split's name (``"train" in folder.lower()``): one folder per split, so what a branch
    does runs for one entry. Near misses: a pattern that lists files too, and a test for
    a name that is not a split's."""
    from conftest import lint_files

    source = (
        "import glob\n"
        "import os\n"
        "class Sequences:\n"
        "    def prepare(self, path):\n"
        "        for folder in glob.glob(path + os.path.sep + '*' + os.path.sep):\n"
        "            for part in sorted(glob.glob(folder + '*')):\n"
        "                if 'train' in folder.lower():\n"
        "                    self.train.append(part)\n"
        "                elif 'test' in folder.lower():\n"
        "                    self.test.append(part)\n"
        "                else:\n"
        "                    raise ValueError(folder)\n"
        "        for folder in glob.glob(path + '/*/'):\n"
        "            if 'val' in folder:\n"
        "                self.val.append(folder)\n"
    )
    assert lint_files(tmp_path / "splits", {"m.py": source}, ND3) == []
    files_too = source.replace("path + os.path.sep + '*' + os.path.sep", "path + os.path.sep + '*'")
    findings = lint_files(tmp_path / "files", {"m.py": files_too}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 5, 23)]
    assert findings[0].message == (
        "`glob.glob` returns entries in filesystem order, which differs between machines, filesystems and copies "
        "of the data, and here that order is kept (the listing is collected into `self.train` in a loop): sort it"
    )
    other_name = source.replace("if 'val' in folder:", "if 'cam' in folder:")
    findings = lint_files(tmp_path / "other", {"m.py": other_name}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 13, 23)]
    assert "(the listing is collected into `self.val` in a loop)" in findings[0].message


def test_a_generator_drained_by_another_module_that_only_counts_keeps_no_order(tmp_path):
    """A generator of the listed files' lines handed to a function of another module that
    only counts what it iterates (a vocabulary built from token counts): no order is kept.
    Near misses: a consumer that collects the lines into a list, one that calls something
    for each item (a training step), and one that concatenates them into a string."""
    from conftest import lint_files

    vocab = (
        "import collections\n"
        "class Encoder:\n"
        "    @classmethod\n"
        "    def build(cls, lines, size):\n"
        "        counts = collections.defaultdict(int)\n"
        "        for line in lines:\n"
        "            for token in line.split():\n"
        "                counts[token] += 1\n"
        "        return cls(counts, size)\n"
    )
    data = (
        "import glob\n"
        "from pkg import vocab\n"
        "def make_vocab(pattern, size):\n"
        "    def generate():\n"
        "        for name in glob.glob(pattern):\n"
        "            with open(name) as handle:\n"
        "                for line in handle:\n"
        "                    yield line.strip()\n"
        "    return vocab.Encoder.build(generate(), size)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/vocab.py": vocab, "pkg/data.py": data}
    assert lint_files(tmp_path / "counted", files, ND3) == []
    for label, body in (
        ("collected", "            kept.append(line)\n"),
        ("stepped", "            step(line)\n"),
        ("joined", "            text += line\n"),
    ):
        consumer = vocab.replace("            for token in line.split():\n                counts[token] += 1\n", body)
        findings = lint_files(tmp_path / label, {**files, "pkg/vocab.py": consumer}, ND3)
        assert [(f.path.rsplit("/", 1)[-1], f.code, f.line, f.col + 1) for f in findings] == [("data.py", "ND301", 5, 21)], label
        assert findings[0].message == (
            "`glob.glob` returns entries in filesystem order, which differs between machines, filesystems and copies "
            "of the data, and here that order is kept (the listing is yielded item by item in a loop): sort it"
        )


def test_a_packaging_script_lists_files_to_ship_not_data(tmp_path):
    """A module that calls ``setuptools.setup`` collects package data: not ND301.  The
    same walk in a module that does not package anything is reported."""
    from conftest import lint_files

    walk = (
        "import os\n"
        "def get_files(path):\n"
        "    all_files = []\n"
        "    for root, _dirs, files in os.walk(path):\n"
        "        for name in files:\n"
        "            all_files.append(os.path.join(root, name))\n"
        "    return all_files\n"
        "config = {'package_data': {'pkg': get_files('pkg/config')}}\n"
    )
    packaging = walk.replace("import os\n", "import os\nfrom setuptools import setup as do_setup\n") + "do_setup(name='pkg', **config)\n"
    assert lint_files(tmp_path / "setup", {"setup.py": packaging}, ND3) == []
    findings = lint_files(tmp_path / "plain", {"collect.py": walk}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 4, 31)]


def test_a_project_file_layer_that_returns_a_listing_is_judged_at_its_callers(tmp_path):
    """``PathManager.ls(path)`` of another project module returning ``os.listdir(path)``:
    a caller that keeps the order (here: the first match, through a name computed from
    the item) is reported and sorted; one that counts is not, nor is a layer that sorts."""
    from conftest import lint_files

    layer = (
        "import os\n"
        "class PathManager:\n"
        "    @staticmethod\n"
        "    def ls(path):\n"
        "        return {listing}\n"
    )
    caller = (
        "from pkg.file_io import PathManager\n"
        "def infer_pair(path):\n"
        "    for filename in PathManager.ls(path):\n"
        "        parts = filename.split('.')\n"
        "        if len(parts) >= 3:\n"
        "            return parts[1].split('-')\n"
        "    return None, None\n"
        "def count(path):\n"
        "    return len(PathManager.ls(path))\n"
    )

    def run(name, listing):
        files = {"pkg/__init__.py": "", "pkg/file_io.py": layer.format(listing=listing), "pkg/data.py": caller}
        return lint_files(tmp_path / name, files, ND3)

    findings = run("plain", "os.listdir(path)")
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("data.py", 3, 21)]
    assert findings[0].message == (
        "`PathManager.ls` returns entries in filesystem order, which differs between machines, filesystems and "
        "copies of the data, and here that order is kept (the listing is searched in a loop that returns the first "
        "match; `PathManager.ls` hands back `os.listdir` unsorted): sort it"
    )
    fixed = apply_text_edits(caller, findings[0].fix.edits)
    assert "    for filename in sorted(PathManager.ls(path)):\n" in fixed
    assert run("sorted", "sorted(os.listdir(path))") == []


def test_a_function_that_only_returns_a_listing_leaves_it_to_callers(lint):
    assert found(lint, "import os\ndef ls(p):\n    return os.listdir(p)\n", "ND301") == []


def test_comprehension_variable_is_not_the_outer_name(lint):
    source = """
        import glob
        def load(pattern):
            f = []
            f += glob.glob(pattern)
            images = sorted(x for x in f)
            extra = [f for f in images]
            return extra[0]
        """
    assert found(lint, source, "ND301") == []


def test_pathlib_receivers(lint):
    source = """
        from pathlib import Path
        import pathlib
        def a(root: Path):
            return list(root.glob("*.png"))[-1]
        def b(root: "pathlib.Path"):
            return [p for p in root.iterdir()][-1]
        def c(root):
            return list((Path(root) / "x").rglob("*"))[0]
        def d(store):
            return list(store.glob("*"))[0]
        """
    assert found(lint, source, "ND301") == [(4, 17), (6, 24), (8, 17)]


def test_alias_and_from_import(lint):
    source = """
        from os import listdir as ls, scandir
        import glob as g
        def a(d):
            first = ls(d)[0]
            last = [e for e in scandir(d)][-1]
            return first, last, g.iglob(d)
        """
    assert found(lint, source, "ND301") == [(4, 13), (5, 24), (6, 25)]


def test_fix_wraps_in_sorted(lint):
    text, kind = fixed(lint, "import os\ndef f(d):\n    return os.listdir(d)[0]\n", "ND301")
    assert text == "import os\ndef f(d):\n    return sorted(os.listdir(d))[0]\n" and kind == "safe"


def test_fix_for_scandir_sorts_by_name(lint):
    text, _ = fixed(lint, "import os\ndef f(d):\n    return list(os.scandir(d))[0]\n", "ND301")
    assert "sorted(os.scandir(d), key=lambda entry: entry.name)" in text


def test_no_fix_for_walk_or_with(lint):
    source = """
        import os
        def f(d):
            out = []
            for root, dirs, files in os.walk(d):
                out.append(root)
            with os.scandir(d) as it:
                first = next(it)
            return out, first
        """
    findings = [f for f in lint({"m.py": source}, ND3) if f.code == "ND301"]
    assert [(f.line, f.fix) for f in findings] == [(4, None), (6, None)]


def test_no_fix_when_sorted_is_rebound(lint):
    source = "import os\nsorted = None\ndef f(d):\n    return os.listdir(d)[0]\n"
    findings = [f for f in lint({"m.py": source}, ND3) if f.code == "ND301"]
    assert len(findings) == 1 and findings[0].fix is None


# ---- ND302 --------------------------------------------------------------------------
def test_vocabulary_from_a_filled_set(lint):
    source = """
        def vocab(lines):
            words = set()
            for line in lines:
                for w in line.split():
                    words.add(w.lower())
            return {w: i for i, w in enumerate(words)}
        """
    assert found(lint, source, "ND302") == [(6, 40)]


def test_set_of_unknown_elements_is_not_reported(lint):
    source = """
        def f(labels, ids):
            a = list(set(labels))
            b = list({i * 2 for i in ids})
            c = list(set(range(10)))
            return a, b, c
        """
    assert found(lint, source, "ND302") == []


def test_membership_and_set_algebra_are_fine(lint):
    source = """
        def f(text, extra):
            stop = {"a", "the"} | set(extra.split())
            words = [w for w in text.split() if w not in stop]
            return words, len(stop), sorted(stop)
        """
    assert found(lint, source, "ND302") == []


def test_one_element_set_has_one_order(lint):
    source = """
        def f(logs):
            keys = {"loss"} & set(logs.split())
            return keys.pop()
        """
    assert found(lint, source, "ND302") == []


def test_list_of_set_fix_becomes_sorted(lint):
    source = "def f(text):\n    return list(set(text.split()))\n"
    text, kind = fixed(lint, source, "ND302")
    assert text == "def f(text):\n    return sorted(set(text.split()))\n" and kind == "unsafe"
    assert found(lint, source, "ND302") == [(2, 12)]


def test_loop_fix_wraps_the_set(lint):
    source = "def f(text, out):\n    for c in set(text.lower()):\n        out.write(c)\n"
    text, _ = fixed(lint, source, "ND302")
    assert "for c in sorted(set(text.lower())):" in text


def test_join_and_next_iter(lint):
    source = """
        def f(text):
            a = ",".join(set(text.split()))
            b = next(iter({"x", "y"}))
            return a, b
        """
    assert found(lint, source, "ND302") == [(2, 18), (3, 19)]


# ---- ND301: listings whose order cannot matter, and orders kept in less obvious ways ----
def messages(lint, source, code="ND301"):
    return [(f.line, f.col + 1, f.message.split("(the listing is ")[-1]) for f in lint({"m.py": source}, ND3) if f.code == code]


def test_listing_used_only_when_it_holds_one_entry(lint):
    source = """
        import glob, os
        def models(root):
            out = {}
            for sub in os.listdir(root):
                files = glob.glob(os.path.join(root, sub, "*/args.yml"))
                if len(files) != 1:
                    continue
                out[sub] = open(files[0]).read()
            return out
        def innermost(folder):
            while len(os.listdir(folder)) == 1:
                folder = os.path.join(folder, os.listdir(folder)[0])
            return folder
        def checked(self, logdir):
            events = os.listdir(logdir)
            self.assertLen(events, 1)
            return events[0]
        """
    assert messages(lint, source) == []


def test_listing_used_when_it_may_hold_several_entries_is_reported(lint):
    source = """
        import glob, os
        def models(root):
            files = glob.glob(os.path.join(root, "*/args.yml"))
            if len(files) > 2:
                continue_ = True
            return open(files[0]).read()
        def innermost(folder):
            while len(os.listdir(folder)) >= 1:
                folder = os.path.join(folder, os.listdir(folder)[0])
            return folder
        """
    assert messages(lint, source) == [
        (3, 13, "indexed or sliced by position): sort it"),
        (9, 39, "indexed or sliced by position): sort it"),
    ]


def test_listing_reduced_by_a_key_or_sorted_as_a_table(lint):
    source = """
        import glob, os
        import numpy as np
        import pandas as pd
        def last_checkpoint(folder):
            files = [f for f in os.listdir(folder) if f.endswith(".pt")]
            steps = [int(f.split("_")[1].split(".")[0]) for f in files]
            best = np.array(steps).argmax()
            return files[best]
        def monitor(folder):
            frames = []
            for name in glob.glob(os.path.join(folder, "*.csv")):
                frames.append(pd.read_csv(name))
            table = pd.concat(frames)
            table.sort_values("t", inplace=True)
            return table
        """
    assert messages(lint, source) == []


def test_table_used_before_it_is_sorted_is_reported(lint):
    source = """
        import glob, os
        import pandas as pd
        def monitor(folder):
            frames = []
            for name in glob.glob(os.path.join(folder, "*.csv")):
                frames.append(pd.read_csv(name))
            table = pd.concat(frames)
            first = table.iloc[0]
            table.sort_values("t", inplace=True)
            return first
        """
    assert messages(lint, source) == [(5, 17, "collected into `frames` in a loop, which is passed to `concat`): sort it")]


def test_files_deleted_logged_or_archived_are_not_data(lint):
    source = """
        import glob, zipfile
        from pathlib import Path
        import wandb
        def upload(log_path):
            with zipfile.ZipFile("metrics.zip", "w") as archive:
                for name in glob.glob(f"{log_path}/*.csv"):
                    archive.write(name)
            metas = list(glob.glob("*.meta.json"))
            if len(metas) > 0:
                Path(metas[0]).unlink()
            seen = []
            for video in glob.glob("videos/*.mp4"):
                if video not in seen:
                    seen += [video]
                    if len(seen) > 1:
                        wandb.log({"video": wandb.Video(seen[-2])})
        """
    assert messages(lint, source) == []


def test_files_written_to_a_plain_file_or_read_by_position_are_reported(lint):
    source = """
        import glob
        def upload(log_path):
            with open("list.txt", "w") as handle:
                for name in glob.glob(f"{log_path}/*.csv"):
                    handle.write(name)
            metas = list(glob.glob("*.meta.json"))
            return open(metas[-1]).read()
        """
    assert messages(lint, source) == [
        (4, 21, "written out item by item in a loop): sort it"),
        (6, 18, "indexed or sliced by position): sort it"),
    ]


def test_tfds_builders_key_their_examples(lint):
    source = """
        import tensorflow as tf
        import tensorflow_datasets.public_api as tfds
        class Trivia(tfds.core.BeamBasedBuilder):
            def _split_generators(self, dl_manager):
                train = tf.io.gfile.glob("qa/train-*.json")
                return [tfds.core.SplitGenerator(name="train", gen_kwargs={"files": train})]
        class Plain:
            def _split_generators(self, dl_manager):
                train = tf.io.gfile.glob("qa/train-*.json")
                return [train]
        """
    assert messages(lint, source) == [(9, 17, "returned): sort it")]


def test_a_filesystem_layer_offering_the_listing_under_its_name(lint):
    source = """
        import glob as glob_module
        import os
        def glob(pattern):
            return [path.rstrip("/") for path in glob_module.glob(pattern, recursive=False)]
        def image_paths(root):
            return [os.path.join(root, name) for name in os.listdir(root)]
        """
    assert messages(lint, source) == [(6, 50, "returned): sort it")]


def test_first_match_of_a_search_loop(lint):
    source = """
        import os
        from pathlib import Path
        def find(root):
            for entry in Path(root).iterdir():
                if entry.suffix == ".ckpt":
                    return entry
        def find_name(root):
            found = None
            for name in os.listdir(root):
                if name.startswith("events"):
                    found = name
                    break
            return found
        def has_csv(root):
            for name in os.listdir(root):
                if name.endswith(".csv"):
                    return True
            return False
        """
    assert messages(lint, source) == [
        (4, 18, "searched in a loop that returns the first match): sort it"),
        (9, 17, "searched in a loop that keeps the first match and breaks): sort it"),
    ]


def test_lists_rebuilt_in_a_loop_and_listings_given_to_a_dataset_builder(lint):
    source = """
        import glob, os
        import tensorflow as tf
        def population(root):
            population = []
            for name in os.listdir(root):
                population = [name, *population]
            return population
        def make_dataset(files):
            return tf.data.TFRecordDataset(files)
        def build(root):
            files = glob.glob(root + "/*.tfrecord")
            return make_dataset(files)
        def count(files):
            return len(files)
        def measure(root):
            return count(glob.glob(root + "/*.tfrecord"))
        """
    assert messages(lint, source) == [
        (5, 17, "collected into `population` in a loop, which is returned): sort it"),
        (11, 13, "passed to `make_dataset()`, where it is passed to `TFRecordDataset`): sort it"),
    ]


def test_fastai_file_getters_are_listings(lint):
    source = """
        from fastai.vision.all import DataBlock, ImageBlock, CategoryBlock, ImageDataLoaders, RandomSplitter, get_image_files, parent_label
        path = "/data/pets"
        files = get_image_files(path)
        dls = ImageDataLoaders.from_name_func(path, files, label_func=str.isupper, valid_pct=0.2, seed=42)
        block = DataBlock(blocks=(ImageBlock, CategoryBlock), get_items=get_image_files, splitter=RandomSplitter(seed=42), get_y=parent_label)
        count = len(get_image_files(path))
        ordered = ImageDataLoaders.from_name_func(path, sorted(get_image_files(path)), label_func=str.isupper, seed=42)
        """
    assert messages(lint, source) == [
        (3, 9, "passed to `from_name_func`): sort it"),
        (5, 65, "given to `DataBlock` as `get_items=`, which numbers and splits the items in that order): sort it"),
    ]
    findings = [f for f in lint({"m.py": source}, ND3) if f.code == "ND301"]
    assert findings[0].message.startswith("`get_image_files` returns entries in filesystem order")


def test_listing_extended_into_a_list_keeps_its_order_there(lint):
    source = """
        import numpy as np
        import tensorflow as tf
        def files(patterns):
            input_files = []
            for pattern in patterns.split(","):
                input_files.extend(tf.io.gfile.glob(pattern))
            np.random.shuffle(input_files)
            return input_files
        def counted(patterns):
            found = []
            for pattern in patterns.split(","):
                found.extend(tf.io.gfile.glob(pattern))
            return len(found)
        """
    assert messages(lint, source) == [(6, 28, "collected into `input_files`, which is passed to `shuffle`): sort it")]


def test_test_code_listing_its_own_temporary_folder_is_not_reported(lint):
    test = """
        import os, tempfile
        def helper(folder):
            return os.listdir(folder)[0]
        def test_tmp(tmp_path):
            return os.listdir(tmp_path / "run")[0], helper(tempfile.mkdtemp())
        def test_data():
            return os.listdir("data")[0]
        """
    found = lint({"tests/test_io.py": test, "tools/unpack.py": test.replace("def test_", "def make_")}, ND3)
    message = (
        "`os.listdir` returns entries in filesystem order, which differs between machines, filesystems and copies"
        " of the data, and here that order is kept (the listing is indexed or sliced by position): sort it"
    )
    shown = sorted((f.path.split("/")[-2], f.line, f.col + 1, f.message) for f in found if f.code == "ND301")
    assert shown == [
        ("tests", 7, 12, message),  # test code, but a folder of the repository
        ("tools", 3, 12, message),  # not test code: the same temporary folders keep their order
        ("tools", 5, 12, message),
        ("tools", 7, 12, message),
    ]
    fixes = [f.fix for f in found if f.path.endswith("unpack.py") and f.line == 5]
    assert fixes and fixes[0] is not None and fixes[0].applicability == "safe"


def test_listing_kept_only_by_a_function_nothing_calls(lint):
    """A script's debug helper that nobody calls keeps no order; the same helper in a
    library module, in a script another module imports, or handed on by name may be
    called from elsewhere."""
    script = """
        import glob, os
        def my_glob(folder):
            for pattern in [f"{folder}/*", f"{folder}/*/*"]:
                for name in glob.glob(pattern):
                    yield name
        def convert(folder):
            return sorted(set(my_glob(folder)))
        def all_files(folder):
            return [name for name in my_glob(folder)]
        def upper_names(folder):
            return [name.upper() for name in os.listdir(folder)]
        if __name__ == "__main__":
            convert("data")
        """
    files = {
        "scripts/prepare.py": script,
        "scripts/imported.py": script,
        "scripts/use.py": "from imported import upper_names\nif __name__ == '__main__':\n    print(upper_names('x'))\n",
        "scripts/handed.py": script.replace("convert(\"data\")", "run(all_files)"),
        "lib/tools.py": script.replace('if __name__ == "__main__":', "def main():"),
    }
    found = [f for f in lint(files, ND3) if f.code == "ND301"]
    shown = sorted((f.path.split("/", 1)[-1].rsplit("/", 1)[-1], f.line, f.col + 1) for f in found)
    assert shown == [
        ("handed.py", 4, 21),  # ``run(all_files)``: called where we do not see
        ("imported.py", 4, 21), ("imported.py", 11, 38),
        ("tools.py", 4, 21), ("tools.py", 11, 38),
    ]
    by_place = {(f.path.rsplit("/", 1)[-1], f.line): f.message for f in found}
    assert by_place[("tools.py", 4)] == (
        "`glob.glob` returns entries in filesystem order, which differs between machines, filesystems and copies of the"
        " data, and here that order is kept (the listing is yielded item by item in a loop by `my_glob()` and"
        " returned): sort it"
    )


def test_elements_picked_through_positions_sorted_by_key(lint):
    """``order = sorted(range(n), key=keys.__getitem__)`` (or ``np.argsort``) puts the
    entries in the order of their keys: indexing the listing through it keeps no listing
    order.  Near miss: positions that are not sorted by anything."""
    source = """
        import glob
        import numpy as np
        def by_index(root, wanted):
            files = []
            for name in glob.glob(root + "/*.jpg"):
                files.append(name)
            keys = [int(f[f.rfind("_") + 1:f.rfind(".")]) for f in files]
            order = sorted(range(len(keys)), key=keys.__getitem__)
            chosen = np.array(order)[np.array(wanted) - 1]
            return [files[chosen[i]] for i in range(len(chosen))]
        def by_argsort(root):
            files = glob.glob(root + "/*.npy")
            order = np.argsort([len(f) for f in files])
            return files[order[0]]
        def unsorted(root, wanted):
            files = glob.glob(root + "/*.jpg")
            order = list(range(len(files)))
            chosen = np.array(order)[np.array(wanted) - 1]
            return [files[chosen[i]] for i in range(len(chosen))]
        """
    assert messages(lint, source) == [(16, 13, "indexed or sliced by position): sort it")]


def test_the_cases_of_a_parametrised_test_keep_no_order(tmp_path):
    """``@pytest.mark.parametrize("path", FILES)``: the listing only orders the test
    cases and their ids.  Near miss: the same module-level list indexed by a test."""
    from conftest import lint_files

    source = (
        "from pathlib import Path\n"
        "import pytest\n"
        "def find_files():\n"
        "    return tuple(Path(__file__).parent.glob('**/*.py'))\n"
        "FILES = find_files()\n"
        "@pytest.mark.parametrize('path', FILES, ids=str)\n"
        "def test_reads(path):\n"
        "    assert path.read_text()\n"
    )
    assert lint_files(tmp_path / "cases", {"tests/test_files.py": source}, ND3) == []
    indexed = source + "def test_first():\n    assert FILES[0].name\n"
    findings = lint_files(tmp_path / "indexed", {"tests/test_files.py": indexed}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 4, 18)]
    assert "(the listing is returned by `find_files()` and kept as the module-level name `FILES`)" in findings[0].message


def test_a_listing_shuffled_by_an_rng_its_program_never_seeds(tmp_path):
    """``random.shuffle(files)`` with no seed of ``random`` in the program: the order
    after it is random whatever the listing's order.  Near misses: a program that seeds
    ``random`` (in a module it imports), and a use of the listing before the shuffle."""
    from conftest import lint_files

    pick = (
        "import glob\n"
        "import random\n"
        "import shutil\n"
        "import sys\n"
        "def pick(src, dst, limit):\n"
        "    files = glob.glob(src + '/*')\n"
        "    print('found', len(files))\n"
        "    if limit > 0:\n"
        "        random.shuffle(files)\n"
        "        files = files[:limit]\n"
        "    for name in files:\n"
        "        shutil.copy(name, dst)\n"
        "if __name__ == '__main__':\n"
        "    pick(sys.argv[1], sys.argv[2], int(sys.argv[3]))\n"
    )
    other = "import random\nimport sys\nrandom.seed(0)\nprint(random.random(), sys.argv)\n"
    assert lint_files(tmp_path / "unseeded", {"pick.py": pick, "other.py": other}, ND3) == []
    seeded = pick.replace("import sys\n", "import sys\nimport seeding\n", 1)
    files = {"pick.py": seeded, "seeding.py": "import random\nrandom.seed(0)\n"}
    findings = lint_files(tmp_path / "seeded", files, ND3)
    assert [(f.code, f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("ND301", "pick.py", 7, 13)]
    assert "(the listing is passed to `shuffle`)" in findings[0].message
    before = pick.replace("    print('found', len(files))\n", "    print('last', files[-1])\n")
    findings = lint_files(tmp_path / "before", {"pick.py": before}, ND3)
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND301", 6, 13)]
    assert "(the listing is indexed or sliced by position)" in findings[0].message


def test_the_first_match_of_a_one_folder_pattern_is_a_lookup(lint):
    source = """
        import glob, os
        from pathlib import Path
        def label(folder):
            return open(glob.glob(os.path.join(folder, "*.json"))[0]).read()
        def table(root):
            files = glob.glob(os.path.join(root, "**.csv"))
            if not files:
                raise FileNotFoundError(root)
            return open(files[0]).read()
        def frame_size(image_dir: Path):
            return next(image_dir.glob("frame_*")).stat().st_size
        def band(path, ptype, band):
            return glob.glob(os.path.join(path, f"{ptype}_I{band}_*.tif"))[0]
        def newest(root):
            return glob.glob(os.path.join(root, "*.json"))[-1]
        def weights(root):
            return glob.glob(os.path.join(root, "*.ckpt"))[0]
        def args_of_a_model(root):
            return glob.glob(os.path.join(root, "*", "args.yml"))[0]
        def any_entry(root):
            return os.listdir(root)[0]
        def two(root):
            found = Path(root).glob("*.png")
            return next(found), next(found)
        """
    assert messages(lint, source) == [
        (15, 12, "indexed or sliced by position): sort it"),
        (17, 12, "indexed or sliced by position): sort it"),
        (19, 12, "indexed or sliced by position): sort it"),
        (21, 12, "indexed or sliced by position): sort it"),
        (23, 13, "read with `next()`): sort it"),
    ]


def test_a_listing_stored_on_self_and_sorted_wherever_the_class_reads_it(lint):
    source = """
        import glob
        class Moisture:
            def __init__(self, root):
                self.files = glob.glob(root + "/**/feature_*.geojson", recursive=True)
                if not self.files:
                    raise FileNotFoundError(root)
            def load(self):
                return [open(path).read() for path in sorted(self.files)]
            def __len__(self):
                return len(self.files)
        class Indexed:
            def __init__(self, root):
                self.paths = glob.glob(root + "/*.tif")
            def __getitem__(self, i):
                return sorted(self.paths)[i], self.paths[i]
        class Unread:
            def __init__(self, root):
                self.items = glob.glob(root + "/*.tif")
        class ReadOutside:
            def __init__(self, root):
                self.names = glob.glob(root + "/*.tif")
                self.count = len(self.names)
        def first(folder: ReadOutside):
            return folder.names
        """
    assert messages(lint, source) == [
        (13, 22, "stored): sort it"),
        (18, 22, "stored): sort it"),
        (21, 22, "stored): sort it"),
    ]


def test_each_listed_file_written_in_place_keeps_no_order(lint):
    source = """
        from glob import glob
        import nbformat as nbf
        LOG = open("notebooks.txt", "w")
        def tag():
            for ipath in glob("./docs/**/*.ipynb", recursive=True):
                notebook = nbf.read(ipath, nbf.NO_CONVERT)
                notebook.metadata["tags"] = []
                nbf.write(notebook, ipath)
        def names():
            for ipath in glob("./docs/**/*.ipynb", recursive=True):
                LOG.write(ipath)
        def contents(out):
            for ipath in glob("./docs/**/*.ipynb", recursive=True):
                nbf.write(nbf.read(ipath, nbf.NO_CONVERT), out)
        """
    assert messages(lint, source) == [
        (10, 18, "written out item by item in a loop): sort it"),
        (13, 18, "written out item by item in a loop): sort it"),
    ]


def test_a_listing_shown_in_a_formatted_message_keeps_no_order(lint):
    source = """
        import os
        def fail(local_dir, e):
            dir_content = []
            for i, filename in enumerate(os.listdir(local_dir)):
                dir_content.append(filename if (i + 1) % 3 else filename + "\\n")
            raise ImportError("%s\\nContents of %s:\\n%s" % (e, local_dir, "".join(dir_content).strip()))
        def kept(local_dir):
            return "".join(os.listdir(local_dir)).strip()
        """
    assert messages(lint, source) == [(8, 20, "joined into a string): sort it")]


def test_the_first_file_of_a_kind_found_by_a_loop_is_a_lookup(lint):
    # the loop form of ``glob(os.path.join(d, "*.jpg"))[0]``: one file of a kind, read for
    # what like files share; a kind a folder holds several of (.ckpt) and a test of
    # anything but the extension are still an order kept (near misses)
    source = """
        import os
        import cv2
        from pathlib import Path
        def resolution(image_dir, n):
            for i in os.listdir(image_dir):
                if i.lower().endswith((".jpg", ".png", ".jpeg")):
                    im = cv2.imread(os.path.join(image_dir, i))
                    return im.shape[0] * im.shape[1] // n
            raise ValueError("no images")
        def table(root):
            for entry in Path(root).iterdir():
                if entry.suffix in (".csv", ".tsv"):
                    return entry
        def first_frame(root):
            found = None
            for name in os.listdir(root):
                if name.endswith(".png"):
                    found = name
                    break
            return found
        def weights(root):
            for name in os.listdir(root):
                if name.endswith(".ckpt"):
                    return name
        def camera(root):
            for name in os.listdir(root):
                if name.endswith("_cam.png"):
                    return name
        def nested(root):
            for dirpath, _, names in os.walk(root):
                for name in names:
                    if name.endswith(".png"):
                        return os.path.join(dirpath, name)
        """
    assert messages(lint, source) == [
        (22, 17, "searched in a loop that returns the first match): sort it"),
        (26, 17, "searched in a loop that returns the first match): sort it"),
        (30, 30, "searched in a loop that returns the first match): sort it"),
    ]


# ---- ND301: a value passed into a module function goes on in that call's result ------
def test_listing_returned_from_the_function_it_was_passed_to_goes_on_in_the_call_result(lint):
    """``directions = [...]`` from a listing, passed to ``load(root, directions)`` which
    returns ``(index, pairs)``: the caller unpacks the result, keys a dict by name with
    one element and never reads the other; the order reaches nothing (it used to be
    reported as "returned" from inside ``load``).  Near miss: the caller keeps the
    unpacked list (returns it), and the message says how."""
    source = """
        import glob, os
        def load(root, directions):
            pairs = [(d, os.path.join(root, d)) for d in directions]
            index = {}
            for name, path in pairs:
                index[name] = path
            return index, pairs
        def main(root):
            directions = [os.path.split(f)[-1].split(".")[1] for f in glob.glob(f"{root}/train*")]
            index, pairs = load(root, directions)
            print("loaded", len(pairs))
            return index
        """
    assert messages(lint, source) == []
    kept = source.replace("            return index\n", "            return pairs\n")
    assert messages(lint, kept) == [
        (9, 63, "passed to `load()`, where it is returned into the call's result, which is returned): sort it"),
    ]


def test_listing_returned_from_a_function_it_was_passed_to_is_followed_to_the_one_call(lint):
    """The same function called twice: the listing given at the first call is followed to
    that call's result only (dropped by ``sorted``); the second call keeps its own
    result's order, and the listing it was given is reported with the whole chain.
    Unpacking a returned tuple into a starred target, or into a different number of
    names, follows the whole result (near miss: kept as stored)."""
    source = """
        import os
        def prefixed(root, names):
            return [os.path.join(root, n) for n in names]
        def main(root, other):
            first = sorted(prefixed(root, os.listdir(root)))
            second = prefixed(other, os.listdir(other))
            return first, second[0]
        """
    assert messages(lint, source) == [
        (6, 30, "passed to `prefixed()`, where it is returned into the call's result, which is indexed or sliced by position): sort it"),
    ]
    text, kind = fixed(lint, source, "ND301")
    assert "second = prefixed(other, sorted(os.listdir(other)))" in text and kind == "safe"
    unpacked = """
        import os
        def split(root):
            names = os.listdir(root)
            return names, len(names)
        class Holder:
            def load(self, root):
                self.names, count = split(root)
                return count
        """
    assert messages(lint, unpacked) == [(3, 13, "returned by `split()` and stored): sort it")]
    dropped = unpacked.replace("self.names, count", "names, count")
    assert messages(lint, dropped) == []


def test_listing_yielded_by_a_generator_it_was_passed_to_goes_on_in_that_call(lint):
    """``stream(files)`` yields each file's lines: when the caller of that call only counts
    them, no order is kept; when it collects them (near miss), it is reported through
    the generator."""
    source = """
        import glob
        def stream(files):
            for name in files:
                for line in open(name):
                    yield line
        def count(root):
            total = 0
            for line in stream(glob.glob(root + "/*.txt")):
                total += 1
            return total
        """
    assert messages(lint, source) == []
    collected = source.replace("                total += 1\n            return total", "                lines.append(line)\n            return lines").replace(
        "total = 0", "lines = []")
    assert messages(lint, collected) == [
        (8, 24, "passed to `stream()`, where it is yielded item by item in a loop by `stream()` and "
                "collected into `lines` in a loop, which is returned): sort it"),
    ]


# ---- ND301: what a loop writes, and a progress bar --------------------------------------
def test_a_stream_opened_where_it_is_written_from_the_loops_own_path_keeps_no_order(lint):
    """``csv.writer(open(out, "w")).writerows(rows)`` with ``out`` named from the entry in
    the loop writes a file per entry; the progress bar the loop runs under only shows
    text (``bar.set_postfix``).  Near misses: a writer around a stream opened before the
    loop, and a stream opened in the loop on a path that is not the loop's, are one
    shared output written in listing order."""
    source = """
        import csv, os, tqdm
        def convert(root):
            with tqdm.tqdm(os.listdir(root)) as bar:
                for name in bar:
                    bar.set_postfix(file=name)
                    out = os.path.join(root, name + ".csv")
                    csv.writer(open(out, "w")).writerows([[name]])
        """
    assert messages(lint, source) == []
    shared = """
        import csv, os
        def merge(root, out):
            handle = open(out, "w")
            for name in os.listdir(root):
                csv.writer(handle).writerows([[name]])
        def append(root, out):
            for name in os.listdir(root):
                csv.writer(open(out, "a")).writerows([[name]])
        """
    assert messages(lint, shared) == [
        (4, 17, "written out item by item in a loop): sort it"),
        (7, 17, "written out item by item in a loop): sort it"),
    ]


def test_listings_deleted_counted_or_tested_for_membership_are_not_reported(lint):
    """Issue 16: a loop that deletes each entry, a loop that counts, ``len(...)``, a
    membership test and a truth test keep no order; a loop that returns at the first
    match (near miss) keeps it, and its fix sorts the listing."""
    source = """
        import glob, os
        def clean(d):
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
        def count(d):
            n = 0
            for f in glob.glob(d + "/*.png"):
                n += 1
            return n, len(os.listdir(d))
        def member(d, name):
            return name in os.listdir(d) or not os.listdir(d)
        """
    assert messages(lint, source) == []
    first = """
        import os
        def first(d):
            for f in os.listdir(d):
                if f.startswith("events"):
                    return f
        """
    assert messages(lint, first) == [(3, 14, "searched in a loop that returns the first match): sort it")]
    text, kind = fixed(lint, first, "ND301")
    assert "    for f in sorted(os.listdir(d)):\n" in text and kind == "safe"
