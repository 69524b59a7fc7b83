"""Obtain raw dataset files: a mirror first, then canonical URLs, into a verified cache.

A file spec (one entry of a dataset config's ``files``) names the file by its
mirror-relative path ``<folder>/<file>`` and pins its sha256; its ``urls`` list
the canonical sources, each with its own ``sha256`` (``null`` when unknown) and,
when its bytes are in another form than the mirror's, its own ``format`` and
``options``.

The cache has the mirror's layout, ``<cache_dir>/<folder>/<file>``, so a cache
directory can itself serve as a mirror.  Files without a pinned sha256 are only
fetched when ``allow_unverified`` is set, and are kept apart under
``<cache_dir>/unverified/`` so they can never pass for verified ones.

Sources are tried in order: the mirror (argument, else ``$RFBENCH_DATA_MIRROR``,
else the config's ``mirror``), then the canonical URLs unless
``$RFBENCH_OFFLINE`` is set.

Concurrent first downloads are safe: each download streams into its own
``mkstemp`` file next to the destination and is moved into place with
``os.replace``, which is atomic on POSIX.  Competing processes each write a
private temporary file, the last rename wins (all candidates hold the same
verified bytes), and no reader ever sees a partial file.
"""
from __future__ import annotations

import hashlib
import http.client
import logging
import os
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rfbench.atomic import atomic_write

from .errors import DatasetError

logger = logging.getLogger(__name__)

MIRROR_ENV = "RFBENCH_DATA_MIRROR"
CACHE_ENV = "RFBENCH_CACHE"
#: When set (not "" or "0"), only the mirror is downloaded from; canonical URLs are skipped.
OFFLINE_ENV = "RFBENCH_OFFLINE"
#: ``<repo>/datasets``; only its README.md is tracked in git.
DEFAULT_CACHE_DIR = Path(__file__).resolve().parents[2] / "datasets"
TIMEOUT_SECONDS = 60.0
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class Source:
    """One place a file can be fetched from, and how its bytes are parsed."""

    url: str
    folder: str
    sha256: str | None
    format: str
    options: Mapping = field(default_factory=dict)

    @property
    def filename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]

    def cache_path(self, cache_dir: Path) -> Path:
        """Where this source's bytes live in the cache."""
        root = cache_dir if self.sha256 else cache_dir / "unverified"
        return root / self.folder / self.filename


@dataclass(frozen=True)
class FetchedFile:
    """A cached file together with the source it came from and its sha256.

    Usable wherever a path is expected (``os.fspath``).
    """

    path: Path
    source: Source
    sha256: str

    def __fspath__(self) -> str:
        return os.fspath(self.path)


def resolve_mirror(mirror: str | None = None, configured: str | None = None) -> str | None:
    """Mirror base URL: the argument, else ``$RFBENCH_DATA_MIRROR``, else the config.

    A plain directory path is turned into a ``file://`` URL.
    """
    base = mirror or os.environ.get(MIRROR_ENV) or configured
    if base and "://" not in base:
        base = Path(base).expanduser().resolve().as_uri()
    return base or None


def resolve_cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """Cache directory: the argument, else ``$RFBENCH_CACHE``, else ``<repo>/datasets``."""
    return Path(cache_dir or os.environ.get(CACHE_ENV) or DEFAULT_CACHE_DIR)


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def candidate_sources(file_spec: Mapping, mirror: str | None = None) -> list[Source]:
    """The sources of a file spec in the order they are tried: mirror, then ``urls``."""
    if not isinstance(file_spec, Mapping):
        raise DatasetError(f"a file spec must be a mapping with path, sha256, format; got {file_spec!r}")
    path = str(file_spec.get("path") or "")
    folder, _, name = path.rpartition("/")
    if not folder or not name:
        raise DatasetError(f"file path {path!r} must be '<folder>/<file>' as laid out in the mirror")
    for key in ("sha256", "format"):
        if key not in file_spec:
            raise DatasetError(f"file {path!r} has no {key!r} (write sha256: null if it is unknown)")
    fmt, options = file_spec["format"], dict(file_spec.get("options") or {})
    sources = [Source(f"{mirror.rstrip('/')}/{path}", folder, file_spec["sha256"], fmt, options)] if mirror else []
    for entry in file_spec.get("urls") or ():
        if not isinstance(entry, Mapping) or "url" not in entry or "sha256" not in entry:
            raise DatasetError(f"urls entry {entry!r} of {path!r} must be a mapping with 'url' and 'sha256' "
                               "(sha256: null if its bytes are unknown)")
        # A source in another format brings its own options; otherwise it shares the file's.
        own = "format" in entry
        sources.append(Source(entry["url"], folder, entry["sha256"], entry["format"] if own else fmt,
                              dict(entry.get("options") or {}) if own else options))
    return sources


