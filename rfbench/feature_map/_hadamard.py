"""The fast Walsh-Hadamard transform, in place on the columns of a (2^k, B) array (numba).

H_1 = [1], H_{2p} = [[H_p, H_p], [H_p, -H_p]] (Sylvester's order, that of
``scipy.linalg.hadamard``), unnormalized: H_p H_p = p I.  H_p is the Kronecker power
of the 2 x 2 butterfly, one factor per bit of the index, and those factors commute: the
log2 p passes below, each pairing indices j and j + h that differ in one bit h, give
V <- H_p V in p log2 p additions per column, against p^2 multiply-adds for a dense product.

Layout.  The structured maps transform B data rows at once, stored as the columns of a
(p, B) array: every butterfly then adds two contiguous rows of B numbers, a loop LLVM
vectorizes whatever h is, where a single vector's passes h = 1, 2, 4 are not
vectorizable (measured 0.38 ns per butterfly at B = 32 against 2.5 ns one vector at a
time, float32, p = 1024).
"""
from __future__ import annotations

import numba
import numpy as np

#: numba options of the structured maps' kernels: released GIL (they run in the engine's
#: threads), compiled once per machine, additions in source order (no fastmath reassociation).
JIT = {"nogil": True, "cache": True, "boundscheck": False}

#: Data rows transformed together: (p, 32) float32 is 128 KiB at p = 1024, within L2.
BATCH = 32


@numba.njit(**JIT)
def fwht_columns(V: np.ndarray) -> None:
    """V <- H V in place, for a C-contiguous (p, B) float array with p = 2^k."""
    p, width = V.shape
    h = 1
    while h < p:
        for start in range(0, p, 2 * h):
            for j in range(start, start + h):
                for b in range(width):
                    a = V[j, b]
                    c = V[j + h, b]
                    V[j, b] = a + c
                    V[j + h, b] = a - c
        h *= 2


@numba.njit(**JIT)
def load_columns(X: np.ndarray, first: int, signs: np.ndarray, V: np.ndarray) -> int:
    """V[k, b] = X[first + b, k] * signs[k] for k < d, 0 for d <= k < p (zero padding).

    Fills as many columns as rows remain (at most V's B); returns that count.
    """
    d = X.shape[1]
    count = min(V.shape[1], X.shape[0] - first)
    for k in range(V.shape[0]):
        for b in range(count):
            V[k, b] = X[first + b, k] * signs[k] if k < d else 0.0
    return count


@numba.njit(**JIT)
def store_columns(V: np.ndarray, count: int, scales: np.ndarray, lo: int, hi: int,
                  out: np.ndarray, first: int, at: int) -> None:
    """out[first + b, at + j - lo] = scales[j] * V[j, b] for the rows j in [lo, hi) of the block."""
    for b in range(count):
        for j in range(lo, hi):
            out[first + b, at + j - lo] = scales[j] * V[j, b]


def padded_width(d: int) -> int:
    """The smallest power of 2 that is >= d (inputs are zero-padded to it)."""
    return 1 << max(0, int(d) - 1).bit_length()
