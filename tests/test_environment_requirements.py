"""Parsing requirement files (analysis/requirements.py): names, pins, lines, includes."""

from __future__ import annotations

import textwrap

import pytest

from nondet_lint.families.environment.requirements import (
    normalize_name,
    parse_conda_spec,
    parse_requirement,
    parse_text,
    pinned_version,
    project_pins,
    read_requirements,
)


@pytest.mark.parametrize(
    "text,name,specifier,pinned",
    [
        ("torch==2.1.0", "torch", "==2.1.0", "2.1.0"),
        ("torch >= 2.0, <3", "torch", ">=2.0,<3", None),
        ("numpy", "numpy", "", None),
        ("Scikit_Learn==1.3.0; python_version>'3.8'", "scikit-learn", "==1.3.0", "1.3.0"),
        ("torch (==1.8.1)", "torch", "==1.8.1", "1.8.1"),
        ("tensorflow[and-cuda]==2.15.0", "tensorflow", "==2.15.0", "2.15.0"),
        ("numpy==1.*", "numpy", "==1.*", None),
        ("torch===2.1.0", "torch", "===2.1.0", "2.1.0"),
        ("torch~=2.1.0", "torch", "~=2.1.0", None),
        ("torch @ https://download.pytorch.org/whl/cu118/torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl",
         "torch", "==2.0.0+cu118", "2.0.0+cu118"),
        ("git+https://github.com/huggingface/transformers.git@v4.30.0", "transformers", "==4.30.0", "v4.30.0"),
        ("git+https://github.com/huggingface/transformers", "transformers", "", None),
        ("git+https://github.com/x/y.git@main#egg=timm", "timm", "", None),
        ("git+https://github.com/x/timm@" + "a" * 40, "timm", "", "a" * 40),
    ],
)
def test_parse_requirement(text, name, specifier, pinned):
    found = parse_requirement(text)
    assert (found.name, found.specifier, found.pinned) == (name, specifier, pinned)


def test_not_requirements():
    assert parse_requirement("./local/pkg") is None
    assert parse_requirement("") is None


def test_names_and_pins():
    assert normalize_name("Scikit_Learn") == "scikit-learn"
    assert normalize_name("pytorch") == "torch"  # conda name
    assert pinned_version(">=2,==2.1.0") == "2.1.0"
    assert pinned_version("==2.1.*") is None


@pytest.mark.parametrize(
    "spec,name,pinned",
    [
        ("pytorch::pytorch=2.1.0", "torch", "2.1.0"),
        ("numpy=1.26", "numpy", None),
        ("scipy==1.11", "scipy", "1.11"),
        ("cudatoolkit 11.8.0 h0", "cudatoolkit", "11.8.0"),
        ("tensorflow-gpu", "tensorflow-gpu", None),
        ("py-xgboost[version='>=1.7']", "xgboost", None),
        ("numpy=1.26.*", "numpy", None),
    ],
)
def test_conda_spec(spec, name, pinned):
    found = parse_conda_spec(spec)
    assert (found.name, found.pinned) == (name, pinned)


def entries(path, text):
    parsed = parse_text(path, textwrap.dedent(text).lstrip("\n"))
    return [(r.name, r.pinned, r.line, r.col) for r in parsed.requirements]


def test_pip_file_lines_hashes_and_options():
    parsed = parse_text("requirements.txt", textwrap.dedent("""\
        # header
        -r base.txt
        --extra-index-url https://example.org/simple
        -c constraints.txt
        torch==2.1.0 \\
            --hash=sha256:abc
        numpy>=1.24  # a comment
        -e .
          jax
        """))
    assert [(r.name, r.line, r.col, r.hashed) for r in parsed.requirements] == [
        ("torch", 5, 0, True), ("numpy", 7, 0, False), ("jax", 9, 2, False),
    ]
    assert [(p.rsplit("/", 1)[-1], c, line) for p, c, line in parsed.includes] == [
        ("base.txt", False, 2), ("constraints.txt", True, 4),
    ]


def test_require_hashes_marks_every_entry():
    parsed = parse_text("requirements.txt", "--require-hashes\ntorch==2.1.0\n")
    assert all(r.hashed for r in parsed.requirements)


