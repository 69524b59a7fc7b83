"""The sparse Newton-CG against the dense Newton method and LibLinear on the same problems."""
import numpy as np
import pytest
import scipy.sparse as sp

from rfbench.model.liblinear import LibLinearClassifier
from rfbench.model.newton_svc import primal_objective, squared_hinge_paths
from rfbench.model.sparse_newton import (
    _along_the_path,
    _cg_step,
    _hessian_product,
    _pattern_product,
    _pattern_transposed,
    _row_lists,
    column_values,
    squared_hinge_paths_sparse,
    stopping_scale,
)


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


def test_no_cg_solves_a_step_beyond_what_the_stopping_rule_asks_of_the_gradient(monkeypatch):
    """Each CG stops at ||r|| <= max(forcing, g_stop / ||g||) ||g|| (at most half ||g||): r is the gradient
    the quadratic model predicts after the step, so no stop lies below the rule's bound g_stop; the path
    still meets the rule."""
    from rfbench.model import sparse_newton
    Z, Y = codes(seed=2)
    Cs, tol = [0.25, 4.0, 64.0], 1e-6
    g0 = np.linalg.norm(Z.T @ Y, axis=0)
    seen, solve = [], sparse_newton._conjugate_gradients

    def recorded(product, active, C, B, stop):
        seen.append((C, np.linalg.norm(B, axis=1), stop))
        return solve(product, active, C, B, stop)

    monkeypatch.setattr(sparse_newton, "_conjugate_gradients", recorded)
    ours = list(squared_hinge_paths_sparse(Z, Y, Cs, tol=tol))
    for C, norms, stop in seen:  # the smallest column bound: B's rows are the columns still above theirs
        lowest = (tol * stopping_scale(Y) * 2.0 * C * g0).min()
        assert np.all(stop >= np.minimum(0.5 * norms, lowest) * (1 - 1e-12))
    for C, W in zip(Cs, ours):
        assert np.all(gradient_norms(Z, Y, C, W) <= tol * stopping_scale(Y) * 2.0 * C * g0)


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


def test_each_C_of_the_path_is_liblinears_tight_optimum():
    """The warm path (each C started along the path's last step) against LibLinear -s 2 -e 1e-10 cold at each
    C: f is 1-strongly convex, so ||w - w*|| <= ||g(w)||, and both stopping rules bound the weights' distance
    (||g|| <= e max(min(n+, n-), 1)/n 2C ||Z^T y||, e = 1e-6 and 1e-10); objectives within 1e-9."""
    Z, Y = codes(seed=2)
    y = np.argmax(Y, axis=1)
    Cs = [0.125, 1.0, 8.0, 64.0]
    for C, W in zip(Cs, squared_hinge_paths_sparse(Z, Y, Cs, tol=1e-6)):
        tight = LibLinearClassifier(solver=2, tol=1e-10, bias=-1.0, cv=1, C_grid=[C]).fit(Z, y).coef_
        bound = (1e-6 + 1e-10) * stopping_scale(Y) * 2.0 * C * np.linalg.norm(Z.T @ Y, axis=0)
        assert np.all(np.linalg.norm(W - tight, axis=0) <= bound)
        for k in range(Y.shape[1]):
            f, f_tight = (primal_objective(Z.toarray(), Y[:, k], C, w[:, k]) for w in (W, tight))
            assert f <= f_tight * (1 + 1e-9)


def test_the_start_along_the_path_lowers_each_objective_and_keeps_the_margins():
    """_along_the_path moves w_k to the minimizer of the new C's f on the line through the last two solutions:
    no column's objective rises, at least one falls, and the margins stay Z w."""
    Z, Y = codes(seed=3)
    W_last, W = (np.ascontiguousarray(W.T) for W in squared_hinge_paths_sparse(Z, Y, [1.0, 2.0], tol=1e-8))
    Yt = np.ascontiguousarray(Y.T)
    margins, margins_last = (np.asarray(Z @ w.T).T for w in (W, W_last))
    moved = W.copy()
    _along_the_path(Yt, 4.0, moved, margins, W_last, margins_last)
    np.testing.assert_allclose(margins, np.asarray(Z @ moved.T).T, atol=1e-12)
    before, after = ([primal_objective(Z.toarray(), Yt[k], 4.0, w[k]) for k in range(len(Yt))] for w in (W, moved))
    assert all(a <= b * (1 + 1e-15) for a, b in zip(after, before)) and min(np.subtract(after, before)) < 0


def test_unsigned_indices_give_the_same_hessian_product_bit_for_bit():
    """The solver passes Z's column indices as uint32 (no wraparound checks): the product is unchanged."""
    rng = np.random.default_rng(5)
    Z = sp.random(60, 30, density=0.2, format="csr", random_state=6)
    active, P = rng.random((60, 4)) < 0.5, rng.standard_normal((4, 30))
    rows = np.array([3, 0, 2])
    np.testing.assert_array_equal(
        _hessian_product(Z.indptr, Z.indices.astype(np.uint32), Z.data, active, rows, P, 1.3),
        _hessian_product(Z.indptr, Z.indices, Z.data, active, rows, P, 1.3))


