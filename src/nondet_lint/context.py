"""What a check sees of the file it runs on, and how it reports.

Checks never do I/O: they read the tree, ask ``qualname`` what a name means, and call
``report`` (a finding decided here) or ``defer`` (a candidate that needs project facts,
decided after every module is indexed).  Positions are computed once, at the end of the
file, for the nodes that were reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import libcst as cst

from nondet_lint.facts import FileFacts
from nondet_lint.libcst_shim import code_for
from nondet_lint.names import ImportBindings, ImportMap, dotted_name
from nondet_lint.ruledata import RuleSet
from nondet_lint.types import Deferred as Deferred  # its home is types (no libcst); still importable here
from nondet_lint.types import Edit, Fix
from nondet_lint.walk import ModuleIndex, calls_in, nodes_in


@dataclass
class NodeEdit:
    """An edit keyed on a node: replace its text with ``content`` (or insert before/after)."""

    node: cst.CSTNode
    content: str
    where: str = "replace"  # replace | before | after


@dataclass
class PendingFix:
    """A fix before positions are known: node edits, or text edits a builder already
    positioned (``nondet_lint.fixes.builders`` module edits)."""

    title: str
    applicability: str
    edits: Sequence[Union[NodeEdit, Edit]]


@dataclass
class Pending:
    """A report waiting for the node's position."""

    node: cst.CSTNode
    code: str
    message: str
    fix: Optional[PendingFix]
    deferred: bool
    payload: Mapping[str, Any]


_SCOPES = (cst.FunctionDef, cst.Lambda)


def parameter_names(nodes: Iterable[cst.CSTNode]) -> FrozenSet[str]:
    """Parameters of the functions and lambdas among ``nodes`` (they hide imported names)."""
    names = set()
    for node in nodes:
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            params = node.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                names.add(param.name.value)
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    names.add(star.name.value)
    return frozenset(names)


_BINDINGS: Dict[int, Tuple[RuleSet, ImportBindings]] = {}


def import_bindings(rules: RuleSet) -> ImportBindings:
    """What imports bind beyond their spelling (``[ND000.data.imports]``), read once per
    rule set (cached by identity: the rules of a run never change)."""
    cached = _BINDINGS.get(id(rules))
    if cached is None or cached[0] is not rules:
        data = rules["ND000"].data.get("imports", {}) if "ND000" in rules else {}
        cached = _BINDINGS[id(rules)] = (rules, ImportBindings.from_rule_data(data))
    return cached[1]


