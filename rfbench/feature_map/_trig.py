"""Chunked, in-place evaluation of trigonometric random-feature blocks.

Every map in this package reduces to blocks of the form

    scale * [cos(X W), sin(X W)]      (phi of eq. 8, up to the 1/sqrt(M))
    scale * [-sin(X W), cos(X W)]     (psi of eq. 8, "rotated")
    scale * cos(X W + b)              (Rahimi-Recht with a random offset)

for data X (n, d) and frequencies W (d, m).  With M up to d * 2^10 the output
dominates memory, so the engine writes straight into a caller-provided (or
freshly allocated) output: one GEMM per row chunk into a reused buffer, then
ufuncs with ``out=`` and in-place scaling.  No temporary ever has the size of
the output.
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

#: Size of the per-chunk projection buffer: big enough for the GEMM to run at
#: full BLAS speed, small enough to stay cache-friendly and negligible in memory.
CHUNK_BYTES = 8 * 2**20

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
        Rows per GEMM; default fills a buffer of about :data:`CHUNK_BYTES`.

    Returns
    -------
    out : ndarray of shape (n, 2m)
    """
    X, W, out = _prepare(X, W, out, dtype, columns_per_frequency=2)
    m = W.shape[1]
    first, second = (np.sin, np.cos) if rotated else (np.cos, np.sin)
    first_scale = -scale if rotated else scale
    for rows, projection in _projections(X, W, None, chunk_rows):
        left, right = out[rows, :m], out[rows, m:]
        first(projection, out=left)
        left *= first_scale
        second(projection, out=right)
        right *= scale
    return out


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
    for rows, projection in _projections(X, W, offset, chunk_rows):
        block = out[rows]
        np.cos(projection, out=block)
        block *= scale
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
    return X, W, out


def _projections(
    X: np.ndarray, W: np.ndarray, offset: np.ndarray | None, chunk_rows: int | None
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, X[rows] @ W + offset)`` for consecutive row chunks.

    The yielded projection lives in one reused buffer: consume it before
    advancing the iterator.
    """
    n, m = X.shape[0], W.shape[1]
    if chunk_rows is None:
        chunk_rows = max(1, CHUNK_BYTES // max(1, m * X.itemsize))
    elif chunk_rows < 1:
        raise ValueError(f"chunk_rows={chunk_rows} must be a positive integer")
    buffer = np.empty((min(chunk_rows, n), m), dtype=X.dtype)
    for start in range(0, n, chunk_rows):
        rows = slice(start, min(start + chunk_rows, n))
        projection = buffer[: rows.stop - start]
        np.matmul(X[rows], W, out=projection)
        if offset is not None:
            projection += offset
        yield rows, projection
