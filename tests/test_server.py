"""The language server end to end: a real LSP client (pytest-lsp) talks to
``python -m nondet_lint.server`` over standard input and output.

Every wait is bounded (``TIMEOUT``), so a server that stops answering fails the test
instead of hanging the run.
"""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, TypeVar

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from nondet_lint.cache import FORMAT
from nondet_lint.docs import explain
from nondet_lint.ruledata import load_rules
from nondet_lint.server.ruledocs import docs_folder

pytestmark = pytest.mark.asyncio(loop_scope="function")

TIMEOUT = 120.0  # seconds: generous for a loaded CI machine, finite for a hung server
T = TypeVar("T")

ND104_MESSAGE = "PyTorch global RNG used here with no `torch.manual_seed` before it (this program never seeds it)"
ND201_MESSAGE = (
    "`torch.backends.cudnn.benchmark = True` lets cuDNN pick convolution algorithms by timing, so two runs "
    "can use different algorithms and get different results; set it to False (convolutions with varying "
    "input shapes may run slower)"
)


def docs_page(code: str) -> str:
    """The URI of the rule page the server writes (the same cache folder: it runs with our environment)."""
    rule = load_rules()[code]
    page = docs_folder() / f"{code.lower()}-{rule.name}.md"
    return page.as_uri()


TRAIN = """\
import torch


def main():
    torch.backends.cudnn.benchmark = True
    net = torch.nn.Linear(2, 2)
    net(torch.ones(2)).sum().backward()


if __name__ == "__main__":
    main()
"""

MODEL = """\
import torch


def build():
    return torch.nn.Linear(2, 2)
"""

TRAIN_USING_MODEL = """\
import torch

from model import build


def main():
    net = build()
    net(torch.ones(2)).sum().backward()


if __name__ == "__main__":
    main()
"""


class Recording(dict):
    """The client's diagnostics by uri, telling ``seen`` of every publication."""

    def __init__(self, initial: Dict[str, Any], seen: Callable[[str, Any], None]) -> None:
        super().__init__(initial)
        self.seen = seen

    def __setitem__(self, uri: str, diagnostics: Any) -> None:
        self.seen(uri, diagnostics)
        super().__setitem__(uri, diagnostics)


async def within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, TIMEOUT)


def server_command() -> List[str]:
    # no worker processes: the test projects are a few files
    return [sys.executable, "-m", "nondet_lint.server", "--workers", "0"]


def write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def capabilities(notebooks: bool = False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=False),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=False),
        ),
        notebook_document=(
            types.NotebookDocumentClientCapabilities(synchronization=types.NotebookDocumentSyncClientCapabilities())
            if notebooks else None
        ),
        window=types.WindowClientCapabilities(show_document=types.ShowDocumentClientCapabilities(support=True)),
    )


async def start(client: LanguageClient, root: Path, options: Optional[Dict[str, Any]] = None, notebooks: bool = False) -> None:
    folder = types.WorkspaceFolder(uri=root.as_uri(), name=root.name)
    await within(client.initialize_session(types.InitializeParams(
        capabilities=capabilities(notebooks), root_uri=root.as_uri(), workspace_folders=[folder],
        initialization_options=options,
    )))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=server_command()))
async def client(lsp_client: LanguageClient):
    yield
    await within(lsp_client.shutdown_session())


async def wait_for(client: LanguageClient, uri: str, ready: Callable[[Sequence[types.Diagnostic]], bool]) -> List[types.Diagnostic]:
    """The diagnostics of ``uri`` once ``ready`` says they are what the test waits for."""
    async def poll() -> List[types.Diagnostic]:
        while uri not in client.diagnostics or not ready(client.diagnostics[uri]):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return list(client.diagnostics[uri])

    try:
        return await within(poll())
    except asyncio.TimeoutError:
        raise AssertionError(f"diagnostics of {uri} never ready; last published: {client.diagnostics.get(uri)}") from None


