"""Random binning features of the Laplacian kernel (Rahimi & Recht 2007, Section 4)."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike

from rfbench.kernel.base import Kernel
from rfbench.kernel.laplacian import LaplacianKernel

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap, check_positive_int, check_positive_real
from ._trig import feature_dtype

#: Elements of the (rows, P, d) bin-index temporary per chunk of rows (8 MB in float64).
_CHUNK_ELEMENTS = 2**20
#: Bin indices must stay below 2^53 in magnitude, where float64 still counts every integer.
_MAX_BIN = 2.0**53


class RandomBinning(FeatureMap):
    r"""Random binning features for k(x, y) = exp(-||x - y||_1 / sigma).

    A grid of pitch delta and shift u in [0, delta) puts x and y in the same 1-D
    bin floor((x - u) / delta) with probability max(0, 1 - |x - y| / delta) over
    u.  Drawing the pitch from p(delta) = delta k''(delta) (Rahimi & Recht 2007)
    makes the expected collision probability the kernel itself,

        int_0^inf max(0, 1 - D / delta) delta k''(delta) d delta = k(D),

    which for k(D) = exp(-D / sigma) is the Gamma(2, sigma) density
    delta exp(-delta / sigma) / sigma^2.  The Laplacian kernel is the product of
    these 1-D kernels, so a d-dimensional grid with independent pitches and
    shifts per dimension collides with probability k(x - y).  With P i.i.d. grids,

        z(x) = P^-1/2 [one-hot bin of x in grid p]_{p = 1..P},
        z(x)^T z(y) = (1/P) sum_p 1[x and y share a bin of grid p],

    an unbiased estimate of k(x, y) of variance k (1 - k) / P.

    Columns.  Each bin (grid p, integer vector b) is hashed to 64 bits,
    s_p + sum_k c_pk b_k mod 2^64 with random s_p and c_pk (universal hashing:
    two distinct bins collide with probability about 2^-64).  ``fit`` records the
    bins the training points occupy, one column each (``vocabulary_``), so every
    training row has exactly P non-zeros.  At ``transform``, a point in a bin no
    training point occupies gets nothing for that grid (its row then has fewer
    than P non-zeros): such a bin shares no training point, so z(x)^T z(y) with
    y a training point, hence any model fitted on the training features, is
    unchanged.  ``gram_blocks`` is exact for any X and Y: it indexes the bins of
    X and Y together.  Memory is O(n P) whatever d is.

    Parameters
    ----------
    n_components : int, default=30
        Number P of random grids.
    sigma : float, default=1.0
        Kernel bandwidth (scale of the pitches).
    dtype : {"float32", "float64"}, default="float32"
        dtype of ``transform``'s values (``gram_blocks`` is always float64).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for the pitches, shifts and hash.

    Attributes
    ----------
    pitches_ : ndarray of shape (n_components, n_features_in_)
        Pitch delta of each grid and dimension, Gamma(2, sigma).
    shifts_ : ndarray of shape (n_components, n_features_in_)
        Shift u ~ U[0, delta) of each grid and dimension.
    vocabulary_ : ndarray of shape (n_columns,), uint64
        Sorted hashes of the bins the training points occupy; column j of
        ``transform``'s output is the bin with hash ``vocabulary_[j]``.
    n_features_in_ : int
    """

    approximates: tuple[type[Kernel], ...] = (LaplacianKernel,)

    def __init__(
        self,
        *,
        n_components: int = 30,
        sigma: float = 1.0,
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.sigma = sigma
        self.dtype = dtype
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: Kernel, **params) -> RandomBinning:
        """The map for ``kernel``, which must be one of ``approximates``; ValueError otherwise."""
        if not isinstance(kernel, cls.approximates):
            supported = [k.name for k in cls.approximates]
            name = getattr(kernel, "name", type(kernel).__name__)
            raise ValueError(f"random binning features do not approximate kernel {name!r}; supported: {supported}")
        return cls(sigma=kernel.sigma, **params)

    sparse_output = True

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """P nonzeros per row (one bin per grid); pitches, shifts and hash multipliers, P x d each."""
        return self.n_components, 3 * self.n_components * n_features_in + self.n_components

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        check_positive_real("sigma", self.sigma)
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> RandomBinning:
        """Draw the P grids and hash, then record the bins X occupies."""
        self.check_params()
        X = self._validate_X(X, reset=True)
        rng = np.random.default_rng(self.random_state)
        shape = (self.n_components, X.shape[1])
        self.pitches_ = rng.gamma(2.0, self.sigma, shape)
        self.shifts_ = rng.uniform(0.0, 1.0, shape) * self.pitches_
        self._multipliers = rng.integers(0, np.iinfo(np.uint64).max, shape, dtype=np.uint64, endpoint=True)
        self._salts = rng.integers(0, np.iinfo(np.uint64).max, self.n_components, dtype=np.uint64, endpoint=True)
        self.vocabulary_ = np.unique(self._hashes(X))
        return self

    def transform(self, X: ArrayLike) -> sp.csr_matrix:
        """z(X) as CSR of shape (n, len(vocabulary_)); bins unseen in training give no entry."""
        return self._one_hot(self._hashes(self._validate_X(X)), self.vocabulary_, feature_dtype(self.dtype))

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[sp.csr_matrix, sp.csr_matrix]]:
        """Yield one pair of float64 CSR factors (z(X), z(Y)) over the bins of X and Y together.

        Unlike ``transform``, no bin is dropped, so z(x)^T z(y) is the exact
        fraction of grids where x and y collide for every x and y.  ``block_size``
        is irrelevant: the factors hold n P non-zeros whatever P is.
        """
        X, Y = self._validate_pair(X, Y)
        HX = self._hashes(X)
        HY = HX if Y is X else self._hashes(Y)
        vocabulary = np.unique(HX) if HY is HX else np.union1d(HX, HY)
        ZX = self._one_hot(HX, vocabulary, np.float64)
        yield ZX, (ZX if HY is HX else self._one_hot(HY, vocabulary, np.float64))

    def bin_hashes(self, X: ArrayLike) -> np.ndarray:
        """Hash of the bin of each row of X in each grid, shape (n, P), uint64.

        x and y collide in grid p when their hashes in column p are equal.
        """
        return self._hashes(self._validate_X(X))

    def _hashes(self, X: np.ndarray) -> np.ndarray:
        """``bin_hashes`` for validated X, in chunks of rows bounding the (rows, P, d) temporary."""
        n, (P, d) = len(X), self.pitches_.shape
        hashes = np.empty((n, P), dtype=np.uint64)
        rows = max(1, _CHUNK_ELEMENTS // (P * d))
        for start in range(0, n, rows):
            bins = X[start : start + rows, None, :] - self.shifts_
            bins /= self.pitches_
            np.floor(bins, out=bins)
            self._check_bins(bins)
            codes = bins.astype(np.int64).view(np.uint64)  # two's complement: arithmetic mod 2^64
            codes *= self._multipliers
            hashes[start : start + rows] = codes.sum(axis=-1, dtype=np.uint64) + self._salts
        return hashes

    def _check_bins(self, bins: np.ndarray) -> None:
        largest = np.max(np.abs(bins), initial=0.0)
        if not largest < _MAX_BIN:
            raise ValueError(
                f"bin indices reach {largest:.3g} >= 2^53, beyond exact float64 integers: the data's "
                f"spread is too large for sigma={self.sigma!r}; rescale X or increase sigma"
            )

    def _one_hot(self, hashes: np.ndarray, vocabulary: np.ndarray, dtype: DTypeLike) -> sp.csr_matrix:
        """CSR with P^-1/2 at (i, column of hash[i, p]) for hashes found in ``vocabulary``."""
        cols = np.searchsorted(vocabulary, hashes)
        found = vocabulary[np.minimum(cols, len(vocabulary) - 1)] == hashes
        cols[~found] = -1
        cols.sort(axis=1)  # CSR wants sorted indices per row; missing ones (-1) come first
        keep = cols >= 0
        indptr = np.concatenate(([0], np.cumsum(keep.sum(axis=1))))
        data = np.full(indptr[-1], 1.0 / np.sqrt(self.n_components), dtype=dtype)
        return sp.csr_matrix((data, cols[keep], indptr), shape=(len(hashes), len(vocabulary)))