def test_pyproject_pep621_poetry_and_groups():
    found = entries("pyproject.toml", """
        [project]
        name = "x"
        dependencies = [
          "torch>=2.0",
          'numpy==1.26.4',
        ]
        [project.optional-dependencies]
        gpu = ["cupy-cuda12x"]
        [dependency-groups]
        dev = ["jax", {include-group = "x"}]
        [tool.poetry.dependencies]
        python = "^3.10"
        torch = "^2.1"
        numpy = "1.26.4"
        jax = {version = "~0.4.20", extras = ["cuda"]}
        keras = {git = "https://github.com/keras-team/keras", rev = "main"}
        [tool.poetry.group.dev.dependencies]
        timm = "*"
        [build-system]
        requires = ["numpy>=1.21"]
        """)
    assert found == [
        ("torch", None, 4, 3), ("numpy", "1.26.4", 5, 3), ("cupy-cuda12x", None, 8, 8), ("jax", None, 10, 8),
        ("torch", None, 13, 0), ("numpy", "1.26.4", 14, 0), ("jax", None, 15, 0), ("keras", None, 16, 0),
        ("timm", None, 18, 0),
    ]


def test_poetry_constraints_become_pep440():
    parsed = parse_text("pyproject.toml", '[tool.poetry.dependencies]\ntorch = "^2.1"\njax = "~0.4.20"\nnp = "^0.2.3"\n')
    assert [r.specifier for r in parsed.requirements] == [">=2.1,<3.0", ">=0.4.20,<0.5.0", ">=0.2.3,<0.3.0"]


def test_bad_toml_is_an_error_not_a_traceback():
    parsed = parse_text("pyproject.toml", "[project\n")
    assert parsed.error is not None and parsed.requirements == []


def test_setup_cfg():
    found = entries("setup.cfg", """
        [metadata]
        name = x
        [options]
        install_requires =
            torch>=1.8
            numpy==1.21.0 ; python_version < "3.10"  # comment
        python_requires = >=3.8
        [options.extras_require]
        tf = tensorflow>=2.4
        """)
    assert found == [("torch", None, 5, 4), ("numpy", "1.21.0", 6, 4), ("tensorflow", None, 9, 5)]


def test_environment_yml_with_pip_section():
    found = entries("environment.yml", """
        name: x
        channels:
          - pytorch
        dependencies:
          - pytorch::pytorch=2.1.0
          - numpy=1.26
          - pip
          - pip:
            - transformers==4.35.0
            - timm>=0.9  # comment
          - scikit-learn>=1.3
        """)
    assert found == [
        ("torch", "2.1.0", 5, 4), ("numpy", None, 6, 4), ("pip", None, 7, 4),
        ("transformers", "4.35.0", 9, 6), ("timm", None, 10, 6), ("scikit-learn", None, 11, 4),
    ]


def test_read_requirements_follows_includes(tmp_path):
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements.txt").write_text("-r requirements/base.txt\n-c constraints.txt\ntimm\n")
    (tmp_path / "requirements" / "base.txt").write_text("torch>=2\n-r ../requirements.txt\n")
    (tmp_path / "constraints.txt").write_text("torch==2.1.0\n")
    found = read_requirements(str(tmp_path / "requirements.txt"))
    assert [(r.name, r.pinned, r.constraint, r.file.rsplit("/", 1)[-1]) for r in found] == [
        ("timm", None, False, "requirements.txt"),
        ("torch", None, False, "base.txt"),
        ("torch", "2.1.0", True, "constraints.txt"),
    ]


def test_read_missing_file_gives_nothing(tmp_path):
    assert read_requirements(str(tmp_path / "requirements.txt")) == []


def test_project_pins_prefers_locks_then_exact_pins(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["torch>=2.0", "numpy>=1.24", "jax"]\n')
    (tmp_path / "requirements.txt").write_text("numpy==1.26.4\n")
    (tmp_path / "poetry.lock").write_text('[[package]]\nname = "torch"\nversion = "2.1.2"\n')
    venv = tmp_path / ".venv"
    venv.mkdir()
    (venv / "requirements.txt").write_text("torch==1.0.0\n")
    assert project_pins(str(tmp_path)) == {"jax": "", "numpy": "==1.26.4", "torch": "==2.1.2"}
