"""The ridge_dual bench section's contenders solve the same problem: the same lambda, the same CV errors."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from benchmarks import ridge_dual


def test_the_three_contenders_choose_the_same_lambda_with_the_same_errors_and_weights():
    rng = np.random.default_rng(0)
    n, grids, bins = 60, 6, 25  # wider (150 columns) than a fold's 48 rows, as the section's codes
    columns = (rng.integers(0, bins, size=(n, grids)) + bins * np.arange(grids)).ravel()
    Z = sp.csr_matrix((np.full(n * grids, grids**-0.5), (np.repeat(np.arange(n), grids), columns)),
                      shape=(n, grids * bins))
    y = Z @ rng.normal(size=grids * bins) + 0.1 * rng.normal(size=n) + 5.0
    grid = 2.0 ** np.arange(-20, 5, 2)
    results = ridge_dual.measure(Z, y, grid)
    assert set(results) == {ridge_dual.DUAL, ridge_dual.EIGEN, ridge_dual.PEER}
    chosen = {lam for _, lam, _, _ in results.values()}
    assert len(chosen) == 1 and chosen.pop() in grid
    for cpu, _, cv, weights in results.values():
        assert cpu >= 0 and cv <= 1e-8 and weights <= 1e-6
