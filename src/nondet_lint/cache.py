"""Pass-1 results cached on disk, keyed by file content, so an unchanged file is not parsed again.

Layout (like ruff's ``.ruff_cache``): ``<cache dir>/v2/<settings>/<entry>.json``.
``settings`` digests everything besides the file that can change pass 1: the tool's
version and the text of its own code, the Python and libcst versions, the config
(``Config.fingerprint()``), the enabled codes and the rule data (bundled and extra rule
files). ``entry`` digests the path as reported; an entry holds the file's module name
and content digest and is used only when all three still match, so each file keeps one
entry that is overwritten when it changes (the cache does not grow with edits).

Entries are plain text, never pickle (the cache sits inside the scanned tree; reading it
cannot run code): a JSON line naming the file (path, content digest, module) and the
digest of the rest, then the result as ``FileResult.to_text`` writes it, whose facts are
decoded only when pass 2 asks for them (a warm run never does).  A damaged or foreign
entry is a miss: the digest of the rest is checked on reading, since the facts are not
decoded then. Writes go to a temporary
file renamed into place, so concurrent runs (pre-commit runs hooks in parallel) never
see half an entry; a cache that cannot be written (read-only checkout, full disk) is
silently skipped. The folder carries a ``.gitignore`` of ``*`` and a ``CACHEDIR.TAG``;
only the ``KEEP`` newest settings folders are kept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, FrozenSet, Iterable, List, Optional, Sequence, Tuple

FORMAT = "v2"
KEEP = 4  # settings folders kept (several configs, e.g. a pre-commit hook and CI, may alternate)
ENV_DIR = "NONDET_LINT_CACHE_DIR"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by nondet-lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


def content_digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=20).hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The tool's version and its own source: a development checkout changes without a
    version bump, and a stale cache must never change what is reported."""
    from nondet_lint import __version__

    digest = hashlib.blake2b(__version__.encode(), digest_size=20)
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()


def rules_digest(rules: Iterable[Any]) -> str:
    """Everything the rule data says (bundled rules and extra rule files merged)."""
    payload = [sorted((k, repr(v)) for k, v in rule.__dict__.items()) for rule in rules]
    return hashlib.blake2b(repr(payload).encode(), digest_size=20).hexdigest()


def settings_digest(config: Any, rules: Iterable[Any], enabled: FrozenSet[str]) -> str:
    parts = [
        FORMAT,
        code_digest(),
        sys.version,
        _libcst_version(),
        config.fingerprint(),
        ",".join(sorted(enabled)),
        rules_digest(rules),
    ]
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=16).hexdigest()


def _libcst_version() -> str:
    """libcst's version without importing libcst (a quarter second that a warm run never
    pays otherwise) or ``importlib.metadata`` (30 ms): the text of its generated
    ``_version.py``, else the version of its distribution."""
    try:
        spec = importlib.util.find_spec("libcst")
        if spec is not None and spec.origin:
            with open(os.path.join(os.path.dirname(spec.origin), "_version.py"), "rb") as handle:
                return hashlib.blake2b(handle.read(), digest_size=16).hexdigest()
    except (ImportError, OSError, ValueError):
        pass
    return _dist_version("libcst")


def _dist_version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # not installed as a distribution: the code digest still counts
        return "?"


def resolve_dir(config: Any, override: Optional[str] = None) -> str:
    """The cache folder: ``--cache-dir``, else ``$NONDET_LINT_CACHE_DIR``, else the
    configured ``cache-dir`` (relative to the project root). A file with no project marker
    above it is its own project, but its folder (``/tmp``, a downloads folder) is not ours
    to write in: as ruff does, the cache then goes in the current folder."""
    chosen = override or os.environ.get(ENV_DIR) or config.cache_dir
    if os.path.isabs(chosen):
        return chosen
    explicit = bool(override or os.environ.get(ENV_DIR))
    base = config.root if config.project_found and not explicit else os.getcwd()
    return os.path.join(base, chosen)


