"""The Newton solver against LibLinear's own solvers of the same problem, run to tight tolerance."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from liblinear.liblinearutil import train

from rfbench.model.newton_svc import (
    _ActiveGram,
    _RowGram,
    _SharedGram,
    newton_gram,
    primal_objective,
    row_space,
    squared_hinge_paths,
)


def squared_hinge_path(Z, y, Cs, w0=None, **kwargs):
    """The path of one label vector: ``squared_hinge_paths`` on the single column y."""
    W0 = None if w0 is None else w0[:, None]
    return (W[:, 0] for W in squared_hinge_paths(Z, y[:, None], Cs, W0, **kwargs))


def binary_problem(n=400, p=15, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    Z = scale * rng.standard_normal((n, p))
    y = np.where(Z[:, 0] + 0.7 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return Z, y


def liblinear_w(Z, y, C, solver):
    """LibLinear's solution of the same problem (no bias), tightly converged; positive class first."""
    model = train(y, sp.csr_matrix(Z), f"-s {solver} -c {C!r} -e 1e-10 -B -1 -q")
    w = np.ctypeslib.as_array(model.w, (Z.shape[1],)).copy()
    return w if model.get_labels()[0] == 1 else -w


@pytest.mark.parametrize("C", [2.0**-5, 1.0, 32.0])
@pytest.mark.parametrize("solver", [1, 2])
@pytest.mark.parametrize("n, p", [(400, 15), (60, 150)])  # p > n: Newton steps through Z Z^T (Woodbury)
def test_minimizer_is_liblinears_optimum(C, solver, n, p):
    Z, y = binary_problem(n=n, p=p)
    ours = next(squared_hinge_path(Z, y, [C]))
    theirs = liblinear_w(Z, y, C, solver)
    f_ours, f_theirs = primal_objective(Z, y, C, ours), primal_objective(Z, y, C, theirs)
    assert f_ours <= f_theirs * (1 + 1e-10)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-7 * np.abs(theirs).max())


def test_warm_started_path_equals_cold_solves():
    Z, y = binary_problem(seed=1)
    Cs = 2.0 ** np.arange(-5, 6)
    path = list(squared_hinge_path(Z, y, Cs))
    for C, w in zip(Cs, path):
        cold = next(squared_hinge_path(Z, y, [C]))
        np.testing.assert_allclose(w, cold, rtol=1e-7, atol=1e-9 * np.abs(cold).max())


def test_optimum_is_a_stationary_point_of_the_objective():
    """Central differences of f (computed independently of the solver's gradient) vanish at w*."""
    Z, y = binary_problem(p=6, seed=2)
    C, w = 4.0, next(squared_hinge_path(Z, y, [4.0]))
    h = 1e-6
    grad = [(primal_objective(Z, y, C, w + h * e) - primal_objective(Z, y, C, w - h * e)) / (2 * h) for e in np.eye(6)]
    assert np.abs(grad).max() < 1e-5 * primal_objective(Z, y, C, w)


def test_given_gram_and_start_change_nothing_but_the_route():
    Z, y = binary_problem(seed=3)
    plain = next(squared_hinge_path(Z, y, [8.0]))
    given = next(squared_hinge_path(Z, y, [8.0], w0=np.ones(Z.shape[1]), gram=Z.T @ Z))
    np.testing.assert_allclose(given, plain, rtol=1e-7, atol=1e-9 * np.abs(plain).max())


def test_separable_data_at_large_C_converges_without_warning():
    Z, y = binary_problem(seed=4)
    y = np.sign(Z[:, 0])  # separable through the origin
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = next(squared_hinge_path(Z, y, [1e4]))
    assert np.all(y * (Z @ w) > 0)


def test_step_limit_warns():
    Z, y = binary_problem(seed=5)
    with pytest.warns(Warning, match="did not reach tol in 1 steps at C=32"):
        next(squared_hinge_path(Z, y, [32.0], max_iter=1))


