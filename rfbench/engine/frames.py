"""How a run's CSV records are laid out on disk: plain text, or gzip members appended trial by trial.

A record of a run (its index ``trials.csv``, a job's ``<key>.csv``, the runner's ``grid.csv``) whose CSV text
exceeds :data:`GZIP_ABOVE_BYTES` is stored gzipped as ``<key>.csv.gz`` instead, and stays so as it grows, so
that the committed records stay a few MB a paper; every reader names the record by its ``.csv`` path and reads
either form (:func:`stored`, :func:`record_paths`).  A run's ``summary.csv`` (:data:`DERIVED`, written anew by
every invocation and not committed) is always plain.

A gzipped frame is a sequence of gzip members (RFC 1952 allows several: ``zcat`` prints their texts one
after another, one CSV table): the first, written whole, holds the header; each later one holds the
rows of one trial, without the header, appended as one write.  Recording a trial thus costs that
trial's bytes, not a recompression of every trial before it.  Each member ends with the CRC-32 and
length of its text, which is its commit marker: a member cut short (a writer killed mid-append, a full
disk) or corrupt is damage, never read in part (:func:`load`).  A committed frame of one member (every
frame recorded before appends) is the case of no appended member, read as it always was.

This module says how the bytes are laid out and reads them; :mod:`rfbench.engine.records`, the one
module the rest of rfbench reads and writes a run's records through, decides what is written and when.
"""
from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path
from typing import NamedTuple

#: A record whose CSV text is longer than this (bytes) is stored gzipped.  Most committed records of runs are
#: a few KB of text, several times smaller gzipped, and their thousands made up most of a paper's bytes
#: (tests/test_results_size.py holds each paper's total); a table of a trial or two stays plain and readable.
GZIP_ABOVE_BYTES = 2 * 1024
#: zlib's level for a stored frame: fixed, as are the header's time (0) and name (none), so that one
#: text always gives the same bytes and re-recording a frame changes no committed file.
GZIP_LEVEL = 9
#: The run's index of recorded trials, one row per trial.
INDEX = "trials.csv"
#: The run's summary of its trials: derived from the index, written anew by every invocation, never gzipped.
DERIVED = "summary.csv"
#: Bytes of a gzipped frame inflated at a time: a member's end is found without copying what follows it.
_CHUNK = 1 << 20


class RecordError(ValueError):
    """A record rfbench cannot trust: not the table it writes, or reached through a link out of its tree."""


class Stored(NamedTuple):
    """What a stored record holds: the texts of its whole members (one for a plain file), the whole lines
    of a damaged member after them, the byte offset where the whole members end, and the damage (None if none)."""

    members: list[str]
    cut: str
    end: int
    damage: str | None

    @property
    def text(self) -> str:
        """The whole lines the file holds: its whole members', then those of a damaged member."""
        return "".join(self.members) + self.cut


def gzipped(path: Path) -> Path:
    """The gzipped form ``<key>.csv.gz`` of the record ``path`` (``<key>.csv``)."""
    return path.with_name(f"{path.name}.gz")


def stored_gzipped(path: Path, text: str) -> bool:
    """Whether a run's record ``path`` holding ``text`` is stored gzipped: one (not :data:`DERIVED`) whose
    text exceeds :data:`GZIP_ABOVE_BYTES`, or that is gzipped already (it stays so as it grows or shrinks)."""
    return path.name != DERIVED and (len(text.encode()) > GZIP_ABOVE_BYTES or gzipped(path).exists())


def pack(text: str) -> bytes:
    """``text`` as one gzip member whose bytes depend on the text and the zlib build alone.

    The header is written here, not by :func:`gzip.compress`, whose OS byte depends on the Python
    version (``3`` on ``3.11`` and ``3.12``, ``255`` on ``3.10`` and ``3.13+``): no name, time 0, XFL 2
    (level 9), OS 3, as the committed files have.  The deflate stream itself can differ under another
    zlib build (zlib-ng).
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
    .csv, and every later write goes to the .gz, so a .csv beside a .gz is the stale trace of an
    interrupted switch (the run's resume removes it).  :data:`DERIVED` is always plain.
    """
    packed = gzipped(path)
    return packed if path.name != DERIVED and packed.exists() else path


def read(path: Path) -> tuple[Path, Stored]:
    """The file holding the record ``path``, stored in either form, and what it holds; FileNotFoundError if
    it is in neither.  A reader without the record's lock that finds the .csv gone once it opens it met a
    switch to gzip: it reads the .gz."""
    found = stored(path)
    try:
        return found, load(found)
    except FileNotFoundError:
        if found == gzipped(path) or not gzipped(path).exists():
            raise
        return gzipped(path), load(gzipped(path))


def load(found: Path) -> Stored:
    """What the stored file ``found`` holds (:class:`Stored`).  A RecordError if ``found`` is no regular
    file (a FIFO would block the reader) or its text is not UTF-8."""
    data = read_regular(found)
    if found.suffix != ".gz":
        return Stored([_decoded(found, data)], "", len(data), None)
    members, end, cut, damage = _inflate(data)
    return Stored([_decoded(found, m) for m in members], _decoded(found, cut[:cut.rfind(b"\n") + 1]), end, damage)


def _inflate(data: bytes) -> tuple[list[bytes], int, bytes, str | None]:
    """The gzip members of ``data``: their texts, the offset where the whole ones end, what the damaged
    member after them still shows, and the damage: a member cut short, corrupt (a bad header or CRC),
    or bytes that are no gzip member."""
    view, members, end = memoryview(data), [], 0
    while end < len(data):
        if data[end:end + 2] != _GZIP_HEADER[:2]:
            return members, end, b"", "damaged (bytes after its gzip stream)"
        inflate, pos, out = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS), end, []  # CRC and length checked
        try:
            while not inflate.eof and pos < len(data):
                out.append(inflate.decompress(view[pos:pos + _CHUNK]))
                pos = min(pos + _CHUNK, len(data))
        except zlib.error as err:
            return members, end, b"", f"damaged (not a whole gzip stream: {err})"
        if not inflate.eof:
            return members, end, b"".join(out), "cut short (its gzip stream ends early)"
        members.append(b"".join(out))
        end = pos - len(inflate.unused_data)
    return members, end, b"", None


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


def header(path: Path) -> str | None:
    """The first line of the gzipped frame ``path`` (its CSV header), inflating only as far as it; None
    if the file does not start with a whole line."""
    inflate, text = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS), b""
    with open(path, "rb") as handle:
        while b"\n" not in text and not inflate.eof and (chunk := handle.read(64 * 1024)):
            try:
                text += inflate.decompress(chunk)
            except zlib.error:
                return None
    line, newline, _ = text.partition(b"\n")
    return line.decode(errors="replace") if newline else None


def record_paths(folder: Path, pattern: str = "*.csv") -> list[Path]:
    """The records ``folder.glob(pattern)`` finds in either form (``runs/*/grid.csv``), named by their
    ``.csv`` path, sorted."""
    found = [*folder.glob(pattern), *folder.glob(f"{pattern}.gz")]
    return sorted({p.with_name(p.name.removesuffix(".gz")) for p in found})


def frame_paths(run: Path) -> list[Path]:
    """The frames a run records (a job's ``<key>.csv``, ``grid.csv``): its CSV records but the index and
    ``summary.csv`` (derived, written anew by every invocation)."""
    return [p for p in record_paths(run) if p.name not in (INDEX, DERIVED)]
