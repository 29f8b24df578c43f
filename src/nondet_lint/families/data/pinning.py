"""ND303 (hub models and datasets not pinned to a revision) and ND304 (datasets built by
listing a directory whose contents can change).

Both need the text of an argument: a hub id and its revision, a data directory.  What
the module itself says is decided here; a constant imported from another module of the
project (``from config import REVISION``) is looked up in that module's facts in pass 2.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import asdict, dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from nondet_lint.analysis.dataflow import Binding, ScopeIndex, last_name, literal_strings, statement_of
from nondet_lint.analysis.moduleview import call_arg, has_double_star, is_none, spellings
from nondet_lint.analysis.values import (
    CONFIG, IMPORTED, LITERAL, LOCAL, NONE, UNKNOWN, Text, Values, config_defaults, module_constants,
)
from nondet_lint.check import Check
from nondet_lint.context import FileContext
from nondet_lint.facts import ModuleFact
from nondet_lint.families.data.context import DataContext
from nondet_lint.families.data.listings import Listings
from nondet_lint.families.data.urls import BRANCH_ADVICE, url_ref
from nondet_lint.types import Finding
from nondet_lint.walk import children
from nondet_lint.ruledata import RuleSet

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_TAG = re.compile(r"^v?\d+(\.\d+)*([.+-][0-9A-Za-z.]+)?$")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")

# callees of these packages are never project modules, whose facts pass 2 would consult
_NOT_PROJECT_ROOTS = frozenset({"builtins", *getattr(sys, "stdlib_module_names", ())})


def is_pinned_ref(ref: str) -> bool:
    """A 40-hex commit, or a version tag (``v1.2``, ``1.0.0``): both count as pinned."""
    return bool(_COMMIT.match(ref) or _TAG.match(ref))


def _arg(call: cst.Call, spec: Mapping[str, Any]) -> Optional[cst.BaseExpression]:
    found = call_arg(call, spec.get("pos"), spec.get("kw"))
    return found.value if found is not None else None


@dataclass(frozen=True)
class StringConstants(ModuleFact):
    """A module's top-level string constants (``values.module_constants``), for the ND303 /
    ND304 candidates of modules that import them."""

    key = "data_constants"

    values: Mapping[str, Optional[str]]  # name -> its text, None for ``NAME = None``

    def to_json(self) -> Dict[str, Any]:
        return dict(self.values)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "StringConstants":
        return cls(dict(data))


@dataclass(frozen=True)
class FolderParam:
    """The argument of a function or class that it lists as a data folder (ND304)."""

    param: str  # its name
    position: Optional[int]  # its position among the positional arguments, None if keyword-only
    api: str  # the listing call it reaches, shown in the message


@dataclass(frozen=True)
class DataFolderParams(ModuleFact):
    """The module's top-level functions and classes that list a folder they are given, by
    name: other modules that call them with a fixed folder are judged in pass 2."""

    key = "data_folder_params"

    params: Mapping[str, FolderParam]

    def to_json(self) -> Dict[str, Any]:
        return {name: asdict(param) for name, param in self.params.items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DataFolderParams":
        return cls({name: FolderParam(spec["param"], spec["position"], spec["api"]) for name, spec in data.items()})


@dataclass(frozen=True)
class ConfigDefaults(ModuleFact):
    """The string defaults a configuration module sets on a config object it builds
    (``config.dataset = "wmt17_translate/de-en"`` on an ``ml_collections.ConfigDict``), for
    the ND303 candidates that read ``config.<attribute>`` in pass 2."""

    key = "data_config_defaults"

    values: Mapping[str, Optional[str]]  # attribute -> its default text, None for ``None``

    def to_json(self) -> Dict[str, Any]:
        return dict(self.values)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ConfigDefaults":
        return cls(dict(data))


def _is_self_attribute(target: cst.BaseExpression, name: str) -> bool:
    return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self" and target.attr.value == name


def _values_of_self_attribute(target: cst.BaseExpression, value: cst.BaseExpression, name: str) -> List[cst.BaseExpression]:
    """What an assignment gives ``self.<name>``: ``self.root = root``, also unpacked from a
    tuple of the same length (``self.root, self.split = root, split``)."""
    if _is_self_attribute(target, name):
        return [value]
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) and len(target.elements) == len(value.elements):
        if any(isinstance(element, cst.StarredElement) for element in (*target.elements, *value.elements)):
            return []
        return [v.value for t, v in zip(target.elements, value.elements) if _is_self_attribute(t.value, name)]
    return []


def _text_dict(text: Text) -> Dict[str, Any]:
    return asdict(text)


def _looked_up(text: Mapping[str, Any], project: Any, path: str = "") -> Text:
    """An imported constant replaced by its value from the project's facts; an attribute
    of a configuration (read in ``path``) by its default in the nearest configuration files."""
    if text["kind"] == CONFIG:
        return _config_default(project, text["name"], path)
    if text["kind"] != IMPORTED:
        return Text(text["kind"], text["value"], text["module"], text["name"], tuple(text["fragments"]))
    record = project.module(text["module"]) if project is not None else None
    stored = record.facts.get(StringConstants) if record is not None else None
    constants = stored.values if stored is not None else {}
    if text["name"] not in constants:
        return Text(UNKNOWN)
    value = constants[text["name"]]
    return Text(NONE) if value is None else Text(LITERAL, value, fragments=(value,))


def _config_default(project: Any, attribute: str, path: str) -> Text:
    """The one default (a string or None) that the configuration files nearest to ``path``
    give ``attribute``: those in its folder or below, else in the folder above, and so on
    up to the root; unknown when there are none, or when the nearest ones disagree."""
    found: List[Tuple[str, Optional[str]]] = []
    for record in project if project is not None else ():
        defaults = record.facts.get(ConfigDefaults)
        if defaults is not None and attribute in defaults.values:
            found.append((os.path.dirname(os.path.abspath(record.path)), defaults.values[attribute]))
    folder = os.path.dirname(os.path.abspath(path))
    while found:
        values = {value for where, value in found if where == folder or where.startswith(folder + os.sep)}
        if len(values) > 1:
            return Text(UNKNOWN)
        if values:
            value = values.pop()
            return Text(NONE) if value is None else Text(LITERAL, value, fragments=(value,))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return Text(UNKNOWN)


class ModuleConstants(Check):
    """Records the module's top-level string constants and the string defaults it gives a
    configuration object or its command-line options (``add_argument("--data",
    default="data/imagenet")``, absl flags, dataclass fields): facts for the modules that
    read ``args.data`` of a parser built here."""

    def finish(self) -> None:
        constants = module_constants(self.ctx.module)
        if constants:
            self.ctx.facts.put(StringConstants(constants))
        dctx = DataContext.of(self.ctx)
        builders = self.ctx.rules["ND303"].data.get("config_builders", ()) if "ND303" in self.ctx.rules else ()
        defaults = config_defaults(self.ctx.module, dctx, builders) if builders else {}
        for name, text in Values(dctx, ()).option_defaults().items():
            if text.kind == LITERAL and text.value:
                defaults.setdefault(name, text.value)
            elif text.kind == NONE:
                defaults.setdefault(name, None)
        if defaults:
            self.ctx.facts.put(ConfigDefaults(defaults))


# ---- ND303 ------------------------------------------------------------------------------
def hub_verdict(mode: str, target: Text, ref: Text, data: Mapping[str, Any]) -> Optional[Dict[str, str]]:
    """Message values when the fetch is not pinned, else None (also None when unsure)."""
    if mode == "get_file":
        return {"target": target.value or "the file", "ref": "whatever the URL serves (no `file_hash=`)",
                "advice": "pass `file_hash=` with the file's SHA-256"} if ref.kind in (NONE, "absent") else None
    if target.kind != LITERAL or not target.value:
        return None  # unknown or local: not known to be a hub id
    if mode == "tfds":
        return tfds_verdict(target.value)
    if mode == "torch_hub":
        repo, _, branch = target.value.partition(":")
        if "/" not in repo or is_local(repo, data):
            return None
        if branch and is_pinned_ref(branch):
            return None
        state = f"branch `{branch}`" if branch else "its default branch"
        return {"target": repo, "ref": state, "advice": "add `:<tag or commit>` to the repository"}
    if mode == "timm":
        prefix = next((p for p in data.get("timm_prefixes", ()) if target.value.startswith(p)), None)
        if prefix is None:
            return None
        repo, _, branch = target.value[len(prefix):].partition("@")
        if branch and is_pinned_ref(branch):
            return None
        state = f"revision `{branch}`" if branch else "its default branch"
        return {"target": repo, "ref": state, "advice": "append `@<commit hash>` to the hub id"}
    if is_local(target.value, data) or target.value in data.get("local_builders", ()) and mode == "dataset":
        return None
    if ref.kind == LITERAL and is_pinned_ref(ref.value):
        return None
    if ref.kind in (UNKNOWN, IMPORTED, CONFIG, LOCAL):
        return None  # a revision chosen at run time: the user's explicit choice
    state = f"branch `{ref.value}`" if ref.kind == LITERAL else "its default branch (no `revision=`)"
    return {"target": target.value, "ref": state, "advice": "pass `revision=` with a commit hash"}


def tfds_verdict(name: str) -> Optional[Dict[str, str]]:
    """A TFDS dataset name with no ``:version`` (``"mnist"``, ``"wmt17_translate/de-en"``)."""
    if ":" in name or name.startswith(("/", ".", "~")):
        return None  # versioned, or a path
    dataset = name.split("/")[0]
    return {"target": name, "ref": "whatever version the installed TFDS defines (no `:version` in the name)",
            "advice": f"name the version (`\"{dataset}:<major>.*.*\"`, or the full version)"}


def is_local(value: str, data: Mapping[str, Any]) -> bool:
    """A filesystem path rather than a hub id (``org/name`` or ``name``)."""
    if value.startswith((".", "/", "~")) or "\\" in value or re.match(r"^[A-Za-z]:", value):
        return True
    if not _HUB_ID.match(value):
        return True
    if value.lower().endswith(tuple(data.get("local_extensions", ()))):
        return True
    first = value.split("/", 1)[0] if "/" in value else ""
    return first.lower() in data.get("local_dirs", ())


@dataclass(frozen=True)
class HubCandidate:
    """An ND303 candidate whose id or revision is a constant of another module (its
    deferred payload): looked up in that module's facts in pass 2."""

    api: str  # the call, as shown in the message
    mode: str
    target: Mapping[str, Any]  # the id, as ``Text`` fields
    ref: Mapping[str, Any]  # the revision, as ``Text`` fields

    def to_json(self) -> Dict[str, Any]:
        return {"api": self.api, "mode": self.mode, "target": dict(self.target), "ref": dict(self.ref)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "HubCandidate":
        return cls(data["api"], data["mode"], data["target"], data["ref"])


@dataclass(frozen=True)
class FolderCandidate:
    """An ND304 candidate whose folder is a constant of another module (its deferred payload)."""

    api: str
    path: Mapping[str, Any]  # the folder, as ``Text`` fields
    shown: str  # the folder expression, as shown in the message

    def to_json(self) -> Dict[str, Any]:
        return {"api": self.api, "path": dict(self.path), "shown": self.shown}


@dataclass(frozen=True)
class ImportedFolderCandidate:
    """An ND304 candidate: a call of another module's class or function, which pass 2 asks
    whether it takes a data folder (its deferred payload)."""

    module: str
    name: str
    arguments: Mapping[str, Any]  # parameter name or position -> {"text", "shown"}

    def to_json(self) -> Dict[str, Any]:
        return {"imported": {"module": self.module, "name": self.name}, "arguments": dict(self.arguments)}


def folder_candidate(data: Mapping[str, Any]) -> Union[FolderCandidate, ImportedFolderCandidate]:
    """The ND304 payload read back, in whichever of its two forms it was stored."""
    if "imported" in data:
        return ImportedFolderCandidate(data["imported"]["module"], data["imported"]["name"], data["arguments"])
    return FolderCandidate(data["api"], data["path"], data["shown"])


class HubRevision(Check):
    """ND303: models, datasets and files fetched at whatever revision is current."""

    codes = ("ND303",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.candidates: List[Tuple[cst.Call, str, str, Mapping[str, Any]]] = []
        data = self.data("ND303")
        self.calls: Dict[str, Tuple[str, Mapping[str, Any]]] = {}
        for table in data.get("calls", ()):
            for name in table["names"]:
                self.calls[name] = (table.get("mode", "revision"), table)
        self.spellings = spellings(ctx, self.calls, ("from_pretrained",))

    def visit_Call(self, node: cst.Call) -> None:
        if last_name(node.func) not in self.spellings or has_double_star(node):
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "from_pretrained":
            table = self._from_pretrained(func.value)
            if table is not None:
                owner = self.ctx.qualname(func.value) or ""
                self.candidates.append((node, f"{owner.rsplit('.', 1)[-1]}.from_pretrained", "revision", table))
            return
        name = self.ctx.qualname(func)
        if name in self.calls:
            mode, table = self.calls[name]
            self.candidates.append((node, name, mode, table))

    def _from_pretrained(self, owner: cst.BaseExpression) -> Optional[Mapping[str, Any]]:
        data = self.data("ND303")
        name = self.ctx.qualname(owner)
        if name is None:
            return None
        packages = tuple(data.get("from_pretrained_packages", ()))
        if not name.split(".")[0] in packages and not self._local_subclass(name, packages):
            return None
        overrides: Sequence[Mapping[str, Any]] = data.get("from_pretrained_overrides", ())
        for override in overrides:
            if name.startswith(override["prefix"]):
                return override
        default: Mapping[str, Any] = data.get("from_pretrained", {})
        return default

    def _local_subclass(self, name: str, packages: Sequence[str]) -> bool:
        """A class of this module derived from a hub-aware class (``PreTrainedModel``)."""
        short = name.rsplit(".", 1)[-1]
        for stmt in self.ctx.module.body:
            if isinstance(stmt, cst.ClassDef) and stmt.name.value == short:
                return any((self.ctx.qualname(base.value) or "").split(".")[0] in packages for base in stmt.bases)
        return False

    def finish(self) -> None:
        if not self.candidates:
            return
        data = self.data("ND303")
        dctx = DataContext.of(self.ctx)
        values = Values(dctx, data.get("path_calls", ()))
        for call, api, mode, table in self.candidates:
            target = values.text(_arg(call, table.get("id", {})))
            if mode == "get_file":
                given = [_arg(call, spec) for spec in table.get("hash", ())]
                ref = Text("present") if any(g is not None and not is_none(g) for g in given) else Text("absent")
                source = _arg(call, table.get("origin", {})) or _arg(call, table.get("id", {}))
                origin = values.text(source)
                shown = origin.value if origin.kind == LITERAL and origin.value else (self.ctx.code_for(source) if source is not None else "the file")
                shown = shown if len(shown) <= 70 else shown[:67] + "..."
                branch, pinned = url_ref(data.get("urls", {}), _url_start(origin))
                if branch is not None:
                    self.ctx.report(call, "ND303", api=_display(api), target=shown, ref=f"branch `{branch}` named in the URL",
                                    advice=BRANCH_ADVICE)
                    continue
                if pinned:
                    continue  # a release tag or a commit in the URL
                target = Text(LITERAL, shown)
            elif mode in ("torch_hub", "timm"):
                source = _arg(call, {"kw": "source"})
                if source is not None and values.text(source).value == "local":
                    continue
                ref = Text(UNKNOWN)
            else:
                revision = _arg(call, {"kw": table.get("revision", "revision")})
                ref = Text("absent") if revision is None else values.text(revision)
            short = _display(api)
            if IMPORTED in (target.kind, ref.kind) or CONFIG in (target.kind, ref.kind):
                self.ctx.defer(call, "ND303", **HubCandidate(short, mode, _text_dict(target), _text_dict(ref)).to_json())
                continue
            verdict = hub_verdict(mode, target, ref, data)
            if verdict is not None:
                self.ctx.report(call, "ND303", None, api=short, **verdict)

    @classmethod
    def resolve(cls, project: Any, deferred: List[Any], rules: RuleSet) -> Iterable[Finding]:
        rule = rules["ND303"]
        for item in deferred:
            candidate = HubCandidate.from_json(item.payload)
            target, ref = _looked_up(candidate.target, project, item.path), _looked_up(candidate.ref, project, item.path)
            verdict = hub_verdict(candidate.mode, target, ref, rule.data)
            if verdict is not None:
                message = rule.format_message(api=candidate.api, **verdict)
                yield Finding(item.path, item.line, item.col, "ND303", message, item.end_line, item.end_col)


def _url_start(text: Text) -> str:
    """The known start of a URL: the whole literal, or the literal it begins with
    (``"https://.../releases/download/v0.6/" + name``)."""
    start = text.value if text.kind == LITERAL else (text.fragments[0] if text.fragments else "")
    return start if re.match(r"^(https?|ftp)://", start) else ""


def _display(api: str) -> str:
    return api.replace("tensorflow.", "tf.")


# ---- ND304 ------------------------------------------------------------------------------
_DATE = re.compile(r"(19|20)\d{2}[-_.]?(0[1-9]|1[0-2])[-_.]?([0-2]\d|3[01])")
_VERSION = re.compile(r"(^|[-_.])v\d+([._]\d+)*($|[-_.])", re.IGNORECASE)
_HASH = re.compile(r"^(?=.*\d)(?=.*[a-f])[0-9a-f]{7,40}$")


def versioned(fragments: Iterable[str]) -> bool:
    """A path component that names a version, a date or a commit (``v3``, ``2024-05-01``)."""
    for fragment in fragments:
        for part in re.split(r"[/\\]", fragment):
            if _VERSION.search(part) or _DATE.search(part) or _HASH.match(part):
                return True
    return False


class DirectoryDataset(Check):
    """ND304: a dataset made of whatever files a directory holds when the run starts."""

    codes = ("ND304",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        data = self.data("ND304")
        self.datasets = {name: table for table in data.get("directory_datasets", ()) for name in table["names"]}
        self.methods = {table["method"]: table for table in data.get("directory_methods", ())}
        # evidence that the files are pinned (read per call and per string: kept here)
        self.checksum_prefixes = tuple(data.get("checksum_prefixes", ()))
        self.checksum_calls = data.get("checksum_calls", ())
        # downloads that check a digest when given one (torchvision's ``download_url(...,
        # md5=...)``): by the called name's last part, since projects re-export them
        self.checksum_arguments = {
            name: (entry["arg"], entry.get("pos")) for entry in data.get("checksum_arguments", ()) for name in entry["names"]
        }
        self.dvc_calls = data.get("dvc_calls", ())
        self.manifest_words = tuple(data.get("manifest_words", ()))
        listing = self.ctx.rules["ND301"].data if "ND301" in self.ctx.rules else {}
        self.listing_spellings = spellings(ctx, listing.get("functions", ()), listing.get("path_methods", ()))
        self.builders: List[Tuple[cst.Call, str, Mapping[str, Any]]] = []
        self.listings: List[cst.Call] = []
        self.imported_datasets: List[Tuple[cst.Call, str]] = []
        self.evidence: List[cst.CSTNode] = []  # checksum calls, DVC reads, manifest names
        self.pins: List[FrozenSet[str]] = []  # the path words each piece of evidence names
        self.pending: List[Tuple[cst.Call, str, str, FrozenSet[str]]] = []  # unversioned folders, with their path words

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = self.ctx.qualname(func)
        if name is not None and name in self.datasets:
            self.builders.append((node, name, self.datasets[name]))
        elif type(func) is cst.Attribute and func.attr.value in self.methods and name is None:  # (``type()``: no subclasses)
            self.builders.append((node, func.attr.value, self.methods[func.attr.value]))
        elif (func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None) in self.listing_spellings:
            self.listings.append(node)
        elif (
            name and "." in name and node.args and name.partition(".")[0] not in _NOT_PROJECT_ROOTS
            and name.rpartition(".")[0] != self.ctx.module_name  # this module's own: its call sites are judged here
        ):
            self.imported_datasets.append((node, name))
        if name and (name.startswith(self.checksum_prefixes) or name in self.checksum_calls or self._checks_digest(node, name)):
            self.evidence.append(node)
        if name in self.dvc_calls and any(a.keyword is not None and a.keyword.value == "rev" for a in node.args):
            self.evidence.append(node)

    def _checks_digest(self, call: cst.Call, name: str) -> bool:
        """A download given a digest to check (``md5=...``, not a literal ``None``)."""
        spec = self.checksum_arguments.get(name.rpartition(".")[2])
        if spec is None:
            return False
        given = call_arg(call, spec[1], spec[0])
        return given is not None and not is_none(given.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        text = node.value.lower()
        if any(word in text for word in self.manifest_words):
            self.evidence.append(node)

    def finish(self) -> None:
        if not (self.builders or self.listings or self.imported_datasets):
            return
        data = self.data("ND304")
        dctx = DataContext.of(self.ctx)
        self.pins = [self._evidence_words(dctx, node) for node in self.evidence]
        if any(not words for words in self.pins):
            return  # a checksum or manifest that names no folder: it may cover any of them
        values = Values(dctx, self.ctx.rules["ND303"].data.get("path_calls", ()) if "ND303" in self.ctx.rules else ())
        for call, name in self.imported_datasets if not self.pins else ():
            self._defer_imported(dctx, values, call, name)
        for call, api, table in self.builders:
            if table.get("other_prefixes") and self._other_library(values, call, table):
                continue
            spec = table.get("path", {"pos": 0})
            folder = _arg(call, spec)
            if folder is None and self._forwards_arguments(dctx, call):
                self._judge_forwarded(dctx, values, call, api.rsplit(".", 1)[-1], spec)
                continue
            self._decide(dctx, values, call, api.rsplit(".", 1)[-1], folder)
        if self.listings:
            listings = Listings(dctx, self.ctx.rules["ND301"].data)
            for call in self.listings:
                listed = listings.name(call)
                if listed is None or not self._is_data(dctx, call, data):
                    continue
                path: Optional[cst.BaseExpression]
                if listed.startswith("pathlib.") and isinstance(call.func, cst.Attribute):
                    path = call.func.value  # the folder is the receiver; the argument is a pattern
                else:
                    path = call.args[0].value if call.args and call.args[0].keyword is None else None
                self._decide(dctx, values, call, listed.replace("pathlib.Path.", "Path.").replace("tensorflow.", "tf."), path)
        self._report_unpinned()

    def _decide(self, dctx: DataContext, values: Values, call: cst.Call, api: str,
                expr: Optional[cst.BaseExpression], through: Optional[str] = None) -> None:
        """Report unless the folder is pinned.  A folder the function is given (a
        parameter, ``self.root``) is its caller's choice: the calls of that function in
        this module are judged instead, at the call."""
        if self._output_folder(dctx, expr) or self._option_without_default(values, expr) or self._from_command_line(dctx, expr):
            return
        if self._working_folder(values, expr) or self._unpacked_here(dctx, call, expr):
            return
        caller = self._given_by_caller(dctx, expr) if expr is not None else None
        known: Tuple[str, ...] = ()
        if expr is not None and caller is not None and caller != "cycle":
            if caller not in ("self", "config"):
                if through is None:
                    self._judge_callers(dctx, values, call, api, caller)
                return
            root = self._configured_root(dctx, values, call, api, expr, through)
            if root is None:
                return  # chosen at run time with no default here, or judged at the object's creation
            known = root
        shown = self.ctx.code_for(expr) if expr is not None else "the folder"
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        api = f"{through} -> {api}" if through else api
        path = values.text(expr)
        if path.kind == IMPORTED:
            if not self.pins:
                self.ctx.defer(call, "ND304", **FolderCandidate(api, _text_dict(path), shown).to_json())
            return
        fragments = known + (path.fragments or ((path.value,) if path.value else ()))
        if not versioned(fragments):
            self.pending.append((call, api, shown, frozenset(_path_words(fragments, self.data("ND304")))))

    @staticmethod
    def _other_library(values: Values, call: cst.Call, table: Mapping[str, Any]) -> bool:
        """``create_dataset("torch/cifar10", root=...)``: a name that hands the dataset to
        another library (not a folder walk); unknown names count as folders."""
        name = values.text(_arg(call, table.get("name", {})))
        return name.kind == LITERAL and name.value.lower().startswith(tuple(table.get("other_prefixes", ())))

    # ---- what the folder is, when an option, a config or the object holds it -------------
    def _configured_root(self, dctx: DataContext, values: Values, call: cst.Call, api: str,
                         expr: cst.BaseExpression, through: Optional[str]) -> Optional[Tuple[str, ...]]:
        """The known text of ``args.data`` (its option's default) or ``self.root`` (what
        ``__init__`` stores: a literal, or its parameter's default; the calls that create
        the object in this module are judged at those calls instead)."""
        for node in _attributes(expr):
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                value = self._stored_in_init(node)
                if value is None:
                    continue
                found = self._init_value(dctx, values, call, api, value, through)
                if found is not None:
                    return found
                continue
            text = values.text(node)
            if text.kind in (LITERAL, LOCAL) and (text.value or text.fragments):
                return text.fragments or (text.value,)
            if text.kind == CONFIG and not self.pins:
                # an option or config attribute declared in another module: its default
                # there decides (pass 2, ``_config_default``)
                shown = self.ctx.code_for(expr)
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                named = f"{through} -> {api}" if through else api
                self.ctx.defer(call, "ND304", **FolderCandidate(named, _text_dict(text), shown).to_json())
                return None
        return None

    def _stored_in_init(self, attribute: cst.Attribute) -> Optional[cst.BaseExpression]:
        """``X`` of the one ``self.<name> = X`` in the ``__init__`` of the enclosing class."""
        klass = self.ctx.parent(attribute)
        while klass is not None and not isinstance(klass, cst.ClassDef):
            klass = self.ctx.parent(klass)
        if klass is None:
            return None
        body = klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ()
        init = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
        if init is None:
            return None
        found: List[cst.BaseExpression] = []
        for stmt in init.body.body if isinstance(init.body, cst.IndentedBlock) else ():
            for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
                pairs: List[Tuple[cst.BaseExpression, cst.BaseExpression]]
                if isinstance(small, cst.Assign):
                    pairs = [(t.target, small.value) for t in small.targets]
                elif isinstance(small, cst.AnnAssign) and small.value is not None:
                    pairs = [(small.target, small.value)]
                else:
                    continue
                found.extend(value for target, value in pairs for value in _values_of_self_attribute(target, value, attribute.attr.value))
        return found[0] if len(found) == 1 else None

    def _init_value(self, dctx: DataContext, values: Values, call: cst.Call, api: str,
                    value: cst.BaseExpression, through: Optional[str]) -> Optional[Tuple[str, ...]]:
        if isinstance(value, cst.Name):
            init = dctx.flow._function_of(value)
            param = _param(init, value.value) if init is not None else None
            if param is not None:
                if through is None and self._judged_at_creation(dctx, values, init, call, api, value):  # type: ignore[arg-type]
                    return None
                default = values.text(param.default) if param.default is not None else None
                if default is not None and default.kind in (LITERAL, LOCAL) and (default.value or default.fragments):
                    return default.fragments or (default.value,)
                return None
        text = values.text(value)
        if text.kind in (LITERAL, LOCAL) and (text.value or text.fragments):
            return text.fragments or (text.value,)
        return None

    def _judged_at_creation(self, dctx: DataContext, values: Values, init: cst.FunctionDef, call: cst.Call,
                            api: str, value: cst.Name) -> bool:
        """``Data("/mnt/x")``: the calls of the class in this module that give the folder
        are judged at those calls; True unless a call relies on the parameter's default
        (``Data()``), which is then the folder judged at the listing.  A class that no
        call of this module creates (a library's dataset class) leaves its folder to its
        callers, like a function's parameter: its default is a placeholder the caller
        overrides, not a dataset the class fixes; the callers in other modules that give
        a folder are judged in pass 2 (``DataFolderParams``)."""
        position = _position(init, value.value)
        every = dctx.call_sites(init)
        sites = [site for site in every if call_arg(site, position, value.value) is not None]
        block = self.ctx.parent(init)
        owner = self.ctx.parent(block) if block is not None else None
        if not every:
            if isinstance(owner, cst.ClassDef) and self._top_level(owner):
                known = self.ctx.facts.get(DataFolderParams)
                param = FolderParam(value.value, position, api)
                self.ctx.facts.put(DataFolderParams({**(known.params if known is not None else {}), owner.name.value: param}))
            return True
        for site in sites:
            given = call_arg(site, position, value.value)
            self._decide(dctx, values, site, api, given.value, through=owner.name.value)  # type: ignore[union-attr]
        return len(sites) == len(every)

    def _report_unpinned(self) -> None:
        """Report the folders no checksum or manifest of this module names: evidence
        covers a folder when it names one of the words that tell that folder from the
        module's other folders (``val`` of ``/data/imagenet/val``), or names only what they
        all share (``imagenet``)."""
        shared = frozenset.intersection(*(words for *_, words in self.pending)) if len(self.pending) > 1 else frozenset()
        for call, api, shown, words in self.pending:
            own = words - shared
            if not any(pin & own or (pin & words and pin <= shared) for pin in self.pins):
                self.ctx.report(call, "ND304", api=api, path=shown)

    def _evidence_words(self, dctx: DataContext, node: cst.CSTNode) -> FrozenSet[str]:
        """Path words of the statement holding a piece of pinning evidence and of the
        values and loops its names come from (two steps): what it covers. Empty when it
        names no folder (a helper that hashes whatever path it is given)."""
        texts: List[str] = []
        todo: List[Tuple[cst.CSTNode, int]] = [(_header(statement_of(node, self.ctx.parent)), 0)]
        while todo:
            current, depth = todo.pop()
            texts.extend(t for t in literal_strings(current) if re.search(r"[/\\.]", t))
            if depth >= 2:
                continue
            index = dctx.index(current)
            names = [current] if isinstance(current, cst.Name) else index.nodes_within(current, (cst.Name,))
            for name in names:
                for binding in index.bindings_of(name.value):
                    source = getattr(binding.statement, "iter", None) if binding.kind in ("for", "comp") else binding.value
                    if source is not None and binding.kind != "import":
                        todo.append((source, depth + 1))
        return frozenset(_path_words(texts, self.data("ND304")))

    def _output_folder(self, dctx: DataContext, expr: Optional[cst.BaseExpression]) -> bool:
        """A folder this function creates or empties before listing it (``os.makedirs``,
        ``shutil.rmtree``): the program's own output, not data it was given."""
        if not isinstance(expr, cst.Name):
            return False
        data = self.data("ND304")
        makers, methods = frozenset(data.get("output_makers", ())), frozenset(data.get("output_methods", ()))
        index = dctx.index(expr)
        for call in index.calls:
            if index.position(call) >= index.position(expr):
                continue
            if dctx.qualname(call.func) in makers and call.args:
                target = call.args[0].value
            elif isinstance(call.func, cst.Attribute) and call.func.attr.value in methods:
                target = call.func.value
            else:
                continue
            if isinstance(target, cst.Name) and target.value == expr.value:
                return True
        return False

    @staticmethod
    def _working_folder(values: Values, expr: Optional[cst.BaseExpression]) -> bool:
        """``ImageFolder(".")``: the folder the program is started in, which the user
        picks at each run like an option with no default; the code fixes no dataset."""
        if expr is None:
            return False
        text = values.text(expr)
        return text.kind == LITERAL and text.value in (".", "./")

    def _unpacked_here(self, dctx: DataContext, call: cst.Call, expr: Optional[cst.BaseExpression]) -> bool:
        """The folder holds what an archive this function unpacks before the listing
        (``ZipFile(path).extractall(tmp_dir)`` then ``glob(path[:-4] + "/*.jpg")``): its
        contents are the archive's, which only pinning that download fixes (ND303)."""
        if expr is None:
            return False
        data = self.data("ND304")
        calls, methods = frozenset(data.get("unpack_calls", ())), frozenset(data.get("unpack_methods", ()))
        index = dctx.index(call)
        folder = _names_with_sources(index, expr)
        for unpack in index.calls:
            if index.position(unpack) >= index.position(call):
                continue
            method = unpack.func.attr.value if isinstance(unpack.func, cst.Attribute) else None
            if method in methods or dctx.qualname(unpack.func) in calls:
                if _local_names(index, unpack) & folder:
                    return True
        return False

    @staticmethod
    def _option_without_default(values: Values, expr: Optional[cst.BaseExpression]) -> bool:
        """``args.samples_dir`` / ``FLAGS.data_dir`` of an option this module declares with
        no default (``required=True``, ``default=None``): the user names the folder at each
        run, so no value is known to judge (a tool's input, not a dataset this code fixes)."""
        if expr is None:
            return False
        for node in _attributes(expr):
            if (
                isinstance(node, cst.Attribute) and not (isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"))
                and values.declares_option(node.attr.value)
                and values.option_defaults().get(node.attr.value, Text(NONE)).kind == NONE
            ):
                return True
        return False

    def _from_command_line(self, dctx: DataContext, expr: Optional[cst.BaseExpression], depth: int = 0) -> bool:
        """``sys.argv[1]`` (also below it, ``os.path.join(sys.argv[1], "x")``, or through a
        name every binding of which is one): a command-line argument, which has no default;
        the user names the folder at each run, like an option with no default."""
        if expr is None or depth > 4:
            return False
        if isinstance(expr, cst.Subscript):
            return dctx.qualname(expr.value) in frozenset(self.data("ND304").get("command_line", ()))
        if isinstance(expr, cst.Name):
            bindings = dctx.index(expr).bindings_of(expr.value)
            return bool(bindings) and all(
                b.kind == "assign" and b.value is not None and self._from_command_line(dctx, b.value, depth + 1) for b in bindings
            )
        if isinstance(expr, cst.Call):
            parts: List[cst.BaseExpression] = [arg.value for arg in expr.args]
        elif isinstance(expr, cst.BinaryOperation):
            parts = [expr.left, expr.right]
        elif isinstance(expr, cst.FormattedString):
            parts = [part.expression for part in expr.parts if isinstance(part, cst.FormattedStringExpression)]
        else:
            return False
        return any(self._from_command_line(dctx, part, depth + 1) for part in parts)

    def _given_by_caller(self, dctx: DataContext, expr: cst.BaseExpression, depth: int = 0, active: FrozenSet[str] = frozenset()) -> Optional[str]:
        """The parameter a folder expression is made from, when the function is given its
        folder: a parameter (``root``, ``os.path.join(root, "x")``, ``root / "x"``, an
        f-string of it, a local bound to such a value, a loop over parameter values), or
        ``"self"`` / ``"config"`` when it comes from the object or a configuration
        (``self.root``, ``params["data_dir"]``, ``cfg.data_dir``): then nobody here chose it."""
        if depth > 6:
            return None
        if isinstance(expr, cst.Name):
            if expr.value == "self":
                return "self"
            if expr.value in active:
                return "cycle"  # ``root = search(root)``: the other bindings decide
            index = dctx.index(expr)
            bindings = [b for b in index.bindings_of(expr.value) if b.kind != "augassign"]
            while not bindings and isinstance(index.scope, cst.FunctionDef):
                index = dctx.index(index.scope)  # a free variable of a nested function
                bindings = [b for b in index.bindings_of(expr.value) if b.kind != "augassign"]
            if not bindings:
                return None
            found = None
            for binding in bindings:
                if binding.kind == "param":
                    found = found or expr.value
                    continue
                if binding.kind in ("for", "comp"):
                    source = getattr(binding.statement, "iter", None)
                elif binding.kind in ("assign", "walrus", "with"):
                    source = binding.value
                    if isinstance(source, cst.List) and not source.elements:
                        source = self._filled_from(dctx, expr.value, binding)
                else:
                    return None
                inner = self._given_by_caller(dctx, source, depth + 1, active | {expr.value}) if source is not None else None
                if inner is None:
                    return None
                if inner == "cycle":
                    continue
                found = found or ("config" if inner in ("self", "config") or binding.kind in ("for", "comp") else inner)
            return found
        if isinstance(expr, (cst.Attribute, cst.Subscript)):
            inner = self._given_by_caller(dctx, expr.value, depth + 1, active)
            return None if inner is None else ("self" if inner == "self" else "config")
        if isinstance(expr, cst.Call):
            func = expr.func
            parts = [a.value for a in expr.args]
            if isinstance(func, cst.Attribute) and dctx.qualname(func) is None:
                parts.append(func.value)  # ``pattern.split(",")``, ``root.joinpath(...)``
            answers = [self._given_by_caller(dctx, part, depth + 1, active) for part in parts]
            named = [f for f in answers if f not in (None, "cycle")]
            return named[0] if named else ("cycle" if "cycle" in answers else None)
        if isinstance(expr, (cst.BooleanOperation, cst.IfExp, cst.List, cst.Tuple)):
            if isinstance(expr, cst.BooleanOperation):
                parts = [expr.left, expr.right]
            elif isinstance(expr, cst.IfExp):
                parts = [expr.body, expr.orelse]
            else:
                parts = [e.value for e in expr.elements]
            answers = [self._given_by_caller(dctx, part, depth + 1, active) for part in parts]
            named = [f for f in answers if f not in (None, "cycle")]
            return named[0] if named else ("cycle" if "cycle" in answers else None)
        if isinstance(expr, cst.BinaryOperation):
            answers = [self._given_by_caller(dctx, part, depth + 1, active) for part in (expr.left, expr.right)]
            named = [f for f in answers if f not in (None, "cycle")]
            return named[0] if named else ("cycle" if "cycle" in answers else None)
        if isinstance(expr, cst.FormattedString):
            for part in expr.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    inner = self._given_by_caller(dctx, part.expression, depth + 1, active)
                    if inner is not None:
                        return inner
        return None

    def _filled_from(self, dctx: DataContext, name: str, binding: Binding) -> Optional[cst.BaseExpression]:
        """``files = []`` then ``files.extend(x)`` / ``files.append(x)``: the ``x`` (as a tuple)."""
        index = dctx.index(binding.statement)
        parts = []
        for load in index.reads_after(name, binding.statement):
            attribute = self.ctx.parent(load)
            if not isinstance(attribute, cst.Attribute):
                continue
            call = self.ctx.parent(attribute)
            if isinstance(call, cst.Call) and call.func is attribute and attribute.attr.value in ("append", "extend") and call.args:
                parts.append(cst.Element(call.args[0].value))
        return cst.Tuple(parts) if parts else None

    def _judge_callers(self, dctx: DataContext, values: Values, call: cst.Call, api: str, param: str) -> None:
        function = dctx.flow._function_of(call)
        if function is None:
            return
        block = self.ctx.parent(function)
        owner = self.ctx.parent(block) if block is not None else None
        method = isinstance(owner, cst.ClassDef)
        params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        if param not in params and param not in [p.name.value for p in function.params.kwonly_params]:
            return
        position = params.index(param) - (1 if method else 0) if param in params else None
        name = function.name.value
        if name == "__init__" and isinstance(owner, cst.ClassDef):
            name = owner.name.value
        if (method and function.name.value == "__init__" and self._top_level(owner)) or (not method and self._top_level(function)):
            # other modules that call it are judged in pass 2
            known = self.ctx.facts.get(DataFolderParams)
            folders = {**(known.params if known is not None else {}), name: FolderParam(param, position, api)}
            self.ctx.facts.put(DataFolderParams(folders))
        for site in dctx.call_sites(function):
            given = call_arg(site, position, param)
            if given is not None:
                self._decide(dctx, values, site, api, given.value, through=name)

    def _forwards_arguments(self, dctx: DataContext, call: cst.Call) -> bool:
        """``def ImageFolder(*args, **kwargs): return torchImageFolder(*args, **kwargs)``:
        the call gives no folder of its own but passes on the ``*args`` / ``**kwargs`` its
        function was given, so the folder is the caller's choice (a re-export)."""
        function = dctx.flow._function_of(call)
        if function is None:
            return False
        stars = {
            param.name.value
            for param in (function.params.star_arg, function.params.star_kwarg)
            if isinstance(param, cst.Param)
        }
        return any(arg.star and isinstance(arg.value, cst.Name) and arg.value.value in stars for arg in call.args)

    def _judge_forwarded(self, dctx: DataContext, values: Values, call: cst.Call, api: str, spec: Mapping[str, Any]) -> None:
        """The folder of a forwarding function is judged where it is called: its calls in
        this module here, those in other modules in pass 2 (``DataFolderParams``), at the
        position and keyword the wrapped dataset takes its folder."""
        function = dctx.flow._function_of(call)
        if function is None:
            return
        block = self.ctx.parent(function)
        owner = self.ctx.parent(block) if block is not None else None
        method = isinstance(owner, cst.ClassDef)
        name = function.name.value
        if method and name == "__init__":
            name = owner.name.value  # type: ignore[union-attr]
        position, keyword = spec.get("pos"), spec.get("kw")
        if (method and function.name.value == "__init__" and self._top_level(owner)) or (not method and self._top_level(function)):
            known = self.ctx.facts.get(DataFolderParams)
            param = FolderParam(str(keyword or ""), position, api)
            self.ctx.facts.put(DataFolderParams({**(known.params if known is not None else {}), name: param}))
        for site in dctx.call_sites(function):
            given = call_arg(site, position, keyword)
            if given is not None:
                self._decide(dctx, values, site, api, given.value, through=name)

    def _defer_imported(self, dctx: DataContext, values: Values, call: cst.Call, name: str) -> None:
        """``OtherModuleDataset("/data/x")``: whether that class lists the folder it is
        given is known from its module's facts in pass 2.  Only arguments that look like
        a folder are kept (any argument of a callee named like a dataset)."""
        dataset_named = name.rsplit(".", 1)[-1].endswith(tuple(self.data("ND304").get("dataset_suffixes", ())))
        arguments: Dict[str, Any] = {}
        positional = 0
        for arg in call.args:
            if arg.star:
                return
            key = arg.keyword.value if arg.keyword is not None else str(positional)
            if arg.keyword is None:
                positional += 1
            if not (dataset_named or self._looks_like_folder(dctx, values, arg.value)):
                continue
            if self._given_by_caller(dctx, arg.value) is not None:
                continue  # this module's caller decides: not judged here
            text = values.text(arg.value)
            shown = self.ctx.code_for(arg.value)
            arguments[key] = {"text": _text_dict(text), "shown": shown if len(shown) <= 60 else shown[:57] + "..."}
        if arguments:
            module, _, short = name.rpartition(".")
            self.ctx.defer(call, "ND304", **ImportedFolderCandidate(module, short, arguments).to_json())

    @staticmethod
    def _looks_like_folder(dctx: DataContext, values: Values, expr: cst.BaseExpression) -> bool:
        """A path literal (``"/data/x"``), an f-string, ``os.path.join`` / ``Path`` / ``/``.
        (``type() is``: this runs for many arguments; none of these classes has subclasses.)"""
        if type(expr) is cst.SimpleString:
            text = expr.value
            return "/" in text or "\\" in text
        if type(expr) is cst.FormattedString or type(expr) is cst.ConcatenatedString:
            return True
        if type(expr) is cst.BinaryOperation:
            return type(expr.operator) is cst.Divide
        if type(expr) is cst.Call:
            return dctx.qualname(expr.func) in values.path_calls
        return False

    def _top_level(self, node: Optional[cst.CSTNode]) -> bool:
        return node in self.ctx.module.body

    def _is_data(self, dctx: DataContext, call: cst.Call, data: Mapping[str, Any]) -> bool:
        """Listed files are data: data-file extensions, or inside a dataset class, or
        handed to a dataset; never checkpoints, configs or logs."""
        words = tuple(data.get("not_data_words", ()))
        texts = [t.lower() for t in self._context_strings(dctx, call)]
        if any(word in text for text in texts for word in words):
            return False
        names = frozenset(data.get("not_data_names", ()))
        folder = call.func.value if isinstance(call.func, cst.Attribute) and not dctx.qualname(call.func) else (call.args[0].value if call.args else None)
        if folder is not None and names & self._words(dctx, folder):
            return False
        extensions = {e.lower() for e in data.get("data_extensions", ())}
        not_data = {e.lower() for e in data.get("not_data_extensions", ())}
        found = {ext for text in texts for ext in _extensions(text)}
        if found & not_data and not found & extensions:
            return False
        if found & extensions:
            return True
        return self._in_dataset_class(dctx, call, data) or self._feeds_dataset(dctx, call, data)

    def _words(self, dctx: DataContext, folder: cst.BaseExpression) -> Set[str]:
        """Words of the folder expression and of what its names were bound to
        (``save_dir``, ``tmp = self.create_tempdir()``)."""
        texts = [self.ctx.code_for(folder)]
        stack: List[cst.CSTNode] = [folder]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                value = dctx.index(node).single_value(node.value)
                if value is not None:
                    texts.append(self.ctx.code_for(value))
            elif isinstance(node, (cst.Call, cst.BinaryOperation, cst.Attribute, cst.FormattedString)):
                stack.extend(children(node))
            elif isinstance(node, (cst.Arg, cst.FormattedStringExpression)):
                stack.append(node.value if isinstance(node, cst.Arg) else node.expression)
        return {word for text in texts for word in re.split(r"[^a-z0-9]+", text.lower()) if word}

    def _context_strings(self, dctx: DataContext, call: cst.Call) -> List[str]:
        """String literals of the listing's arguments, its statement, and the loop or
        comprehension that consumes it (where ``.endswith(".png")`` filters live)."""
        statement = statement_of(call, self.ctx.parent)
        texts = list(literal_strings(statement))
        parent = self.ctx.parent(call)
        if isinstance(parent, cst.For) and parent.iter is call:
            texts += [t for t in literal_strings(parent.body) if t.startswith((".", "*."))]
        return texts

    def _in_dataset_class(self, dctx: DataContext, call: cst.Call, data: Mapping[str, Any]) -> bool:
        bases = frozenset(data.get("dataset_bases", ()))
        current = self.ctx.parent(call)
        while current is not None:
            if isinstance(current, cst.ClassDef):
                return any(dctx.qualname(base.value) in bases for base in current.bases)
            current = self.ctx.parent(current)
        return False

    def _feeds_dataset(self, dctx: DataContext, call: cst.Call, data: Mapping[str, Any]) -> bool:
        sinks = frozenset(data.get("dataset_calls", ()))
        for reached in dctx.flow.reached_calls(call):
            name = dctx.qualname(reached.func) or ""
            if name in sinks or name.rsplit(".", 1)[-1].endswith(tuple(data.get("dataset_suffixes", ()))):
                return True
        return False

    @classmethod
    def resolve(cls, project: Any, deferred: List[Any], rules: RuleSet) -> Iterable[Finding]:
        rule = rules["ND304"]
        for item in deferred:
            candidate = folder_candidate(item.payload)
            if isinstance(candidate, ImportedFolderCandidate):
                found = _imported_folder(project, candidate)
                if found is not None:
                    api, argument = found
                    path = _looked_up(argument["text"], project)
                    if not versioned(path.fragments or ((path.value,) if path.value else ())):
                        message = rule.format_message(api=api, path=argument["shown"])
                        yield Finding(item.path, item.line, item.col, "ND304", message, item.end_line, item.end_col)
                continue
            path = _looked_up(candidate.path, project, item.path)
            if candidate.path["kind"] == CONFIG and path.kind != LITERAL:
                continue  # an option with no known default: chosen at run time
            if not versioned(path.fragments or ((path.value,) if path.value else ())):
                message = rule.format_message(api=candidate.api, path=candidate.shown)
                yield Finding(item.path, item.line, item.col, "ND304", message, item.end_line, item.end_col)


def _imported_folder(project: Any, candidate: ImportedFolderCandidate) -> Optional[Tuple[str, Mapping[str, Any]]]:
    """The argument an imported class or function lists as its data folder, if it does."""
    record = project.module(candidate.module) if project is not None else None
    if record is None:
        return None
    name = candidate.name
    folders = record.facts.get(DataFolderParams)
    spec = folders.params.get(name) if folders is not None else None
    if spec is None:
        return None
    arguments = candidate.arguments
    argument = arguments.get(spec.param) or (arguments.get(str(spec.position)) if spec.position is not None else None)
    if argument is None:
        return None
    return f"{name} -> {spec.api}", argument


def _local_names(index: ScopeIndex, expr: cst.CSTNode) -> Set[str]:
    """The names of values the function binds (its parameters and locals, not ``self``,
    modules or attribute names) that ``expr`` reads."""
    found = [expr] if isinstance(expr, cst.Name) else index.nodes_within(expr, (cst.Name,))
    return {
        n.value for n in found if n.value not in ("self", "cls")
        and any(b.kind != "import" for b in index.bindings_of(n.value))
    }


def _names_with_sources(index: ScopeIndex, expr: cst.BaseExpression) -> Set[str]:
    """The local names ``expr`` reads, and those the values bound to them read (one
    step): ``unzipped = archive[:-4]`` makes ``unzipped + "/*.jpg"`` read ``archive`` too."""
    names = _local_names(index, expr)
    for name in list(names):
        for binding in index.bindings_of(name):
            if binding.value is not None and binding.kind == "assign":
                names |= _local_names(index, binding.value)
    return names


def _attributes(expr: cst.CSTNode) -> List[cst.BaseExpression]:
    """The attribute and item reads inside a folder expression (``args.data``, ``cfg["root"]``)."""
    out: List[cst.BaseExpression] = []
    stack: List[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            out.append(node)
        elif isinstance(node, cst.Call):
            stack.extend(arg.value for arg in node.args)
        else:
            stack.extend(children(node))
    return out


def _param(function: cst.FunctionDef, name: str) -> Optional[cst.Param]:
    params = function.params
    return next((p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.name.value == name), None)


def _header(statement: cst.CSTNode) -> cst.CSTNode:
    """The part of a compound statement that holds its expression (``if check(path):``,
    not the branch below, whose error message names no folder); a simple statement whole."""
    if isinstance(statement, (cst.If, cst.While)):
        return statement.test
    if isinstance(statement, cst.For):
        return statement.iter
    if isinstance(statement, cst.With) and len(statement.items) == 1:
        return statement.items[0].item
    return statement


def _position(function: cst.FunctionDef, name: str) -> Optional[int]:
    """Where a call passes ``name`` positionally (``self`` not counted)."""
    names = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    return names.index(name) - 1 if name in names and names[0] == "self" else (names.index(name) if name in names else None)


def _path_words(texts: Iterable[str], data: Mapping[str, Any]) -> Set[str]:
    """The words of path texts that tell one folder from another (not extensions, not
    the words that name a manifest or checksum)."""
    generic = {w.lower() for key in ("data_extensions", "not_data_extensions", "manifest_words", "evidence_words") for w in data.get(key, ())}
    return {w for text in texts for w in re.split(r"[^a-z0-9]+", text.lower()) if len(w) > 1 and w not in generic}


def _extensions(text: str) -> List[str]:
    found = re.findall(r"\.([a-z0-9]+)", text)
    bare = text.strip("*. ")
    if re.fullmatch(r"[a-z0-9]{2,5}", bare):
        found.append(bare)
    return found

