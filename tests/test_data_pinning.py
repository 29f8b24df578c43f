"""ND303 and ND304: what counts as pinned, values followed through constants and modules."""

from __future__ import annotations

import pytest

from nondet_lint.families.data.pinning import is_local, is_pinned_ref, versioned
from nondet_lint.ruledata import load_rules

SELECT = {"select": ["ND303", "ND304"]}
HUB = load_rules()["ND303"].data


def at(findings, code):
    return [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings if f.code == code]


@pytest.mark.parametrize("ref,pinned", [
    ("0123456789abcdef0123456789abcdef01234567", True), ("v1.2", True), ("1.0.0", True), ("v2", True),
    ("main", False), ("master", False), ("fp16", False), ("refs/pr/1", False), ("0123abc", False),
])
def test_pinned_refs(ref, pinned):
    assert is_pinned_ref(ref) is pinned


@pytest.mark.parametrize("value,local", [
    ("bert-base-uncased", False), ("google-bert/bert-base-uncased", False), ("./ckpt", True), ("/models/x", True),
    ("~/m", True), ("runs/exp1/model", True), ("outputs/best", True), ("model.safetensors", True),
    ("checkpoints/x", True), ("C:\\models", True), ("org/name with space", True),
])
def test_local_paths(value, local):
    assert is_local(value, HUB) is local


@pytest.mark.parametrize("fragments,pinned", [
    (["/data/imagenet_v2/train"], True), (["/data/v3"], True), (["/data/2024-05-01/train"], True),
    (["/data/20240501"], True), (["/data/snap-3f9a2c1"], False), (["/data/3f9a2c1e/train"], True),
    (["/data/train"], False), (["/data/dev/train"], False), (["/data/review"], False),
])
def test_versioned_paths(fragments, pinned):
    assert versioned(fragments) is pinned


def test_hub_positions_and_constants(lint):
    files = {
        "train.py": """
            import transformers
            from datasets import load_dataset as ld
            REV = "main"
            PINNED = "v2.0"
            def run(name):
                a = transformers.AutoModel.from_pretrained("org/model", revision=REV)
                b = transformers.AutoModel.from_pretrained("org/model", revision=PINNED)
                c = ld("glue", "mrpc")
                d = ld("json", data_files="x.json")
                e = transformers.AutoModel.from_pretrained(name)
                return a, b, c, d, e
            """,
    }
    assert at(lint(files, SELECT), "ND303") == [("train.py", 6, 9), ("train.py", 8, 9)]


def test_revision_constant_from_another_module(lint):
    files = {
        "settings.py": "MODEL = 'org/model'\nREV = 'main'\nGOOD = '" + "a" * 40 + "'\n",
        "train.py": """
            from transformers import AutoTokenizer
            import settings
            from settings import MODEL, GOOD
            t1 = AutoTokenizer.from_pretrained(MODEL, revision=settings.REV)
            t2 = AutoTokenizer.from_pretrained(MODEL, revision=GOOD)
            """,
    }
    assert at(lint(files, SELECT), "ND303") == [("train.py", 4, 6)]


def test_dataclass_field_and_class_attribute_defaults(lint):
    files = {
        "train.py": """
            from dataclasses import dataclass, field
            from transformers import AutoModel
            @dataclass
            class Args:
                model_name: str = field(default="org/model")
                revision: str = "main"
            class Config:
                checkpoint = "org/other"
            def main(args: Args):
                a = AutoModel.from_pretrained(args.model_name, revision=args.revision)
                b = AutoModel.from_pretrained(Config.checkpoint)
                return a, b
            """,
    }
    assert at(lint(files, SELECT), "ND303") == [("train.py", 10, 9), ("train.py", 11, 9)]


def test_classes_of_other_libraries_are_not_hub_loaders(lint):
    files = {"m.py": "import mylib\nx = mylib.Model.from_pretrained('org/model')\n"}
    assert at(lint(files, SELECT), "ND303") == []


