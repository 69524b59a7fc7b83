"""Evaluation metrics: Gram-matrix approximation error and accuracy."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.linalg import issymmetric, svdvals
from scipy.linalg.blas import dgemm, dsyrk
from scipy.sparse.linalg import eigsh, svds

from rfbench.feature_map import DEFAULT_BLOCK_SIZE, FeatureMap
from rfbench.validation import is_int

#: A factor of ``FeatureMap.gram_blocks``: dense, or scipy.sparse (CSR).
Factor = np.ndarray | sparse.sparray | sparse.spmatrix


def approximate_gram(
    feature_map: FeatureMap, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
) -> np.ndarray:
    """K~(X, Y) = sum_b L_b R_b^T from ``feature_map.gram_blocks``, in float64.

    The blocks are accumulated in place, so memory is O(n_x n_y + (n_x + n_y) *
    block_size) whatever the number of features. Sparse (CSR) factors are
    multiplied as sparse matrices, so their columns are never densified: a
    binning map may have millions of them.

    When ``Y`` is None, a factor pair with one of the structures the maps give
    for Y = X, checked bit for bit (so K~ is unchanged up to rounding), costs half
    the flops of the general product L_b R_b^T:

    * R_b = +-L_b: +-L_b L_b^T is symmetric, one rank-k update (BLAS dsyrk)
      of the upper triangle;
    * R_b = [L2, -L1] for L_b = [L1, L2] (the sine block of AsK-RFF,
      phi(x).psi(y) = sum_l sin(w_l . (x - y))): L_b R_b^T = B - B^T with
      B = L1 L2^T, one GEMM of half the width.

    Returns
    -------
    ndarray of shape (n_x, n_y), Fortran-ordered
    """
    if Y is None:
        return _symmetric_gram(feature_map, X, block_size)
    gram = np.zeros((np.shape(X)[0], np.shape(Y)[0]), order="F")
    for L, R in feature_map.gram_blocks(X, Y, block_size=block_size):
        gram = _add_product(gram, L, R)
    return gram


def _symmetric_gram(feature_map: FeatureMap, X: ArrayLike, block_size: int) -> np.ndarray:
    """K~(X, X), with the structured factor pairs of ``approximate_gram`` accumulated apart."""
    total = _SymmetricSum(np.shape(X)[0])
    for L, R in feature_map.gram_blocks(X, None, block_size=block_size):
        total.add(L, R)
    return total.value()


class _SymmetricSum:
    """Running sum of alpha * L R^T over factor pairs of (X, X), in float64.

    Pairs with R = +-L and R = [L2, -L1] (see ``approximate_gram``) go to their
    own buffers at half the flops; ``value`` folds them into the sum.
    """

    def __init__(self, n: int) -> None:
        self._gram, self._upper, self._skew = (np.zeros((n, n), order="F") for _ in range(3))

    def add(self, L: Factor, R: Factor, alpha: float = 1.0) -> None:
        """Add ``alpha * L @ R.T``."""
        half = L.shape[1] // 2
        if sparse.issparse(L) or sparse.issparse(R):
            self._gram = _add_product(self._gram, L, R, alpha)
        elif R is L or np.array_equal(R, L):
            self._upper = dsyrk(alpha, L.T, beta=1.0, c=self._upper, trans=1, overwrite_c=True)
        elif np.array_equal(R, -L):
            self._upper = dsyrk(-alpha, L.T, beta=1.0, c=self._upper, trans=1, overwrite_c=True)
        elif (
            L.shape == R.shape
            and L.shape[1] == 2 * half
            and np.array_equal(R[:, :half], L[:, half:])
            and np.array_equal(R[:, half:], -L[:, :half])
        ):
            self._skew = _add_product(self._skew, L[:, :half], L[:, half:], alpha)
        else:
            self._gram = _add_product(self._gram, L, R, alpha)

    def value(self) -> np.ndarray:
        """The sum so far, (n, n) Fortran-ordered; later ``add`` calls update it in place."""
        gram, upper, skew = self._gram, self._upper, self._skew
        # dsyrk filled the upper triangle only (the lower one is still 0).
        gram += upper
        upper[np.diag_indices_from(upper)] = 0.0
        gram += upper.T
        gram += skew
        gram -= skew.T
        upper.fill(0.0)
        skew.fill(0.0)
        return gram


def _add_product(gram: np.ndarray, L: Factor, R: Factor, alpha: float = 1.0) -> np.ndarray:
    """``gram += alpha * L @ R.T`` in place for a Fortran-ordered float64 ``gram``."""
    if sparse.issparse(L) or sparse.issparse(R):
        # A sparse product keeps the factors' columns sparse; only the (n_x, n_y)
        # result is made dense, as gram is.
        product = L @ R.T
        gram += alpha * (product.toarray() if sparse.issparse(product) else product)
        return gram
    # No (n_x, n_y) temporary: L.T and R.T are Fortran-contiguous views of the
    # C-ordered factors, so BLAS copies nothing, and gram is updated in place.
    return dgemm(alpha, L.T, R.T, beta=1.0, c=gram, trans_a=True, overwrite_c=True)


#: Matrix norms of ``relative_gram_errors``.
NORMS = ("fro", "spectral")

#: Below this size ``spectral_norm`` calls LAPACK (all singular values, in
#: milliseconds here); from it on, Lanczos (ARPACK) for the largest alone.
LANCZOS_MIN_SIZE = 64


def relative_gram_error(
    K: ArrayLike, feature_map: FeatureMap, X: ArrayLike, block_size: int = DEFAULT_BLOCK_SIZE
) -> float:
    """||K - K~||_F / ||K||_F with K~ = ``approximate_gram(feature_map, X)`` (Section 5.2).

    Parameters
    ----------
    K : array-like of shape (n, n)
        Exact Gram matrix K[i, j] = k(x_i - x_j) of the rows of X.
    """
    return relative_gram_errors(K, feature_map, X, norms=("fro",), block_size=block_size)["fro"]


def relative_gram_errors(
    K: ArrayLike,
    feature_map: FeatureMap,
    X: ArrayLike,
    norms: Sequence[str] = ("fro",),
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> dict[str, float]:
    """||K - K~|| / ||K|| in each of ``norms``, from one K~ = ``approximate_gram(feature_map, X)``.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Exact Gram matrix K[i, j] = k(x_i - x_j) of the rows of X.
    feature_map : FeatureMap
        A fitted map.
    X : array-like of shape (n, d)
    norms : sequence of {"fro", "spectral"}, default=("fro",)
        "fro": Frobenius norm; "spectral": largest singular value (see
        ``spectral_norm``; K - K~ need not be symmetric).
    block_size : int, default=DEFAULT_BLOCK_SIZE
        Frequencies per factor block, as in ``approximate_gram``.

    Returns
    -------
    dict mapping each norm of ``norms`` to the relative error, in that order
    """
    norms = _checked_norms(norms)
    K, fro = _checked_gram(K, X)
    residual = approximate_gram(feature_map, X, block_size=block_size)
    residual -= K
    errors = {}
    for norm in norms:
        if norm == "fro":
            errors[norm] = float(np.linalg.norm(residual) / fro)
        else:
            errors[norm] = spectral_norm(residual) / spectral_norm(K)
    return errors


def spectral_norm(A: ArrayLike) -> float:
    """||A||_2, the largest singular value of a square matrix A.

    For n < ``LANCZOS_MIN_SIZE``, LAPACK's singular values (``scipy.linalg.svdvals``).
    From it on, Lanczos (ARPACK), which needs some dozens of products with A
    (O(n^2) each) where a full SVD costs O(n^3): on A itself, max |lambda|, when A
    is exactly symmetric (``scipy.sparse.linalg.eigsh``); otherwise on A^T A
    (``scipy.sparse.linalg.svds``), since an asymmetric kernel's K - K~ is not
    symmetric. ARPACK iterates until the Ritz value is accurate to machine
    precision (tol=0), from a fixed start vector, so the result is reproducible.
    Measured on the AsK-RFF K and K - K~ of 1,000 spambase rows (M = 2d, three
    kernels): within 4e-16 of ``numpy.linalg.norm(A, 2)``, 0.15-2.2 s for both
    matrices against 5-24 s (2 shared cores); the tests hold it to 1e-12 on random
    and rank-one matrices.
    """
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    if A.ndim != 2 or A.shape[1] != n or n == 0:
        raise ValueError(f"A must be a non-empty square matrix, got shape {A.shape}")
    if n < LANCZOS_MIN_SIZE:
        return float(svdvals(A)[0])
    v0 = np.random.default_rng(0).standard_normal(n)
    if issymmetric(A):
        return float(abs(eigsh(A, k=1, which="LM", v0=v0, return_eigenvectors=False)[0]))
    return float(svds(A, k=1, v0=v0, return_singular_vectors=False)[0])


def relative_gram_errors_by_prefix(
    K: ArrayLike,
    feature_map: FeatureMap,
    X: ArrayLike,
    sizes: Sequence[int],
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> dict[int, float]:
    """``relative_gram_error`` of the map of the first s frequencies, for every s in ``sizes``.

    One pass over the M frequencies of an extensible sequence: the un-normalized
    sum S_s = sum_{j<s} k_j of the frequencies' contributions is accumulated in
    order, and K~_s = S_s / s is compared with K as each size is passed. Each
    frequency's features are computed once, and memory is O(n^2 + n * block_size)
    whatever the number of sizes.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Exact Gram matrix of the rows of X.
    feature_map : FeatureMap
        A fitted map offering ``segment(start, stop)`` (see ``FeatureMap``), e.g.
        ``GaussianRFF``.
    X : array-like of shape (n, d)
    sizes : sequence of int
        Strictly increasing prefix sizes s in 1..M, M = ``feature_map.n_components``.
    block_size : int, default=DEFAULT_BLOCK_SIZE
        Frequencies per factor block, as in ``approximate_gram``.

    Returns
    -------
    dict mapping each s of ``sizes`` to ||K - K~_s||_F / ||K||_F
    """
    if not callable(getattr(feature_map, "segment", None)):
        raise TypeError(
            f"{type(feature_map).__name__} does not support prefixes of its frequencies: it has no "
            "segment(start, stop) (see FeatureMap); only maps whose K~ is the plain mean over one "
            "extensible sequence of frequencies, such as GaussianRFF, offer it"
        )
    K, norm = _checked_gram(K, X)
    sizes = _checked_sizes(sizes, feature_map.n_components)
    total = _SymmetricSum(K.shape[0])
    residual = np.empty_like(K, order="F")
    errors, start = {}, 0
    for stop in sizes:
        # The segment's K~ is the mean of its stop - start contributions.
        for L, R in feature_map.segment(start, stop).gram_blocks(X, None, block_size=block_size):
            total.add(L, R, alpha=stop - start)
        np.multiply(total.value(), 1.0 / stop, out=residual)
        residual -= K
        errors[stop] = float(np.linalg.norm(residual) / norm)
        start = stop
    return errors


def _checked_gram(K: ArrayLike, X: ArrayLike) -> tuple[np.ndarray, float]:
    """K as float64 and its Frobenius norm; ValueError unless it is a nonzero (n, n) for X's n rows."""
    K = np.asarray(K, dtype=np.float64)
    n = np.shape(X)[0]
    if K.shape != (n, n):
        raise ValueError(f"K has shape {K.shape}, expected ({n}, {n}) for X with {n} rows")
    norm = float(np.linalg.norm(K))
    if norm == 0.0:
        raise ValueError("K is all zeros: the relative error is undefined")
    return K, norm


