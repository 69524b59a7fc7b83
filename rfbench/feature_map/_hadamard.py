"""The fast Walsh-Hadamard transform, in place on a vector of length 2^k (numba).

H_1 = [1], H_{2p} = [[H_p, H_p], [H_p, -H_p]] (Sylvester's order, that of
``scipy.linalg.hadamard``), unnormalized: H_p H_p = p I.  H_p is the Kronecker power
of the 2 x 2 butterfly, one factor per bit of the index, and those factors commute: the
k passes below, each pairing indices j and j + h that differ in one bit h, give
v <- H_p v in p log2 p additions, against p^2 multiply-adds for a dense product.
"""
from __future__ import annotations

import numba
import numpy as np

#: numba options of the structured maps' kernels: released GIL (they run in the engine's
#: threads), compiled once per machine, additions in source order (no fastmath reassociation).
JIT = {"nogil": True, "cache": True, "boundscheck": False}


@numba.njit(**JIT)
def fwht(v: np.ndarray) -> None:
    """v <- H v in place, for a contiguous 1-D float array of length p = 2^k."""
    p = v.shape[0]
    h = 1
    while h < p:
        for start in range(0, p, 2 * h):
            for j in range(start, start + h):
                a = v[j]
                b = v[j + h]
                v[j] = a + b
                v[j + h] = a - b
        h *= 2


def padded_width(d: int) -> int:
    """The smallest power of 2 that is >= d (inputs are zero-padded to it)."""
    return 1 << max(0, int(d) - 1).bit_length()
