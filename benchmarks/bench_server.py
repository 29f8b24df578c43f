"""How fast the language server answers, on a project of 1,000+ files.

Builds a project from the Python files of the transformers corpus (the wheel
``bench_speed.py`` downloads into ``benchmarks/.corpus/``; all 1,813 by default, the first
``--files`` otherwise) plus one 2,000-line model file, starts ``python -m nondet_lint.server`` as an editor would (an LSP client
over standard input and output), and prints:

- the time from opening the 2,000-line file to its first diagnostics (this indexes the
  project: cached files are read, the others parsed in worker processes);
- the time from each change of that file to its new diagnostics, after the index: the
  change adds or removes ``torch.backends.cudnn.benchmark = True`` at its end, so the
  diagnostics change each time.  This includes the server's debounce (``CHANGE_DELAY``:
  it waits for a burst of changes to end); the server's own account of the analysis
  (``window/logMessage``: pass 1 of the buffer, pass 2 of the project) is printed too.

    .venv/bin/python benchmarks/bench_server.py                    # cold: builds the project
    .venv/bin/python benchmarks/bench_server.py --keep-cache       # again, with the cache warm

A subset of transformers (``--files 1000``) is a project whose imports point at modules
that are missing; the whole package, the larger project, is the default.

Needs the ``server`` extra (pygls).  Wall times on a shared machine vary with its load:
compare runs taken side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from nondet_lint.server.lsp import CHANGE_DELAY

HERE = Path(__file__).resolve().parent
STORE = HERE / ".corpus"
CORPUS = ("transformers", "4.46.3")
BIG_FILE = "transformers/models/roc_bert/modeling_roc_bert.py"  # 2,002 lines
TOGGLE = "\ntorch.backends.cudnn.benchmark = True\n"
TIMING = re.compile(r"checked (\d+) document\(s\) in ([\d.]+) s \(pass 1 ([\d.]+) s, pass 2 ([\d.]+) s\)")


def build_project(files: Optional[int], target: Path, store: Path) -> Tuple[Path, int]:
    """The first ``files`` Python files of the corpus (all: None) and the 2,000-line file, copied."""
    sys.path.insert(0, str(HERE))
    from bench_speed import fetch, python_files  # the corpus download lives there

    corpus = fetch(*CORPUS, store)
    chosen = python_files(corpus / CORPUS[0])[:files]
    if str(corpus / BIG_FILE) not in chosen:
        chosen.append(str(corpus / BIG_FILE))
    shutil.rmtree(target, ignore_errors=True)
    for path in chosen:
        relative = Path(path).relative_to(corpus)
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / relative)
    (target / "pyproject.toml").write_text("[project]\nname = 'server-benchmark'\n")
    return target / BIG_FILE, len(chosen)


class Client:
    """An LSP client that notes when each document's diagnostics arrive."""

    def __init__(self) -> None:
        self.client = LanguageClient("bench-server", "1")
        self.arrived: Dict[str, asyncio.Event] = {}
        self.timings: List[Tuple[float, float, float]] = []

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.arrived.setdefault(params.uri, asyncio.Event()).set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            match = TIMING.search(params.message)
            if match:
                self.timings.append((float(match.group(2)), float(match.group(3)), float(match.group(4))))
            elif params.type in (types.MessageType.Error, types.MessageType.Info):
                print(f"  server: {params.message.splitlines()[0]}", file=sys.stderr)

    async def diagnostics(self, uri: str, timeout: float) -> float:
        """Seconds until the next diagnostics of ``uri``."""
        event = self.arrived.setdefault(uri, asyncio.Event())
        event.clear()
        started = time.perf_counter()
        await asyncio.wait_for(event.wait(), timeout)
        return time.perf_counter() - started


async def bench(project: Path, big: Path, changes: int, timeout: float) -> Dict[str, object]:
    bench_client = Client()
    client = bench_client.client
    await client.start_io(sys.executable, "-m", "nondet_lint.server", cwd=str(project))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name=project.name)],
    ))
    client.initialized(types.InitializedParams())
    uri = big.as_uri()
    text = big.read_text(encoding="utf-8")
    event = bench_client.arrived.setdefault(uri, asyncio.Event())
    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text,
    )))
    await asyncio.wait_for(event.wait(), timeout)
    first = time.perf_counter() - started
    after: List[float] = []
    lines = text.count("\n")
    for number in range(changes):
        # typing at the end of the file: add the line, then take it away again
        if number % 2 == 0:
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=lines, character=0), end=types.Position(line=lines, character=0)),
                text=TOGGLE,
            )
        else:
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=lines, character=0), end=types.Position(line=lines + 2, character=0)),
                text="",
            )
        waiting = asyncio.ensure_future(bench_client.diagnostics(uri, timeout))
        await asyncio.sleep(0)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=number + 2), content_changes=[change],
        ))
        after.append(await waiting)
        await asyncio.sleep(0.5)  # a pause in typing
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"first": first, "changes": after, "timings": bench_client.timings[1:]}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, help="the first N Python files of the corpus (default: all 1,813)")
    parser.add_argument("--changes", type=int, default=10, help="changes to time after the index (default 10)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for any diagnostics (default 600)")
    parser.add_argument("--store", type=Path, default=STORE, help="where the corpora are (default benchmarks/.corpus)")
    parser.add_argument("--project", type=Path, default=STORE / "server-project", help="where to build the project")
    parser.add_argument("--keep-cache", action="store_true", help="keep the project's cache from an earlier run (a warm start)")
    args = parser.parse_args(argv)
    cache = args.project / ".nondet_lint_cache"
    if args.keep_cache and args.project.is_dir():
        big, count = args.project / BIG_FILE, sum(1 for _ in args.project.rglob("*.py"))
    else:
        big, count = build_project(args.files, args.project, args.store)
    state = "warm cache" if args.keep_cache and cache.is_dir() else "cold (no cache)"
    print(f"project: {count} Python files ({state}); changed file: {BIG_FILE} ({big.read_text().count(chr(10))} lines)")
    try:
        result = asyncio.run(bench(args.project, big, args.changes, args.timeout))
    except asyncio.TimeoutError:
        print(f"no diagnostics within {args.timeout:.0f} s")
        return 1
    changes: List[float] = result["changes"]  # type: ignore[assignment]
    print(f"open -> first diagnostics (indexes the project): {result['first']:.2f} s")
    print(f"change -> diagnostics, after the index: median {statistics.median(changes):.3f} s, "
          f"max {max(changes):.3f} s over {len(changes)} changes (target <= 0.3 s; includes the {CHANGE_DELAY} s debounce)")
    timings = result["timings"]
    if timings:
        print(f"  server-side analysis per change: median {statistics.median(t[0] for t in timings):.3f} s "
              f"(pass 1 of the buffer {statistics.median(t[1] for t in timings):.3f} s, "
              f"pass 2 of the project {statistics.median(t[2] for t in timings):.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
