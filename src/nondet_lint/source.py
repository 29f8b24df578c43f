"""Reading a source file: bytes to text with the encoding Python itself would use.

Problems become ``SourceError`` with a position and a one-line reason (reported as
ND000), never a traceback: unreadable files, binary files, undecodable bytes, a wrong
coding cookie.  The encoding, BOM and newline style are kept so that fixes can write
the file back byte-for-byte the same outside the edited spans.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import List, Optional, Tuple

BOM = b"\xef\xbb\xbf"


class SourceError(Exception):
    def __init__(self, reason: str, line: int = 1, col: int = 0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.col = col


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    encoding: str
    bom: bool
    newline: str
    raw: bytes

    @property
    def lines(self) -> List[str]:
        return self.text.splitlines()


def detect_newline(text: str) -> str:
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    if index == -1 and "\r" in text:
        return "\r"
    return "\n"


def _position_of_byte(raw: bytes, offset: int) -> Tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    start = raw.rfind(b"\n", 0, offset) + 1
    return line, offset - start


def decode_source(raw: bytes, path: str = "<source>") -> SourceFile:
    if b"\x00" in raw:
        line, col = _position_of_byte(raw, raw.index(b"\x00"))
        raise SourceError("source contains null bytes (binary file?)", line, col)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        raise SourceError(f"bad encoding declaration: {exc.msg}", exc.lineno or 1, 0) from None
    bom = raw.startswith(BOM)
    body = raw[len(BOM):] if bom else raw
    codec = "utf-8" if encoding == "utf-8-sig" else encoding
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        line, col = _position_of_byte(body, exc.start)
        raise SourceError(f"cannot decode as {codec}: byte 0x{body[exc.start]:02x} is invalid", line, col) from None
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r} in coding declaration") from None
    return SourceFile(path, text, codec, bom, detect_newline(text), raw)


def read_source(path: str, stdin_text: Optional[bytes] = None) -> SourceFile:
    if stdin_text is not None:
        return decode_source(stdin_text, path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except IsADirectoryError:
        raise SourceError("is a directory") from None
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from None  # the finding says "cannot read file: "
    return decode_source(raw, path)