def test_directory_dataset_judged_at_the_call_that_chooses_the_folder(lint):
    files = {
        "data.py": """
            import glob
            from torch.utils.data import Dataset
            class Frames(Dataset):
                def __init__(self, root, split="train"):
                    self.files = sorted(glob.glob(f"{root}/{split}/*.jpg"))
            def make(root):
                return Frames(root)
            """,
        "train.py": """
            from data import Frames, make
            a = Frames("/mnt/frames")
            b = Frames("/mnt/frames_v2")
            c = make("/mnt/frames")
            """,
    }
    assert at(lint(files, SELECT), "ND304") == [("train.py", 2, 5)]


def test_outputs_and_temporary_folders_are_not_data(lint):
    files = {
        "m.py": """
            import glob, tempfile
            from pathlib import Path
            save_dir = Path("runs/exp")
            plots = sorted(save_dir.glob("*.png"))
            tmp = tempfile.mkdtemp()
            shards = glob.glob(tmp + "/*.tfrecord")
            images = glob.glob("/data/cats/*.png")
            """,
    }
    assert at(lint(files, SELECT), "ND304") == [("m.py", 7, 10)]


def test_evidence_of_pinning_in_the_module(lint):
    dvc = """
        import dvc.api
        from torchvision.datasets import ImageFolder
        with dvc.api.open("data/train/labels.csv", rev="v1.0") as f:
            labels = f.read()
        train = ImageFolder("/data/train")
        """
    assert at(lint({"m.py": dvc}, SELECT), "ND304") == []
    manifest = "from torchvision.datasets import ImageFolder\nFILES = 'manifest.json'\ntrain = ImageFolder('/data/train')\n"
    assert at(lint({"m.py": manifest}, SELECT), "ND304") == []


def test_evidence_pins_only_the_folders_it_names(lint):
    source = """
        import glob, hashlib, os
        from torchvision.datasets import ImageFolder
        root = "/data/imagenet"
        val_files = sorted(glob.glob(os.path.join(root, "val", "*.JPEG")))
        check = open("val_manifest.txt").read().split()
        train = ImageFolder(os.path.join(root, "train"))
        val = ImageFolder(os.path.join(root, "val"))
        """
    assert at(lint({"m.py": source}, SELECT), "ND304") == [("m.py", 6, 9)]
    named = source.replace('"val_manifest.txt"', '"imagenet_manifest.txt"')
    assert at(lint({"m.py": named}, SELECT), "ND304") == []


