"""ND303: data or weights fetched by URL with nothing that checks what arrived.

Three kinds of call, all rule data (``[ND303.data.urls]``):

- downloaders (``urlretrieve``, ``wget.download``, ``gdown.download``, and
  ``download_url_to_file`` / torchvision's ``download_url`` when their hash argument is
  missing): always a download;
- fetchers (``urlopen``, ``requests.get``): only a known ``http(s)://`` URL (a literal,
  or a value the enclosing ``if`` tests with ``.startswith("http")``) whose content
  is saved (``.write``, ``shutil.copyfileobj``) or parsed (``io.BytesIO``,
  ``Image.open``, ``json.loads``, ...) in the same function, followed through the name
  the response is bound to and loops over its chunks;
- readers (``pd.read_csv``, ``np.loadtxt``, ``tf.data.TextLineDataset``): only when given
  an ``http(s)://`` URL.

A URL holding a commit hash or a release tag is pinned, and so is a download in a
function that compares a ``hashlib`` digest (or calls torchvision's ``check_integrity``),
or in a method of a class one of whose methods does (torchvision's datasets check in
``_check_integrity`` what ``download`` fetched).
A URL naming a branch is reported whatever checks it: a checksum is not updated when
the branch moves.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Set, Tuple

import libcst as cst

from nondet_lint.analysis.moduleview import call_arg, has_double_star
from nondet_lint.analysis.values import LITERAL, Values
from nondet_lint.check import Check
from nondet_lint.families.data.context import DataContext
from nondet_lint.walk import children, nodes_in

CODE = "ND303"
BRANCH_ADVICE = "put a commit hash or a release tag in the URL instead of the branch"
_Scope = Optional[cst.FunctionDef]


def url_ref(urls: Mapping[str, Any], url: str) -> Tuple[Optional[str], bool]:
    """What a URL's text says about its revision: ``(branch, pinned)``, the branch it names
    (``/master/``) or None, and whether it holds a commit hash, a release tag or an
    immutable record (rule data ``branch_pattern`` / ``pinned_patterns``)."""
    branch = re.compile(urls.get("branch_pattern", r"$^")).search(url)
    if branch is not None:
        return branch.group("branch"), False
    return None, any(re.search(pattern, url) for pattern in urls.get("pinned_patterns", ()))


class _ScopeFacts:
    def __init__(self) -> None:
        self.hashes = False  # a hashlib call
        self.compares_digest = False  # ``==`` / ``!=`` of something named like a digest
        self.checked = False  # a checksum helper (``check_integrity``)

    @property
    def verified(self) -> bool:
        return self.checked or (self.hashes and self.compares_digest)


class UrlDownloads(Check):
    """ND303 for URL downloads (see the module docstring)."""

    codes = (CODE,)
    decides = ()  # reported on the spot; ND303's deferred candidates are pinning.HubRevision's

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        data: Mapping[str, Any] = self.data(CODE).get("urls", {})
        self.calls: Dict[str, Mapping[str, Any]] = {n: row for row in data.get("calls", ()) for n in row["names"]}
        self.savers = frozenset(data.get("save_methods", ()))
        self.save_calls = frozenset(data.get("save_calls", ()))
        self.parsers = frozenset(data.get("parse_calls", ()))
        self.hash_prefix = tuple(data.get("hash_prefixes", ()))
        self.checksum_calls = frozenset(data.get("checksum_calls", ()))
        self.digest_words = tuple(data.get("digest_words", ()))
        self.urls = data
        self.functions: List[cst.FunctionDef] = []
        self.classes: List[cst.ClassDef] = []
        self.facts: Dict[Optional[int], _ScopeFacts] = {}  # by function (None: the module)
        self.class_facts: Dict[int, _ScopeFacts] = {}  # what any method of a class does
        self.found: List[Tuple[cst.Call, str, Mapping[str, Any], _Scope, Optional[cst.ClassDef]]] = []
        # ``==`` / ``!=`` comparisons, with where they count: their code is read only in a
        # file that downloads (printing every comparison of every file cost more)
        self.comparisons: List[Tuple[cst.Comparison, List[_ScopeFacts]]] = []
        # the module's top-level functions, and calls of them by bare name with where they
        # count: a call of one that hashes (``checksum = _sha256(path)``) is a hashlib call
        self.module_functions: Dict[str, cst.FunctionDef] = {}
        self.local_calls: List[Tuple[str, List[_ScopeFacts]]] = []

    def _here(self) -> _ScopeFacts:
        key = id(self.functions[-1]) if self.functions else None
        if key not in self.facts:
            self.facts[key] = _ScopeFacts()
        return self.facts[key]

    def _verification(self) -> List[_ScopeFacts]:
        """Where a check seen here counts: the function, and its class if it is a method."""
        found = [self._here()]
        if self.classes:
            found.append(self.class_facts.setdefault(id(self.classes[-1]), _ScopeFacts()))
        return found

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self.functions and not self.classes:
            self.module_functions[node.name.value] = node
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if any(isinstance(c.operator, (cst.Equal, cst.NotEqual)) for c in node.comparisons):
            self.comparisons.append((node, self._verification()))

    def visit_Call(self, node: cst.Call) -> None:
        name = self.ctx.qualname(node.func)
        if type(node.func) is cst.Name:
            self.local_calls.append((node.func.value, self._verification()))
        if name is None:
            return
        if name.startswith(self.hash_prefix):
            for facts in self._verification():
                facts.hashes = True
        elif name in self.checksum_calls:
            for facts in self._verification():
                facts.checked = True
        elif name in self.calls and not has_double_star(node):
            scope = self.functions[-1] if self.functions else None
            self.found.append((node, name, self.calls[name], scope, self.classes[-1] if self.classes else None))

    def finish(self) -> None:
        if not self.found:
            return
        for callee, where in self.local_calls:
            helper = self.module_functions.get(callee)
            if helper is not None and self.facts.get(id(helper), _ScopeFacts()).hashes:
                for facts in where:
                    facts.hashes = True
        for comparison, where in self.comparisons:
            text = self.ctx.code_for(comparison).lower()
            if any(word in text for word in self.digest_words):  # compared with something named like a digest
                for facts in where:
                    facts.compares_digest = True
        values = Values(DataContext.of(self.ctx), ())
        for call, name, row, scope, owner in self.found:
            facts = self.facts.get(id(scope) if scope is not None else None, _ScopeFacts())
            checked_by_class = owner is not None and self.class_facts.get(id(owner), _ScopeFacts()).verified
            spec = row.get("url", {"pos": 0})
            given = call_arg(call, spec.get("pos"), spec.get("kw"))
            url = self._url(values, given.value) if given is not None else None
            shown = url if url is not None else (self.ctx.code_for(given.value) if given is not None else "the URL")
            shown = shown if len(shown) <= 70 else shown[:67] + "..."
            api = row.get("display", name)
            branch, pinned = url_ref(self.urls, url) if url is not None else (None, False)
            if branch is not None:
                self.ctx.report(call, CODE, api=api, target=shown, ref=f"branch `{branch}` named in the URL",
                                advice=BRANCH_ADVICE)
                continue
            if pinned:
                continue
            if facts.verified or checked_by_class or self._hash_given(call, row) or self._fetched_again_checked(call, given, scope):
                continue
            mode = row.get("mode", "download")
            if mode != "download" and url is None and not (given is not None and self._tested_as_url(call, given.value)):
                continue  # a URL chosen at run time: not known to be data
            if mode == "fetch" and not self._content_kept(call, scope):
                continue
            self.ctx.report(call, CODE, api=api, target=shown, ref="whatever the URL serves, with nothing that checks what arrived",
                            advice=row.get("advice", "compare a `hashlib` digest of the file after the download, or put a commit hash or a release tag in the URL"))

    def _url(self, values: Values, expr: cst.BaseExpression) -> Optional[str]:
        """The URL text when the code shows it starts with a scheme (an f-string's
        known parts joined, ``{}`` for the rest)."""
        text = values.text(expr)
        if text.kind == LITERAL and text.value:
            candidate = text.value
        elif isinstance(expr, cst.FormattedString):
            candidate = "".join(p.value if isinstance(p, cst.FormattedStringText) else "{}" for p in expr.parts)
        else:
            return None
        return candidate if re.match(r"^(https?|ftp)://", candidate) else None

    def _tested_as_url(self, call: cst.Call, expr: cst.BaseExpression) -> bool:
        """The call sits in a branch taken only for an ``http(s)://`` value that its URL is
        built from (``if data_dir.startswith("https://"): requests.get("/".join([data_dir,
        name]))``): the code itself says the value is a URL."""
        built = {n.value for n in nodes_in(expr, cst.Name)}
        index = DataContext.of(self.ctx).index(call)
        for name in list(built):
            for binding in index.bindings_of(name):
                if binding.value is not None:
                    built |= {n.value for n in nodes_in(binding.value, cst.Name)}
        child: cst.CSTNode = call
        parent = self.ctx.parent(call)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
            if isinstance(parent, cst.If) and child is parent.body:
                for test in nodes_in(parent.test, cst.Call):
                    func = test.func
                    if (isinstance(func, cst.Attribute) and func.attr.value == "startswith" and isinstance(func.value, cst.Name)
                            and func.value.value in built and test.args and isinstance(test.args[0].value, cst.SimpleString)
                            and str(test.args[0].value.evaluated_value).startswith("http")):
                        return True
            child, parent = parent, self.ctx.parent(parent)
        return False

    def _fetched_again_checked(self, call: cst.Call, given: Optional[cst.Arg], scope: Optional[cst.FunctionDef]) -> bool:
        """``gdown.download(url, path)`` followed in the same function by
        ``gdown.cached_download(url, path, md5=...)``: the second call of the same URL to the
        same place checks the checksum of the file the first one saved (and fetches it again
        on a mismatch)."""
        if given is None:
            return False
        shown = self.ctx.code_for(given.value)
        for other, _, row, other_scope, _ in self.found:
            if other is call or other_scope is not scope or not self._hash_given(other, row):
                continue
            spec = row.get("url", {"pos": 0})
            url = call_arg(other, spec.get("pos"), spec.get("kw"))
            if url is not None and self.ctx.code_for(url.value) == shown and self._same_destination(call, other):
                return True
        return False

    def _same_destination(self, first: cst.Call, second: cst.Call) -> bool:
        """Both calls save to the same place: the positional argument after the URL."""
        def destination(call: cst.Call) -> Optional[str]:
            positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
            return self.ctx.code_for(positional[1].value) if len(positional) > 1 else None
        where = destination(first)
        return where is not None and where == destination(second)

    @staticmethod
    def _hash_given(call: cst.Call, row: Mapping[str, Any]) -> bool:
        for spec in row.get("hash", ()):
            found = call_arg(call, spec.get("pos"), spec.get("kw"))
            if found is not None and not (isinstance(found.value, cst.Name) and found.value.value == "None"):
                return True
        return False

    def _content_kept(self, call: cst.Call, scope: Optional[cst.FunctionDef]) -> bool:
        """Whether the response's content is saved or parsed in the same function."""
        scope_names = self._names_in(scope)
        names: Set[str] = set()
        bound = self._bound_name(call)
        if bound:
            names.add(bound)
        uses: List[cst.CSTNode] = [call]
        for _ in range(3):  # the response, then loop variables over its chunks
            uses += [n for n in scope_names if n.value in names and n not in uses and self._is_load(n)]
            grown = False
            for use in uses:
                if self._kept(use):
                    return True
                loop = self._loop_over(use)
                if loop is not None and loop not in names:
                    names.add(loop)
                    grown = True
            if not grown:
                break
        return False

    def _names_in(self, scope: Optional[cst.FunctionDef]) -> List[cst.Name]:
        """The names of a function (or of the module's own code), in source order, not those
        of the functions defined in it (found only for the few downloads that need them)."""
        root: cst.CSTNode = scope if scope is not None else self.ctx.module
        found: List[cst.Name] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if type(node) is cst.Name:
                found.append(node)
            elif type(node) is cst.FunctionDef and node is not root:
                continue
            stack.extend(reversed(children(node)))
        return found

    def _bound_name(self, call: cst.Call) -> Optional[str]:
        node: cst.CSTNode = call
        parent = self.ctx.parent(node)
        while isinstance(parent, (cst.Attribute, cst.Call)) and (getattr(parent, "value", None) is node or getattr(parent, "func", None) is node):
            node, parent = parent, self.ctx.parent(parent)  # ``requests.get(u).content``
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            return parent.targets[0].target.value
        if isinstance(parent, cst.WithItem) and parent.asname is not None and isinstance(parent.asname.name, cst.Name):
            return parent.asname.name.value
        return None

    def _is_load(self, name: cst.Name) -> bool:
        parent = self.ctx.parent(name)
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, cst.AsName):
            return False
        return not (isinstance(parent, cst.Attribute) and parent.attr is name)

    def _ancestors(self, node: cst.CSTNode) -> Iterator[Tuple[cst.CSTNode, cst.CSTNode]]:
        child, parent = node, self.ctx.parent(node)
        while parent is not None and not isinstance(parent, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            yield child, parent
            child, parent = parent, self.ctx.parent(parent)
        if parent is not None:
            yield child, parent

    def _kept(self, use: cst.CSTNode) -> bool:
        for child, parent in self._ancestors(use):
            if isinstance(parent, cst.Call) and isinstance(child, cst.Arg):
                func = parent.func
                if isinstance(func, cst.Attribute) and func.attr.value in self.savers:
                    return True
                name = self.ctx.qualname(func)
                if name in self.parsers or name in self.save_calls:
                    return True
        return False

    def _loop_over(self, use: cst.CSTNode) -> Optional[str]:
        for child, parent in self._ancestors(use):
            if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is child and isinstance(parent.target, cst.Name):
                return parent.target.value
        return None
