"""The fix of ND101 / ND102 / ND104 / ND105: one block of seed calls in the entry point.

Which RNGs a program leaves unseeded is known only in pass 2, where there is no tree to
build edits on; so pass 1 builds, for an entry-point module, the block for every set of
RNGs the module or its program may deal with (all subsets of up to four, else each alone
and all together), and pass 2 picks the smallest one that seeds what the program needs.  The
statements and imports are placed by ``fixes.builders.insert_after_imports``, which reuses
the module's aliases and never repeats a statement that is there.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint.analysis.seedoption import seed_option
from nondet_lint.families.seeding.events import EventKind
from nondet_lint.families.seeding.facts import FunctionFacts, OptionSeedBlocks
from nondet_lint.families.seeding.tables import RNG_ORDER, TF_KERAS, Tables, rng_root
from nondet_lint.names import dotted_name
from nondet_lint.fixes.builders import insert_after_imports, insert_in_block, merged_edits, name_for, top_level
from nondet_lint.positions import node_spans
from nondet_lint.types import Edit


PROGRAM_RNGS = ("python", "numpy", "torch")


@dataclass(frozen=True)
class GraphSwitch:
    """Where a module turns TensorFlow's graph mode on: the statement ``index`` of ``body``
    (the module, or the block of a function, a main block, ...) is the switch's call."""

    body: Union[cst.Module, cst.IndentedBlock]
    index: int


def seed_blocks(ctx: Any, tables: Tables, fns: Mapping[str, FunctionFacts], first_draw: int = -1) -> Dict[str, Tuple[Edit, ...]]:
    """Block edits keyed by ``"python+numpy"``-style RNG sets.  ``first_draw``: the first
    top-level statement that draws from an RNG as the module runs (-1: none)."""
    blocks: Dict[str, Tuple[Edit, ...]] = {}
    for chosen in _rng_sets(ctx, tables, fns):
        edits = block_edits(ctx, tables, chosen, first_draw)
        if edits:
            blocks["+".join(chosen)] = tuple(edits)
    return blocks


def seed_apis(ctx: Any, tables: Tables) -> Dict[str, str]:
    """The seed call a block of this module inserts for each RNG whose call is not the rule
    data's ``seed_api`` (a TensorFlow 1 or graph-mode module), as messages name it."""
    out = {}
    for rng, info in tables.rngs.items():
        call = _seed_call(ctx, info)
        if call is not None:
            out[rng] = call["seed_api"]
    return out


def option_blocks(ctx: Any, tables: Tables, fns: Mapping[str, FunctionFacts]) -> Optional[OptionSeedBlocks]:
    """The same blocks seeded with the entry point's seed option (``args.seed``), placed
    where its value is known (after ``args = parser.parse_args()``), with the function
    that holds them and what another module must offer for the value to exist (checked
    in pass 2); None without one.  A graph-mode switch later in that same block moves
    them after it."""
    option = seed_option(ctx)
    if option is None:
        return None
    after = option.after
    switch = graph_switch(ctx, tables, -1)
    if switch is not None and switch.body is option.body:
        after = max(after, switch.index)
    anchor = option.body.body[max(after, 0)]
    spans = node_spans(ctx.module, [anchor], ctx.module.code, ctx.parents)
    blocks: Dict[str, Tuple[Edit, ...]] = {}
    for chosen in _rng_sets(ctx, tables, fns):
        code = _block_code(ctx, tables, chosen, option.value)
        if code is None:
            continue
        statements, imports = code
        edits = insert_in_block(ctx.module, option.body, after, [s for _, s in statements], [i for _, i in imports], spans, top_level(ctx))
        if edits:
            blocks["+".join(chosen)] = tuple(edits)
    if not blocks:
        return None
    return OptionSeedBlocks(option.function, option.value, blocks, option.needs)


