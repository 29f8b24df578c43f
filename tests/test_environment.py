"""ND401 through the whole engine: positions, suppression, locks, includes, config."""

from __future__ import annotations

from conftest import codes_at, run_cli


def nd401(findings):
    return [(f.path.rsplit("/", 1)[-1], f.line, f.col + 1) for f in findings if f.code == "ND401"]


def test_positions_in_each_format(lint):
    findings = lint({
        "requirements.txt": "# pins\ntorch>=2.0\nnumpy==1.26.4\n  jax\n",
        "pyproject.toml": '[project]\nname = "x"\ndependencies = [\n  "tensorflow>=2",\n  "pandas",\n]\n',
        "setup.cfg": "[options]\ninstall_requires =\n    scikit-learn\n",
        "environment.yml": "dependencies:\n  - pytorch=2.1\n  - pip:\n    - timm>=0.9\n",
    })
    assert sorted(nd401(findings)) == [
        ("environment.yml", 2, 5), ("environment.yml", 4, 7),
        ("pyproject.toml", 4, 4),
        ("requirements.txt", 2, 1), ("requirements.txt", 4, 3),
        ("setup.cfg", 3, 5),
    ]


def test_end_column_stops_before_a_comment(lint):
    findings = lint({"requirements.txt": "torch>=2.0   # training\n"})
    assert [(f.col, f.end_col) for f in findings] == [(0, 10)]


def test_noqa_on_the_line_in_every_format(lint):
    findings = lint({
        "requirements.txt": "torch>=2.0  # noqa: ND401\nnumpy  # noqa\njax  # noqa: ND3\n",
        "pyproject.toml": '[project]\nname = "x"\ndependencies = [\n  "keras",  # noqa: ND401\n]\n',
        "environment.yml": "dependencies:\n  - scipy  # noqa: ND4\n",
    })
    assert nd401(findings) == [("requirements.txt", 3, 1)]


def test_file_wide_noqa(lint):
    assert nd401(lint({"requirements.txt": "# nondet-lint: noqa: ND401\ntorch\n"})) == []


def test_included_file_is_reported_at_its_own_line(lint):
    findings = lint({
        "requirements.txt": "-r requirements/base.txt\ntimm==1.0.3\n",
        "requirements/base.txt": "# base\nnumpy==1.26.4\ntorch>=2\nscipy  # noqa: ND401\n",
    })
    assert [(f.path.split("/")[-2:], f.line) for f in findings if f.code == "ND401"] == [(["requirements", "base.txt"], 3)]


def test_lock_file_above_silences(lint):
    findings = lint({
        "uv.lock": 'version = 1\n[[package]]\nname = "torch"\nversion = "2.1.2"\n',
        "services/train/requirements.txt": "torch>=2\n",
    })
    assert nd401(findings) == []


def test_lock_in_a_sibling_project_does_not_silence(lint):
    findings = lint({
        "a/poetry.lock": "",
        "b/requirements.txt": "torch>=2\n",
    })
    assert nd401(findings) == [("requirements.txt", 1, 1)]


def test_hashed_requirements_lock_their_folder(lint):
    findings = lint({
        "requirements.txt": "torch==2.1.2 \\\n    --hash=sha256:00\n",
        "requirements-dev.txt": "numpy\n",
    })
    assert nd401(findings) == []


def test_metadata_range_is_fine_when_the_environment_pins(lint):
    files = {
        "pyproject.toml": '[project]\nname = "x"\ndependencies = ["torch>=2", "numpy>=1.24"]\n',
        "requirements.txt": "torch==2.1.2\n",
    }
    assert nd401(lint(files)) == [("pyproject.toml", 3, 30)]


def test_range_in_one_requirements_file_is_not_excused_by_another(lint):
    findings = lint({"requirements.txt": "torch>=2\n", "requirements-frozen.txt": "torch==2.1.2\n"})
    assert nd401(findings) == [("requirements.txt", 1, 1)]


def test_extend_packages_and_patterns(lint):
    findings = lint(
        {"requirements.txt": "my_trainer\nother-lib\ncupy-rocm-5-0\n"},
        config={"extend-packages": ["My-Trainer"]},
    )
    assert nd401(findings) == [("requirements.txt", 1, 1), ("requirements.txt", 3, 1)]


def test_ignore_and_select(lint):
    files = {"requirements.txt": "torch\n"}
    assert nd401(lint(files, config={"ignore": ["ND4"]})) == []
    assert nd401(lint(files, config={"select": ["ND401"]})) == [("requirements.txt", 1, 1)]
    assert nd401(lint(files, config={"per-file-ignores": {"requirements*.txt": ["ND401"]}})) == []


