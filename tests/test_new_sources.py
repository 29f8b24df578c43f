"""Sources of run-to-run variation seen in real code (issue 17): search samplers (ND111,
with the fix following the entry point's seed option), URL downloads and TFDS versions
(ND303, also through config defaults; not in test code), ``hash()`` splits (ND305), TFDS
file shuffling (ND307), CUDA source files and the C++ sources of CUDA extensions (ND207),
and ``setup.py`` / VCS / ``environment.yml`` pins (ND401, not in a library's own metadata).

The fixture projects (``tests/fixtures/<family>/<case>``) hold a positive and a near-miss
for each; here every finding is pinned with its message, and the fixes with the text
they write.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import List, Sequence, Tuple

import pytest

from conftest import lint_files, run_cli
from fixtools import fix_project
from fixture_projects import FIXTURES
from nondet_lint.config import Config, parse_table
from nondet_lint.engine import run

SEARCH = "the hyper-parameters it tries, and so the model it picks, change every run"
CHANGES = "what it gets changes whenever the source is updated, so two runs can use different weights or data"
UNCHECKED = "at whatever the URL serves, with nothing that checks what arrived"
DIGEST_ADVICE = "compare a `hashlib` digest of the file after the download, or put a commit hash or a release tag in the URL"
TFDS_ORDER = (
    "with no `read_config=tfds.ReadConfig(shuffle_seed=...)` shuffles the files with a new seed and reads them out "
    "of order every run, so element order changes between runs: pass `read_config=tfds.ReadConfig(shuffle_seed=<seed>)`"
)
HASH_WHY = (
    "so which samples are held out for validation changes with every interpreter start (str and bytes hashes are "
    "salted per process unless `PYTHONHASHSEED` is set before Python starts)"
)
UNPINNED = "an upgrade between two runs can change numerics, kernels and defaults; pin it with `==` or commit a lock file"
ATOMICS = (
    "in this CUDA source accumulates floats with atomic adds, whose order changes from run to run, so its results do "
    "too; reduce in a fixed order instead (per-block partial sums, then a second pass), and for a torch extension call "
    "`at::globalContext().alertNotDeterministic(...)` so `torch.use_deterministic_algorithms(True)` catches it"
)

EXPECTED = {
    "seeding/hparam_search": (["ND1"], [
        ("multi.py", 11, 13, "ND111", f"`optuna.create_study` has no `sampler=`, so it builds an unseeded `NSGAIISampler`: {SEARCH}; pass a seeded sampler"),
        ("tune.py", 15, 13, "ND111", f"`optuna.create_study` has no `sampler=`, so it builds an unseeded `TPESampler`: {SEARCH}; pass a seeded sampler"),
        ("tune.py", 18, 14, "ND111", f"`optuna.samplers.RandomSampler` has `seed=None`: {SEARCH}; pass `seed=`"),
        ("tune.py", 19, 12, "ND111", f"`hyperopt.fmin` has no `rstate=`: {SEARCH}; pass `rstate=np.random.default_rng(<seed>)`"),
    ]),
    "data/url_downloads": (["ND3"], [
        ("fetch.py", 17, 5, "ND303", f"`urllib.request.urlretrieve` fetches `https://example.com/data/train.csv` {UNCHECKED}: {CHANGES}; {DIGEST_ADVICE}"),
        ("fetch.py", 20, 16, "ND303", f"`requests.get` fetches `https://raw.githubusercontent.com/org/labels/master/imagenet.txt` at branch `master` named in the URL: {CHANGES}; put a commit hash or a release tag in the URL instead of the branch"),
        ("fetch.py", 23, 13, "ND303", f"`pandas.read_csv` fetches `https://example.com/tables/meta.csv` {UNCHECKED}: {CHANGES}; {DIGEST_ADVICE}"),
        ("fetch.py", 24, 5, "ND303", f"`torch.hub.download_url_to_file` fetches `https://example.com/w/vit.pt` {UNCHECKED}: {CHANGES}; pass `hash_prefix=` with the start of the file's SHA-256"),
        ("fetch.py", 26, 5, "ND303", f"`torchvision.datasets.utils.download_url` fetches `https://example.com/data/cifar.tar.gz` {UNCHECKED}: {CHANGES}; pass `md5=` with the file's MD5"),
        ("fetch.py", 42, 13, "ND303", f"`tfds.load` fetches `mnist` at whatever version the installed TFDS defines (no `:version` in the name): {CHANGES}; name the version (`\"mnist:<major>.*.*\"`, or the full version)"),
        ("fetch.py", 43, 13, "ND307", f"`tfds.load(shuffle_files=True)` {TFDS_ORDER}"),
        ("fetch.py", 47, 14, "ND307", f"`as_dataset(shuffle_files=True)` {TFDS_ORDER}"),
    ]),
    "data/hash_split": (["ND3"], [
        ("prepare.py", 9, 12, "ND305", f"`hash(name) % 10 == 0` decides the split with Python's `hash()` of a str value, {HASH_WHY}: use a stable hash such as `zlib.crc32(name.encode())`"),
        ("prepare.py", 17, 12, "ND305", f"`abs(hash(image_path)) % 100 < 20` decides the split with Python's `hash()` of a str value, {HASH_WHY}: use a stable hash such as `zlib.crc32(image_path.encode())`"),
    ]),
    "data/setup_pins": (["ND4"], [
        ("environment.yml", 7, 9, "ND401", f"transformers is not pinned to one version (`git+https://github.com/huggingface/transformers@main`): {UNPINNED}"),
        ("environment.yml", 8, 9, "ND401", f"lightning is not pinned to one version (`git+https://github.com/Lightning-AI/lightning`): {UNPINNED}"),
        ("setup.py", 4, 5, "ND401", f"torch is not pinned to one version (`torch>=2.1`): {UNPINNED}"),
    ]),
    "data/library_pins": (["ND4"], [
        ("examples/mnist/environment.yml", 5, 7, "ND401", f"transformers is not pinned to one version (`git+https://github.com/huggingface/transformers.git@master`): {UNPINNED}"),
        ("examples/mnist/requirements.txt", 1, 1, "ND401", f"torch is not pinned to one version (`torch>=2.2`): {UNPINNED}"),
    ]),
    "data/hub_defaults": (["ND3"], [
        ("wmt/input_pipeline.py", 8, 13, "ND303", f"`tfds.builder` fetches `wmt17_translate/de-en` at whatever version the installed TFDS defines (no `:version` in the name): {CHANGES}; name the version (`\"wmt17_translate:<major>.*.*\"`, or the full version)"),
    ]),
    "seeding/search_entry": (["ND1"], [
        ("tune.py", 5, 13, "ND111", f"`optuna.create_study` has no `sampler=`, so it builds an unseeded `TPESampler`: {SEARCH}; pass a seeded sampler"),
        ("tune.py", 11, 12, "ND111", f"`optuna.create_study` has no `sampler=`, so it builds an unseeded `TPESampler`: {SEARCH}; pass a seeded sampler"),
    ]),
    "kernels/extension_cpp": (["ND2"], [
        ("csrc/splat.cpp", 7, 5, "ND207", f"`atomicAdd` {ATOMICS}"),
        ("ops/scatter.cpp", 4, 16, "ND207", f"`gpuAtomicAdd` {ATOMICS}"),
    ]),
    "kernels/cuda_extension": (["ND2"], [
        ("csrc/auxiliary.cuh", 9, 5, "ND207", f"`gpuAtomicAdd` {ATOMICS}"),
        ("csrc/rasterize.cu", 10, 5, "ND207", f"`atomicAdd` {ATOMICS}"),
        ("csrc/rasterize.cu", 11, 5, "ND207", f"`atomicAdd` {ATOMICS}"),
        ("csrc/rasterize.cu", 14, 5, "ND207", f"`atomicAdd` {ATOMICS}"),
    ]),
}


def _copy(case: str, root: Path) -> Path:
    shutil.copytree(FIXTURES / case, root)
    (root / "expected.txt").unlink()
    return root


def _findings(root: Path, select: Sequence[str]) -> List[Tuple[str, int, int, str, str]]:
    config = Config(**parse_table({"select": list(select)}, "test"), root=str(root))
    return [
        (Path(f.path).relative_to(root).as_posix(), f.line, f.col + 1, f.code, f.message)
        for f in run([str(root)], config).findings
    ]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_fixture_findings_with_their_messages(case, tmp_path):
    select, expected = EXPECTED[case]
    assert _findings(_copy(case, tmp_path / "p"), select) == expected


def test_expected_files_list_the_same_findings():
    for case, (_, expected) in EXPECTED.items():
        lines = (FIXTURES / case / "expected.txt").read_text(encoding="utf-8").splitlines()
        listed = sorted(line for line in lines if line.strip() and not line.startswith("#"))
        assert listed == sorted(f"{path}:{line}:{col}: {code}" for path, line, col, code, _ in expected), case


# ---- fixes --------------------------------------------------------------------------------
def _fixed(root: Path, name: str, select: Sequence[str], unsafe: bool = False) -> str:
    outcome, _ = fix_project(root, {"select": list(select)}, unsafe=unsafe)
    return outcome.contents[str(root / name)].decode("utf-8")


def test_search_fix_passes_the_programs_seed_option(tmp_path):
    root = _copy("seeding/hparam_search", tmp_path / "p")
    lines = _fixed(root, "tune.py", ["ND111"]).splitlines()
    assert lines[14] == '    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=args.seed))'
    assert lines[17] == "    random = optuna.samplers.RandomSampler(seed=args.seed)"
    assert lines[18] == (
        '    best = fmin(lambda x: x ** 2, hp.uniform("x", -1, 1), algo=tpe.suggest, max_evals=20, '
        "rstate=np.random.default_rng(args.seed))"
    )


def test_search_fix_uses_the_configured_seed_without_an_option(tmp_path):
    root = _copy("seeding/hparam_search", tmp_path / "p")
    text = _fixed(root, "multi.py", ["ND111"])
    assert '    study = optuna.create_study(directions=["minimize", "maximize"], sampler=optuna.samplers.NSGAIISampler(seed=0))' in text.splitlines()


def test_search_fix_follows_the_entry_point_to_the_function_it_hands_its_options(tmp_path):
    root = _copy("seeding/search_entry", tmp_path / "p")
    lines = _fixed(root, "tune.py", ["ND111"]).splitlines()
    assert lines[4] == '    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=opts.seed))'
    assert lines[10] == "    return optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0)), trials"


def test_downloads_in_test_code_are_reported_when_test_code_is_checked(tmp_path):
    root = _copy("data/hub_defaults", tmp_path / "p")
    config = Config(**parse_table({"select": ["ND303"], "test-code": "check"}, "test"), root=str(root))
    found = [(Path(f.path).relative_to(root).as_posix(), f.line) for f in run([str(root)], config).findings]
    assert found == [("tests/fetch_sample.py", 7), ("tests/fetch_sample.py", 8), ("wmt/input_pipeline.py", 8)]


def test_hash_split_fix_is_unsafe_and_writes_crc32(tmp_path):
    root = _copy("data/hash_split", tmp_path / "p")
    outcome, _ = fix_project(root, {"select": ["ND305"]}, unsafe=False)
    assert outcome.changed == []  # not applied without --unsafe-fixes
    lines = _fixed(root, "prepare.py", ["ND305"], unsafe=True).splitlines()
    assert lines[8] == "        if zlib.crc32(name.encode()) % 10 == 0:"
    assert lines[16] == "    return abs(zlib.crc32(image_path.encode())) % 100 < 20"
    assert lines.count("import zlib") == 1


def test_hash_split_fix_imports_zlib_and_hashes_bytes_as_they_are(tmp_path):
    files = {"split.py": 'import os\n\n\ndef is_val(path, salt: bytes):\n    a = hash(path) % 5 == 0\n    return a or hash(b"v1" + salt) % 5 == 0\n'}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert _fixed(tmp_path, "split.py", ["ND305"], unsafe=True) == (
        "import os\nimport zlib\n\n\ndef is_val(path, salt: bytes):\n"
        "    a = zlib.crc32(path.encode()) % 5 == 0\n"
        '    return a or zlib.crc32(b"v1" + salt) % 5 == 0\n'
    )


def test_tfds_shuffle_fix_adds_a_seeded_read_config(tmp_path):
    root = _copy("data/url_downloads", tmp_path / "p")
    lines = _fixed(root, "fetch.py", ["ND307"]).splitlines()
    assert lines[42] == '    cifar = tfds.load("cifar10:3.*.*", split="train", shuffle_files=True, read_config=tfds.ReadConfig(shuffle_seed=0))'
    assert lines[46] == '    images = builder.as_dataset(split="train", shuffle_files=True, read_config=tfds.ReadConfig(shuffle_seed=0))'


# ---- CUDA sources go through the engine like requirement files ------------------------
def test_cuda_findings_in_sarif_and_baseline(tmp_path):
    root = _copy("kernels/cuda_extension", tmp_path / "p")
    code, out, _ = run_cli([str(root), "--select", "ND207", "--format", "sarif", "--no-cache"])
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    located = [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/p/", 1)[-1],
         r["locations"][0]["physicalLocation"]["region"]["startLine"], r["locations"][0]["physicalLocation"]["region"]["startColumn"])
        for r in results
    ]
    assert located == [
        ("ND207", "csrc/auxiliary.cuh", 9, 5), ("ND207", "csrc/rasterize.cu", 10, 5), ("ND207", "csrc/rasterize.cu", 11, 5),
        ("ND207", "csrc/rasterize.cu", 14, 5),
    ]
    baseline = tmp_path / "baseline.json"
    assert run_cli([str(root), "--select", "ND207", "--baseline", str(baseline), "--write-baseline", "--no-cache"])[0] == 0
    assert run_cli([str(root), "--select", "ND207", "--baseline", str(baseline), "--no-cache"])[0] == 0
    source = root / "csrc" / "rasterize.cu"
    source.write_text(source.read_text().replace("    atomicAdd(total, (unsigned long long)P);", "    atomicAdd(&dL_dcolors[1], 2.0f * g);"))
    code, out, _ = run_cli([str(root), "--select", "ND207", "--baseline", str(baseline), "--no-cache", "--format", "text"])
    assert code == 1 and out.count("ND207") == 1 and "rasterize.cu:13:5: ND207" in out


def test_a_file_wide_noqa_in_a_cuda_source(tmp_path):
    findings = lint_files(tmp_path, {"k.cu": "// nondet-lint: noqa: ND207\n__global__ void k(float* o, float v) { atomicAdd(o, v); }\n"})
    assert [f.code for f in findings] == []
    findings = lint_files(tmp_path, {"k.cu": "# noqa: ND207 is not a C comment\n__global__ void k(float* o, float v) { atomicAdd(o, v); }\n"})
    assert [(f.code, f.line, f.col) for f in findings] == [("ND207", 2, 39)]
