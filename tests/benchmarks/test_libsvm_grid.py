"""The libsvm_grid section's contenders on generated data: all score the same grid, the same way."""
from __future__ import annotations

import numpy as np

from benchmarks import libsvm_grid
from tests.model.test_kernel_svm import noisy_problem


def unit_rows(A: np.ndarray) -> np.ndarray:
    """A's rows scaled to unit norm, as Li's tables read the data."""
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def test_every_contender_scores_the_grid_and_the_exact_ones_agree_bit_for_bit():
    X, y = noisy_problem(n=120, seed=0)
    X_test, y_test = noisy_problem(n=80, seed=1)
    data = (unit_rows(X - 10.0), y, unit_rows(X_test - 10.0), y_test)
    results = libsvm_grid.measure(data, repeats=1)
    assert list(results) == [libsvm_grid.REFERENCE, libsvm_grid.TODAY, libsvm_grid.NO_SHRINKING,
                             libsvm_grid.PRECOMPUTED_PEER, libsvm_grid.RBF_PEER]
    assert all(seconds > 0 for seconds, _ in results.values())
    assert results[libsvm_grid.TODAY][1] == results[libsvm_grid.PRECOMPUTED_PEER][1] == 0.0
    assert results[libsvm_grid.RBF_PEER][1] <= 1 / len(y_test)  # another rounding of the same kernel
    scores = libsvm_grid.contenders()[libsvm_grid.REFERENCE](data)
    assert scores.shape == (len(libsvm_grid.GAMMAS), len(libsvm_grid.CS)) and scores.max() > scores.min()