def codes(diagnostics: Sequence[types.Diagnostic]) -> List[str]:
    return [str(d.code) for d in diagnostics]


def open_file(client: LanguageClient, path: Path, text: Optional[str] = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8") if text is None else text,
    )))
    return uri


def replace_all(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
    ))


def span(line: int, character: int, end_line: int, end_character: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=character), end=types.Position(line=end_line, character=end_character))


def apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Text edits applied as a client does (ASCII text: characters are UTF-16 units)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def actions(client: LanguageClient, uri: str, at: types.Range, only: Optional[List[str]] = None) -> List[types.CodeAction]:
    result = await within(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=at,
        context=types.CodeActionContext(diagnostics=[], only=only),
    )))
    return [as_code_action(item) for item in result or []]


def as_code_action(item: Any) -> types.CodeAction:
    """lsprotocol's converter, on the client side, reads a ``CodeAction`` that carries a
    ``command`` as a bare ``Command`` (it looks for the key only, and puts the command
    object, as text, in ``command``): read it back as the code action the server sent."""
    if isinstance(item, types.CodeAction):
        return item
    command = ast.literal_eval(item.command)
    return types.CodeAction(title=item.title, command=types.Command(**command))


# ---- diagnostics ----------------------------------------------------------------------

async def test_diagnostics_on_open_change_and_save(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py")

    diagnostics = await wait_for(client, uri, lambda d: len(d) == 2)
    first, second = diagnostics
    assert (first.code, first.message, first.range) == ("ND201", ND201_MESSAGE, span(4, 4, 4, 34))
    assert (second.code, second.message, second.range) == ("ND104", ND104_MESSAGE, span(5, 10, 5, 31))
    assert first.source == "nondet-lint" and first.severity == types.DiagnosticSeverity.Warning
    assert first.code_description.href == docs_page("ND201")
    assert second.code_description.href == docs_page("ND104")
    assert (docs_folder() / "nd201-cudnn-benchmark.md").read_text(encoding="utf-8") == explain(load_rules()["ND201"])

    # the unsaved buffer: seeding before the layer is built clears ND104
    replace_all(client, uri, 2, TRAIN.replace("def main():\n", "def main():\n    torch.manual_seed(0)\n"))
    diagnostics = await wait_for(client, uri, lambda d: codes(d) == ["ND201"])
    assert diagnostics[0].range == span(5, 4, 5, 34)  # one line further down

    # saving a changed pyproject.toml: its settings apply at once
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.nondet-lint]\nignore = ['ND201']\n")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=(tmp_path / "pyproject.toml").as_uri()),
    ))
    assert await wait_for(client, uri, lambda d: not d) == []


async def test_change_is_analyzed_once_typing_pauses(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py")
    await wait_for(client, uri, lambda d: len(d) == 2)
    published: List[List[str]] = []
    client.diagnostics = Recording(client.diagnostics, lambda uri, diagnostics: published.append(codes(diagnostics)))
    broken = TRAIN.replace("    main()\n", "    main(\n")
    for version, text in enumerate([broken, broken + "#", TRAIN.replace("True", "False")], start=2):
        replace_all(client, uri, version, text)  # keystrokes closer together than the debounce
    await wait_for(client, uri, lambda d: codes(d) == ["ND104"])
    assert published == [["ND104"]]  # the intermediate syntax errors were never analyzed


async def test_syntax_error_reports_nd000_then_recovers(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py", TRAIN.replace("def main():", "def main(:"))
    diagnostics = await wait_for(client, uri, lambda d: "ND000" in codes(d))
    assert [(d.code, d.message, d.range.start.line, d.severity) for d in diagnostics] == [
        ("ND000", "cannot parse: invalid syntax", 3, types.DiagnosticSeverity.Error),  # the line CPython names
    ]
    replace_all(client, uri, 2, TRAIN)
    assert codes(await wait_for(client, uri, lambda d: "ND000" not in codes(d))) == ["ND201", "ND104"]
    # still serving
    assert await within(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0),
    ))) is None