def test_folders_from_options_config_and_the_object_are_judged_by_their_default(lint):
    source = """
        import argparse, os
        from torchvision.datasets import ImageFolder
        def build(args):
            return ImageFolder(os.path.join(args.data, "train"))
        class Data:
            def __init__(self, data_path="/data/imagenet"):
                self.data_path = data_path
            def setup(self):
                self.train = ImageFolder(os.path.join(self.data_path, "train"))
        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--data", default="/data/imagenet")
            args = parser.parse_args()
            build(args)
            Data().setup()
        """
    findings = [f for f in lint({"m.py": source}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(4, 12), (9, 22)]
    assert "`os.path.join(args.data, \"train\")` holds" in findings[0].message
    versioned = source.replace('default="/data/imagenet"', 'default="/data/imagenet_v2"').replace('data_path="/data/imagenet"', 'data_path="/data/imagenet-2024-05-01"')
    assert at(lint({"m.py": versioned}, SELECT), "ND304") == []
    no_default = source.replace(', default="/data/imagenet")', ', required=True)').replace('data_path="/data/imagenet"', "data_path")
    assert at(lint({"m.py": no_default.replace("Data().setup()", "")}, SELECT), "ND304") == []


def test_object_created_with_its_folder_is_judged_at_the_creation(lint):
    source = """
        import os
        from torchvision.datasets import ImageFolder
        class Data:
            def __init__(self, data_path):
                self.data_path = data_path
            def setup(self):
                self.train = ImageFolder(os.path.join(self.data_path, "train"))
        a = Data("/mnt/pets")
        b = Data("/mnt/pets_v3")
        """
    findings = [f for f in lint({"m.py": source}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(8, 5)]
    assert findings[0].message.startswith("`Data -> ImageFolder` builds the dataset from whatever files `\"/mnt/pets\"` holds")


def test_a_folder_the_program_creates_or_empties_is_its_output(lint):
    source = """
        import os, shutil
        def annotate(video_folder, log_path):
            if video_folder is None:
                video_folder = os.path.join(log_path, "videos")
            shutil.rmtree(video_folder, ignore_errors=True)
            os.makedirs(video_folder, exist_ok=True)
            return [e.name for e in os.scandir(video_folder) if e.name.endswith(".mp4")]
        def clips(clip_folder):
            return [e.name for e in os.scandir(clip_folder) if e.name.endswith(".mp4")]
        clips("/data/clips")
        annotate(None, "/data/clips")
        """
    assert at(lint({"m.py": source}, SELECT), "ND304") == [("m.py", 10, 1)]


def test_fastai_and_timm_folder_datasets(lint):
    source = """
        from fastai.vision.all import ImageDataLoaders, get_image_files
        from timm.data import create_dataset
        files = sorted(get_image_files("/data/pets"))
        dls = ImageDataLoaders.from_folder("/data/pets_v2")
        train = create_dataset("", root="/data/imagenet", split="train")
        cifar = create_dataset("torch/cifar10", root="/data/cifar", download=True)
        hub = create_dataset("hfds/imagenet-1k", root="/data/hf")
        """
    findings = [f for f in lint({"m.py": source}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(3, 16), (5, 9)]
    assert findings[0].message.startswith("`get_image_files` builds the dataset from whatever files `\"/data/pets\"` holds")
    assert findings[1].message.startswith("`create_dataset` builds the dataset from whatever files `\"/data/imagenet\"` holds")


def test_a_data_folder_option_declared_in_another_module_is_judged_by_its_default(tmp_path):
    """``ImageFolder(os.path.join(args.data, "train"))`` where ``--data`` is declared in
    another module of the project: its default there decides (a versioned default pins
    it, no default leaves it to the run)."""
    from conftest import lint_files

    options = (
        "import argparse\n"
        "def get_parser():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--data', default={default})\n"
        "    return parser\n"
    )
    train = (
        "import os\n"
        "from torchvision import datasets\n"
        "from pkg.opts import get_parser\n"
        "def build(args):\n"
        "    return datasets.ImageFolder(os.path.join(args.data, 'train'))\n"
        "if __name__ == '__main__':\n"
        "    build(get_parser().parse_args())\n"
    )
    select = {"select": ["ND304"]}

    def run(name, default):
        files = {"pkg/__init__.py": "", "pkg/opts.py": options.format(default=default), "train.py": train}
        return lint_files(tmp_path / name, files, select)

    findings = run("plain", "'data/imagenet'")
    assert [(f.path.replace("\\", "/").rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("train.py", 5, 12)]
    assert findings[0].message == (
        "`ImageFolder` builds the dataset from whatever files `os.path.join(args.data, 'train')` holds when the run "
        "starts, so files added or removed later change the data without a warning: pin its contents (a manifest of "
        "files, a checksum check, a versioned path, or DVC with `rev=`)"
    )
    assert run("versioned", "'data/imagenet-v3'") == []
    assert run("none", "None") == []


def test_a_dataset_re_exported_with_forwarded_arguments_is_judged_where_it_is_called(lint):
    """``def ImageFolder(*args, **kwargs): return torchImageFolder(*args, **kwargs)``: the
    folder is its caller's; a caller that names a fixed folder is reported there."""
    files = {
        "wrappers.py": """
            from torchvision.datasets import ImageFolder as torchImageFolder
            def ImageFolder(*args, **kwargs):
                return torchImageFolder(*args, **kwargs)
            def images(root):
                return ImageFolder(root)
            """,
        "train.py": """
            from wrappers import ImageFolder
            a = ImageFolder("/mnt/photos")
            b = ImageFolder(root="/mnt/photos_v2")
            """,
    }
    findings = [f for f in lint(files, SELECT) if f.code == "ND304"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("train.py", 2, 5)]
    assert "ImageFolder -> ImageFolder" in findings[0].message and "/mnt/photos" in findings[0].message


def test_a_dataset_call_that_names_its_own_folder_is_reported_next_to_forwarded_options(lint):
    """Near miss: forwarding ``**kwargs`` (options) while naming the folder is still a
    folder chosen here."""
    files = {
        "data.py": """
            from torchvision.datasets import ImageFolder
            def photos(**kwargs):
                return ImageFolder("/mnt/photos", **kwargs)
            """,
    }
    assert at(lint(files, SELECT), "ND304") == [("data.py", 3, 12)]


def test_a_download_fetched_again_with_a_checksum_is_checked(lint):
    """``gdown.cached_download(url, path, md5=...)`` after ``gdown.download(url, path)``
    checks what the first call saved; a checked fetch of another URL, or of the same URL to
    another file, checks nothing of it."""
    files = {
        "data.py": """
            import gdown
            URL, OTHER = "https://drive.google.com/uc?id=abc", "https://drive.google.com/uc?id=def"
            def fetch(path):
                gdown.download(URL, path, quiet=False)
                gdown.cached_download(URL, path, md5="0123456789abcdef0123456789abcdef")
            def fetch_two(path):
                gdown.download(URL, path, quiet=False)
                gdown.cached_download(OTHER, path + "2", md5="0123456789abcdef0123456789abcdef")
            def fetch_elsewhere(path):
                gdown.download(URL, path, quiet=False)
                gdown.cached_download(URL, path + ".copy", md5="0123456789abcdef0123456789abcdef")
            """,
    }
    findings = [f for f in lint(files, SELECT) if f.code == "ND303"]
    assert [(f.line, f.col + 1) for f in findings] == [(7, 5), (10, 5)]
    assert "`gdown.download` fetches" in findings[0].message and "nothing that checks what arrived" in findings[0].message


def test_a_download_checked_by_a_hashing_helper_of_the_module_is_checked(lint):
    """``checksum = _sha256(path)`` compared with the expected digest, where ``_sha256`` is a
    top-level function of the same module that calls ``hashlib``: the helper's call is a
    hashlib call.  Near misses: a helper that hashes nothing, and the helper's digest left
    uncompared."""
    files = {
        "data.py": """
            import hashlib
            from urllib.request import urlretrieve
            def _sha256(path):
                with open(path, "rb") as f:
                    return hashlib.sha256(f.read()).hexdigest()
            def _size(path):
                return len(open(path, "rb").read())
            def fetch(url, path, checksum):
                urlretrieve(url, path)
                if _sha256(path) != checksum:
                    raise OSError(path)
            def fetch_sized(url, path, checksum):
                urlretrieve(url, path)
                if _size(path) != checksum:
                    raise OSError(path)
            def fetch_unchecked(url, path):
                urlretrieve(url, path)
                print(_sha256(path))
            """,
    }
    findings = [f for f in lint(files, SELECT) if f.code == "ND303"]
    assert [(f.line, f.col + 1) for f in findings] == [(13, 5), (17, 5)]
    assert findings[0].message == (
        "`urllib.request.urlretrieve` fetches `url` at whatever the URL serves, with nothing that checks what arrived:"
        " what it gets changes whenever the source is updated, so two runs can use different weights or data; compare"
        " a `hashlib` digest of the file after the download, or put a commit hash or a release tag in the URL"
    )


def test_a_folder_from_an_option_with_no_default_read_where_it_is_parsed_is_not_reported(lint):
    """``args = parser.parse_args()`` then ``glob(args.samples_dir)`` with ``required=True``
    (and an absl flag defaulting to None): the user names the folder at each run, so no
    value is known to judge (the rule's docs); the same option with a default (near miss)
    is judged by it and reported."""
    source = """
        import argparse, glob, pathlib
        from absl import flags
        flags.DEFINE_string("frames", None, "folder of frames")
        FLAGS = flags.FLAGS
        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--samples_dir", required=True)
            args = parser.parse_args()
            clips = sorted(pathlib.Path(args.samples_dir).glob("*.wav"))
            frames = sorted(glob.glob(FLAGS.frames + "/*.png"))
            return clips, frames
        """
    assert at(lint({"m.py": source}, SELECT), "ND304") == []
    with_defaults = source.replace("required=True", 'default="/data/samples"').replace('"frames", None', '"frames", "/data/frames"')
    findings = [f for f in lint({"m.py": with_defaults}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(9, 20), (10, 21)]
    assert findings[0].message.startswith(
        "`Path.glob` builds the dataset from whatever files `pathlib.Path(args.samples_dir)` holds when the run starts"
    )
    assert findings[1].message.startswith("`glob.glob` builds the dataset from whatever files `FLAGS.frames + \"/*.png\"` holds")


def test_a_module_level_parsed_option_with_no_default_handed_to_a_function_is_not_reported(lint):
    """``ARGS = PARSER.parse_args()`` at module level, and a None-default flag handed on to
    the function that lists it: no value is known; with defaults (near miss) both are
    judged by them and reported, at the listing and at the call that hands the folder on."""
    source = """
        import argparse, glob
        from absl import flags
        flags.DEFINE_string("data_dir", None, "records")
        FLAGS = flags.FLAGS
        PARSER = argparse.ArgumentParser()
        PARSER.add_argument("--video_in", dest="video_in", required=True)
        ARGS = PARSER.parse_args()
        def load(data_dir):
            return glob.glob(data_dir + "/*.tfrecord")
        def main(_):
            videos = glob.glob(ARGS.video_in + "/*.mp4")
            return videos, load(data_dir=FLAGS.data_dir)
        if __name__ == "__main__":
            main(0)
        """
    assert at(lint({"tool.py": source}, SELECT), "ND304") == []
    with_defaults = source.replace("required=True", 'default="/data/videos"').replace('"data_dir", None', '"data_dir", "/data/imagenet"')
    findings = [f for f in lint({"tool.py": with_defaults}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(11, 14), (12, 20)]
    assert findings[1].message.startswith("`load -> glob.glob` builds the dataset from whatever files `FLAGS.data_dir` holds")


def test_a_folder_an_archive_was_just_unpacked_into_holds_that_archive(lint):
    """``ZipFile(path).extractall(...)`` before listing a folder named from the same path:
    the files are the archive's (pinning the download fixes them).  Near misses: an
    archive that names another folder, and an unpacking after the listing."""
    source = """
        import glob, os, shutil, zipfile
        def images(tmp_dir, img_path):
            unzipped = img_path[:-4]
            if not os.path.exists(unzipped):
                zipfile.ZipFile(img_path, "r").extractall(tmp_dir)
            return sorted(glob.glob(unzipped + "/*.jpg"))
        def unpacked(archive):
            shutil.unpack_archive(archive, "/data/raw")
            return sorted(glob.glob(archive + "/*.png"))
        def other(img_path, folder):
            zipfile.ZipFile(img_path, "r").extractall(folder)
            return sorted(glob.glob("/data/celeba/*.jpg"))
        def later():
            folder = "/data/faces"
            files = sorted(glob.glob(folder + "/*.jpg"))
            zipfile.ZipFile(folder + ".zip").extractall(folder)
            return files
        images("/tmp", "/data/celeba.zip")
        unpacked("/data/flowers")
        """
    findings = [f for f in lint({"m.py": source}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(12, 19), (15, 20)]
    assert findings[0].message.startswith("`glob.glob` builds the dataset from whatever files `\"/data/celeba/*.jpg\"` holds")
    assert findings[1].message.startswith("`glob.glob` builds the dataset from whatever files `folder + \"/*.jpg\"` holds")


def test_the_folder_the_program_is_started_in_is_the_users_choice(lint):
    """``ImageFolder(".")`` lists whatever folder the user runs the program from, like an
    option with no default; a named folder is still reported."""
    source = """
        from torchvision.datasets import ImageFolder
        here = ImageFolder(".")
        also = ImageFolder("./")
        there = ImageFolder("./pets")
        """
    findings = [f for f in lint({"m.py": source}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(4, 9)]
    assert findings[0].message.startswith("`ImageFolder` builds the dataset from whatever files `\"./pets\"` holds")


def test_a_fetch_in_a_branch_taken_only_for_a_url_is_a_download(lint):
    """``if data_dir.startswith("https://"): requests.get("/".join([data_dir, name]))``
    whose content is parsed: the code says the value is a URL. Near misses: a fetch whose
    content is not kept (a health check), and a run-time URL with no such test."""
    files = {
        "data.py": """
            import io
            import os
            import numpy as np
            import requests
            def load(data_dir, names):
                for name in names:
                    if data_dir.startswith("http://") or data_dir.startswith("https://"):
                        path = "/".join([data_dir, name])
                        response = requests.get(path)
                        yield np.load(io.BytesIO(response.content))
                    else:
                        path = os.path.join(data_dir, name)
                        yield np.load(path)
            def healthy(server):
                if server.startswith("https://"):
                    return requests.get(server + "/health").status_code == 200
            def read(url):
                return np.load(io.BytesIO(requests.get(url).content))
            """,
    }
    findings = [f for f in lint(files, SELECT) if f.code == "ND303"]
    assert [(f.line, f.col + 1) for f in findings] == [(9, 24)]
    assert findings[0].message == (
        "`requests.get` fetches `path` at whatever the URL serves, with nothing that checks what arrived: what it "
        "gets changes whenever the source is updated, so two runs can use different weights or data; compare a "
        "`hashlib` digest of the file after the download, or put a commit hash or a release tag in the URL"
    )


def test_a_field_default_that_reads_another_field_is_analysed(lint):
    # gathering the defaults met ``data.name`` inside a default and asked for the defaults
    # again, without end: the file was reported as nested too deeply (ND000)
    source = """
        from dataclasses import dataclass
        from pathlib import Path
        from torchvision.datasets import ImageFolder
        @dataclass
        class Config:
            data: Path = Path("/data/imagenet")
            ply_file_path: Path = data / (data.name + ".ply")
        def main(config: Config):
            return ImageFolder(config.data)
        """
    findings = lint({"m.py": source}, {"select": ["ND000", "ND304"]})
    assert [(f.code, f.line, f.col + 1) for f in findings] == [("ND304", 9, 12)]
    assert "`config.data` holds" in findings[0].message


@pytest.mark.parametrize("md5, reported", [
    ("md5=self.md5 if self.verify else None", False),  # a digest to check (when asked): evidence
    ("md5=MD5", False),
    ("filename='gid.zip', md5=None", True),  # near misses: no digest given
    ("filename='gid.zip'", True),
])
def test_a_download_given_a_digest_to_check_pins_the_folder_it_fills(lint, md5, reported):
    # torchvision's download_and_extract_archive, re-exported by the project's utils
    utils = "from torchvision.datasets.utils import download_and_extract_archive\n"
    source = (
        "import glob\n"
        "import os\n"
        "from torch.utils.data import Dataset\n"
        "from pkg.utils import download_and_extract_archive\n"
        "MD5 = '615682bf659c3ed981826c6122c10c83'\n"
        "class Tiles(Dataset):\n"
        "    url = 'https://example.org/gid.zip'\n"
        "    md5 = MD5\n"
        "    def __init__(self, root='data', verify=False):\n"
        "        self.root = root\n"
        "        self.verify = verify\n"
        "        self._download()\n"
        "        self.files = sorted(glob.glob(os.path.join(self.root, 'images', '*.tif')))\n"
        "    def _download(self):\n"
        f"        download_and_extract_archive(self.url, self.root, {md5})\n"
        "def default_tiles():\n"
        "    return Tiles()\n"  # a creation that relies on the default folder
    )
    files = {"pkg/__init__.py": "", "pkg/utils.py": utils, "pkg/tiles.py": source}
    found = at(lint(files, SELECT), "ND304")
    assert found == ([("tiles.py", 13, 29)] if reported else [])


@pytest.mark.parametrize("store, reported", [
    ("self.root, self.split = root, 'train'", True),  # unpacked from a tuple of the same length
    ("self.root: str = root", True),
    ("self.root, self.split = pair", False),  # near miss: what is unpacked is not shown
])
def test_a_folder_stored_in_init_by_unpacking_or_annotation_is_judged_by_its_default(lint, store, reported):
    source = (
        "import glob\n"
        "import os\n"
        "from torch.utils.data import Dataset\n"
        "class Tiles(Dataset):\n"
        "    def __init__(self, root='data', pair=None):\n"
        f"        {store}\n"
        "        self.files = sorted(glob.glob(os.path.join(self.root, 'images', '*.tif')))\n"
        "tiles = Tiles()\n"
    )
    assert at(lint({"m.py": source}, SELECT), "ND304") == ([("m.py", 7, 29)] if reported else [])


@pytest.mark.parametrize("checked, reported", [
    ('f"{self.data_dir}.zip"', False),  # the archive the folder is unpacked from: names no folder
    ('self.data_dir + ".tar.gz"', False),
    ('"labels.csv"', True),  # near miss: a digest of one file names its own folder words
])
def test_a_digest_of_an_archive_covers_the_folders_it_unpacks(lint, checked, reported):
    source = f"""
        import glob, os
        from torch.utils.data import Dataset
        from torchvision.datasets.utils import check_integrity
        class Larch(Dataset):
            data_dir = "Data_Set_Larch"
            md5 = "907815bcc739bff89496fac8f8ce63d7"
            def __init__(self, root="data"):
                self.root = root
                archive = os.path.join(self.root, {checked})
                if not check_integrity(archive, self.md5):
                    raise RuntimeError(archive)
                self.files = sorted(glob.glob(os.path.join(self.root, self.data_dir, "Images", "*.JPG")))
        larch = Larch()
        """
    assert at(lint({"m.py": source}, SELECT), "ND304") == ([("m.py", 12, 29)] if reported else [])


@pytest.mark.parametrize("checked, reported", [
    ("self.split + '.zip'", False),  # the split's archive, checked in an `if` whose error names no folder
    ("'labels.csv'", True),  # near miss: a checked file named like another folder
])
def test_a_re_exported_digest_check_is_judged_by_its_test_not_its_error(lint, checked, reported):
    utils = "from torchvision.datasets.utils import check_integrity, extract_archive\n"
    source = (
        "import glob\n"
        "import os\n"
        "from torch.utils.data import Dataset\n"
        "from pkg.utils import check_integrity, extract_archive\n"
        "class Aid(Dataset):\n"
        "    md5s = {'train': '1b40503cafa9b0601653ca36cd788852'}\n"
        "    def __init__(self, root='data', split='train', checksum=False):\n"
        "        self.root, self.split, self.checksum = root, split, checksum\n"
        "        self._verify()\n"
        "        self.files = sorted(glob.glob(os.path.join(self.root, self.split, '*', '*.jpg')))\n"
        "    def _verify(self):\n"
        f"        filepath = os.path.join(self.root, {checked})\n"
        "        if self.checksum and not check_integrity(filepath, self.md5s[self.split]):\n"
        "            raise RuntimeError('Dataset found, but corrupted.')\n"
        "        extract_archive(filepath)\n"
        "def default_aid():\n"
        "    return Aid()\n"
    )
    files = {"pkg/__init__.py": "", "pkg/utils.py": utils, "pkg/aid.py": source}
    assert at(lint(files, SELECT), "ND304") == ([("aid.py", 10, 29)] if reported else [])


@pytest.mark.parametrize("creation, found", [
    ("", []),  # a library's dataset class: the folder is its caller's, the default a placeholder
    ("tiles = Tiles()\n", [("tiles.py", 7, 29)]),  # near miss: a creation here relies on the default
    ("tiles = Tiles('/data/tiles')\n", [("tiles.py", 8, 9)]),  # judged at the creation that gives it
    ("a = Tiles('/data/tiles_v2')\nb = Tiles()\n", [("tiles.py", 7, 29)]),  # one relies on the default
])
def test_a_dataset_class_no_call_creates_leaves_its_folder_to_its_callers(lint, creation, found):
    source = (
        "import glob\n"
        "import os\n"
        "from torch.utils.data import Dataset\n"
        "class Tiles(Dataset):\n"
        "    def __init__(self, root='data'):\n"
        "        self.root = root\n"
        "        self.files = sorted(glob.glob(os.path.join(self.root, 'images', '*.tif')))\n"
        f"{creation}"
    )
    findings = [f for f in lint({"pkg/__init__.py": "", "pkg/tiles.py": source}, SELECT) if f.code == "ND304"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == found
    if found:
        shown = "\"'/data/tiles'\"" if "'/data/tiles'" in creation else "`os.path.join(self.root, 'images', '*.tif')`"
        assert shown.strip('"') in findings[0].message


def test_a_library_dataset_class_is_judged_where_another_module_gives_its_folder(lint):
    source = (
        "import glob\n"
        "import os\n"
        "from torch.utils.data import Dataset\n"
        "class Tiles(Dataset):\n"
        "    def __init__(self, root='data'):\n"
        "        self.root = root\n"
        "        self.files = sorted(glob.glob(os.path.join(self.root, 'images', '*.tif')))\n"
    )
    train = "from pkg.tiles import Tiles\ntrain = Tiles('/mnt/tiles')\nversioned = Tiles('/mnt/tiles_v3')\n"
    findings = [f for f in lint({"pkg/__init__.py": "", "pkg/tiles.py": source, "train.py": train}, SELECT) if f.code == "ND304"]
    assert [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings] == [("train.py", 2, 9)]
    assert findings[0].message.startswith("`Tiles -> glob.glob` builds the dataset from whatever files `'/mnt/tiles'` holds")


def test_a_folder_read_from_the_command_line_arguments_is_not_reported(lint):
    """``merge(sys.argv[-1])`` into a function that lists the folder, a name bound to
    ``sys.argv[1]``, and a folder below one (``Path(sys.argv[2]) / "wav"``): a
    command-line argument has no default, so the user names the folder at each run, like
    an option with no default (the rule's docs).  Near miss: the same listings of a
    folder the code names are reported, at the call that hands it on and at the listing."""
    source = """
        import glob, os, sys
        from pathlib import Path
        def merge(rootdir):
            return sorted(glob.glob(os.path.join(rootdir, "*.csv")))
        if __name__ == "__main__":
            merge(sys.argv[-1])
            root = sys.argv[1]
            images = sorted(glob.glob(os.path.join(root, "*.png")))
            clips = sorted((Path(sys.argv[2]) / "wav").glob("*.wav"))
        """
    assert at(lint({"m.py": source}, SELECT), "ND304") == []
    named = source.replace("sys.argv[-1]", '"/data/runs"').replace("sys.argv[1]", '"/data/images"').replace("sys.argv[2]", '"/data/audio"')
    findings = [f for f in lint({"m.py": named}, SELECT) if f.code == "ND304"]
    assert [(f.line, f.col + 1) for f in findings] == [(6, 5), (8, 21), (9, 20)]
    assert findings[0].message.startswith('`merge -> glob.glob` builds the dataset from whatever files `"/data/runs"` holds')
    assert findings[1].message.startswith('`glob.glob` builds the dataset from whatever files `os.path.join(root, "*.png")` holds')
