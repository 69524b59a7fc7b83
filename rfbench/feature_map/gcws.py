r"""Generalized consistent weighted sampling (GCWS) of Li (KDD 2017, Algorithm 1)."""
from __future__ import annotations

from collections.abc import Iterator

import numba
import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike

from rfbench.kernel.gmm import GMMKernel
from rfbench.validation import is_int

from ._base import DEFAULT_BLOCK_SIZE, FeatureMap, check_choice, check_positive_int
from ._trig import feature_dtype

#: Nonzeros of X per chunk of Algorithm 1: bounds its index and log arrays at
#: 32 MiB each whatever n and D are.
CHUNK_ELEMENTS = 2**22

#: Samples per pass over the rows in Algorithm 1: their r, log c and beta for a
#: row's nonzeros (24 * 64 bytes each) stay in the L2 cache from row to row.
SAMPLE_BLOCK = 64

EMPTY_ROWS = ("error", "zero")


def index_width(n_coordinates: int) -> int:
    """Bits of the sampled index i* in [0, n_coordinates): ceil(log2(n_coordinates)), at least 1."""
    return max(1, (n_coordinates - 1).bit_length())


class GCWS(FeatureMap):
    r"""GCWS features for the GMM kernel (Li, Algorithm 1 with b-bit coding).

    Each row u is split into u~ in R^{2D} (``rfbench.kernel.gmm.gmm_transform``;
    ``gmm_transform=False`` skips the split for nonnegative data, m = D coordinates
    instead of 2D).  For each of k samples j and every coordinate i, with
    r_ij, c_ij ~ Gamma(2, 1) and beta_ij ~ U(0, 1) shared by all rows,

        t_ij = floor(log(u~_i) / r_ij + beta_ij),   a_ij = log(c_ij) - r_ij (t_ij + 1 - beta_ij),
        i*_j = argmin_i a_ij,   t*_j = t_{i*_j j}

    over the nonzero u~_i only (zero coordinates never win).  Theorem 1.1:
    Pr{(i*_j, t*_j)(u) = (i*_j, t*_j)(v)} = GMM(u, v); ``samples`` returns them.

    Features (the paper's practical implementation).  t* is dropped and only
    the lowest b bits of i* are kept; sample j is one-hot coded in the 2^b
    columns [j 2^b, (j + 1) 2^b), so z(u) is CSR of 2^b k columns with exactly
    k nonzeros per row.  Scaling: every nonzero is 1 / sqrt(k), so rows have
    unit l2 norm (as LIBLINEAR advises for its input) and

        z(u)^T z(v) = (1/k) #{j : i*_j(u) = i*_j(v) mod 2^b},

    the fraction of b-bit collisions: an unbiased estimate of their probability
    P_b, which is GMM(u, v) plus the chance that (i*, t*) differ yet the b low
    bits of i* agree: an upward bias, from dropping t* (the paper, after its
    ref. [14], finds it harmless in practice; no record of ours measures it on the papers'
    data, and on a small Gaussian example it is not negligible) and from the b-bit truncation (largest for small b).
    The paper's 0/1 vectors are sqrt(k) times these: a linear SVM of cost C on
    these features is the one of cost C / k on those (bias term aside).  Each
    indicator has variance P_b (1 - P_b) (eq. 7).

    Rows that are all zero have no coordinate to sample: ``empty_rows="error"``
    refuses them, ``"zero"`` gives them an empty feature row (z = 0, so
    z(0)^T z(v) = 0 = GMM(0, v), and GMM(0, 0) is taken as 0, as ``GMMKernel``
    does) and i* = -1, t* = 0 in ``samples``.

    Algorithm 1 runs as a numba loop over the nonzeros of each row and,
    innermost, over the k samples (X taken in chunks of about ``CHUNK_ELEMENTS``
    nonzeros): time O(nnz(X) k), a few ns per nonzero and sample on one core;
    memory 24 k m bytes for r, log c and beta, the output, and O(``CHUNK_ELEMENTS``)
    temporaries (``transform`` samples ``CHUNK_ELEMENTS / k`` rows at a time).

    Parameters
    ----------
    n_components : int, default=128
        Number k of samples, the nonzeros per row.
    b : int or None, default=None
        Bits of i* kept, 1 <= b <= ceil(log2(m)) (``index_width``), checked by
        ``fit``; None keeps the whole index.  The paper recommends b >= 4.
    gmm_transform : bool, default=True
        Apply the positive/negative split of eq. (2).  False requires
        nonnegative data (then GMM is the min-max kernel, unchanged by the split).
    empty_rows : {"error", "zero"}, default="error"
        What to do with all-zero rows (see above).
    dtype : {"float32", "float64"}, default="float32"
        dtype of the nonzeros of ``transform``'s output.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``numpy.random.default_rng`` for r, c and beta.

    Attributes
    ----------
    r_, log_c_, beta_ : ndarray of shape (m, n_components)
        r, log(c) and beta, float64, one row per (transformed) coordinate.
    b_ : int
        The bits kept (``b``, or the index width if ``b`` is None).
    n_features_in_ : int
    """

    approximates = (GMMKernel,)

    def __init__(
        self,
        *,
        n_components: int = 128,
        b: int | None = None,
        gmm_transform: bool = True,
        empty_rows: str = "error",
        dtype: DTypeLike = "float32",
        random_state: int | np.random.Generator | None = None,
    ) -> None:
        self.n_components = n_components
        self.b = b
        self.gmm_transform = gmm_transform
        self.empty_rows = empty_rows
        self.dtype = dtype
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: GMMKernel, **params) -> GCWS:
        """GCWS for ``kernel`` (the GMM kernel has no parameter); ``params`` go to the constructor."""
        return cls(**params)

    sparse_output = True

    def output_size(self, n_features_in: int) -> tuple[int, int]:
        """k nonzeros per row; r, log c and beta, m x k each (m = 2d coordinates after the GMM split)."""
        m = (2 if self.gmm_transform else 1) * n_features_in
        return self.n_components, 3 * m * self.n_components

    def output_width(self, n_features_in: int) -> int:
        """2^b k columns: each of the k samples one-hot in 2^b (b=None: every bit of i*, ``index_width``)."""
        m = (2 if self.gmm_transform else 1) * n_features_in
        bits = index_width(m) if self.b is None else min(int(self.b), index_width(m))
        return self.n_components << bits

    def check_params(self) -> None:
        check_positive_int("n_components", self.n_components)
        if self.b is not None and (not is_int(self.b) or self.b < 1):
            raise ValueError(f"b={self.b!r} is invalid: need an integer >= 1 (bits of the index kept) or None")
        if not isinstance(self.gmm_transform, (bool, np.bool_)):
            raise ValueError(f"gmm_transform={self.gmm_transform!r} is invalid: need True or False")
        check_choice("empty_rows", self.empty_rows, EMPTY_ROWS)
        feature_dtype(self.dtype)

    def fit(self, X: ArrayLike, y: object = None) -> GCWS:
        """Check b against the index width of X's coordinates and draw r, c, beta."""
        self.check_params()
        X = self._validate_X(X, reset=True)
        self._check_sign(X)
        m = X.shape[1] * (2 if self.gmm_transform else 1)
        width = index_width(m)
        if self.b is not None and self.b > width:
            raise ValueError(
                f"b={self.b} is outside 1..{width}: the sampled index i* takes m={m} values "
                f"({'2D' if self.gmm_transform else 'D'} for D={X.shape[1]}), so it has {width} bits; "
                f"b={width} (or b=None) keeps the whole index"
            )
        self.b_ = width if self.b is None else int(self.b)
        rng = np.random.default_rng(self.random_state)
        shape = (m, self.n_components)
        self.r_ = rng.gamma(2.0, 1.0, shape)
        self.log_c_ = np.log(rng.gamma(2.0, 1.0, shape))
        self.beta_ = rng.uniform(0.0, 1.0, shape)
        return self

    def samples(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """The k consistent samples (i*, t*) of every row, two int64 arrays of shape (n, k).

        i* indexes the m coordinates (0-based; column 2i of the transform is
        x_i > 0, column 2i + 1 is x_i <= 0).  All-zero rows: see ``empty_rows``.
        """
        return self._sample(self._checked(X))

    def transform(self, X: ArrayLike) -> sp.csr_matrix:
        """z(X): CSR of shape (n, 2^b k), k nonzeros 1/sqrt(k) per row (none for zero rows), dtype ``dtype``.

        Rows are sampled in chunks, so only the output has size O(n k).
        """
        X = self._checked(X)
        n, k, width = X.shape[0], self.n_components, 2**self.b_
        index_dtype = np.int32 if width * k <= np.iinfo(np.int32).max else np.int64
        indptr = k * np.concatenate([[0], np.cumsum(np.any(X != 0, axis=1))])
        indices = np.empty(indptr[-1], dtype=index_dtype)
        step = max(1, CHUNK_ELEMENTS // k)
        for start in range(0, n, step):
            i_star, _ = self._sample(X[start:start + step])
            columns = (i_star & (width - 1)) + width * np.arange(k)
            indices[indptr[start]:indptr[min(start + step, n)]] = columns[i_star >= 0]
        data = np.full(len(indices), 1.0 / np.sqrt(k), dtype=self.dtype)
        return sp.csr_matrix((data, indices, indptr.astype(index_dtype)), shape=(n, width * k))

    def gram_blocks(
        self, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
    ) -> Iterator[tuple[sp.csr_matrix, sp.csr_matrix]]:
        """Yield the single block (z(X), z(Y)) as float64 CSR; ``block_size`` is irrelevant here."""
        Z_X = self.transform(X).astype(np.float64)
        yield Z_X, (Z_X if Y is None else self.transform(Y).astype(np.float64))

    # --- Algorithm 1 --------------------------------------------------------
    def _checked(self, X: ArrayLike) -> np.ndarray:
        """Validated X; zero rows refused with empty_rows="error" (and negative entries by _check_sign)."""
        X = self._validate_X(X)
        self._check_sign(X)
        empty = np.flatnonzero(~np.any(X != 0, axis=1))
        if len(empty) and self.empty_rows == "error":
            raise ValueError(
                f"{len(empty)} row(s) of X are all zero (rows {empty[:10].tolist()}"
                f"{' ...' if len(empty) > 10 else ''}); GCWS cannot sample a row without a nonzero "
                f"coordinate; drop them, or use empty_rows='zero' to give them an all-zero feature row"
            )
        return X

    def _check_sign(self, X: np.ndarray) -> None:
        """Refuse negative entries when the split of eq. (2) is off."""
        if not self.gmm_transform and (negative := np.argwhere(X < 0)).size:
            i, j = negative[0]
            raise ValueError(
                f"GCWS(gmm_transform=False) needs nonnegative data (valid range: x >= 0), but {len(negative)} "
                f"entries of X are negative, e.g. X[{i}, {j}] = {float(X[i, j])!r}; use gmm_transform=True to "
                f"split each coordinate into its positive and negative parts (the GMM kernel)"
            )

    def _sample(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(i*, t*) of checked rows, (-1, 0) for zero rows, over chunks of about CHUNK_ELEMENTS nonzeros."""
        n, k = X.shape[0], self.n_components
        i_star = np.full((n, k), -1, dtype=np.int64)
        t_star = np.zeros((n, k), dtype=np.int64)
        row_starts = np.concatenate([[0], np.cumsum(np.count_nonzero(X, axis=1))])
        start = 0
        while start < n:
            stop = max(start + 1, np.searchsorted(row_starts, row_starts[start] + CHUNK_ELEMENTS, "right") - 1)
            rows, features = np.nonzero(X[start:stop])  # row-major: each row's nonzeros are contiguous
            values = X[start:stop][rows, features]
            coordinate = 2 * features + (values < 0) if self.gmm_transform else features
            indptr = row_starts[start:stop + 1] - row_starts[start]
            _consistent_samples(indptr, coordinate, np.log(np.abs(values)), self.r_, self.log_c_, self.beta_,
                                i_star[start:stop], t_star[start:stop])
            start = stop
        return i_star, t_star


@numba.njit(nogil=True, cache=True)
def _consistent_samples(indptr: np.ndarray, coordinate: np.ndarray, log_value: np.ndarray, r: np.ndarray,
                        log_c: np.ndarray, beta: np.ndarray, i_star: np.ndarray, t_star: np.ndarray) -> None:
    """Algorithm 1 for CSR-like rows (nonzeros indptr[i]:indptr[i + 1]), all k samples.

    Writes i* and t* of row i into i_star[i] and t_star[i] (untouched for a row
    without nonzeros).  Samples go in blocks of SAMPLE_BLOCK, every row per
    block, so the block's slices of r, log_c and beta stay in cache across
    rows; the innermost loop runs over the block's samples.  The first of tied
    minima wins (ties have probability 0).
    """
    k = r.shape[1]
    best = np.empty(SAMPLE_BLOCK)
    for j0 in range(0, k, SAMPLE_BLOCK):
        j1 = min(j0 + SAMPLE_BLOCK, k)
        for row in range(len(indptr) - 1):
            best[:] = np.inf
            for p in range(indptr[row], indptr[row + 1]):
                i, log_u = coordinate[p], log_value[p]
                for j in range(j0, j1):
                    t = np.floor(log_u / r[i, j] + beta[i, j])
                    a = log_c[i, j] - r[i, j] * (t + 1.0 - beta[i, j])
                    better = a < best[j - j0]  # branch-free selects, so the loop vectorizes
                    best[j - j0] = a if better else best[j - j0]
                    i_star[row, j] = i if better else i_star[row, j]
                    t_star[row, j] = np.int64(t) if better else t_star[row, j]
