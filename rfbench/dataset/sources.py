"""Obtain raw dataset files: a mirror first, then canonical URLs, into a verified cache.

A file spec (one entry of a dataset config's ``files``) names the file by its
mirror-relative path ``<folder>/<file>`` and pins its sha256; its ``urls`` list
the canonical sources, each with its own ``sha256`` (``null`` when unknown) and,
when its bytes are in another form than the mirror's, its own ``format`` and
``options``.

The cache has the mirror's layout, ``<cache_dir>/<folder>/<file>``, so a cache
directory can itself serve as a mirror (see :mod:`.cache` for where it is and
how writes are kept inside it).  Files without a pinned sha256 are only
fetched when ``allow_unverified`` is set, and are kept apart under
``<cache_dir>/unverified/`` so they can never pass for verified ones.

The cache is consulted first, for every source and whether or not a mirror is
set: a cached file is used if it matches its pinned sha256 or, when none is
pinned, the record written when it was downloaded (a record of an unverified
download counts only with ``allow_unverified``).  Then sources are downloaded
in order: the mirror (argument, else ``$RFBENCH_DATA_MIRROR``, else the
config's ``mirror``), then the canonical URLs unless ``$RFBENCH_OFFLINE`` is
set.  Redirects are followed to http(s) URLs only.

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
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .cache import RESERVED_FOLDERS, cache_file, cache_writer, check_name, read_record, resolve_cache_dir, write_record
from .errors import CacheError, DatasetError

logger = logging.getLogger(__name__)

MIRROR_ENV = "RFBENCH_DATA_MIRROR"
#: When set (not "" or "0"), only the mirror is downloaded from; canonical URLs are skipped.
OFFLINE_ENV = "RFBENCH_OFFLINE"
TIMEOUT_SECONDS = 60.0
_CHUNK_BYTES = 1 << 20
_MIRROR_HINT = (f"To use a mirror laid out as <base>/<folder>/<file>, set {MIRROR_ENV}=file:///path/to/mirror "
                "(a directory such as ../shared/datasets or an http(s):// base also works), "
                "or pass dataset.mirror=file:///path/to/mirror.")


@dataclass(frozen=True)
class Source:
    """One place a file can be fetched from, and how its bytes are parsed.

    ``url`` is None for the file's own entry when no mirror is set: it can then
    only be found in the cache.
    """

    url: str | None
    folder: str
    name: str
    sha256: str | None
    format: str
    options: Mapping = field(default_factory=dict)

    def cache_path(self, cache_dir: Path) -> Path:
        """Where a download from this source is stored."""
        if self.sha256:
            return cache_file(cache_dir, self.folder, self.name)
        return cache_file(cache_dir, "unverified", self.folder, self.name)

    def cached_paths(self, cache_dir: Path) -> list[Path]:
        """Where a trusted copy may be: the verified tree, and for an unpinned source ``unverified/``."""
        paths = [cache_file(cache_dir, self.folder, self.name), self.cache_path(cache_dir)]
        return paths[:1] if self.sha256 else paths


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


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) URLs only (urllib alone would also follow ftp://)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        scheme = urllib.parse.urlsplit(newurl).scheme
        if scheme not in ("http", "https"):
            raise urllib.error.HTTPError(newurl, code, f"redirect to {newurl!r} refused: only http(s) "
                                                       "redirects are followed", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_HttpOnlyRedirects)


def resolve_mirror(mirror: str | None = None, configured: str | None = None) -> str | None:
    """Mirror base URL: the argument, else ``$RFBENCH_DATA_MIRROR``, else the config.

    A plain directory path is turned into a ``file://`` URL.
    """
    base = mirror or os.environ.get(MIRROR_ENV) or configured
    if base and "://" not in base:
        base = Path(base).expanduser().resolve().as_uri()
    return base or None


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def candidate_sources(file_spec: Mapping, mirror: str | None = None) -> list[Source]:
    """The sources of a file spec in the order they are tried: its own entry (mirror), then ``urls``.

    Raises a DatasetError for a malformed spec, including any file name that is
    not a plain name (so no config can point the cache at another place).
    """
    if not isinstance(file_spec, Mapping):
        raise DatasetError(f"a file spec must be a mapping with path, sha256, format; got {file_spec!r}")
    path = file_spec.get("path")
    folder, name = _split_path(path)
    for key in ("sha256", "format"):
        if key not in file_spec:
            raise DatasetError(f"file {path!r} has no {key!r} (write sha256: null if it is unknown)")
    fmt, options = file_spec["format"], dict(file_spec.get("options") or {})
    own_url = f"{mirror.rstrip('/')}/{path}" if mirror else None
    sources = [Source(own_url, folder, name, file_spec["sha256"], fmt, options)]
    for entry in file_spec.get("urls") or ():
        if not isinstance(entry, Mapping) or "url" not in entry or "sha256" not in entry:
            raise DatasetError(f"urls entry {entry!r} of {path!r} must be a mapping with 'url' and 'sha256' "
                               "(sha256: null if its bytes are unknown)")
        url = str(entry["url"])
        url_name = check_name(urllib.parse.urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1],
                              f"the file name of URL {url!r}")
        # A source in another format brings its own options; otherwise it shares the file's.
        own = "format" in entry
        sources.append(Source(url, folder, url_name, entry["sha256"], entry["format"] if own else fmt,
                              dict(entry.get("options") or {}) if own else options))
    return sources


def _split_path(path: str | None) -> tuple[str, str]:
    """``(folder, file)`` of a spec's mirror-relative path, both plain names."""
    folder, _, name = str(path or "").partition("/")
    try:
        check_name(folder, "folder")
        check_name(name, "file")
    except DatasetError as exc:
        raise DatasetError(f"file path {path!r} must be '<folder>/<file>' as laid out in the mirror: two plain "
                           f"names, no '..', absolute path or further separators ({exc})") from exc
    if folder in RESERVED_FOLDERS:
        raise DatasetError(f"file path {path!r}: the folder names {list(RESERVED_FOLDERS)} are the cache's own")
    return folder, name


