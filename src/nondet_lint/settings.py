"""``--show-settings``: every setting as resolved, and where its value comes from.

One line per key of ``[tool.nondet-lint]``, in TOML, with a comment naming its origin:
``default``, the config file's path, or ``command line``.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping, Optional, Set, TextIO

from nondet_lint import _toml
from nondet_lint.config import MARKERS, OPTIONS, Config


def _file_keys(source: Optional[str]) -> Set[str]:
    """The attributes the config file sets (it was read and checked once already)."""
    if not source:
        return set()
    document = _toml.loads(Path(source).read_text(encoding="utf-8"))
    table = document.get("tool", {}).get("nondet-lint", {}) if "tool" in document else document
    return {OPTIONS[key][0] for key in table if key in OPTIONS}


def _toml_value(value: Any) -> str:
    if isinstance(value, Mapping):
        items = ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))


def show_settings(config: Config, command_line: Mapping[str, Any], out: TextIO) -> None:
    from_file = _file_keys(config.source)
    given = {attr for attr, value in command_line.items() if value is not None}
    out.write(f"# config file: {config.source or 'none (defaults)'}\n")
    if config.project_found:
        out.write(f"# project root: {config.root}\n")
    else:
        out.write(f"# project root: none, only the given paths count (no {', '.join(MARKERS)} at or above {config.root})\n")
    names = {attr: key for key, (attr, _) in OPTIONS.items()}
    for item in fields(Config):
        if item.name not in names:
            continue
        origin = "command line" if item.name in given else config.source if item.name in from_file else "default"
        out.write(f"{names[item.name]} = {_toml_value(getattr(config, item.name))}  # {origin}\n")
