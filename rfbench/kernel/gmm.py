r"""The generalized min-max (GMM) kernel of Li (KDD 2017, eqs. 2-3).

Each coordinate u_i of u in R^D is split into its positive and negative parts
(eq. 2; 0-based here: column 2i holds u_i if u_i > 0, column 2i + 1 holds -u_i
if u_i <= 0), giving a nonnegative u~ in R^{2D}, and

    GMM(u, v) = sum_i min(u~_i, v~_i) / sum_i max(u~_i, v~_i)          (eq. 3)

is the min-max kernel of the transformed vectors.  The split preserves both
the l1 norm, ||u~||_1 = ||u||_1, and the l1 distance, ||u~ - v~||_1 =
||u - v||_1 (coordinates of equal sign differ by ||u_i| - |v_i||, of opposite
sign by |u_i| + |v_i|).  With min(a, b) = (a + b - |a - b|) / 2 and
max(a, b) = (a + b + |a - b|) / 2 this gives, without forming u~,

    GMM(u, v) = (||u||_1 + ||v||_1 - ||u - v||_1) / (||u||_1 + ||v||_1 + ||u - v||_1),

so the Gram matrix costs one l1 distance matrix, computed here in cache-sized
tiles by a numba loop (3-6 times faster than scipy's ``cdist`` at d = 16-600)
that writes each entry once, without temporaries.  Rule for zero rows: 0 / 0 is
taken as 0, so GMM(0, 0) = 0 (and GMM(0, v) = 0 for v != 0 by eq. 3), matching
the all-zero features that ``GCWS(empty_rows="zero")`` gives such rows.
"""
from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .base import Kernel, check_dim

#: Tiles of the Gram matrix: TILE_ROWS rows of X (in the last-level cache) against
#: TILE_COLUMNS rows of Y (in L2 for d up to ~1000), so Y is streamed from memory
#: once per TILE_ROWS rows of X rather than once per row.
TILE_ROWS, TILE_COLUMNS = 256, 32


def gmm_transform(X: ArrayLike) -> np.ndarray | sp.csr_matrix:
    """The nonnegative transform of eq. (2): (n, D) -> (n, 2D).

    Column 2i is max(x_i, 0) and column 2i + 1 is max(-x_i, 0) (0-based; the
    paper's 2i - 1 and 2i).  Dense input gives a float64 array, sparse input a
    CSR matrix with as many stored entries as the input has nonzeros.

    Examples
    --------
    >>> gmm_transform([[-5.0, 3.0]])   # the paper's example u = [-5 3]
    array([[0., 5., 3., 0.]])
    """
    if sp.issparse(X):
        coo = sp.coo_matrix(X, dtype=np.float64)
        coo.eliminate_zeros()
        col = 2 * coo.col + (coo.data < 0)
        shape = (coo.shape[0], 2 * coo.shape[1])
        return sp.csr_matrix((np.abs(coo.data), (coo.row, col)), shape=shape)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D of shape (n, D), got shape {X.shape}")
    out = np.empty((X.shape[0], 2 * X.shape[1]))
    np.maximum(X, 0.0, out=out[:, 0::2])
    np.maximum(-X, 0.0, out=out[:, 1::2])
    return out


class GMMKernel(Kernel):
    """The GMM kernel (eq. 3) on R^d; see the module docstring for the formula used.

    Not shift-invariant, so ``value`` is undefined; ``__call__`` gives the Gram
    matrix, memory O(n m) for the result only (20,000 x 20,000 is 3.2 GB), time
    about n m d ns on one core (half that for ``Y=None``, which fills only the
    upper triangle and mirrors it).  It is tuning-free: no parameter
    besides d.  Its random features are ``rfbench.feature_map.GCWS``.

    Parameters
    ----------
    d : int
        Input dimension D (before the transform to 2D coordinates).
    """

    name = "gmm"

    def __init__(self, d: int) -> None:
        self.d = check_dim(d)

    def value(self, delta: np.ndarray) -> np.ndarray:
        raise NotImplementedError(
            "the GMM kernel is not shift-invariant, so k(delta) is undefined; use the Gram matrix kernel(X, Y)"
        )

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """GMM(x_i, y_j) for all pairs, float64 of shape (n, m), entries in [0, 1]."""
        X, Y = self._check_pair(X, Y)
        X, Y = np.ascontiguousarray(X), np.ascontiguousarray(Y)
        gram = np.empty((X.shape[0], Y.shape[0]))
        _gmm_gram(X, Y, np.abs(X).sum(axis=1), np.abs(Y).sum(axis=1), gram, Y is X)
        return gram


# "reassoc" lets LLVM vectorize the l1 sum (a fixed, deterministic order of additions).
@numba.njit(nogil=True, cache=True, fastmath={"reassoc", "contract"})
def _gmm_gram(X: np.ndarray, Y: np.ndarray, l1_x: np.ndarray, l1_y: np.ndarray, out: np.ndarray,
              symmetric: bool) -> None:
    """out[i, j] = GMM(x_i, y_j) from l1 norms and distances, tile by tile (symmetric: j >= i, mirrored)."""
    n, m, d = X.shape[0], Y.shape[0], X.shape[1]
    for i0 in range(0, n, TILE_ROWS):
        i1 = min(i0 + TILE_ROWS, n)
        for j0 in range(0, m, TILE_COLUMNS):
            j1 = min(j0 + TILE_COLUMNS, m)
            if symmetric and j1 <= i0:
                continue
            for i in range(i0, i1):
                for j in range(max(j0, i) if symmetric else j0, j1):
                    distance = 0.0
                    for t in range(d):
                        distance += abs(X[i, t] - Y[j, t])
                    total = l1_x[i] + l1_y[j]
                    # total = 0 only for two zero rows: the rule 0/0 = 0; rounding can make total < distance.
                    value = max((total - distance) / (total + distance), 0.0) if total > 0 else 0.0
                    out[i, j] = value
                    if symmetric:
                        out[j, i] = value
