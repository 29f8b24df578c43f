"""A progress bar on stderr for rich output, shown only on runs long enough to need one.

Plain output is for pipes, pre-commit and editors: it never shows one.  The bar appears
once a run has ``MIN_FILES`` files to analyze and is removed when the run ends, so the
report itself is the same with or without it.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Optional, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

MIN_FILES = 50


class FileProgress:
    """Counts files to do and done (``engine.Progress``); draws a bar once it is worth it."""

    def __init__(self, stream: TextIO, min_files: int = MIN_FILES) -> None:
        self._stream = stream
        self._min_files = min_files
        self._total = 0
        self._done = 0
        self._bar: Optional[Progress] = None
        self._task: Optional[TaskID] = None  # set when the bar starts

    def add(self, count: int) -> None:
        self._total += count
        if self._bar is None and self._total >= self._min_files:
            # rich is imported only here: most runs (pipes, editors, pre-commit) draw no bar
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=Console(file=self._stream), transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("files", total=self._total, completed=self._done)
        elif self._bar is not None and self._task is not None:
            self._bar.update(self._task, total=self._total)

    def advance(self, count: int) -> None:
        self._done += count
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self._done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


@contextmanager
def progress_for(stream: TextIO, shown: bool) -> Iterator[Optional[FileProgress]]:
    """A ``FileProgress`` on ``stream`` when ``shown``, else None."""
    if not shown:
        yield None
        return
    progress = FileProgress(stream)
    try:
        yield progress
    finally:
        progress.close()
