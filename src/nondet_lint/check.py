"""The base class of every check."""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Iterable, List, Mapping, Optional, Sequence, Tuple

from nondet_lint.context import FileContext
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Deferred, Finding


class Check:
    """A check reads one file's tree through ``visit_<Type>`` / ``leave_<Type>`` handlers.

    ``codes`` lists the rules it reports; a check with no codes is an analysis that only
    contributes facts (``ctx.facts``) to the project index and always runs.  A check that
    defers candidates decides them in ``resolve`` once every module is indexed.

    ``decides`` names the codes this check is the one home of (``families.registry``): it
    decides their deferred candidates, or reports them in pass 1 when they need no project
    facts.  It defaults to ``codes``; a check that only reports candidates of a code another
    check decides lists fewer.
    """

    codes: ClassVar[Tuple[str, ...]] = ()
    decides: ClassVar[Optional[Tuple[str, ...]]] = None

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    @classmethod
    def decided_codes(cls) -> Tuple[str, ...]:
        return cls.codes if cls.decides is None else cls.decides

    @classmethod
    def runs_on(cls, ctx: FileContext) -> bool:
        """Whether this check can report anything in this file (before it is walked)."""
        return True

    def visitors(self) -> Sequence[object]:
        """The objects whose handlers the walk calls: the check itself, or the parts it is
        made of."""
        return (self,)

    def data(self, code: str) -> Mapping[str, Any]:
        """The API tables of a rule, from ``rules/*.toml``."""
        return self.ctx.rules[code].data

    def finish(self) -> None:
        """Called after the whole file was walked."""

    @classmethod
    def resolve(cls, project: Any, deferred: List[Deferred], rules: RuleSet) -> Iterable[Finding]:
        """Turn this check's deferred candidates into findings, given the project facts."""
        return ()


# A check of files that are not Python (requirement files): (does it read files of this
# name?, analyze(path, text, config, rules, enabled) -> (findings, deferred candidates))
FileChecker = Tuple[Callable[[str], bool], Callable[..., Tuple[List[Finding], List[Deferred]]]]
