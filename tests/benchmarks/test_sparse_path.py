"""The sparse_path section's contenders on small generated codes: every exact one reaches the optimum."""
from __future__ import annotations

import numpy as np

from benchmarks import sparse_path
from rfbench.model.newton_svc import squared_hinge_paths
from tests.model.test_liblinear import one_hot_codes


def test_the_exact_contenders_reach_one_optimum_and_s1_stops_short():
    X, y = one_hot_codes(n=300, grids=5, bins=10, n_classes=4)
    results = sparse_path.measure(X, y)
    gaps = {label.split(",")[0]: gap for label, (_, gap) in results.items()}
    ours = "Newton-CG on the active rows (sparse_newton)"
    former = "the same Newton-CG by the former product (stored values"
    assert set(gaps) == {ours, former, "LibLinear -s 2 -e 1e-06", "LibLinear -s 1 (default -e 0.1)"}
    assert all(gap >= -1e-12 for gap in gaps.values())
    assert len(results) == 5 and max(gap for label, (_, gap) in results.items() if "-s 1" not in label) < 1e-7
    assert gaps["LibLinear -s 1 (default -e 0.1)"] > 1e-7  # the former suggestion: not the optimum


def test_liblinear_columns_follow_the_classes():
    """LibLinear's weights come back in class order: they match the dense Newton optimum column by column."""
    X, y = one_hot_codes(n=200, grids=4, bins=8, n_classes=3, seed=2)
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    for C in (0.5, 8.0):
        (W,) = squared_hinge_paths(X.toarray(), Y, [C], tol=1e-12)
        (W_ll,) = sparse_path.liblinear_path(X, y, [C], "-s 2 -e 1e-10", warm=False)
        np.testing.assert_allclose(W_ll, W, atol=1e-6 * np.abs(W).max())
