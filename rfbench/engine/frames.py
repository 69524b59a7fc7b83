"""How a run's CSV records are stored: plain text, or gzipped once large.

A frame (a job's ``<key>.csv``, the runner's ``grid.csv``) whose CSV text exceeds
:data:`GZIP_ABOVE_BYTES` is stored gzipped as ``<key>.csv.gz`` instead, and stays so as it grows
(:func:`write_frame`), so that the committed records stay a few MB; every reader names the record by
its ``.csv`` path and reads either form (:func:`stored`, :func:`read_text`).  The text is the same
either way, so a frame read back is the same bit for bit.  ``trials.csv``, the run's short index
that every tool finds by name, is always plain.  What the rows mean, and how runs add, repair and
lock them, is :mod:`rfbench.engine.records`.
"""
from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path

from rfbench.engine.atomic import atomic_write, write_atomic

#: A frame whose CSV text is longer than this (bytes) is stored gzipped: the largest text records
#: (QMC's learnt points, 2.1 MB of float64 text) then stay under 1 MB each, the small ones readable.
GZIP_ABOVE_BYTES = 256 * 1024
#: zlib's level for a stored frame: fixed, as are the header's time (0) and name (none), so that one
#: text always gives the same bytes and re-recording a frame changes no committed file.
GZIP_LEVEL = 9
#: The run's index of recorded trials: always plain text (:func:`write_frame`).
INDEX = "trials.csv"


class RecordError(ValueError):
    """A record rfbench cannot trust: not the table it writes, or reached through a link out of its tree."""


def gzipped(path: Path) -> Path:
    """The gzipped form ``<key>.csv.gz`` of the record ``<key>.csv``."""
    return path.with_name(f"{path.name}.gz")


def stored_gzipped(path: Path, text: str) -> bool:
    """Whether a run's record ``path`` holding ``text`` is stored gzipped: a frame (not :data:`INDEX`) whose
    text exceeds :data:`GZIP_ABOVE_BYTES`, or that is gzipped already (it stays so as it grows or shrinks)."""
    return path.name != INDEX and (len(text.encode()) > GZIP_ABOVE_BYTES or gzipped(path).exists())


def write_frame(path: Path, text: str) -> None:
    """Store the CSV ``text`` of the record ``path`` (``<key>.csv``) in its form (:func:`stored_gzipped`).

    A switch to gzip writes ``<key>.csv.gz`` first, atomically and whole, then removes ``<key>.csv``:
    a writer killed between the two leaves both files, the .gz holding every row (:func:`stored`).
    """
    if not stored_gzipped(path, text):
        write_atomic(path, text)
        return
    with atomic_write(gzipped(path), "wb") as handle:
        handle.write(pack(text))
    path.unlink(missing_ok=True)


def pack(text: str) -> bytes:
    """``text`` as one gzip member whose bytes depend on the text and the zlib build alone.

    The header is written here, not by :func:`gzip.compress`, whose OS byte depends on the Python
    version (3 on 3.11 and 3.12, 255 on 3.10 and 3.13+): no name, time 0, XFL 2 (level 9), OS 3, as the
    committed files have.  The deflate stream itself can differ under another zlib build (zlib-ng).
    """
    data = text.encode()
    deflate = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return _GZIP_HEADER + deflate.compress(data) + deflate.flush() + trailer


#: ID1 ID2, deflate, no flags, MTIME 0, XFL 2 (the slowest, best compression), OS 3 (Unix).
_GZIP_HEADER = b"\x1f\x8b\x08\x00" + bytes(4) + b"\x02\x03"


def stored(path: Path) -> Path:
    """The file that holds the record ``path`` (``<key>.csv``): ``<key>.csv.gz`` if it exists, else ``path``.

    The .gz wins over a .csv beside it: a switch to gzip writes the .gz whole before it removes the
    .csv, and every later write goes to the .gz (:func:`write_frame`), so a .csv beside a .gz is the
    stale trace of an interrupted switch (the run's resume removes it).  :data:`INDEX` is always plain.
    """
    packed = gzipped(path)
    return packed if path.name != INDEX and packed.exists() else path


def read_text(path: Path) -> str:
    """The CSV text of the record ``path``, stored in either form; FileNotFoundError if it is in neither.

    A gzipped file cut short or corrupt is a RecordError, never read in part.  A reader without the
    record's lock that finds the .csv gone once it opens it met a switch to gzip: it reads the .gz.
    """
    found = stored(path)
    try:
        text, damage = load(found)
    except FileNotFoundError:
        if found == gzipped(path) or not gzipped(path).exists():
            raise
        found = gzipped(path)
        text, damage = load(found)
    if damage:
        raise RecordError(f"{found} is {damage}: rerun the run's command (it computes the trials it held again), "
                          "or restore the file (git checkout)")
    return text


def load(found: Path) -> tuple[str, str | None]:
    """The text of the stored file ``found`` and its damage (None if none): of a .gz cut short, the
    whole lines before the cut; of one with bytes after its stream, the stream's (whole, its CRC
    checked); of a corrupt one (a bad header or CRC), nothing.  A RecordError if ``found`` is no regular
    file (a FIFO would block the reader) or its text is not UTF-8."""
    data = read_regular(found)
    if found.suffix != ".gz":
        return _decoded(found, data), None
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # one gzip member, its CRC and length checked
    try:
        data = inflate.decompress(data)
    except zlib.error as err:
        return "", f"damaged (not a whole gzip stream: {err})"
    if inflate.unused_data:
        return _decoded(found, data), "damaged (bytes after its gzip stream)"
    if not inflate.eof:
        return _decoded(found, data[:data.rfind(b"\n") + 1]), "cut short (its gzip stream ends early)"
    return _decoded(found, data), None


def read_regular(path: Path) -> bytes:
    """The bytes of ``path``, or a RecordError if it is not a regular file (a FIFO, a device, a folder).

    Opened without blocking and checked before reading: opening a FIFO for reading waits for a writer,
    and reading a device may never end.  FileNotFoundError if it does not exist.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
            raise RecordError(f"{path} is {kind}, not a regular file: rfbench reads records from files only; "
                              "move it away (its trials are computed again)")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def _decoded(path: Path, data: bytes) -> str:
    """``data`` read from ``path`` as UTF-8 text, or a RecordError naming the first byte that is not."""
    try:
        return data.decode()
    except UnicodeDecodeError as err:
        raise RecordError(f"{path} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}): "
                          "not a record rfbench wrote; restore it (git checkout) or move it away (its trials "
                          "are computed again)") from None


def record_paths(folder: Path, pattern: str = "*.csv") -> list[Path]:
    """The records ``folder.glob(pattern)`` finds in either form (``runs/*/grid.csv``), named by their
    ``.csv`` path, sorted."""
    found = [*folder.glob(pattern), *folder.glob(f"{pattern}.gz")]
    return sorted({p.with_name(p.name.removesuffix(".gz")) for p in found})


def frame_paths(run: Path) -> list[Path]:
    """The frames a run records (a job's ``<key>.csv``, ``grid.csv``): its CSV records but the index and
    ``summary.csv`` (derived, written anew by every invocation)."""
    return [p for p in record_paths(run) if p.name not in (INDEX, "summary.csv")]
