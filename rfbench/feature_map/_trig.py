"""Chunked, in-place, multi-threaded evaluation of trigonometric random-feature blocks.

Every map in this package reduces to blocks of the form

    scale * [cos(X W), sin(X W)]      (phi of eq. 8, up to the 1/sqrt(M))
    scale * [-sin(X W), cos(X W)]     (psi of eq. 8, "rotated")
    scale * cos(X W + b)              (Rahimi-Recht with a random offset)

for data X (n, d) and frequencies W (d, m).  With M up to d * 2^10 the output
dominates memory, so the engine writes straight into a caller-provided (or
freshly allocated) output: per row chunk, one GEMM into a reused per-thread
buffer, then ufuncs with ``out=`` and in-place scaling.  No temporary ever has
the size of the output.

Trigonometry.  In float32, ``[cos, sin]`` blocks come from one fused pass
(:mod:`._sincos`: one range reduction for both, vectorized), numpy's ufuncs
being the fallback for arguments beyond its range and the float64 path.

Threads.  The trigonometry runs on one core per call and dominates the cost (d
is small, so the GEMM is cheap), but it releases the GIL.  Row chunks are therefore spread
over a small thread pool, as many threads as the BLAS thread limit currently set
with threadpoolctl (``threadpool_limits(1)`` makes the engine serial), while BLAS
itself is held to one thread per call: a multi-threaded BLAS on these skinny
GEMMs only adds synchronisation.  Chunks write disjoint output rows and each is
computed the same way whichever thread runs it, so the result does not depend
on the number of threads.
"""
from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import ArrayLike, DTypeLike
from threadpoolctl import ThreadpoolController

from ._sincos import scaled_cos_sin_rows

#: Size of the per-chunk projection buffer: large enough that per-chunk costs
#: (GEMM call, task dispatch) vanish, small enough to leave the threads many
#: chunks to balance (measured flat from 1 to 4 MiB on the bench, see benchmarks/bench.py).
CHUNK_BYTES = 2 * 2**20

_FEATURE_DTYPES = ("float32", "float64")


def feature_dtype(dtype: DTypeLike) -> np.dtype:
    """Return ``np.dtype(dtype)`` if it is float32 or float64, else raise ValueError."""
    try:
        resolved = None if dtype is None else np.dtype(dtype)  # np.dtype(None) is float64
    except TypeError:
        resolved = None
    if resolved is None or resolved.name not in _FEATURE_DTYPES:
        raise ValueError(f"dtype={dtype!r} is not supported; choose one of {_FEATURE_DTYPES}")
    return resolved