def test_bad_pyproject_is_nd000_not_a_traceback(lint):
    findings = lint({"sub/pyproject.toml": "[project\nname = 1\n"})
    assert [(f.code, f.line) for f in findings] == [("ND000", 1)]


def test_undecodable_requirements_is_nd000(tmp_path):
    (tmp_path / "requirements.txt").write_bytes(b"torch\xff\xfe\n")
    code, out, _ = run_cli([str(tmp_path), "--exit-zero"])
    assert code == 0 and " ND000 " in out and "ND401" not in out


def test_cli_text_output(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy==1.26.4\ntorch\n")
    code, out, _ = run_cli([str(tmp_path / "requirements.txt")])
    assert code == 1
    assert out.startswith(f"{tmp_path / 'requirements.txt'}:2:1: ND401 ")


def test_python_files_unaffected(lint):
    findings = lint({"train.py": "import torch\n", "requirements.txt": "torch==2.1.2\n"})
    assert codes_at(findings) == []


BENCHMARK = """
import google_benchmark
import jax

@google_benchmark.register
def bench_trace(state):
    while state:
        jax.jit(lambda x: x + 1).lower(1.0)

if __name__ == "__main__":
    google_benchmark.main()
"""


def test_requirements_of_a_folder_of_speed_benchmarks_are_not_an_environment(tmp_path):
    """A folder whose entry points all time their code (contract "Speed benchmarks") sets
    up a timing run; the same requirements beside a training script too (near miss), or
    in a benchmark folder whose script reads no clock, are an environment."""
    from conftest import lint_files

    requirements = "jax\nnumpy>=1.26\n"
    select = {"select": ["ND401"]}
    timing = lint_files(tmp_path / "timing", {
        "benchmarks/tracing/requirements.txt": requirements, "benchmarks/tracing/mnist.py": BENCHMARK,
    }, select)
    assert nd401(timing) == []
    mixed = lint_files(tmp_path / "mixed", {
        "benchmarks/tracing/requirements.txt": requirements, "benchmarks/tracing/mnist.py": BENCHMARK,
        "benchmarks/tracing/train.py": "import jax\nif __name__ == '__main__':\n    print(jax.devices())\n",
    }, select)
    assert nd401(mixed) == [("requirements.txt", 1, 1), ("requirements.txt", 2, 1)]
    assert mixed[0].message == (
        "jax is not pinned to one version (`jax`): an upgrade between two runs can change numerics, kernels"
        " and defaults; pin it with `==` or commit a lock file"
    )
    no_clock = BENCHMARK.replace("google_benchmark.main()", "bench_trace(None)").replace("@google_benchmark.register\n", "")
    no_clock = no_clock.replace("import google_benchmark\n", "")
    untimed = lint_files(tmp_path / "untimed", {
        "benchmarks/accuracy/requirements.txt": requirements, "benchmarks/accuracy/mnist.py": no_clock,
    }, select)
    assert nd401(untimed) == [("requirements.txt", 1, 1), ("requirements.txt", 2, 1)]


SETUP_WITH_HELPER = """\
import os
from setuptools import find_packages, setup
from mylib import setup_tools

_PATH_ROOT = os.path.dirname(os.path.abspath(__file__))
_PATH_REQUIRE = os.path.join(_PATH_ROOT, "requirements")

setup(
    name="mylib",
    packages=find_packages(),
    install_requires=setup_tools._load_requirements({given}),
)
"""


def test_a_helper_given_the_packaging_folder_reads_its_requirements_txt(lint):
    """``install_requires=helper(_PATH_ROOT)`` in a setup.py that ships packages: the
    helper reads the folder's requirements.txt (the name such helpers default to), the
    library's own range, not reported. Given another folder, or in a setup.py that ships
    nothing, the file stays an environment."""
    helper = "def _load_requirements(path_dir, file_name='requirements.txt'):\n    return []\n"
    files = {"requirements.txt": "torch>=1.4\n", "mylib/setup_tools.py": helper, "mylib/__init__.py": ""}
    assert nd401(lint({**files, "setup.py": SETUP_WITH_HELPER.format(given="_PATH_ROOT")})) == []
    pathlib_setup = SETUP_WITH_HELPER.format(given="path_dir=Path(__file__).resolve().parent").replace(
        "import os\n", "import os\nfrom pathlib import Path\n")
    assert nd401(lint({**files, "setup.py": pathlib_setup})) == []
    assert nd401(lint({**files, "setup.py": SETUP_WITH_HELPER.format(given="_PATH_REQUIRE")})) == [("requirements.txt", 1, 1)]
    ships_nothing = SETUP_WITH_HELPER.format(given="_PATH_ROOT").replace("    packages=find_packages(),\n", "")
    assert nd401(lint({**files, "setup.py": ships_nothing})) == [("requirements.txt", 1, 1)]
