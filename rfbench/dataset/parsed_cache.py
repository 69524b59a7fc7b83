"""Cache parsed arrays as .npz so that a second load does not reparse text.

The cache key hashes the source file's sha256 together with everything that
shapes the parse (format, options, n_features, cache version), so a changed
file or option never reuses stale arrays.  Writes are atomic (temp file +
``os.replace``), like the raw-file cache.
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import numpy as np

from . import parsers
from rfbench.atomic import atomic_write

from .sources import FetchedFile

logger = logging.getLogger(__name__)

#: Bump when parser output changes, to invalidate old entries.
CACHE_VERSION = 1


def load_parsed(fetched: FetchedFile, n_features: int, cache_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of a fetched file, from the .npz cache or parsed (and then cached)."""
    source = fetched.source
    key = json.dumps([CACHE_VERSION, fetched.sha256, source.format, dict(source.options), n_features],
                     sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    npz = Path(cache_dir) / "parsed" / f"{fetched.path.name}.{digest}.npz"
    if npz.is_file():
        try:
            with np.load(npz, allow_pickle=False) as arrays:
                return arrays["X"], arrays["y"]
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("unreadable parse cache %s (%s); reparsing", npz, exc)
    X, y = parsers.parse_file(fetched.path, source.format, source.options, n_features)
    with atomic_write(npz) as f:
        np.savez(f, X=X, y=y)
    return X, y