def cos_sin(
    X: ArrayLike,
    W: ArrayLike,
    *,
    scale: float = 1.0,
    rotated: bool = False,
    out: np.ndarray | None = None,
    dtype: DTypeLike = np.float32,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """Write ``scale * [cos(XW), sin(XW)]`` (or ``scale * [-sin(XW), cos(XW)]``).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Data; cast once to ``dtype``.
    W : array-like of shape (d, m)
        Frequencies as columns; cast once to ``dtype``.
    scale : float, default=1.0
        Common factor of all columns, e.g. ``sqrt(mass / M)``.
    rotated : bool, default=False
        Produce ``psi = [-sin, cos]`` instead of ``phi = [cos, sin]``, so that
        ``phi(x) . psi(y) = sum_l sin(w_l . (x - y))``.
    out : ndarray of shape (n, 2m), optional
        Destination, possibly a column slice of a wider array; its dtype must be
        ``dtype``.  Allocated when omitted.
    dtype : {"float32", "float64"}, default=float32
        Precision of the GEMM, the trigonometry and the output.
    chunk_rows : int, optional
        Rows per GEMM (and per thread task); default fills a buffer of about
        :data:`CHUNK_BYTES`.

    Returns
    -------
    out : ndarray of shape (n, 2m)
    """
    X, W, out = _prepare(X, W, out, dtype, columns_per_frequency=2)

    def fill(rows: slice, projection: np.ndarray) -> None:
        write_cos_sin(projection, out[rows], scale=scale, rotated=rotated)

    _map_projections(fill, X, W, None, chunk_rows)
    return out


def write_cos_sin(projection: np.ndarray, out: np.ndarray, *, scale: float, rotated: bool = False) -> None:
    """Write ``scale * [cos(P), sin(P)]`` (``rotated``: ``[-sin(P), cos(P)]``) of a projection P (n, m).

    ``out`` (n, 2m) of P's dtype; float32 with unit column stride takes the fused kernel
    (:mod:`._sincos`), numpy's ufuncs serve float64 and arguments beyond its range.
    """
    m = projection.shape[1]
    cos_at, sin_at, sin_scale = (m, 0, -scale) if rotated else (0, m, scale)
    fused = out.dtype == np.float32 and out.strides[1] == out.itemsize
    if fused and scaled_cos_sin_rows(projection, out, cos_at, sin_at, scale, sin_scale):
        return
    for ufunc, at, factor in ((np.cos, cos_at, scale), (np.sin, sin_at, sin_scale)):
        part = out[:, at : at + m]
        ufunc(projection, out=part)
        part *= factor


def cos_offset(
    X: ArrayLike,
    W: ArrayLike,
    offset: ArrayLike,
    *,
    scale: float = 1.0,
    out: np.ndarray | None = None,
    dtype: DTypeLike = np.float32,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """Write ``scale * cos(XW + offset)``, shape (n, m).

    Parameters are those of :func:`cos_sin`, plus ``offset`` of shape (m,)
    added to every row of the projection.
    """
    X, W, out = _prepare(X, W, out, dtype, columns_per_frequency=1)
    offset = np.asarray(offset, dtype=X.dtype)
    if offset.shape != (W.shape[1],):
        raise ValueError(f"offset has shape {offset.shape}, expected ({W.shape[1]},)")

    def fill(rows: slice, projection: np.ndarray) -> None:
        block = out[rows]
        np.cos(projection, out=block)
        block *= scale

    _map_projections(fill, X, W, offset, chunk_rows)
    return out


def _prepare(
    X: ArrayLike, W: ArrayLike, out: np.ndarray | None, dtype: DTypeLike, columns_per_frequency: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cast X and W once, check shapes and allocate or check ``out``."""
    dtype = feature_dtype(dtype)
    X = np.asarray(X, dtype=dtype)
    W = np.asarray(W, dtype=dtype)
    if X.ndim != 2 or W.ndim != 2 or X.shape[1] != W.shape[0]:
        raise ValueError(f"X of shape {X.shape} and W of shape {W.shape} are not (n, d) and (d, m)")
    shape = (X.shape[0], columns_per_frequency * W.shape[1])
    if out is None:
        return X, W, np.empty(shape, dtype=dtype)
    if out.shape != shape or out.dtype != dtype:
        raise ValueError(f"out has shape {out.shape} and dtype {out.dtype}, expected {shape} and {dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    return X, W, out


def trig_threads() -> int:
    """Threads of the engine: the current BLAS thread limit (threadpoolctl), at least 1."""
    limits = [lib.num_threads for lib in _blas_controller().lib_controllers]
    return max(1, min(limits, default=os.cpu_count() or 1))


def _map_projections(
    fill: Callable[[slice, np.ndarray], None],
    X: np.ndarray,
    W: np.ndarray,
    offset: np.ndarray | None,
    chunk_rows: int | None,
) -> None:
    """Call ``fill(rows, X[rows] @ W + offset)`` for consecutive row chunks, in threads.

    The projection lives in a buffer reused by the calling thread: ``fill`` must
    consume it before returning, and write only output rows ``rows``.
    """
    m = W.shape[1]

    def project(rows: slice, projection: np.ndarray) -> None:
        if m == 1:  # BLAS's gemv rounds a row by its place in the block (OpenBLAS float32): sum each row alone
            np.einsum("ij,j->i", X[rows], W[:, 0], out=projection[:, 0])  # no temporary, no BLAS
        else:
            np.matmul(X[rows], W, out=projection)
        if offset is not None:
            projection += offset
        fill(rows, projection)

    map_row_chunks(project, X.shape[0], m, X.dtype, chunk_rows)


def map_row_chunks(
    task: Callable[[slice, np.ndarray], None], n: int, m: int, dtype: DTypeLike, chunk_rows: int | None = None
) -> None:
    """Call ``task(rows, buffer)`` for consecutive row chunks of range(n), in the engine's threads.

    ``buffer`` is an (rows, m) array of ``dtype`` reused by the calling thread (``task`` must
    consume it before returning and write only output rows ``rows``); BLAS is held to one
    thread meanwhile.  ``chunk_rows`` defaults to a buffer of about :data:`CHUNK_BYTES`.
    """
    itemsize = np.dtype(dtype).itemsize
    if chunk_rows is None:
        chunk_rows = max(1, CHUNK_BYTES // max(1, m * itemsize))
    elif chunk_rows < 1:
        raise ValueError(f"chunk_rows={chunk_rows} must be a positive integer")
    chunks = [slice(start, min(start + chunk_rows, n)) for start in range(0, n, chunk_rows)]
    buffers = threading.local()

    def run(rows: slice) -> None:
        if not hasattr(buffers, "projection"):
            buffers.projection = np.empty((min(chunk_rows, n), m), dtype=dtype)
        task(rows, buffers.projection[: rows.stop - rows.start])

    n_threads = min(trig_threads(), len(chunks))
    with _blas_controller().limit(limits=1):
        if n_threads <= 1:
            for rows in chunks:
                run(rows)
        else:
            # list() waits for every chunk and re-raises the first exception.
            list(_executor(n_threads, os.getpid()).map(run, chunks))


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """The BLAS libraries numpy calls (scanning the loaded libraries takes milliseconds: once)."""
    return ThreadpoolController().select(user_api="blas")


@functools.cache
def _executor(n_threads: int, pid: int) -> ThreadPoolExecutor:
    """A pool of ``n_threads`` threads; keyed by pid as a forked child has no threads."""
    return ThreadPoolExecutor(n_threads, thread_name_prefix="rfbench-trig")