def fetch(file_spec: Mapping, cache_dir: str | os.PathLike | None = None, mirror: str | None = None, *,
          allow_unverified: bool = False) -> FetchedFile:
    """Return a verified local copy of a file, downloading it if needed.

    Parameters
    ----------
    file_spec : Mapping
        One entry of a dataset config's ``files`` (``path``, ``sha256``,
        ``format``, optional ``options`` and ``urls``).
    cache_dir : path-like, optional
        See :func:`.cache.resolve_cache_dir`.
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
    CacheError
        If the cache cannot be used or written (never reported as a failed download).
    DatasetError
        If no source yields the file; the message lists every URL tried with
        its failure reason.
    """
    cache_dir, mirror = resolve_cache_dir(cache_dir), resolve_mirror(mirror)
    sources = candidate_sources(file_spec, mirror)
    if cached := _from_cache(sources, cache_dir, allow_unverified):
        return cached
    offline = os.environ.get(OFFLINE_ENV, "") not in ("", "0")
    failures = []
    for i, source in enumerate(sources):
        if source.url is None:
            continue
        if not (source.sha256 or allow_unverified):
            failures.append((source.url, "skipped: no sha256 is pinned, so its bytes cannot be verified"))
        elif offline and i > 0:
            failures.append((source.url, f"skipped: {OFFLINE_ENV} is set, so only the mirror is tried"))
        else:
            try:
                return _download(source, cache_dir)
            except CacheError:
                raise
            except (OSError, ValueError, http.client.HTTPException) as exc:
                failures.append((source.url, f"{type(exc).__name__}: {exc}"))
    unpinned = bool(sources[0].url) and not (sources[0].sha256 or allow_unverified)
    raise DatasetError(_failure_message(file_spec["path"], failures, mirror, unpinned))