def _checked_norms(norms: Sequence[str]) -> list[str]:
    """``norms`` as a list; ValueError naming the first that is not in NORMS, or if empty."""
    norms = [norms] if isinstance(norms, str) else list(norms)
    if not norms:
        raise ValueError(f"norms is empty; choose one or more of {NORMS}")
    for norm in norms:
        if norm not in NORMS:
            raise ValueError(f"norm {norm!r} is not valid; choose one or more of {NORMS}")
    return norms


def _checked_sizes(sizes: Sequence[int], n_components: int) -> list[int]:
    """``sizes`` as ints; ValueError naming the first that is not strictly increasing in 1..n_components."""
    valid = f"sizes must be strictly increasing integers in 1..{n_components} (the map's n_components)"
    sizes = list(sizes)
    if not sizes:
        raise ValueError(f"sizes is empty; {valid}")
    for i, size in enumerate(sizes):
        if not is_int(size) or not 1 <= size <= n_components:
            raise ValueError(f"sizes[{i}]={size!r} is not valid; {valid}")
        if i and size <= sizes[i - 1]:
            raise ValueError(
                f"sizes[{i}]={size} does not exceed sizes[{i - 1}]={sizes[i - 1]}; {valid} "
                "(sorted(set(sizes)) sorts them and drops duplicates)"
            )
    return [int(size) for size in sizes]


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Fraction of positions where ``y_pred`` equals ``y_true``."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape or y_true.size == 0:
        raise ValueError(
            "y_true and y_pred must be non-empty 1-D arrays of equal length, "
            f"got shapes {y_true.shape} and {y_pred.shape}"
        )
    return float(np.mean(y_true == y_pred))