async def test_a_seed_in_the_entry_point_clears_the_finding_in_the_module_it_imports(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "model.py": MODEL, "train.py": TRAIN_USING_MODEL})
    await start(client, tmp_path)
    model = open_file(client, tmp_path / "model.py")
    train = open_file(client, tmp_path / "train.py")
    diagnostics = await wait_for(client, model, lambda d: codes(d) == ["ND104"])
    assert diagnostics[0].message == (
        "PyTorch global RNG used here with no `torch.manual_seed` before it (entry point train.py never seeds it)"
    )
    assert diagnostics[0].range == span(4, 11, 4, 32)
    await wait_for(client, train, lambda d: not d)
    replace_all(client, train, 2, TRAIN_USING_MODEL.replace("    net = build()\n", "    torch.manual_seed(0)\n    net = build()\n"))
    assert await wait_for(client, model, lambda d: not d) == []


async def test_notebook_document_cells_get_their_own_diagnostics(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n"})
    await start(client, tmp_path, notebooks=True)
    notebook = (tmp_path / "explore.ipynb").as_uri()
    cells = [
        (types.NotebookCellKind.Code, "import torch\n"),
        (types.NotebookCellKind.Markup, "# Setup\n"),
        (types.NotebookCellKind.Code, "x = 1\ntorch.backends.cudnn.benchmark = True\n"),
    ]
    uris = [f"vscode-notebook-cell:{notebook}#cell{index}" for index in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=notebook, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=kind, document=uri) for (kind, _), uri in zip(cells, uris)],
        ),
        cell_text_documents=[
            types.TextDocumentItem(uri=uri, language_id="python" if kind == types.NotebookCellKind.Code else "markdown",
                                   version=1, text=text)
            for (kind, text), uri in zip(cells, uris)
        ],
    ))
    diagnostics = await wait_for(client, uris[2], lambda d: codes(d) == ["ND201"])
    assert diagnostics[0].range == span(1, 0, 1, 30)
    assert list(client.diagnostics[uris[0]]) == []
    fixes = [a for a in await actions(client, uris[2], diagnostics[0].range) if a.is_preferred]
    assert [a.title for a in fixes] == ["Set `benchmark` to False"]
    assert apply(cells[2][1], fixes[0].edit.changes[uris[2]]) == "x = 1\ntorch.backends.cudnn.benchmark = False\n"


# ---- code actions and hover -------------------------------------------------------------

async def test_quick_fixes_noqa_and_documentation(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py")
    nd201, nd104 = await wait_for(client, uri, lambda d: len(d) == 2)

    found = await actions(client, uri, nd104.range, only=[types.CodeActionKind.QuickFix])
    assert [(a.title, a.is_preferred) for a in found] == [
        ("Insert a seed block after the imports of train.py", True),
        ("Add `# noqa: ND104`", None),
        ("Show documentation for ND104", None),
    ]
    assert found[0].kind == found[1].kind == types.CodeActionKind.QuickFix
    seeded = apply(TRAIN, found[0].edit.changes[uri])
    assert seeded == TRAIN.replace("import torch\n", "import torch\n\ntorch.manual_seed(0)\n", 1)
    assert apply(TRAIN, found[1].edit.changes[uri]).splitlines()[5] == "    net = torch.nn.Linear(2, 2)  # noqa: ND104"

    replace_all(client, uri, 2, seeded)  # the fix applied: only ND201 is left
    (nd201,) = await wait_for(client, uri, lambda d: codes(d) == ["ND201"])
    fix, noqa, _ = await actions(client, uri, nd201.range)
    assert fix.title == "Set `benchmark` to False"
    assert apply(seeded, fix.edit.changes[uri]) == seeded.replace("benchmark = True", "benchmark = False")
    assert apply(seeded, noqa.edit.changes[uri]).splitlines()[6] == "    torch.backends.cudnn.benchmark = True  # noqa: ND201"

    show = found[2].command
    await within(client.workspace_execute_command_async(types.ExecuteCommandParams(command=show.command, arguments=show.arguments)))
    assert [(d.uri, d.external) for d in client.shown_documents] == [(docs_page("ND104"), None)]


async def test_fix_all_applies_every_safe_fix(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py")
    await wait_for(client, uri, lambda d: len(d) == 2)
    found = await actions(client, uri, span(0, 0, 0, 0), only=["source.fixAll"])
    assert [(a.title, a.kind) for a in found] == [("nondet-lint: fix all (safe fixes)", "source.fixAll.nondet-lint")]
    assert apply(TRAIN, found[0].edit.changes[uri]) == (
        TRAIN.replace("import torch\n", "import torch\n\ntorch.manual_seed(0)\n", 1).replace("= True", "= False")
    )
    assert await actions(client, uri, span(0, 0, 0, 0), only=["refactor"]) == []


async def test_hover_shows_the_rule_documentation(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py")
    await wait_for(client, uri, lambda d: len(d) == 2)
    hover = await within(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=5, character=20),
    )))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == explain(load_rules()["ND104"])  # what ``--explain ND104`` prints