def _from_cache(sources: list[Source], cache_dir: Path, allow_unverified: bool) -> FetchedFile | None:
    """The first trusted copy among the sources' cache paths, or None.

    Each path is judged once, by the first source naming it, so a record never
    overrules a pinned sha256 that the file failed.
    """
    judged = set()
    for source in sources:
        for path in source.cached_paths(cache_dir):
            if path in judged or not path.is_file():
                continue
            judged.add(path)
            if digest := _trusted_digest(path, source.sha256, allow_unverified):
                return FetchedFile(path, source, digest)
    return None


def _trusted_digest(path: Path, pinned: str | None, allow_unverified: bool) -> str | None:
    """sha256 of a cached file if it matches its pinned hash or else its record; None if not to be used."""
    if pinned:
        expected, what = pinned, "the pinned sha256"
    elif (record := read_record(path)) and (record.get("pinned") is True or allow_unverified):
        expected, what = record["sha256"], f"its record (from {record.get('source')})"
    else:
        return None
    digest = sha256_file(path)
    if digest == expected:
        return digest
    # Left in place: a successful download replaces it atomically.
    logger.warning("cached %s has sha256 %s, but %s is %s (corrupt or partial); replacing it",
                   path, digest, what, expected)
    return None


def _download(source: Source, cache_dir: Path) -> FetchedFile:
    target = source.cache_path(cache_dir)
    with cache_writer(target, cache_dir) as out, _OPENER.open(source.url, timeout=TIMEOUT_SECONDS) as resp:
        digest = _stream(resp, out)
        if source.sha256 and digest != source.sha256:
            raise DatasetError(f"sha256 mismatch: expected {source.sha256}, got {digest}")
    write_record(target, cache_dir, digest, source.url, pinned=bool(source.sha256))
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


def _failure_message(path: str, failures: list[tuple[str, str]], mirror: str | None, unpinned: bool) -> str:
    """What was tried and why each failed, then the way out; ``unpinned``: the mirror's entry has no sha256
    (so it was not tried, whether or not the mirror has the file)."""
    lines = [f"could not obtain {path!r}; tried:"]
    lines += [f"  - {url}: {reason}" for url, reason in failures] or ["  (no sources configured)"]
    if unpinned:
        lines.append(_unpinned_hint(path, mirror))
    elif not mirror:
        lines += ["No mirror is configured.", _MIRROR_HINT]
    elif missing := _missing_mirror_folder(mirror):
        origin = f"{MIRROR_ENV}={os.environ[MIRROR_ENV]}" if os.environ.get(MIRROR_ENV) else f"the mirror {mirror}"
        lines.append(f"{origin} names the folder {missing}, which does not exist: correct the path")
    else:
        lines.append(f"The mirror {mirror} has no {path}; " + _MIRROR_HINT[0].lower() + _MIRROR_HINT[1:])
    return "\n".join(lines)


def _unpinned_hint(path: str, mirror: str) -> str:
    """How to use a file whose config pins no sha256: pin the mirror's (computed here for a local mirror's file)."""
    parts = urllib.parse.urlsplit(mirror)
    local = Path(urllib.request.url2pathname(parts.path), path) if parts.scheme == "file" else None
    pin = (f"sha256: {sha256_file(local)} (the mirror's {local.name})" if local and local.is_file()
           else f"sha256: <the output of sha256sum on {path}>")
    return (f"{path} has sha256: null in its dataset config, so rfbench reads no copy of it unverified. Pin its "
            f"bytes in the config's file entry ({pin}), or set allow_unverified: true in the dataset config "
            "(dataset.allow_unverified=true where it has that key) to read it as it is; a file of your own needs "
            "neither: rfbench dataset=file dataset.path=<your file>")


def _missing_mirror_folder(mirror: str) -> Path | None:
    """The folder of a ``file://`` mirror if it is not a directory (a wrong path), else None."""
    parts = urllib.parse.urlsplit(mirror)
    folder = Path(urllib.request.url2pathname(parts.path))
    return folder if parts.scheme == "file" and not folder.is_dir() else None
