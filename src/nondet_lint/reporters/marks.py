"""Which findings the human formats mark ``[*]``: a module of its own, so that each
reporter reads it without importing the package that picks reporters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Tuple

from nondet_lint.types import SAFE, UNSAFE, Finding


@dataclass(frozen=True)
class FixMarks:
    """Which findings ``--fix`` would fix now (``[*]``) and which only with ``--unsafe-fixes``."""

    fixable: FrozenSet[str] = frozenset()  # codes whose fixes may be applied (fixable/unfixable)
    unsafe: bool = False  # --unsafe-fixes given

    def _applies(self, finding: Finding, applicabilities: Tuple[str, ...]) -> bool:
        fix = finding.fix
        return fix is not None and bool(fix.edits) and fix.applicability in applicabilities and finding.code in self.fixable

    def marked(self, finding: Finding) -> bool:
        """``[*]``: the fix is applied by ``--fix`` with the flags given."""
        return self._applies(finding, (SAFE, UNSAFE) if self.unsafe else (SAFE,))

    def hidden(self, finding: Finding) -> bool:
        """An unsafe fix that ``--unsafe-fixes`` would add."""
        return not self.unsafe and self._applies(finding, (UNSAFE,))