class Cache:
    """One run's view of the cache: fixed settings, entries looked up by path."""

    def __init__(self, directory: str, settings: str) -> None:
        self.root = directory
        self.folder = os.path.join(directory, FORMAT, settings)
        self.settings = settings
        self.writable = True
        self._ready = False
        # what pass 1 read, in order: (batch, path, module name, is package, content
        # digest or None); pass 2 depends on nothing else (with the settings)
        self.inputs: List[Tuple[int, str, str, bool, Optional[str]]] = []
        self.batches = 0

    def record(self, path: str, module_name: str, is_package: bool, digest: Optional[str]) -> None:
        self.inputs.append((self.batches, path, module_name, is_package, digest))

    def decision(self, extra: Sequence[Any], decide: Callable[[], List[Any]]) -> List[Any]:
        """Pass 2's findings: stored for these exact inputs, else ``decide()``d and stored.

        A warm run over unchanged files then skips pass 2 too. Runs that report other
        paths keep entries of their own (named by the reported paths)."""
        from nondet_lint.types import Finding

        if any(item[-1] is None for item in self.inputs):
            return decide()  # something could not be read: nothing to key it on
        key = hashlib.blake2b(
            json.dumps([self.settings, self.inputs, [f.to_dict() for f in extra]]).encode("utf-8", "surrogateescape"),
            digest_size=20,
        ).hexdigest()
        reported = json.dumps([item[1] for item in self.inputs if item[0] == 0]).encode("utf-8", "surrogateescape")
        name = os.path.join(self.folder, "run-" + hashlib.blake2b(reported, digest_size=16).hexdigest() + ".json")
        try:
            with open(name, "r", encoding="utf-8") as handle:
                entry = json.load(handle)
            if isinstance(entry, dict) and entry.get("key") == key:
                return [Finding.from_dict(item) for item in entry["findings"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        findings = decide()
        self._write(name, json.dumps({"key": key, "findings": [f.to_dict() for f in findings]}).encode("utf-8"))
        return findings

    def _entry(self, path: str) -> str:
        name = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
        return os.path.join(self.folder, name + ".json")

    def get(self, path: str, module_name: str, is_package: bool, digest: str) -> Optional[str]:
        """The cached pass-1 result (``FileResult.to_text()``), or None."""
        try:
            with open(self._entry(path), "rb") as handle:
                head = json.loads(handle.readline())
                result = handle.read()
            if (
                not isinstance(head, dict)
                or head.get("path") != path
                or head.get("content") != digest
                or head.get("module") != [module_name, is_package]
                or head.get("result") != _bytes_digest(result)
            ):
                return None
            return result.decode("utf-8")
        except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
            return None

    def put(self, path: str, module_name: str, is_package: bool, digest: str, result_text: str) -> None:
        if not self.writable:
            return
        try:
            result = result_text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a path undecodable as UTF-8): not stored
            return
        head = {"path": path, "content": digest, "module": [module_name, is_package], "result": _bytes_digest(result)}
        self._write(self._entry(path), json.dumps(head).encode("utf-8") + b"\n" + result)

    def _write(self, target: str, data: bytes) -> None:
        if not self.writable:
            return
        try:
            self._prepare()
            fd, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(temporary, target)
            except BaseException:
                _remove(temporary)
                raise
        except OSError:
            self.writable = False  # read-only checkout, full disk: run on without a cache

    def _prepare(self) -> None:
        if self._ready:
            return
        new_settings = not os.path.isdir(self.folder)
        os.makedirs(self.folder, exist_ok=True)
        if not os.path.exists(os.path.join(self.root, ".gitignore")):
            _write_small(os.path.join(self.root, ".gitignore"), "# created by nondet-lint\n*\n")
            _write_small(os.path.join(self.root, "CACHEDIR.TAG"), CACHEDIR_TAG)
        if new_settings:
            self._prune()
        self._ready = True

    def _prune(self) -> None:
        """Keep the ``KEEP`` most recently created settings folders: each new version or
        config starts a folder, and old ones would pile up."""
        parent = os.path.dirname(self.folder)
        try:
            folders = [os.path.join(parent, name) for name in os.listdir(parent) if not name.startswith(".")]
            folders.sort(key=lambda path: os.stat(path).st_mtime, reverse=True)
        except OSError:
            return
        for old in folders[KEEP:]:
            if old != self.folder:
                shutil.rmtree(old, ignore_errors=True)


def _bytes_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _write_small(path: str, text: str) -> None:
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        pass


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def open_cache(config: Any, rules: Iterable[Any], enabled: FrozenSet[str], directory: str) -> Cache:
    return Cache(directory, settings_digest(config, rules, enabled))