def column_scaled(n=60, p=30, seed=7):
    """A random 0/1 pattern (rows of 0 to 13 entries: every remainder of the four accumulators) times one value
    per column."""
    rng = np.random.default_rng(seed)
    pattern = sp.random(n, p, density=0.2, format="csr", random_state=seed)
    pattern.data[:] = 1.0
    return sp.csr_matrix(pattern @ sp.diags(rng.uniform(0.5, 2.0, p))), rng


def test_column_values_describe_z_by_its_pattern_or_refuse():
    Z, _ = column_scaled()
    values = column_values(Z)
    pattern = Z.copy()
    pattern.data[:] = 1.0
    np.testing.assert_array_equal((pattern @ sp.diags(values)).toarray(), Z.toarray())
    Z.data[5] *= 1.5  # one entry off its column's value
    assert column_values(Z) is None


@pytest.mark.parametrize("rows", [[0, 1, 2, 3], [3, 1]])
def test_the_pattern_product_is_the_stored_values_product(rows):
    """p_k + c Z^T diag(a_k) Z p_k by Z = B diag(s) against the dense product and the stored values' product."""
    Z, rng = column_scaled()
    active, P = rng.random((60, 4)) < 0.5, rng.standard_normal((4, 30))
    rows = np.array(rows)
    out = _pattern_product(Z.indptr, Z.indices.astype(np.uint16), column_values(Z), *_row_lists(active.T), rows, P,
                           1.3)
    Zd = Z.toarray()
    np.testing.assert_allclose(out, [P[k] + 1.3 * Zd.T @ (active[:, k] * (Zd @ P[k])) for k in rows],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out, _hessian_product(Z.indptr, Z.indices, Z.data, active, rows, P, 1.3),
                               rtol=1e-12, atol=1e-12)


def test_both_products_give_the_same_optimum():
    """The path by the pattern product and by the stored values (codes with a bias column: two column values)
    against the dense Newton method at 1e-12: both meet LibLinear -s 2's rule, and as f is 1-strongly convex,
    ||w - w*|| <= ||g(w)||; the two paths' weights are within the sum of their gradients' norms."""
    Z, Y = codes(seed=4)
    Z = sp.hstack([Z, np.ones((Z.shape[0], 1))], format="csr")
    assert column_values(Z) is not None
    Cs, tol = [0.5, 4.0, 32.0], 1e-6
    exact = list(squared_hinge_paths(Z.toarray(), Y, Cs, tol=1e-12))
    paths = [list(squared_hinge_paths_sparse(Z, Y, Cs, tol=tol, by_pattern=b)) for b in (True, False)]
    for j, C in enumerate(Cs):
        norms = [gradient_norms(Z, Y, C, path[j]) for path in paths]
        for W, g in zip(paths, norms):
            assert np.all(g <= tol * stopping_scale(Y) * 2.0 * C * np.linalg.norm(Z.T @ Y, axis=0))
            assert np.all(np.linalg.norm(W[j] - exact[j], axis=0) <= g + 1e-12)
        assert np.all(np.linalg.norm(paths[0][j] - paths[1][j], axis=0) <= norms[0] + norms[1])


def test_the_pattern_transposed_product_is_scipys():
    """Z^T v_k for rows v_k of a V with zeros (the gradient's, zero off the active pairs), against scipy's."""
    Z, rng = column_scaled()
    V = rng.standard_normal((3, 60)) * (rng.random((3, 60)) < 0.3)
    np.testing.assert_allclose(_pattern_transposed(Z.indptr, Z.indices.astype(np.uint16), column_values(Z), V),
                               (Z.T @ V.T).T, rtol=1e-12, atol=1e-12)


def test_the_cg_step_is_the_textbook_update_on_the_live_rows():
    """x += alpha p, r -= alpha Hp, p = r + beta p (alpha = r.r / p.Hp, beta = r'.r' / r.r) on the live rows
    only, against numpy; the other rows untouched."""
    rng = np.random.default_rng(8)
    X, R, P = (rng.standard_normal((4, 9)) for _ in range(3))
    rr, live = np.sum(R * R, axis=1), np.array([2, 0])
    HP = rng.standard_normal((2, 9))
    alpha = (rr[live] / np.sum(P[live] * HP, axis=1))[:, None]
    X_new, R_new = X[live] + alpha * P[live], R[live] - alpha * HP
    rr_new = np.sum(R_new ** 2, axis=1)
    P_new = R_new + (rr_new / rr[live])[:, None] * P[live]
    before = [A.copy() for A in (X, R, P, rr)]
    _cg_step(live, HP, X, R, P, rr)
    for A, expected in zip((X[live], R[live], P[live], rr[live]), (X_new, R_new, P_new, rr_new)):
        np.testing.assert_allclose(A, expected, rtol=1e-12)
    for A, A0 in zip((X, R, P, rr), before):
        np.testing.assert_array_equal(A[[1, 3]], A0[[1, 3]])
