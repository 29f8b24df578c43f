"""Fetch the evaluation set: every repository of repos.toml, pinned, unpacked into
``benchmarks/.eval/repos/<name>/`` (git-ignored).

    .venv/bin/python benchmarks/eval/fetch.py                 # all repositories but the held-out ones
    .venv/bin/python benchmarks/eval/fetch.py flax cleanrl    # some of them
    .venv/bin/python benchmarks/eval/fetch.py --heldout       # the held-out repositories
    .venv/bin/python benchmarks/eval/fetch.py --no-build-isolation

Each archive comes from ``pip download --no-deps`` (``--no-binary :all:`` for an sdist,
``--only-binary :all:`` for a wheel) into ``benchmarks/.eval/archives/``; an archive already
there is reused, so running it again fetches nothing. pip prepares an sdist's metadata to
check its name and version, which builds its build dependencies in an isolated environment;
``--no-build-isolation`` skips that (much faster) where the build backends are installed, and
falls back to an isolated build when the installed backend cannot read the sdist.

The unpacked root is the linter's project root: where it has no ``pyproject.toml``,
``setup.py`` or ``setup.cfg`` (a wheel), a minimal ``pyproject.toml`` is written.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
STORE = HERE.parent / ".eval"
ARCHIVES = STORE / "archives"
REPOS = STORE / "repos"
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
SDIST_SUFFIXES = (".tar.gz", ".zip", ".tar.bz2")


def load_repos() -> List[Dict[str, object]]:
    """The repositories of repos.toml, in file order."""
    with open(HERE / "repos.toml", "rb") as handle:
        return list(tomllib.load(handle)["repo"])


def selected(repos: List[Dict[str, object]], names: List[str], heldout: bool) -> List[Dict[str, object]]:
    """The repositories a command works on: those named, else the held-out ones (``heldout``)
    or the others."""
    if names:
        return [repo for repo in repos if repo["name"] in names]
    return [repo for repo in repos if bool(repo.get("heldout")) == heldout]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def find_archive(package: str, version: str, kind: str) -> Path | None:
    """The downloaded archive of ``package==version`` (names compared with ``-``/``_``/``.`` alike)."""
    if not ARCHIVES.is_dir():
        return None
    for path in sorted(ARCHIVES.iterdir()):
        if kind == "wheel":
            if not path.name.endswith(".whl"):
                continue
            dist, _, rest = path.name.partition("-")
            found_version = rest.split("-", 1)[0]
        else:
            suffix = next((s for s in SDIST_SUFFIXES if path.name.endswith(s)), None)
            if suffix is None:
                continue
            dist, _, found_version = path.name[: -len(suffix)].rpartition("-")
        if _normal(dist) == _normal(package) and found_version == version:
            return path
    return None


def download(package: str, version: str, kind: str, no_build_isolation: bool) -> Path:
    """``pip download`` the pinned archive unless it is already there."""
    found = find_archive(package, version, kind)
    if found:
        return found
    ARCHIVES.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(ARCHIVES)]
    command += ["--only-binary", ":all:"] if kind == "wheel" else ["--no-binary", ":all:"]
    command.append(f"{package}=={version}")
    attempts = [command]
    if no_build_isolation and kind != "wheel":
        # the installed build backend can be too old for the sdist's metadata: then isolate
        attempts.insert(0, [*command[:-1], "--no-build-isolation", command[-1]])
    for attempt in attempts:
        if subprocess.run(attempt).returncode == 0:
            break
    else:
        raise SystemExit(f"pip could not download {package}=={version} ({kind}); its output is above")
    found = find_archive(package, version, kind)
    if found is None:
        raise SystemExit(f"pip downloaded nothing that looks like {package}-{version} ({kind}) into {ARCHIVES}")
    return found


def unpack(archive: Path, target: Path) -> None:
    """Unpack ``archive`` into ``target``; an sdist's single top folder is stripped."""
    staging = target.with_name(target.name + ".partial")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(staging)
    else:
        with tarfile.open(archive) as handle:
            handle.extractall(staging, filter="data")
    entries = list(staging.iterdir())
    content = entries[0] if len(entries) == 1 and entries[0].is_dir() and not archive.name.endswith(".whl") else staging
    if not any((content / marker).is_file() for marker in ROOT_MARKERS):
        (content / "pyproject.toml").write_text(f"[project]\nname = '{target.name}-eval'\n")
    content.rename(target)
    if staging.exists():
        shutil.rmtree(staging)


def fetch(repo: Dict[str, object], no_build_isolation: bool = False) -> Path:
    """The unpacked root of one repository, fetched and unpacked if needed."""
    name, package, version, kind = (str(repo[key]) for key in ("name", "package", "version", "kind"))
    target = REPOS / name
    stamp = target / ".eval-version"
    if stamp.is_file() and stamp.read_text().strip() == f"{package}=={version}":
        return target
    archive = download(package, version, kind, no_build_isolation)
    if target.exists():
        shutil.rmtree(target)
    REPOS.mkdir(parents=True, exist_ok=True)
    unpack(archive, target)
    stamp.write_text(f"{package}=={version}\n")
    return target


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="repositories to fetch (default: all of repos.toml but the held-out ones)")
    parser.add_argument("--heldout", action="store_true", help="fetch the held-out repositories")
    parser.add_argument("--no-build-isolation", action="store_true", help="pass --no-build-isolation to pip download")
    args = parser.parse_args(argv)
    repos = load_repos()
    known = {str(repo["name"]) for repo in repos}
    unknown = sorted(set(args.names) - known)
    if unknown:
        parser.error(f"not in repos.toml: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    for repo in selected(repos, args.names, args.heldout):
        root = fetch(repo, args.no_build_isolation)
        print(f"{repo['name']:<20} {repo['package'] + '==' + str(repo['version']):<30} {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
