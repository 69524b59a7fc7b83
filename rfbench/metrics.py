"""Evaluation metrics: Gram-matrix approximation error and accuracy."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg.blas import dgemm

from rfbench.feature_map import DEFAULT_BLOCK_SIZE, FeatureMap


def approximate_gram(
    feature_map: FeatureMap, X: ArrayLike, Y: ArrayLike | None = None, block_size: int = DEFAULT_BLOCK_SIZE
) -> np.ndarray:
    """K~(X, Y) = sum_b L_b R_b^T from ``feature_map.gram_blocks``, in float64.

    The blocks are accumulated in place into one (n_x, n_y) matrix, so memory is
    O(n_x n_y + (n_x + n_y) * block_size) whatever the number of features.

    Returns
    -------
    ndarray of shape (n_x, n_y), Fortran-ordered
    """
    n_x = np.shape(X)[0]
    gram = np.zeros((n_x, n_x if Y is None else np.shape(Y)[0]), order="F")
    for L, R in feature_map.gram_blocks(X, Y, block_size=block_size):
        # gram += L @ R.T without an (n_x, n_y) temporary: L.T and R.T are
        # Fortran-contiguous views of the C-ordered factors, so BLAS copies
        # nothing, and the Fortran-ordered gram is updated in place.
        gram = dgemm(1.0, L.T, R.T, beta=1.0, c=gram, trans_a=True, overwrite_c=True)
    return gram


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