# ---- settings -------------------------------------------------------------------------

async def test_client_settings_select_and_ignore(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path, options={"nondet-lint": {"ignore": ["ND104"]}})
    uri = open_file(client, tmp_path / "train.py")
    assert codes(await wait_for(client, uri, lambda d: len(d) > 0)) == ["ND201"]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"select": ["ND104"]}))
    assert codes(await wait_for(client, uri, lambda d: codes(d) == ["ND104"])) == ["ND104"]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"select": ["ND999"]}))
    await within(_until(lambda: any("ND999" in m.message for m in client.messages)))
    assert "client settings: 'select' names unknown rule code 'ND999'" in client.messages[-1].message


async def test_a_requirement_file_changed_on_disk_is_read_again(client: LanguageClient, tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "train.py": TRAIN})
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "train.py")
    await wait_for(client, uri, lambda d: len(d) == 2)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.nondet-lint]\nselect = ['ND104']\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed),
    ]))
    assert codes(await wait_for(client, uri, lambda d: len(d) == 1)) == ["ND104"]


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.05)


# ---- shutdown -------------------------------------------------------------------------

@pytest_lsp.fixture(config=ClientServerConfig(server_command=server_command()))
async def bare_client(lsp_client: LanguageClient):
    yield


async def test_shutdown_then_exit_ends_the_process_with_status_0(bare_client: LanguageClient, tmp_path: Path):
    await start(bare_client, tmp_path)
    assert await within(bare_client.shutdown_async(None)) is None
    bare_client.exit(None)
    assert await within(bare_client._server.wait()) == 0


# ---- the index in worker processes --------------------------------------------------------

@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "nondet_lint.server", "--workers", "2"]))
async def client_with_workers(lsp_client: LanguageClient):
    yield
    await within(lsp_client.shutdown_session())


async def test_the_first_index_runs_in_worker_processes_and_fills_the_cache(client_with_workers: LanguageClient, tmp_path: Path):
    files = {f"pkg/module_{number}.py": f"VALUE = {number}\n" for number in range(20)}
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'demo'\n", "pkg/__init__.py": "", "train.py": TRAIN, **files})
    await start(client_with_workers, tmp_path)
    uri = open_file(client_with_workers, tmp_path / "train.py")
    assert codes(await wait_for(client_with_workers, uri, lambda d: len(d) == 2)) == ["ND201", "ND104"]
    entries = list((tmp_path / ".nondet_lint_cache" / FORMAT).glob("*/*.json"))
    assert len(entries) == 22  # every Python file of the project, analyzed by the helper's workers
    assert [m.message for m in client_with_workers.log_messages if m.type != types.MessageType.Log][:1] == [
        f"nondet-lint: indexed 23 files of {tmp_path} in {m.message.split(' in ')[-1]}"
        for m in client_with_workers.log_messages if m.message.startswith("nondet-lint: indexed")
    ]
