"""Structured orthogonal random features of the Gaussian kernel (Yu et al. 2016, section 4)."""
from __future__ import annotations

import numba
import numpy as np

from ._hadamard import BATCH, JIT, fwht_columns, load_columns, store_columns
from ._structured import Projector, StructuredRFF


class StructuredOrthogonalRFF(StructuredRFF):
    r"""SORF: each p x p block of W^T is V_b = (sqrt(p) / sigma) H D1 H D2 H D3.

    H = H_p / sqrt(p) is the normalized Walsh-Hadamard matrix and D1, D2, D3 are
    diagonal with independent Rademacher (+-1) entries, so V_b is sqrt(p) / sigma times
    an orthogonal matrix: its rows are orthogonal, of norm exactly sqrt(p) / sigma (the
    mean chi(p) / sigma length of ORF's rows, whose Gaussian-like directions they
    imitate).  Yu et al. show the resulting K~ is nearly unbiased, with bias vanishing as
    p grows, and its variance close to ORF's; it is not exactly unbiased.  p is the
    padded width (see :class:`StructuredRFF`, which also documents parameters and
    columns: 2M columns for M = ``n_components``).  Applying V_b takes three transforms,
    3 p log2 p additions, against p^2 multiply-adds for a dense block.

    Padding: when d < p, the rows are orthogonal in R^p but not on the d coordinates the
    data occupy, so SORF's variance is that of ORF drawn in R^p on the zero-padded data,
    not ORF's in R^d: orthogonality's variance reduction, a sum over pairs of one
    block's rows of terms of order 1 / (block width), keeps about d / p of ORF's at M = d
    and recovers as M fills whole blocks of p rows (MNIST, d = 784: ``make atlas-sorf``,
    results/atlas/README.md; tests/feature_map/test_sorf.py).

    Attributes
    ----------
    signs_ : ndarray of shape (n_blocks, 3, p)
        The diagonals (D3, D2, D1), +-1 as float64, in the order they are applied.
    n_padded_ : int
    n_features_in_ : int
    """

    numbers_per_row = 3

    def _draw(self, rng: np.random.Generator, p: int, n_blocks: int) -> None:
        self.signs_ = rng.choice(np.array([-1.0, 1.0]), size=(n_blocks, 3, p))

    def _projector(self, dtype: np.dtype) -> Projector:
        # sqrt(p) / sigma times three normalizations 1 / sqrt(p) of the unnormalized transform.
        signs, scale = self.signs_.astype(dtype), dtype.type(1.0 / (self.sigma * self.n_padded_))
        return lambda X, start, out: _project(X, signs, scale, start, out)


@numba.njit(**JIT)
def _project(X: np.ndarray, signs: np.ndarray, scale: float, start: int, out: np.ndarray) -> None:
    """out[i, j - start] = (V x_i)_j for the stacked blocks V and columns j in [start, start + m).

    BATCH rows at a time, as the columns of a (p, BATCH) array (see ._hadamard).
    """
    p = signs.shape[2]
    stop = start + out.shape[1]
    V = np.empty((p, BATCH), dtype=X.dtype)
    scales = np.full(p, scale, dtype=X.dtype)
    for first in range(0, X.shape[0], BATCH):
        for b in range(start // p, (stop - 1) // p + 1):
            count = load_columns(X, first, signs[b, 0], V)
            fwht_columns(V)
            for sign in (signs[b, 1], signs[b, 2]):
                for k in range(p):
                    for c in range(count):
                        V[k, c] *= sign[k]
                fwht_columns(V)
            lo, hi = max(start - b * p, 0), min(stop - b * p, p)
            store_columns(V, count, scales, lo, hi, out, first, b * p + lo - start)
