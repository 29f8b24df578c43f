"""Client settings and the configuration of each file.

Settings come in ``initializationOptions`` and ``workspace/didChangeConfiguration``, as
an object with these keys, or nested under ``"nondet-lint"`` / ``"nondetLint"``::

    {"select": ["ND1"], "ignore": ["ND107"], "extendSelect": [], "extendIgnore": [],
     "config": "ci/nondet-lint.toml"}

They act like the command line flags of the same names: on top of ``[tool.nondet-lint]``
of the nearest ``pyproject.toml`` (or of the ``config`` file given instead).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

from nondet_lint.config import Config, discover_config, validate_codes, with_overrides
from nondet_lint.types import UsageError

SECTIONS = ("nondet-lint", "nondetLint")
LIST_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "extendSelect": "extend_select",
    "extend-select": "extend_select",
    "extendIgnore": "extend_ignore",
    "extend-ignore": "extend_ignore",
}
PATH_KEYS = ("config", "configPath", "config-path")


@dataclass(frozen=True)
class Settings:
    select: Optional[Tuple[str, ...]] = None
    ignore: Optional[Tuple[str, ...]] = None
    extend_select: Optional[Tuple[str, ...]] = None
    extend_ignore: Optional[Tuple[str, ...]] = None
    config: Optional[str] = None


def parse_settings(data: Any) -> Settings:
    """Settings from what the client sent; ``UsageError`` names a key of the wrong type.
    Unknown keys are left alone (a client may send all of its settings)."""
    if data is None:
        return Settings()
    if not isinstance(data, dict):
        raise UsageError("settings must be an object")
    for section in SECTIONS:
        if isinstance(data.get(section), dict):
            data = data[section]
            break
    values: Dict[str, Any] = {}
    for key, attribute in LIST_KEYS.items():
        if data.get(key) is None:
            continue
        value = data[key]
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
            raise UsageError(f"setting '{key}' must be a list of rule codes")
        values[attribute] = tuple(value)
    for key in PATH_KEYS:
        if data.get(key) is not None:
            if not isinstance(data[key], str):
                raise UsageError(f"setting '{key}' must be a path")
            values["config"] = data[key]
    return Settings(**values)


def config_for(path: str, settings: Settings, known_codes: Sequence[str], base: Optional[str] = None) -> Config:
    """The configuration the CLI would use for ``path``, with the client's settings on top.
    A relative ``config`` path is taken from ``base`` (the first workspace folder)."""
    config_file = settings.config
    if config_file and not os.path.isabs(config_file) and base:
        config_file = os.path.join(base, config_file)
    config = discover_config([str(Path(path))], config_file, known_codes)
    overrides = {
        "select": settings.select,
        "ignore": settings.ignore,
        "extend_select": settings.extend_select,
        "extend_ignore": settings.extend_ignore,
    }
    present = {key: list(value) for key, value in overrides.items() if value is not None}
    validate_codes(present, known_codes, "client settings")
    return with_overrides(config, **present)
