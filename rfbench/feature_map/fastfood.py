"""Fastfood features of the Gaussian kernel (Le, Sarlos & Smola 2013)."""
from __future__ import annotations

import numba
import numpy as np

from ._hadamard import BATCH, JIT, fwht_columns, load_columns, store_columns
from ._structured import Projector, StructuredRFF


class Fastfood(StructuredRFF):
    r"""Fastfood: each p x p block of W^T is V_b = (1 / (sigma sqrt(p))) S H G Pi H B.

    H = H_p is the unnormalized Walsh-Hadamard matrix, B diagonal Rademacher (+-1), Pi a
    uniform random permutation matrix ((Pi v)_k = v_perm[k]), G diagonal standard
    Gaussian and S diagonal with S_kk = s_k / ||G||_F, s_k ~ chi(p) independent (Le et
    al., section 3.2).  Since (Pi H B)(Pi H B)^T = p I, row k of H G Pi H B has norm
    sqrt(p) ||G||_F, so row k of V_b has norm exactly s_k / sigma: the chi(p) / sigma
    law of a Gaussian frequency's length (tests/feature_map/test_fastfood.py checks it).
    Rows are Gaussian-like, not Gaussian, so K~ is nearly but not exactly unbiased
    (Le et al., Theorem 8, bound its bias and variance).  Applying V_b takes two
    transforms, 2 p log2 p additions.  p is the padded width; parameters and columns (2M
    for M = ``n_components``) are documented in :class:`StructuredRFF`.

    Attributes
    ----------
    signs_ : ndarray of shape (n_blocks, p)
        B's diagonal, +-1 as float64.
    permutations_ : ndarray of shape (n_blocks, p)
        Pi's indices.
    gaussians_ : ndarray of shape (n_blocks, p)
        G's diagonal.
    scales_ : ndarray of shape (n_blocks, p)
        S's diagonal divided by sigma sqrt(p): s_k / (||G||_F sigma sqrt(p)).
    n_padded_ : int
    n_features_in_ : int
    """

    numbers_per_row = 4

    def _draw(self, rng: np.random.Generator, p: int, n_blocks: int) -> None:
        self.signs_ = rng.choice(np.array([-1.0, 1.0]), size=(n_blocks, p))
        self.permutations_ = np.array([rng.permutation(p) for _ in range(n_blocks)]).reshape(n_blocks, p)
        self.gaussians_ = rng.standard_normal((n_blocks, p))
        chi = np.sqrt(rng.chisquare(p, size=(n_blocks, p)))
        frobenius = np.linalg.norm(self.gaussians_, axis=1, keepdims=True)
        self.scales_ = chi / (frobenius * self.sigma * np.sqrt(p))

    def _projector(self, dtype: np.dtype) -> Projector:
        signs, gaussians, scales = (a.astype(dtype) for a in (self.signs_, self.gaussians_, self.scales_))
        return lambda X, start, out: _project(X, signs, self.permutations_, gaussians, scales, start, out)


@numba.njit(**JIT)
def _project(X: np.ndarray, signs: np.ndarray, permutations: np.ndarray, gaussians: np.ndarray,
             scales: np.ndarray, start: int, out: np.ndarray) -> None:
    """out[i, j - start] = (V x_i)_j for the stacked blocks V and columns j in [start, start + m).

    BATCH rows at a time, as the columns of a (p, BATCH) array (see ._hadamard).
    """
    p = signs.shape[1]
    stop = start + out.shape[1]
    V = np.empty((p, BATCH), dtype=X.dtype)
    U = np.empty((p, BATCH), dtype=X.dtype)
    for first in range(0, X.shape[0], BATCH):
        for b in range(start // p, (stop - 1) // p + 1):
            count = load_columns(X, first, signs[b], V)
            fwht_columns(V)
            for k in range(p):  # U = G Pi V
                source, g = permutations[b, k], gaussians[b, k]
                for c in range(count):
                    U[k, c] = g * V[source, c]
            fwht_columns(U)
            lo, hi = max(start - b * p, 0), min(stop - b * p, p)
            store_columns(U, count, scales[b], lo, hi, out, first, b * p + lo - start)