def _rng_sets(ctx: Any, tables: Tables, fns: Mapping[str, FunctionFacts]) -> List[Sequence[str]]:
    """The sets of RNGs a block may have to seed: all subsets of those the module deals
    with and the common ones (up to four), else each alone and all together."""
    relevant = set()
    for facts in fns.values():
        for event in facts.events:
            if event.kind is EventKind.USE:
                relevant.add(event.rng)
            elif event.kind is EventKind.SEED:
                relevant.update(event.rngs)
    for rng in RNG_ORDER:
        root = rng_root(tables, rng)
        if root and ctx.imports.mentions(root):
            relevant.add(rng)
    if TF_KERAS in relevant:
        relevant.discard(TF_KERAS)
        relevant.add("keras")
    # the program's library modules may draw from RNGs the entry module never touches (its
    # findings carry this block): the common ones are always offered
    relevant.update(PROGRAM_RNGS)
    ordered = [rng for rng in RNG_ORDER if rng in relevant]
    if len(ordered) <= 4:
        return [c for size in range(1, len(ordered) + 1) for c in combinations(ordered, size)]
    return [(rng,) for rng in ordered] + [tuple(ordered)]


def block_edits(ctx: Any, tables: Tables, rngs: Sequence[str], first_draw: int = -1) -> List[Edit]:
    """Edits inserting the seed calls of ``rngs`` (none when one cannot be spelled)."""
    code = _block_code(ctx, tables, rngs, str(ctx.config.seed))
    if code is None:
        return []
    statements, imports = code
    top = top_level(ctx)
    graph = {rng for rng, _ in statements if _graph_seed(ctx, tables, rng)}
    switch = graph_switch(ctx, tables, first_draw) if graph else None
    if graph and switch is None:
        return []  # no place after the switch runs before the draws: a seed above it would not reach the graph
    if switch is None:
        return insert_after_imports(ctx.module, "\n".join(s for _, s in statements), [i for _, i in imports], top)
    if isinstance(switch.body, cst.Module):
        return insert_after_imports(ctx.module, "\n".join(s for _, s in statements), [i for _, i in imports], top, after=switch.index)
    # the switch runs in a function or a block: the graph's seed right after it there, the others at the top
    edits: List[Edit] = []
    rest = [s for rng, s in statements if rng not in graph]
    if rest:
        edits = insert_after_imports(ctx.module, "\n".join(rest), [i for rng, i in imports if rng not in graph], top)
        if not edits:
            return []
    there = {ctx.module.code_for_node(stmt).strip() for stmt in switch.body.body[switch.index + 1:]}
    if any(s in there for rng, s in statements if rng in graph):
        return []  # it is there already: the seed does not reach what is drawn (a repeat would not either)
    spans = node_spans(ctx.module, [switch.body.body[switch.index]], ctx.module.code, ctx.parents)
    inside = insert_in_block(ctx.module, switch.body, switch.index, [s for rng, s in statements if rng in graph],
                             [i for rng, i in imports if rng in graph], spans, top)
    if not inside:
        return []
    return merged_edits(edits + inside)


def _graph_seed(ctx: Any, tables: Tables, rng: str) -> bool:
    """Whether the seed of ``rng`` this module inserts must follow its graph-mode switch."""
    graph = tables.rngs.get(rng, {}).get("graph_seed_call")
    return graph is not None and _calls_switch(ctx, graph["after"])


def graph_switch(ctx: Any, tables: Tables, first_draw: int) -> Optional[GraphSwitch]:
    """Where the module turns graph mode on, for the block to follow: the last top-level
    switch before ``first_draw`` (-1: no top-level draw), else the first switch elsewhere
    (a function's, the main block's) that is a statement of its own; None without one."""
    key = ("graph_switch", first_draw)
    if key not in ctx.shared:
        ctx.shared[key] = _find_switch(ctx, tables, first_draw)
    found = ctx.shared[key]
    return found if isinstance(found, GraphSwitch) else None


def _switch_names(tables: Tables) -> FrozenSet[str]:
    return frozenset(name for info in tables.rngs.values() for name in info.get("graph_seed_call", {}).get("after", ()))


def _find_switch(ctx: Any, tables: Tables, first_draw: int) -> Optional[GraphSwitch]:
    names = _switch_names(tables)
    if not names:
        return None
    top: Optional[GraphSwitch] = None
    nested: Optional[GraphSwitch] = None
    for call in ctx.module_calls():
        if ctx.qualname(call.func) not in names:
            continue
        expr = ctx.parent(call)
        line = ctx.parent(expr) if isinstance(expr, cst.Expr) else None
        body = ctx.parent(line) if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
        if not isinstance(body, (cst.Module, cst.IndentedBlock)):
            continue
        index = next(i for i, stmt in enumerate(body.body) if stmt is line)
        if isinstance(body, cst.Module):
            if first_draw < 0 or index < first_draw:
                top = GraphSwitch(body, index)
        elif nested is None:
            nested = GraphSwitch(body, index)
    return top or nested


