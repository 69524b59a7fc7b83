"""The sparse Newton-CG against the dense Newton method and LibLinear on the same problems."""
import numpy as np
import pytest
import scipy.sparse as sp

from rfbench.model.newton_svc import primal_objective, squared_hinge_paths
from rfbench.model.sparse_newton import _hessian_product, squared_hinge_paths_sparse, stopping_scale


def codes(n=300, grids=6, bins=8, n_classes=4, seed=0):
    """GCWS-like one-hot codes (one bin of each grid per row, 1/sqrt(grids)) and one-vs-rest +-1 labels of a
    noisy linear score, so that C matters and the active sets are proper subsets."""
    rng = np.random.default_rng(seed)
    cells = rng.integers(bins, size=(n, grids)) + bins * np.arange(grids)
    Z = sp.csr_matrix((np.full(n * grids, grids ** -0.5), cells.ravel(), np.arange(0, n * grids + 1, grids)),
                      shape=(n, grids * bins))
    y = np.argmax(Z @ rng.standard_normal((grids * bins, n_classes)) + 0.5 * rng.standard_normal((n, n_classes)),
                  axis=1)
    return Z, np.where(y[:, None] == np.arange(n_classes), 1.0, -1.0)


def gradient_norms(Z, Y, C, W):
    """||g_k(w_k)|| of f = ||w||^2 / 2 + C sum max(0, 1 - y z^T w)^2, computed densely."""
    Zd = Z.toarray()
    R = np.maximum(1.0 - Y * (Zd @ W), 0.0)
    return np.linalg.norm(W - 2.0 * C * Zd.T @ (R * Y), axis=0)


def test_the_path_reaches_the_dense_newton_optimum_by_liblinears_rule():
    """Each C's weights: LibLinear -s 2's stopping rule ||g|| <= e max(min(n+, n-), 1)/n ||g(0)|| holds
    (checked by a dense gradient), and the objective is the dense Newton method's at 1e-12 to 1e-9."""
    Z, Y = codes()
    Cs, tol = [0.25, 1.0, 8.0, 64.0], 1e-6
    exact = list(squared_hinge_paths(Z.toarray(), Y, Cs, tol=1e-12))
    ours = list(squared_hinge_paths_sparse(Z, Y, Cs, tol=tol))
    g0 = np.linalg.norm(Z.toarray().T @ Y, axis=0)
    for C, W, W_star in zip(Cs, ours, exact):
        assert np.all(gradient_norms(Z, Y, C, W) <= tol * stopping_scale(Y) * 2.0 * C * g0)
        for k in range(Y.shape[1]):
            f, f_star = (primal_objective(Z.toarray(), Y[:, k], C, w[:, k]) for w in (W, W_star))
            assert f_star <= f * (1 + 1e-12) and f <= f_star * (1 + 1e-9)


def test_the_start_changes_the_result_only_within_the_tolerance():
    Z, Y = codes(seed=1)
    (cold,) = squared_hinge_paths_sparse(Z, Y, [16.0], tol=1e-10)
    (warm,) = squared_hinge_paths_sparse(Z, Y, [16.0], W0=np.ones_like(cold), tol=1e-10)
    np.testing.assert_allclose(warm, cold, atol=1e-7)


def test_the_stopping_scale_is_liblinears_min_of_the_two_sides_over_n():
    Y = np.array([[1.0, -1.0], [1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0]])
    np.testing.assert_allclose(stopping_scale(Y), [2 / 5, 1 / 5])  # no positive: max(0, 1) / n


@pytest.mark.parametrize("rows", [[0, 1, 2], [2, 0]])
def test_the_hessian_product_is_the_active_rows_product(rows):
    """p_k + c Z^T diag(a_k) Z p_k for the chosen rows of P, against the dense product."""
    rng = np.random.default_rng(3)
    Z = sp.random(50, 20, density=0.2, format="csr", random_state=4)
    active = rng.random((50, 3)) < 0.4
    P = rng.standard_normal((3, 20))
    out = _hessian_product(Z.indptr, Z.indices, Z.data, active, np.array(rows), P, 0.7)
    Zd = Z.toarray()
    expected = [P[k] + 0.7 * Zd.T @ (active[:, k] * (Zd @ P[k])) for k in rows]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
