"""Evaluation metrics: Gram-matrix approximation error and accuracy."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg.blas import dgemm, dsyrk

from rfbench.feature_map import DEFAULT_BLOCK_SIZE, FeatureMap


def approximate_gram(
    feature_map: FeatureMap, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
) -> np.ndarray:
    """K~(X, Y) = sum_b L_b R_b^T from ``feature_map.gram_blocks``, in float64.

    The blocks are accumulated in place, so memory is O(n_x n_y + (n_x + n_y) *
    block_size) whatever the number of features.

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
    n = np.shape(X)[0]
    gram, upper, skew = (np.zeros((n, n), order="F") for _ in range(3))
    for L, R in feature_map.gram_blocks(X, None, block_size=block_size):
        half = L.shape[1] // 2
        if R is L or np.array_equal(R, L):
            upper = dsyrk(1.0, L.T, beta=1.0, c=upper, trans=1, overwrite_c=True)
        elif np.array_equal(R, -L):
            upper = dsyrk(-1.0, L.T, beta=1.0, c=upper, trans=1, overwrite_c=True)
        elif (
            L.shape == R.shape
            and L.shape[1] == 2 * half
            and np.array_equal(R[:, :half], L[:, half:])
            and np.array_equal(R[:, half:], -L[:, :half])
        ):
            skew = _add_product(skew, L[:, :half], L[:, half:])
        else:
            gram = _add_product(gram, L, R)
    # dsyrk filled the upper triangle only (the lower one is still 0).
    gram += upper
    upper[np.diag_indices(n)] = 0.0
    gram += upper.T
    gram += skew
    gram -= skew.T
    return gram


def _add_product(gram: np.ndarray, L: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``gram += L @ R.T`` in place for a Fortran-ordered float64 ``gram``."""
    # No (n_x, n_y) temporary: L.T and R.T are Fortran-contiguous views of the
    # C-ordered factors, so BLAS copies nothing, and gram is updated in place.
    return dgemm(1.0, L.T, R.T, beta=1.0, c=gram, trans_a=True, overwrite_c=True)


def relative_gram_error(
    K: ArrayLike, feature_map: FeatureMap, X: ArrayLike, block_size: int = DEFAULT_BLOCK_SIZE
) -> float:
    """||K - K~||_F / ||K||_F with K~ = ``approximate_gram(feature_map, X)`` (Section 5.2).

    Parameters
    ----------
    K : array-like of shape (n, n)
        Exact Gram matrix K[i, j] = k(x_i - x_j) of the rows of X.
    """
    K = np.asarray(K, dtype=np.float64)
    n = np.shape(X)[0]
    if K.shape != (n, n):
        raise ValueError(f"K has shape {K.shape}, expected ({n}, {n}) for X with {n} rows")
    norm = np.linalg.norm(K)
    if norm == 0.0:
        raise ValueError("K is all zeros: the relative error is undefined")
    residual = approximate_gram(feature_map, X, block_size=block_size)
    residual -= K
    return float(np.linalg.norm(residual) / norm)


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Fraction of positions where ``y_pred`` equals ``y_true``."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape or y_true.size == 0:
        raise ValueError(
            "y_true and y_pred must be non-empty 1-D arrays of equal length, "
            f"got shapes {y_true.shape} and {y_pred.shape}"
        )
    return float(np.mean(y_true == y_pred))