def fetch(file_spec: Mapping, cache_dir: str | os.PathLike | None = None, mirror: str | None = None, *,
          allow_unverified: bool = False) -> FetchedFile:
    """Return a verified local copy of a file, downloading it if needed.

    Parameters
    ----------
    file_spec : Mapping
        One entry of a dataset config's ``files`` (``path``, ``sha256``,
        ``format``, optional ``options`` and ``urls``).
    cache_dir : path-like, optional
        See :func:`resolve_cache_dir`.
    mirror : str, optional
        Base URL laid out as ``<base>/<folder>/<file>``; see :func:`resolve_mirror`.
    allow_unverified : bool, default=False
        Also use sources whose sha256 is unknown (logged with their actual hash).
        Without it such sources are skipped and never contacted.

    Returns
    -------
    FetchedFile

    Raises
    ------
    DatasetError
        If no source yields the file; the message lists every URL tried with
        its failure reason.
    """
    cache_dir, mirror = resolve_cache_dir(cache_dir), resolve_mirror(mirror)
    sources = candidate_sources(file_spec, mirror)
    usable = [s for s in sources if s.sha256 or allow_unverified]
    for source in usable:
        if cached := _from_cache(source, cache_dir):
            return cached
    offline = os.environ.get(OFFLINE_ENV, "") not in ("", "0")
    failures = []
    for i, source in enumerate(sources):
        if source not in usable:
            failures.append((source.url, "skipped: no sha256 is pinned, so its bytes cannot be verified "
                                         "(opt in with dataset.allow_unverified=true)"))
        elif offline and not (mirror and i == 0):
            failures.append((source.url, f"skipped: {OFFLINE_ENV} is set, so only the mirror is tried"))
        else:
            try:
                return _download(source, cache_dir)
            except (OSError, ValueError, http.client.HTTPException) as exc:
                failures.append((source.url, f"{type(exc).__name__}: {exc}"))
    raise DatasetError(_failure_message(file_spec["path"], failures, mirror_set=bool(mirror)))


def _from_cache(source: Source, cache_dir: Path) -> FetchedFile | None:
    path = source.cache_path(cache_dir)
    if not path.is_file():
        return None
    digest = sha256_file(path)
    if source.sha256 is None or digest == source.sha256:
        return FetchedFile(path, source, digest)
    # Left in place: a successful download replaces it atomically.
    logger.warning("cached %s has sha256 %s, expected %s (corrupt or partial); replacing it",
                   path, digest, source.sha256)
    return None


def _download(source: Source, cache_dir: Path) -> FetchedFile:
    target = source.cache_path(cache_dir)
    with atomic_write(target) as out, urllib.request.urlopen(source.url, timeout=TIMEOUT_SECONDS) as resp:
        digest = _stream(resp, out)
        if source.sha256 and digest != source.sha256:
            raise DatasetError(f"sha256 mismatch: expected {source.sha256}, got {digest}")
    if source.sha256 is None:
        logger.warning("using UNVERIFIED %s from %s (sha256 %s); pin this sha256 in the config",
                       target, source.url, digest)
    logger.info("fetched %s -> %s", source.url, target)
    return FetchedFile(target, source, digest)


def _stream(resp, out) -> str:
    """Copy a response body to ``out`` in chunks; return its sha256, detect truncation."""
    digest, received = hashlib.sha256(), 0
    while chunk := resp.read(_CHUNK_BYTES):
        digest.update(chunk)
        out.write(chunk)
        received += len(chunk)
    expected = resp.headers.get("Content-Length")
    if expected is not None and received != int(expected):
        raise DatasetError(f"truncated transfer: received {received} of {expected} bytes")
    return digest.hexdigest()


def _failure_message(path: str, failures: list[tuple[str, str]], *, mirror_set: bool) -> str:
    lines = [f"could not obtain {path!r}; tried:"]
    lines += [f"  - {url}: {reason}" for url, reason in failures] or ["  (no sources configured)"]
    if not mirror_set:
        lines.append("No mirror is configured.")
    lines.append(f"Set {MIRROR_ENV} (or pass mirror=..., or dataset.mirror=...) to a file:// or http(s):// "
                 "base laid out as <base>/<folder>/<file>, e.g. file:///work/shared/datasets.")
    return "\n".join(lines)
