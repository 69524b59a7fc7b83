"""The sparse_path section's contenders on small generated codes: every exact one reaches the optimum."""
from __future__ import annotations

import numpy as np

from benchmarks import sparse_path
from tests.model.test_liblinear import one_hot_codes


def test_the_exact_contenders_reach_one_optimum_and_s1_stops_short():
    X, y = one_hot_codes(n=300, grids=5, bins=10, n_classes=4)
    results = sparse_path.measure(X, y)
    gaps = {label.split(",")[0]: gap for label, (_, gap) in results.items()}
    assert set(gaps) == {"rfbench iterative path: LibLinear -s 2 -e 1e-06", "Newton-CG of our own",
                         "LibLinear -s 2 -e 1e-06", "LibLinear -s 1 (default -e 0.1)"}
    assert all(gap >= -1e-12 for gap in gaps.values())
    assert max(gaps["rfbench iterative path: LibLinear -s 2 -e 1e-06"], gaps["Newton-CG of our own"],
               gaps["LibLinear -s 2 -e 1e-06"]) < 1e-7
    assert gaps["LibLinear -s 1 (default -e 0.1)"] > 1e-7  # the former suggestion: not the optimum


def test_newton_cg_meets_its_gradient_rule_and_liblinear_columns_follow_the_classes():
    X, y = one_hot_codes(n=200, grids=4, bins=8, n_classes=3, seed=2)
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    Cs = [0.5, 8.0]
    for C, W in zip(Cs, sparse_path.newton_cg_path(X, Y, Cs, tol=1e-8)):
        G = W - 2 * C * (X.T @ (np.maximum(1 - Y * (X @ W), 0) * Y))
        assert (np.linalg.norm(G, axis=0) <= 1e-8 * 2 * C * np.linalg.norm(X.T @ Y, axis=0)).all()
        (W_ll,) = sparse_path.liblinear_path(X, y, [C], "-s 2 -e 1e-10", warm=False)
        np.testing.assert_allclose(W_ll, W, atol=1e-6 * np.abs(W).max())