def relative_error(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """||y_pred - y_true||_2 / ||y_true||_2, the regression error of the QMC and Rahimi-Recht papers."""
    y_true, y_pred = _checked_pair(y_true, y_pred)
    norm = np.linalg.norm(y_true)
    if norm == 0:
        raise ValueError("y_true is all zeros, so the relative error is undefined")
    return float(np.linalg.norm(y_pred - y_true) / norm)


def rmse(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Root mean squared error sqrt(mean((y_pred - y_true)^2))."""
    y_true, y_pred = _checked_pair(y_true, y_pred)
    return float(np.sqrt(np.mean((y_pred - y_true) ** 2)))


def test_scores(task: str, y_true: ArrayLike, y_pred: ArrayLike) -> dict[str, float]:
    """The test metrics of a task: accuracy and error rate, or relative error and RMSE."""
    if task == "classification":
        acc = accuracy(y_true, y_pred)
        return {"test_accuracy": acc, "test_error": 1.0 - acc}
    return {"test_relative_error": relative_error(y_true, y_pred), "test_rmse": rmse(y_true, y_pred)}


test_scores.__test__ = False  # a metric, not a test for pytest to collect


def _checked_pair(y_true: ArrayLike, y_pred: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    y_true, y_pred = np.asarray(y_true, dtype=np.float64), np.asarray(y_pred, dtype=np.float64)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape or y_true.size == 0:
        raise ValueError("y_true and y_pred must be non-empty 1-D arrays of equal length, "
                         f"got shapes {y_true.shape} and {y_pred.shape}")
    return y_true, y_pred
