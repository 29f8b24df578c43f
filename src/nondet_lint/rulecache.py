"""A JSON snapshot of the parsed bundled rules, so that a run does not parse the TOML.

Python's ``tomllib`` is pure Python: the bundled rule files take about 0.2 s to parse,
a fifth of a warm run. The parsed rules are kept as JSON in ``__pycache__`` next to the
rule files (where Python keeps its own compiled files), named by a digest of the rule
texts, so an edited rule file is parsed again. Where that folder cannot be written (a
read-only installation, a zip) nothing is kept; JSON, never pickle, so a snapshot is
only ever data.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any, List, Optional, Sequence, Tuple

FORMAT = 2


def _location(texts: Sequence[Tuple[str, str]]) -> Optional[str]:
    from importlib import resources

    try:
        folder = os.fspath(resources.files("nondet_lint.rules"))
    except TypeError:  # not a folder on disk
        return None
    digest = hashlib.blake2b(repr((FORMAT, list(texts))).encode("utf-8"), digest_size=16).hexdigest()
    return os.path.join(folder, "__pycache__", f"rules-{digest}.json")


def load(texts: Sequence[Tuple[str, str]]) -> Optional[List[Any]]:
    """The rules (as data) parsed from exactly these texts, if a snapshot has them."""
    path = _location(texts)
    if path is None:
        return None
    try:
        with open(path, "r", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, list) else None


def save(texts: Sequence[Tuple[str, str]], rules: List[Any]) -> None:
    path = _location(texts)
    if path is None:
        return
    try:
        text = json.dumps(rules)
        if json.loads(text) != rules:  # something JSON cannot hold (a TOML date): keep parsing
            return
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".rules-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
    except (OSError, TypeError, ValueError):
        pass