class FileContext:
    def __init__(
        self,
        *,
        path: str,
        module: cst.Module,
        module_name: str,
        is_package: bool,
        rules: RuleSet,
        config: Any,
        enabled: FrozenSet[str],
    ) -> None:
        self.path = path
        self.module = module
        self.module_name = module_name
        self.is_package = is_package
        self.rules = rules
        self.config = config
        self.enabled = enabled
        self.imports = ImportMap(module, module_name, is_package, import_bindings(rules))
        self.ancestors: List[cst.CSTNode] = []
        self.parents: Dict[int, cst.CSTNode] = {}
        self.index = ModuleIndex()  # filled by the walk when it is among the visitors
        # facts for the project index: one typed value per kind
        self.facts = FileFacts()
        self.pending: List[Pending] = []
        self._parameters: Dict[int, FrozenSet[str]] = {}  # by function node: its parameters and those of the functions around it
        # qualname by node: many checks ask about the same call; the node is kept so that
        # its id cannot be reused by another node while this file is analyzed
        self._qualnames: Dict[int, Tuple[cst.CSTNode, Optional[str]]] = {}
        # what several checks derive from the same tree, computed once (by key)
        self.shared: Dict[str, Any] = {}

    # ---- the whole module -----------------------------------------------------------
    def module_calls(self) -> List[cst.Call]:
        """Every call in the module, in source order (from the walk's index once it ran)."""
        return self.index.calls if self.index.complete else calls_in(self.module)

    def module_assigns(self) -> List[cst.Assign]:
        """Every single-target assignment in the module, in source order."""
        if self.index.complete:
            return self.index.assigns
        return [node for node in nodes_in(self.module, cst.Assign) if len(node.targets) == 1]

    # ---- names -------------------------------------------------------------------
    def qualname(self, node: cst.BaseExpression) -> Optional[str]:
        """The fully qualified name an expression refers to (``np.random.seed`` →
        ``numpy.random.seed``), or None when it is not a resolvable name."""
        known = self._qualnames.get(id(node))
        if known is not None:
            return known[1]
        # most names are local (``x``, ``self.conv``): their root binds nothing, so there
        # is nothing to spell out or resolve, wherever the walk is (``type() is``: this
        # runs about once per name of the module, and many checks ask about each callee)
        root: cst.BaseExpression = node
        if type(node) is cst.Attribute:
            root = node.value
            while type(root) is cst.Attribute:
                root = root.value
        if type(root) is not cst.Name or not self.imports.binds(root.value):
            self._qualnames[id(node)] = (node, None)
            return None
        name = self._qualname(node)
        if self.ancestors:  # before the walk, the parameters around a node are not known yet
            self._qualnames[id(node)] = (node, name)
        return name

    def _qualname(self, node: cst.BaseExpression) -> Optional[str]:
        dotted = dotted_name(node)
        if dotted is None:
            return None
        resolved = self.imports.resolve_dotted(dotted)
        if resolved is None or not self.ancestors:
            return resolved
        # only a name that resolves can be shadowed: look for it among the parameters
        return None if self._is_parameter(dotted.partition(".")[0]) else resolved

    def _is_parameter(self, name: str) -> bool:
        """Whether ``name`` is a parameter of a function or lambda around the walk's node."""
        ancestors = self.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            if type(ancestors[index]) in _SCOPES:  # not isinstance(): ABC checks cost much on this path
                return name in self._scope_parameters(index)
        return False

    def _scope_parameters(self, index: int) -> FrozenSet[str]:
        """The parameters of the scope ``ancestors[index]`` and of the scopes around it,
        gathered once per scope (names are asked about many times inside one function)."""
        node = self.ancestors[index]
        names = self._parameters.get(id(node))
        if names is None:
            outer = next(
                (self._scope_parameters(i) for i in range(index - 1, -1, -1) if type(self.ancestors[i]) in _SCOPES),
                frozenset(),
            )
            names = self._parameters[id(node)] = outer | parameter_names((node,))
        return names

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(id(node))

    # ---- reporting -----------------------------------------------------------------
    def report(
        self,
        node: cst.CSTNode,
        code: str,
        fix: Optional[PendingFix] = None,
        **values: Any,
    ) -> None:
        """Report ``code`` at ``node``; ``values`` fill the rule's message template."""
        if code not in self.enabled:
            return
        message = self.rules[code].format_message(**values)
        self.pending.append(Pending(node, code, message, fix, False, {}))

    def defer(self, node: cst.CSTNode, code: str, fix: Optional[PendingFix] = None, **payload: Any) -> None:
        """Record a candidate for the project phase; ``payload`` must be plain data.
        ``fix`` comes back positioned as ``Deferred.fix``."""
        if code not in self.enabled:
            return
        self.pending.append(Pending(node, code, "", fix, True, payload))

    def fix(self, code: str, edits: Sequence[Union[NodeEdit, Edit]], applicability: Optional[str] = None, **values: Any) -> PendingFix:
        """A fix for ``code`` titled from its rule data; applicability defaults to the rule's."""
        rule = self.rules[code]
        kind = applicability or ("unsafe" if rule.fix == "unsafe" else "safe" if rule.fix == "safe" else "display")
        return PendingFix(rule.format_fix_title(**values), kind, edits)

    def code_for(self, node: cst.CSTNode) -> str:
        return code_for(self.module, node)


def to_edits(fix: PendingFix, spans: Mapping[int, Tuple[int, int, int, int]]) -> Fix:
    from nondet_lint.types import Fix as _Fix

    edits = []
    for edit in fix.edits:
        if isinstance(edit, Edit):  # positioned by a builder already
            edits.append(edit)
            continue
        line, col, end_line, end_col = spans[id(edit.node)]
        if edit.where == "before":
            edits.append(Edit(line, col, line, col, edit.content))
        elif edit.where == "after":
            edits.append(Edit(end_line, end_col, end_line, end_col, edit.content))
        else:
            edits.append(Edit(line, col, end_line, end_col, edit.content))
    return _Fix(fix.title, fix.applicability, tuple(sorted(edits, key=lambda e: (e.path or "", e.line, e.col, e.end_line, e.end_col))))
