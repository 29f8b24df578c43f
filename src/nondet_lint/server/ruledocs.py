"""The rule documentation a diagnostic links to (``codeDescription.href``) and the
"Show documentation" command opens.

The project publishes no documentation site, so the link goes to documentation that
comes with the installed package: each rule's page, rendered from the packaged rule data
(the text of ``nondet-lint --explain CODE`` and of the hover, the same as the rule's
section of ``docs/rules.md``), written once into the user's cache folder, one folder per
version, and linked as a ``file:`` URI that editors open as a Markdown document.  Where
that folder cannot be written, diagnostics carry no link (as ruff's do for a rule without
a documentation URL); the hover still shows the rule's documentation.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Dict, Optional

from nondet_lint import __version__
from nondet_lint.docs import explain
from nondet_lint.ruledata import load_rules

_written: Dict[str, Optional[str]] = {}  # code -> its page's URI (None: cannot be written)


def docs_folder() -> Path:
    """This version's folder of rule pages in the user's cache folder."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nondet-lint" / "docs" / __version__


def rule_url(code: str) -> Optional[str]:
    """The ``file:`` URI of the rule's page, written on first use; None for an unknown
    code or a cache folder that cannot be written."""
    if code not in _written:
        _written[code] = _write_page(code)
    return _written[code]


def _write_page(code: str) -> Optional[str]:
    rules = load_rules()
    if code not in rules:
        return None
    rule = rules[code]
    page = docs_folder() / f"{code.lower()}-{rule.name}.md"
    text = explain(rule)
    try:
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            page.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=page.parent, suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(text)
                os.replace(temporary, page)  # whole or not at all: another server may read it now
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
    except OSError:
        return None
    return page.as_uri()