def test_the_two_newton_systems_give_the_same_step():
    """I + 2C Z_I^T Z_I solved directly (p x p) and through Woodbury (|I| x |I|) agree."""
    Z, y = binary_problem(n=50, p=80, seed=6)
    w, C = np.random.default_rng(0).standard_normal(80) * 0.05, 3.0
    r = 1.0 - y * (Z @ w)
    mask = r > 0
    active = np.flatnonzero(mask)
    g = w - 2.0 * C * (Z[active].T @ (y[active] * r[active]))
    direct = _ActiveGram(Z, _SharedGram(Z, Z.T @ Z)).newton_step(mask, g, C)
    woodbury = _RowGram(Z, _SharedGram(Z, Z @ Z.T)).newton_step(mask, g, C)
    expected = -np.linalg.solve(np.eye(80) + 2.0 * C * Z[active].T @ Z[active], g)
    np.testing.assert_allclose(direct, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(woodbury, expected, rtol=1e-9, atol=1e-12)


def test_woodbury_step_of_the_primal_system_equals_the_dense_solve_and_is_taken_only_where_cheaper():
    """p <= n: ``woodbury=True`` takes a small active set's step through its |I| x |I| system (the same
    step as the p x p solve), and a large one's through the p x p system (Z_I^T Z_I then kept)."""
    Z, y = binary_problem(n=600, p=120, seed=7)
    g, C = np.random.default_rng(1).standard_normal(120), 5.0
    for n_active, expect_woodbury in [(30, True), (500, False)]:
        mask = np.zeros(600, bool)
        mask[np.random.default_rng(n_active).choice(600, n_active, replace=False)] = True
        active = np.flatnonzero(mask)
        expected = -np.linalg.solve(np.eye(120) + 2.0 * C * Z[active].T @ Z[active], g)
        system = _ActiveGram(Z, _SharedGram(Z, None), woodbury=True)
        step = system.newton_step(mask, g, C)
        np.testing.assert_allclose(step, expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
        assert (system.mask is None) == expect_woodbury  # the p x p path keeps its Z_I^T Z_I for mask


def test_woodbury_steps_reach_the_same_path_as_the_primal_ones(monkeypatch):
    """Along a C grid on wide dense features whose active sets shrink as C grows, the path with Woodbury
    steps (counted: some taken, not all) equals the p x p one to the solver's tolerance, and LibLinear's."""
    import rfbench.model.newton_svc as newton_svc

    Z, _ = binary_problem(n=500, p=300, seed=8)
    y = np.sign(Z[:, 0])  # separable: at large C the active set is the rows near the boundary
    Cs = 2.0 ** np.arange(-4, 9, 2)
    primal = list(squared_hinge_path(Z, y, Cs))
    calls, woodbury_step = [], newton_svc._woodbury_step
    monkeypatch.setattr(newton_svc, "_woodbury_step", lambda *a: calls.append(len(a[0])) or woodbury_step(*a))
    woodbury = list(squared_hinge_path(Z, y, Cs, woodbury=True))
    assert calls and max(calls) < Z.shape[1]  # taken, on active sets smaller than p
    for w_p, w_w in zip(primal, woodbury):
        np.testing.assert_allclose(w_w, w_p, rtol=1e-7, atol=1e-9 * np.abs(w_p).max())
    C = float(Cs[-1])
    assert primal_objective(Z, y, C, woodbury[-1]) <= primal_objective(Z, y, C, liblinear_w(Z, y, C, 2)) * (1 + 1e-10)


def test_newton_gram_is_the_smaller_one():
    Z, _ = binary_problem(n=30, p=12)
    assert newton_gram(Z).shape == (12, 12) and newton_gram(Z.T.copy()).shape == (12, 12)


def one_hot_codes(n=200, k=6, levels=2, seed=0):
    """k blocks of ``levels`` columns with one 1/sqrt(k) each (GCWS's codes): rank (levels - 1) k + 1."""
    codes = np.random.default_rng(seed).integers(levels, size=(n, k))
    Z = np.zeros((n, levels * k))
    Z[np.arange(n)[:, None], codes + levels * np.arange(k)] = 1 / np.sqrt(k)
    return Z, codes


@pytest.mark.parametrize("levels", [2, 4])
def test_row_space_of_one_hot_codes_has_their_rank_and_keeps_the_gram(levels):
    Z, _ = one_hot_codes(levels=levels)
    Q = row_space(Z)
    assert Q.shape == (levels * 6, (levels - 1) * 6 + 1)
    np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-12)
    np.testing.assert_allclose((Z @ Q) @ (Z @ Q).T, Z @ Z.T, atol=1e-12)


def test_row_space_of_a_full_rank_matrix_is_none():
    assert row_space(binary_problem()[0]) is None


def test_newton_on_the_row_space_reaches_the_optimum_of_the_full_problem():
    Z, codes = one_hot_codes(levels=4, seed=2)
    y = np.where(codes[:, 0] + codes[:, 1] + np.random.default_rng(3).normal(0, 1, len(Z)) > 3, 1.0, -1.0)
    Q, Cs = row_space(Z), [2.0**-3, 1.0, 64.0]
    for w, v, C in zip(squared_hinge_path(Z, y, Cs), squared_hinge_path(Z @ Q, y, Cs), Cs):
        assert primal_objective(Z, y, C, Q @ v) <= primal_objective(Z, y, C, w) * (1 + 1e-12)
        np.testing.assert_allclose(Q @ v, w, atol=1e-9 * np.abs(w).max())


@pytest.mark.parametrize("n, p", [(300, 12), (40, 90)])  # the p x p system and Woodbury's
def test_columns_solved_together_equal_each_solved_alone(n, p):
    """One-vs-rest columns sharing Z's products converge each to its own optimum, as alone."""
    rng = np.random.default_rng(7)
    Z = rng.standard_normal((n, p))
    Y = np.where(Z[:, :3] + 0.8 * rng.standard_normal((n, 3)) > 0, 1.0, -1.0)
    Cs = [2.0**-3, 1.0, 16.0]
    for C, W in zip(Cs, squared_hinge_paths(Z, Y, Cs)):
        assert W.shape == (p, 3)
        for k in range(3):
            alone = next(squared_hinge_path(Z, Y[:, k], [C]))
            assert primal_objective(Z, Y[:, k], C, W[:, k]) <= primal_objective(Z, Y[:, k], C, alone) * (1 + 1e-12)
            np.testing.assert_allclose(W[:, k], alone, rtol=1e-7, atol=1e-9 * np.abs(alone).max())
