"""The per-file context shared by the data checks (ND3xx): the general ``ModuleView``
plus the order flow and string typing configured from the tables in ``rules/data.toml``,
built once per file however many data checks run.
"""

from __future__ import annotations

from nondet_lint.analysis.dataflow import FlowTables, OrderFlow
from nondet_lint.analysis.moduleview import ModuleView
from nondet_lint.analysis.texttypes import TextTypes
from nondet_lint.context import FileContext


class DataContext(ModuleView):
    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        data = ctx.rules["ND301"].data if "ND301" in ctx.rules else {}
        flow = {**data.get("flow", {}), "kept_first_picks": data.get("kept_first_picks", ())}
        self.flow = OrderFlow(FlowTables.from_data(flow), self.qualname, ctx.parent, self.index_for, self.call_sites)
        text = dict(ctx.rules["ND302"].data.get("types", {})) if "ND302" in ctx.rules else {}
        text.setdefault("set_makers", flow.get("set_makers", ()))
        text.setdefault("set_methods", flow.get("set_methods", ()))
        self.text = TextTypes(text, self.qualname, ctx.parent, self.index_for)

    @classmethod
    def of(cls, ctx: FileContext) -> "DataContext":
        # kept on the context, not in a module-level WeakKeyDictionary: its value refers to
        # its key, so no context (and no syntax tree) was ever freed
        found = ctx.shared.get("data_context")
        if found is None:
            found = ctx.shared["data_context"] = cls(ctx)
        return found