def _seed_call(ctx: Any, info: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    """The rule data's ``legacy_seed_call`` or ``graph_seed_call`` of an RNG where the
    module calls for it, else None (the RNG's own ``seed_call``)."""
    legacy = info.get("legacy_seed_call")
    if legacy and _writes_legacy_api(ctx, legacy["hint_rule"]):
        return dict(legacy)
    graph = info.get("graph_seed_call")
    if graph and _calls_switch(ctx, graph["after"]):
        return dict(graph)
    return None


def _calls_switch(ctx: Any, names: Sequence[str]) -> bool:
    known = ctx.shared.get("calls_graph_switch")
    if known is None:
        wanted = frozenset(names)
        known = ctx.shared["calls_graph_switch"] = any(ctx.qualname(call.func) in wanted for call in ctx.module_calls())
    return bool(known)


def _block_code(ctx: Any, tables: Tables, rngs: Sequence[str], value: str) -> Optional[Tuple[List[Tuple[str, str]], List[Tuple[str, str]]]]:
    """The seed calls of ``rngs`` with ``value``, and the imports they need, each with its
    RNG; None when one cannot be spelled."""
    calls = {rng: tables.rngs.get(rng, {}) for rng in rngs}
    # a call that seeds several of them (keras.utils.set_random_seed) makes the others redundant
    covered: Set[str] = set()
    for rng, info in calls.items():
        seeder = tables.seeders.get(info.get("seed_call", ""))
        if seeder is not None:
            covered.update(other for other in seeder.seeds if other != rng and other in calls)
    statements: List[Tuple[str, str]] = []
    imports: List[Tuple[str, str]] = []
    for rng in rngs:
        if rng in covered:
            continue
        info = calls[rng]
        names = [call for call in (info.get("seed_call"), *info.get("seed_call_aliases", ())) if call]
        special = _seed_call(ctx, info)
        if special is not None:
            names = [special["call"]]
        usable = [spelled for spelled in (name_for(ctx.module, name, top=top_level(ctx)) for name in names) if spelled is not None]
        if not usable:
            return None
        spelling, import_code = min(usable, key=lambda s: s[1] is not None)  # one the module binds already
        statements.append((rng, f"{spelling}({value})"))
        if import_code:
            imports.append((rng, import_code))
    return statements, imports


def _writes_legacy_api(ctx: Any, hint_rule: str) -> bool:
    """Whether the module spells a name that exists only in TensorFlow 1's main namespace
    (``tf.Session``, ``tf.placeholder``: the ``code_hint`` of ``hint_rule``'s framework
    data), not through ``tf.compat.v1``: it runs on TensorFlow 1, where
    ``tf.random.set_seed`` does not exist, so the fix seeds with ``tf.set_random_seed``,
    which every TensorFlow 1 has."""
    known = ctx.shared.get("writes_legacy_tensorflow")
    if known is None:  # asked once per block of RNGs: walk the module once
        known = ctx.shared["writes_legacy_tensorflow"] = _spells_legacy_names(ctx, hint_rule)
    return bool(known)


def _spells_legacy_names(ctx: Any, hint_rule: str) -> bool:
    rule = ctx.rules[hint_rule] if hint_rule in ctx.rules else None
    hint = (rule.data.get("frameworks", {}).get("tensorflow", {}).get("code_hint") if rule is not None else None) or {}
    names = tuple(hint.get("names", ()))
    if not names:
        return False
    exact = frozenset(n for n in names if not n.endswith("."))
    prefixes = tuple(n for n in names if n.endswith("."))
    stack: List[cst.CSTNode] = [ctx.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            name = ctx.qualname(node)
            if name is not None and (name in exact or name.startswith(prefixes)):
                # spelled through ``tf.compat.v1``: written for a version that has the alias,
                # TensorFlow 2 included, which has no ``tf.set_random_seed``
                dotted = dotted_name(node)
                if dotted is not None and not ctx.imports.via_same_api(dotted):
                    return True
        stack.extend(node.children)
    return False
