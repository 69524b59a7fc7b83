"""The dataset cache directory: where it is, that it is usable, and that nothing leaves it.

Every path in the cache is built by :func:`cache_file` from plain names (no
separators, ``..`` or absolute paths) and must resolve inside the resolved cache
directory, so neither a hostile config nor a symlinked folder can make rfbench
write elsewhere.  :func:`cache_writer` writes atomically and reports a cache
that cannot be written to as a :class:`CacheError` naming ``RFBENCH_CACHE``.

A verified file carries a record beside it, ``<file>.record.json``, with its
sha256 and source, so that a later run can trust it (after re-hashing it) even
when its config pins no sha256.
"""
from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from rfbench.storage.atomic import atomic_write
from rfbench.storage.locations import default_cache_dir

from .errors import CacheError, DatasetError

CACHE_ENV = "RFBENCH_CACHE"
#: ``<repo>/datasets`` (only its README.md is tracked in git), or the user's cache folder for an installed wheel.
DEFAULT_CACHE_DIR = default_cache_dir()
#: Cache folders of rfbench's own, which a dataset folder must not be named after.
RESERVED_FOLDERS = ("parsed", "unverified")
RECORD_SUFFIX = ".record.json"
_FIX = f"set {CACHE_ENV} to a writable directory (mkdir -p /path/to/cache; export {CACHE_ENV}=/path/to/cache)"


def resolve_cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """The cache directory, resolved: the argument, else ``$RFBENCH_CACHE``, else DEFAULT_CACHE_DIR.

    A missing directory is created when its parent exists; a path whose parent
    is missing too (likely a typo) or that is not a directory is refused.

    Raises
    ------
    CacheError
        If the directory is not a directory, cannot be created, or its parent is missing.
    """
    if cache_dir:
        path, origin = Path(cache_dir), "the cache_dir argument"
    elif os.environ.get(CACHE_ENV):
        path, origin = Path(os.environ[CACHE_ENV]), f"{CACHE_ENV}={os.environ[CACHE_ENV]}"
    else:
        path, origin = DEFAULT_CACHE_DIR, f"the default, as {CACHE_ENV} is unset"
        with contextlib.suppress(OSError):  # an installed wheel's ~/.cache may not exist yet; else reported below
            path.parent.mkdir(parents=True, exist_ok=True)
    path = path.expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise CacheError(f"dataset cache {path} ({origin}) is not a directory; {_FIX}")
    if not path.exists():
        if not path.parent.is_dir():
            raise CacheError(f"dataset cache {path} ({origin}) does not exist, nor does its parent; "
                             f"create it (mkdir -p {path}) or {_FIX}")
        try:
            path.mkdir(exist_ok=True)
        except OSError as exc:
            raise CacheError(f"dataset cache {path} ({origin}) cannot be created ({exc}); {_FIX}") from exc
    return path


def check_name(name: str, what: str) -> str:
    """Return ``name`` if it is one plain path component, else raise a DatasetError."""
    separators = {"/", "\\", os.sep, os.altsep} - {None}
    if (not isinstance(name, str) or name in ("", ".", "..") or "\0" in name
            or any(sep in name for sep in separators)):
        raise DatasetError(f"{what} {name!r} is not a plain file name: it must not be empty, '.' or '..' "
                           f"and must not contain a path separator")
    return name


def cache_file(cache_dir: Path, *names: str) -> Path:
    """``cache_dir/<names...>``, refused if a name is not plain or the path leads out of the cache.

    ``cache_dir`` must come from :func:`resolve_cache_dir`.  Symlinks are
    followed to check where the path really is: a symlinked folder pointing
    outside the cache is refused rather than written through.
    """
    for name in names:
        check_name(name, "cache path component")
    path = cache_dir.joinpath(*names)
    real = path.resolve()
    if real == cache_dir or not real.is_relative_to(cache_dir):
        raise CacheError(f"{path} leads to {real}, outside the dataset cache {cache_dir} (a symlink?); "
                         "rfbench never writes outside its cache: remove the link or "
                         f"{_FIX.replace('writable', 'fresh')}")
    return path


@contextlib.contextmanager
def cache_writer(path: Path, cache_dir: Path) -> Iterator[IO[bytes]]:
    """Atomically write ``path`` (from :func:`cache_file`); failing to create it is a CacheError.

    Errors raised by the caller's block pass through unchanged.
    """
    with contextlib.ExitStack() as stack:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            cache_file(cache_dir, *path.relative_to(cache_dir).parts)  # folders just made: recheck
            handle = stack.enter_context(atomic_write(path))
        except OSError as exc:
            raise CacheError(f"cannot write {path} in the dataset cache {cache_dir}: {exc}; {_FIX}") from exc
        yield handle


def write_record(path: Path, cache_dir: Path, sha256: str, source: str, *, pinned: bool) -> None:
    """Record beside ``path`` that its bytes have ``sha256`` and came from ``source``.

    ``pinned`` says whether ``sha256`` was checked against a pinned hash.
    """
    record = {"sha256": sha256, "source": source, "pinned": pinned}
    with cache_writer(path.with_name(path.name + RECORD_SUFFIX), cache_dir) as f:
        f.write(json.dumps(record, indent=1).encode())


def read_record(path: Path) -> dict | None:
    """The record of a cached file, or None if it has none or an unreadable one."""
    try:
        record = json.loads(path.with_name(path.name + RECORD_SUFFIX).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
        return None
    return record
