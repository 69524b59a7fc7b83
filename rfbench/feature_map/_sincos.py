"""Fused float32 sine and cosine: one range reduction, two polynomials, one pass.

numpy evaluates ``np.cos`` and ``np.sin`` as two ufuncs, each with its own
argument reduction and its own pass over memory; a random-feature block needs
both of the same projection.  :func:`scaled_cos_sin_rows` computes, per element
x of a projection row,

    j = round(x * 2/pi),   r = x - j * pi/2   (Cody-Waite: pi/2 = C1 + C2 + C3),
    sin r ~ r + r z P(z),  cos r ~ 1 - z/2 + z^2 Q(z),   z = r^2,  |r| <= pi/4,

and picks (sin x, cos x) from (sin r, cos r) by the quadrant j mod 4.  C1 has 8
and C2 11 significant bits, so j * C1 and j * C2 are exact for |x| < 8192 * pi/2
with or without fused multiply-add; P and Q are the minimax coefficients of
Cephes' ``sinf``/``cosf``.  The result is within ``1.5e-7`` of the exact value for
|x| <= 8192 (9e-8 measured; tests/feature_map/test_sincos.py checks it against float64 numpy),
as accurate as float32 output allows.  Larger or non-finite arguments are
reported to the caller, which falls back to numpy for that block.

Written branch-free so LLVM (through numba) vectorizes it: on AVX2 it is about
five times faster than numpy's float32 ``cos`` + ``sin`` for in-cache blocks
(see benchmarks/bench.py).  numba is compiled once per machine and cached on disk.
"""
from __future__ import annotations

import numba
import numpy as np

#: Arguments up to this magnitude are reduced exactly (see the module docstring).
LIMIT = np.float32(8192.0)

_F = np.float32
_TWO_OVER_PI = _F(2.0 / np.pi)
_C1, _C2, _C3 = _F(1.5703125), _F(4.837512969970703125e-4), _F(7.54978995489188216e-8)
_ROUND = _F(1.5 * 2**23)  # (t + _ROUND) - _ROUND rounds t to the nearest integer for |t| < 2^22
# "contract" allows fused multiply-add (more accurate, never less); nothing that reorders sums.
_JIT = {"nogil": True, "cache": True, "boundscheck": False, "fastmath": {"contract"}}


@numba.njit(inline="always", **_JIT)
def _sin_cos(x: float) -> tuple[float, float]:
    j = (x * _TWO_OVER_PI + _ROUND) - _ROUND
    r = ((x - j * _C1) - j * _C2) - j * _C3
    z = r * r
    s = r + r * z * (_F(-1.6666654611e-1) + z * (_F(8.3321608736e-3) + z * _F(-1.9515295891e-4)))
    c = (_F(1.0) - _F(0.5) * z
         + z * z * (_F(4.166664568298827e-2) + z * (_F(-1.388731625493765e-3) + z * _F(2.443315711809948e-5))))
    quadrant = j - _F(4.0) * np.floor(j * _F(0.25))  # j mod 4, as a float: no integer path to vectorize
    odd = (quadrant == _F(1.0)) | (quadrant == _F(3.0))
    sin_x = c if odd else s
    cos_x = s if odd else c
    sin_x = -sin_x if quadrant >= _F(2.0) else sin_x
    cos_x = -cos_x if (quadrant == _F(1.0)) | (quadrant == _F(2.0)) else cos_x
    return sin_x, cos_x


@numba.njit(**_JIT)
def _row(x: np.ndarray, cos_out: np.ndarray, sin_out: np.ndarray, cos_scale: float, sin_scale: float) -> bool:
    out_of_range = False
    for k in range(x.shape[0]):
        v = x[k]
        out_of_range |= not (abs(v) <= LIMIT)  # also true for NaN
        sin_v, cos_v = _sin_cos(v)
        cos_out[k] = cos_scale * cos_v
        sin_out[k] = sin_scale * sin_v
    return out_of_range


@numba.njit(**_JIT)
def _rows(projection: np.ndarray, flat: np.ndarray, row_stride: int, cos_at: int, sin_at: int,
          cos_scale: float, sin_scale: float) -> bool:
    n, m = projection.shape
    out_of_range = False
    for i in range(n):
        base = i * row_stride
        out_of_range |= _row(projection[i], flat[base + cos_at: base + cos_at + m],
                             flat[base + sin_at: base + sin_at + m], cos_scale, sin_scale)
    return out_of_range


def scaled_cos_sin_rows(
    projection: np.ndarray, out: np.ndarray, cos_at: int, sin_at: int, cos_scale: float, sin_scale: float
) -> bool:
    """Write ``cos_scale * cos(P)`` to ``out[:, cos_at:cos_at+m]`` and ``sin_scale * sin(P)`` to
    ``out[:, sin_at:sin_at+m]``.

    Parameters
    ----------
    projection : C-contiguous float32 ndarray P of shape (n, m)
    out : float32 ndarray of shape (n, w)
        Destination with unit column stride (any row stride: it may be a column
        slice of a wider array).  Only the two column blocks are written.
    cos_at, sin_at : int
        First columns of the two blocks, each of width m, inside ``out``.
    cos_scale, sin_scale : float

    Returns
    -------
    ok : bool
        False if some |P| exceeds :data:`LIMIT` or is not finite: the two blocks
        are then unreliable and the caller must recompute them.
    """
    n, m = projection.shape
    if projection.dtype != np.float32 or out.dtype != np.float32 or not projection.flags.c_contiguous:
        raise ValueError("projection must be C-contiguous float32 and out float32")
    if out.shape[0] != n or max(cos_at, sin_at) + m > out.shape[1] or out.strides[1] != out.itemsize:
        raise ValueError(f"out of shape {out.shape} and strides {out.strides} cannot hold two ({n}, {m}) blocks")
    if n == 0 or m == 0:
        return True
    # The rows of ``out`` as one 1-D unit-stride array, so that numba sees unit
    # strides (a 2-D column slice is typed "any layout" and not vectorized).
    row_stride = out.strides[0] // out.itemsize
    flat = np.lib.stride_tricks.as_strided(out, shape=((n - 1) * row_stride + out.shape[1],), strides=(out.itemsize,))
    return not _rows(projection, flat, row_stride, cos_at, sin_at, _F(cos_scale), _F(sin_scale))
