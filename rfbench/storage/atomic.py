"""Atomic file writes: a temporary file beside the destination, renamed into place on success; and
appends of bytes that land whole or not at all.

An interrupted or failing writer leaves the destination as it was, never half-written, and
no temporary behind.  The file gets the permissions a plain ``open`` would give it
(0o666 less the umask), not ``mkstemp``'s private 0o600, so shared result trees stay readable.
A writer killed outright (SIGKILL, power loss) cannot delete its temporary: the writer holds
an ``flock`` on it until the rename, so :func:`remove_stale_temporaries` can tell such leftovers
from the temporaries of live writers.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

#: Suffix of the temporaries (dot files in the destination's directory).
TEMP_SUFFIX = ".part"


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once: os.umask can only be read by setting it


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[IO]:
    """Yield a file open in ``mode`` that replaces ``path`` only if the block completes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # held until closed, after the rename: "a live writer's"
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(directory: str | os.PathLike, before: float) -> list[Path]:
    """Delete the temporaries in ``directory`` that killed writers left; return their paths.

    A temporary is stale if it was last modified before ``before`` (a ``time.time()``, e.g.
    when this process started: a newer one may be between ``mkstemp`` and its lock) and no
    process holds its lock (a writer holds it until the rename).
    """
    removed = []
    for tmp in Path(directory).glob(f".*{TEMP_SUFFIX}"):
        with contextlib.suppress(FileNotFoundError):  # renamed or removed meanwhile
            if tmp.stat().st_mtime < before and _unlocked(tmp):
                tmp.unlink()
                removed.append(tmp)
    return removed


def _unlocked(path: Path) -> bool:
    """Whether no process holds an ``flock`` on ``path`` (tested by taking it briefly)."""
    with open(path, "rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write`)."""
    with atomic_write(path, "w") as handle:
        handle.write(text)


def append_whole(path: Path, data: bytes) -> None:
    """Append ``data`` to the existing file ``path`` and flush it to disk, or leave the file as it was.

    The caller holds the file's lock (one writer at a time).  A write refused midway (a full disk, an
    interruption) is undone by cutting the file back to its length before; a writer killed outright
    leaves part of ``data`` at the end, which the format's own commit marker must reveal (a gzip
    member's CRC and length: :mod:`rfbench.engine.frames`).
    """
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        length = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, length)
            raise
    finally:
        os.close(fd)
