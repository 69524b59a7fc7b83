"""Cache parsed arrays as .npz so that a second load does not reparse text.

Each .npz is bound to what it was parsed from: it stores a ``binding`` (the
source file's sha256, a companion label file's sha256, the parser version, format,
options and n_features) and
the sha256 of its arrays.  On load both are checked, so a damaged file
(truncated, not a zip, ...), one parsed from other bytes or by another parser
version, or one whose arrays were replaced is never used: it is logged and
rebuilt from the source file.  Writes are atomic and stay inside the cache.
"""
from __future__ import annotations

import hashlib
import json
import logging
import zipfile
import zlib
from pathlib import Path

import numpy as np

from . import parsers
from .cache import cache_file, cache_writer
from .sources import FetchedFile

logger = logging.getLogger(__name__)

#: Bump when parser output changes, to invalidate old entries.
PARSER_VERSION = 2
#: What reading a damaged .npz can raise (np.load reads a zip archive of .npy files; a bare
#: .npy in its place loads as an array, which is no context manager: TypeError).
_DAMAGED = (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, zlib.error)

Arrays = tuple[np.ndarray, np.ndarray]


def load_parsed(fetched: FetchedFile, n_features: int, cache_dir: Path, labels: FetchedFile | None = None
                ) -> Arrays:
    """``(X, y)`` of a fetched file (and its companion label file, if its format has one),
    from a checked .npz or parsed (and then cached)."""
    source = fetched.source
    bound = {"parser_version": PARSER_VERSION, "source_sha256": fetched.sha256, "format": source.format,
             "options": dict(source.options), "n_features": n_features}
    if labels is not None:
        bound["labels_sha256"] = labels.sha256
    binding = json.dumps(bound, sort_keys=True)
    digest = hashlib.sha256(binding.encode()).hexdigest()[:16]
    npz = cache_file(cache_dir, "parsed", f"{fetched.path.name}.{digest}.npz")
    if npz.is_file() and (arrays := _read_checked(npz, binding)):
        return arrays
    X, y = parsers.parse_file(fetched.path, source.format, source.options, n_features,
                              labels.path if labels is not None else None)
    with cache_writer(npz, cache_dir) as f:
        np.savez(f, X=X, y=y, binding=np.array(binding), content=np.array(content_sha256(X, y)))
    return X, y


def content_sha256(X: np.ndarray, y: np.ndarray) -> str:
    """sha256 of two arrays' dtypes, shapes and bytes."""
    digest = hashlib.sha256()
    for array in (X, y):
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _read_checked(npz: Path, binding: str) -> Arrays | None:
    """The arrays of ``npz`` if it is readable, bound to ``binding`` and intact; else None (logged)."""
    try:
        with np.load(npz, allow_pickle=False) as stored:
            X, y = stored["X"], stored["y"]
            stored_binding, content = str(stored["binding"]), str(stored["content"])
    except _DAMAGED as exc:
        logger.warning("damaged parse cache %s (%s: %s); rebuilding it", npz, type(exc).__name__, exc)
        return None
    if stored_binding != binding:
        logger.warning("parse cache %s belongs to another source or parser (%s, expected %s); rebuilding it",
                       npz, stored_binding, binding)
        return None
    if content_sha256(X, y) != content:
        logger.warning("parse cache %s: its arrays do not match their recorded sha256 (modified?); rebuilding it",
                       npz)
        return None
    return X, y
