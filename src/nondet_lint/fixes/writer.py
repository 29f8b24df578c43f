"""Writing fixed files: atomically, and never over something we did not read.

The new contents go to a temporary file in the same folder, are flushed to disk, get
the original's permission bits (and owner, where allowed), and replace the file with
one ``os.replace``: a reader sees the old file or the new one, never half of one, and a
failed write leaves the original untouched and no temporary file behind.  A file whose
bytes changed since they were read (an editor saved it meanwhile) is not overwritten; a
read-only file (no write permission bit, or no write access) is reported, not forced.
A symlink is followed: the file it points to is replaced and the link stays.
Encoding, BOM and newlines are already in the bytes (``verify.encode_source``).
"""

from __future__ import annotations

import os
import stat
import tempfile


class WriteError(Exception):
    """Why a file was not written (one line, for the report)."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_writable(path: str, original: bytes) -> os.stat_result:
    """The file's status, or ``WriteError`` when it must not be written."""
    try:
        status = os.stat(path)
        with open(path, "rb") as handle:
            now = handle.read()
    except OSError as exc:
        raise WriteError(f"cannot read it again before writing: {_reason(exc)}") from None
    if now != original:
        raise WriteError("it changed on disk since it was read; not overwritten")
    if not status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise WriteError("it is read-only")
    return status


def write_atomically(path: str, original: bytes, new: bytes) -> None:
    """Replace ``path`` (whose contents were ``original`` when read) with ``new``."""
    target = os.path.realpath(path)
    status = check_writable(target, original)
    folder, name = os.path.split(target)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".nondet-lint.tmp", dir=folder)
    except OSError as exc:
        raise WriteError(f"cannot create a temporary file next to it: {_reason(exc)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(new)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(status.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(temporary, status.st_uid, status.st_gid)
            except OSError:
                pass  # only root may give a file away; the permission bits are kept
        os.replace(temporary, target)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WriteError(f"cannot write: {_reason(exc)}") from None
        raise
