"""RidgeRegressorCV / RidgeClassifierCV against closed forms, scikit-learn's Ridge and hand-written CV."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, StratifiedKFold

from rfbench.model.ridge import MAX_DUAL_ROWS, MAX_EIGEN_FEATURES, RidgeClassifierCV, RidgeRegressorCV, _dual_path

GRID = (0.0, 1e-3, 0.1, 1.0, 10.0, 100.0)


def regression_problem(n=120, p=15, seed=0):
    """Features with a large common offset (so centering matters) and a noisy linear target."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, p)) + 2.0
    y = Z @ rng.standard_normal(p) + 0.5 * rng.standard_normal(n) + 3.0
    return Z, y


def classification_problem(n=150, p=8, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, p))
    y = np.argmax(Z[:, :n_classes] + rng.standard_normal((n, n_classes)), axis=1)
    return Z, np.array(list("abcde"))[y]


def closed_form(Z, Y, lam, fit_intercept):
    """(coef, intercept) of min ||Z w + b - Y||^2 + lam ||w||^2 by np.linalg.solve on centered data."""
    z_mean = Z.mean(axis=0) if fit_intercept else np.zeros(Z.shape[1])
    y_mean = Y.mean(axis=0) if fit_intercept else np.zeros(Y.shape[1:])
    Zc, Yc = Z - z_mean, Y - y_mean
    coef = np.linalg.solve(Zc.T @ Zc + lam * np.eye(Z.shape[1]), Zc.T @ Yc)
    return coef, y_mean - z_mean @ coef


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("lam", [1e-3, 1.0, 50.0])
def test_single_lambda_equals_closed_form_and_sklearn_ridge(lam, fit_intercept):
    Z, y = regression_problem()
    model = RidgeRegressorCV(lambda_grid=[lam], fit_intercept=fit_intercept).fit(Z, y)
    coef, intercept = closed_form(Z, y, lam, fit_intercept)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, intercept, rtol=1e-9, atol=1e-12)
    reference = Ridge(alpha=lam, fit_intercept=fit_intercept, solver="cholesky").fit(Z, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.predict(Z), reference.predict(Z), rtol=1e-10)
    assert np.isnan(model.cv_scores_).all() and model.lambda_ == lam


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_sparse_lsqr_equals_sklearn_ridge(fit_intercept):
    Z, y = regression_problem(n=80, p=200, seed=3)  # wide: p > n
    Z[np.abs(Z - 2) < 1.0] = 0.0
    model = RidgeRegressorCV(lambda_grid=[0.5], fit_intercept=fit_intercept, solver="lsqr").fit(sp.csr_matrix(Z), y)
    reference = Ridge(alpha=0.5, fit_intercept=fit_intercept, solver="cholesky").fit(Z, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.intercept_, reference.intercept_, rtol=1e-7, atol=1e-9)


def test_multi_target_regression_equals_sklearn_ridge():
    Z, y = regression_problem()
    Y = np.column_stack([y, -2 * y + Z[:, 0]])
    model = RidgeRegressorCV(lambda_grid=[3.0]).fit(Z, Y)
    reference = Ridge(alpha=3.0, solver="cholesky").fit(Z, Y)
    np.testing.assert_allclose(model.coef_, reference.coef_.T, rtol=1e-9)
    np.testing.assert_allclose(model.predict(Z), reference.predict(Z), rtol=1e-10)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_equals_sklearn_ridge_on_plus_minus_one_targets(n_classes):
    Z, y = classification_problem(n_classes=n_classes)
    model = RidgeClassifierCV(lambda_grid=[2.0]).fit(Z, y)
    classes = np.unique(y)
    signs = np.where(y[:, None] == classes, 1.0, -1.0)
    expected = Ridge(alpha=2.0, solver="cholesky").fit(Z, signs[:, 1] if n_classes == 2 else signs).predict(Z)
    np.testing.assert_allclose(model.decision_function(Z), expected, rtol=1e-9, atol=1e-12)
    predicted = classes[(expected > 0).astype(int)] if n_classes == 2 else classes[np.argmax(expected, axis=1)]
    np.testing.assert_array_equal(model.predict(Z), predicted)


def hand_cv_regression(Z, y, grid, cv, seed, fit_intercept, scoring):
    scores = np.zeros((cv, len(grid)))
    for f, (tr, te) in enumerate(KFold(n_splits=cv, shuffle=True, random_state=seed).split(Z)):
        for j, lam in enumerate(grid):
            if lam == 0:  # singular-safe least squares for the lambda = 0 column
                zm, ym = (Z[tr].mean(axis=0), y[tr].mean()) if fit_intercept else (0.0, 0.0)
                coef = np.linalg.lstsq(Z[tr] - zm, y[tr] - ym, rcond=None)[0]
                intercept = ym - zm @ coef if fit_intercept else 0.0
            else:
                coef, intercept = closed_form(Z[tr], y[tr], lam, fit_intercept)
            error = Z[te] @ coef + intercept - y[te]
            scores[f, j] = np.mean(error**2) if scoring == "mse" else np.linalg.norm(error) / np.linalg.norm(y[te])
    return scores.mean(axis=0)


@pytest.mark.parametrize("scoring", ["relative_error", "mse"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_regression_cv_scores_equal_hand_written_fold_loop(fit_intercept, scoring):
    Z, y = regression_problem(n=60, p=40, seed=1)  # folds of 48 rows: noisy enough to prefer some lambda > 0
    model = RidgeRegressorCV(lambda_grid=GRID, cv=5, fit_intercept=fit_intercept, scoring=scoring,
                             random_state=4).fit(Z, y)
    expected = hand_cv_regression(Z, y, GRID, 5, 4, fit_intercept, scoring)
    np.testing.assert_allclose(model.cv_scores_, expected, rtol=1e-8)
    assert model.lambda_ == max(lam for lam, s in zip(GRID, expected) if s == expected.min())
    np.testing.assert_allclose(model.coef_, closed_form(Z, y, model.lambda_, fit_intercept)[0], rtol=1e-9)


def test_classification_cv_scores_equal_hand_written_stratified_loop():
    Z, y = classification_problem(n=120, p=30, n_classes=3, seed=2)
    grid = (1e-2, 1.0, 30.0, 300.0)
    model = RidgeClassifierCV(lambda_grid=grid, cv=4, random_state=9).fit(Z, y)
    classes = np.unique(y)
    scores = np.zeros((4, len(grid)))
    for f, (tr, te) in enumerate(StratifiedKFold(n_splits=4, shuffle=True, random_state=9).split(Z, y)):
        signs = np.where(y[tr, None] == classes, 1.0, -1.0)
        for j, lam in enumerate(grid):
            coef, intercept = closed_form(Z[tr], signs, lam, True)
            scores[f, j] = np.mean(classes[np.argmax(Z[te] @ coef + intercept, axis=1)] == y[te])
    np.testing.assert_array_equal(model.cv_scores_, scores.mean(axis=0))
    assert model.lambda_ == max(lam for lam, s in zip(grid, scores.mean(axis=0)) if s == scores.mean(axis=0).max())


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_sparse_lsqr_path_agrees_with_dense_eigen_path(fit_intercept):
    """Stated tolerance: LSQR at tol=1e-10 matches the eigendecomposition to rtol 1e-6."""
    Z, y = regression_problem(n=150, p=25, seed=5)
    Z[np.abs(Z - 2) < 0.7] = 0.0
    grid = GRID[1:]  # LSQR's lambda = 0 solution is the least-squares one only up to its conlim
    dense = RidgeRegressorCV(lambda_grid=grid, fit_intercept=fit_intercept, random_state=0).fit(Z, y)
    sparse = RidgeRegressorCV(lambda_grid=grid, fit_intercept=fit_intercept, random_state=0,
                              solver="lsqr").fit(sp.csr_matrix(Z), y)
    np.testing.assert_allclose(sparse.cv_scores_, dense.cv_scores_, rtol=1e-6)
    assert sparse.lambda_ == dense.lambda_
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-6)


def test_sparse_eigen_and_float32_match_dense_float64():
    Z, y = classification_problem(n=100, p=12, n_classes=4, seed=3)
    reference = RidgeClassifierCV(lambda_grid=(0.1, 10.0), cv=3, random_state=1).fit(Z, y)
    sparse = RidgeClassifierCV(lambda_grid=(0.1, 10.0), cv=3, random_state=1, solver="eigen").fit(sp.csr_matrix(Z), y)
    np.testing.assert_allclose(sparse.coef_, reference.coef_, rtol=1e-10, atol=1e-13)
    single = RidgeClassifierCV(lambda_grid=(0.1, 10.0), cv=3, random_state=1).fit(Z.astype(np.float32), y)
    np.testing.assert_allclose(single.coef_, reference.coef_, rtol=1e-5, atol=1e-6)


def test_sparse_float32_one_hot_features_fit_in_float64_like_their_dense_copy():
    """Random-binning-like Z (float32 one-hot blocks / sqrt(P)): the sparse Gram, centered after
    the product, equals the dense float64 path's to rounding, for both ridge tasks."""
    rng = np.random.default_rng(4)
    n, P, bins = 300, 5, 7
    cols = (rng.integers(0, bins, size=(n, P)) + bins * np.arange(P)).ravel()
    Z = sp.csr_matrix((np.full(n * P, P ** -0.5, dtype=np.float32), (np.repeat(np.arange(n), P), cols)),
                      shape=(n, P * bins))
    y = Z @ rng.normal(size=P * bins) + 0.1 * rng.normal(size=n)
    for model in (RidgeRegressorCV, RidgeClassifierCV):
        target = y if model is RidgeRegressorCV else (y > np.median(y)).astype(int)
        fits = [model(lambda_grid=(1e-3, 1.0), cv=3, random_state=0, solver="eigen").fit(A, target)
                for A in (Z, Z.toarray().astype(np.float64))]
        np.testing.assert_allclose(fits[0].cv_scores_, fits[1].cv_scores_, rtol=1e-10)
        np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, rtol=1e-8, atol=1e-10)


def test_lambda_zero_gives_minimum_norm_least_squares_on_rank_deficient_Z():
    Z, y = regression_problem(n=50, p=6, seed=2)
    Z = np.column_stack([Z, Z[:, 0] + Z[:, 1]])  # rank 6 of 7 columns
    model = RidgeRegressorCV(lambda_grid=[0.0], fit_intercept=False).fit(Z, y)
    np.testing.assert_allclose(model.coef_, np.linalg.pinv(Z) @ y, rtol=1e-6)


def test_threads_and_progress_do_not_change_the_result():
    Z, y = regression_problem(n=90, p=10, seed=6)
    calls = []
    serial = RidgeRegressorCV(lambda_grid=GRID, cv=3, random_state=2).fit(Z, y)
    threaded = RidgeRegressorCV(lambda_grid=GRID, cv=3, random_state=2, n_jobs=3,
                                progress=lambda done, total: calls.append((done, total))).fit(Z, y)
    np.testing.assert_array_equal(threaded.cv_scores_, serial.cv_scores_)
    np.testing.assert_array_equal(threaded.coef_, serial.coef_)
    total = 3 * len(GRID) + 1
    assert calls == [(len(GRID), total), (2 * len(GRID), total), (3 * len(GRID), total), (total, total)]


def test_lsqr_iteration_limit_warns():
    Z, y = regression_problem(n=60, p=20, seed=7)
    with pytest.warns(ConvergenceWarning, match="lambda=0.001"):
        RidgeRegressorCV(lambda_grid=[1e-3], solver="lsqr", max_iter=2).fit(Z, y)


def test_estimators_are_sklearn_clonable_and_name_their_task():
    model = clone(RidgeClassifierCV(lambda_grid=(1.0,), cv=3))
    assert model.get_params()["cv"] == 3
    assert (RidgeRegressorCV.task, RidgeClassifierCV.task) == ("regression", "classification")


@pytest.mark.parametrize("params, message", [
    ({"lambda_grid": []}, r"lambda_grid must be a non-empty 1-D sequence of floats >= 0, got \[\]"),
    ({"lambda_grid": [1.0, -0.5]}, r"every value of lambda_grid must be finite and >= 0, got lambda_grid\[1\] = -0.5"),
    ({"lambda_grid": [np.inf]}, r"lambda_grid\[0\] = inf"),
    ({"cv": 1}, r"cv=1 is invalid: k-fold cross-validation needs an int cv >= 2"),
    ({"cv": True}, r"cv=True is invalid"),
    ({"cv": 200}, r"cv=200 exceeds the 120 training samples; k-fold CV needs 2 <= cv <= 120"),
    ({"solver": "svd"}, r"solver='svd' is not valid; choose one of \('auto', 'eigen', 'dual', 'lsqr'\)"),
    ({"scoring": "accuracy"},
     r"scoring='accuracy' is not valid for regression; choose one of \('relative_error', 'mse'\)"),
    ({"tol": 0}, r"tol=0 is invalid: LSQR's tolerance needs 0 < tol < 1"),
    ({"max_iter": 0}, r"max_iter=0 is invalid"),
    ({"n_jobs": 0}, r"n_jobs must be an int >= 1, got 0"),
])
def test_bad_regressor_parameters_are_rejected_naming_value_and_range(params, message):
    Z, y = regression_problem()
    with pytest.raises(ValueError, match=message):
        RidgeRegressorCV(**params).fit(Z, y)


def test_bad_classifier_input_is_rejected():
    Z, y = classification_problem(n=40, n_classes=3, seed=1)
    smallest = min(np.unique(y, return_counts=True)[1])
    with pytest.raises(ValueError, match=rf"cv=20 exceeds the {smallest} samples of the smallest class .*"
                                         rf"stratified CV needs 2 <= cv <= {smallest}"):
        RidgeClassifierCV(cv=20).fit(Z, y)
    with pytest.raises(ValueError, match=r"at least 2 classes, got only \['a'\]"):
        RidgeClassifierCV().fit(Z, np.full(len(Z), "a"))
    with pytest.raises(ValueError, match=r"solver='eigen' forms a p x p Gram and Z has p=9000 columns"):
        RidgeClassifierCV(solver="eigen").fit(sp.csr_matrix((40, 9000)), y)
    with pytest.raises(ValueError, match="Z has 8 rows, y has 40"):
        RidgeClassifierCV().fit(Z[:8], y)


@pytest.mark.parametrize("rows, width, solver", [(60, 25, "eigen"), (60, MAX_EIGEN_FEATURES + 1, "dual"),
                                                (MAX_DUAL_ROWS + 1, MAX_EIGEN_FEATURES + 1, "lsqr")])
def test_auto_picks_an_eigen_path_by_width_then_rows_dense_or_sparse_and_logs_it(rows, width, solver, caplog):
    """Sparse codes narrow enough for a p x p eigendecomposition take it, wide ones on few enough rows
    the n x n one (no LSQR iterations); only a Z too wide and too tall for both takes LSQR."""
    rng = np.random.default_rng(0)
    Z = sp.random(rows, width, density=5 / width, format="csr", random_state=1)
    y = rng.normal(size=rows)
    with caplog.at_level("INFO", logger="rfbench"):
        model = RidgeRegressorCV(lambda_grid=[1.0], solver="auto").fit(Z, y)
    assert model.solver_ == solver
    assert f"model: ridge, solver={solver} (auto), on sparse features ({rows} x {width})" in caplog.text


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("n, p", [(150, 25), (40, 90)])  # tall and wide
def test_dual_path_equals_the_primal_eigen_path_for_every_lambda(n, p, fit_intercept, sparse):
    """The push-through identity: the n x n eigendecomposition gives the p x p one's CV scores,
    choice and weights, lambda = 0 included (the minimum-norm least squares solution)."""
    Z, y = regression_problem(n=n, p=p, seed=7)
    Z[np.abs(Z - 2) < 0.5] = 0.0
    Y = np.column_stack([y, np.sin(y)])  # two targets
    A = sp.csr_matrix(Z) if sparse else Z
    fits = {solver: RidgeRegressorCV(lambda_grid=GRID, cv=4, fit_intercept=fit_intercept, random_state=2,
                                     solver=solver).fit(A, Y) for solver in ("eigen", "dual")}
    np.testing.assert_allclose(fits["dual"].cv_scores_, fits["eigen"].cv_scores_, rtol=1e-8)
    assert fits["dual"].lambda_ == fits["eigen"].lambda_
    np.testing.assert_allclose(fits["dual"].coef_, fits["eigen"].coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(fits["dual"].intercept_, fits["eigen"].intercept_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_dual_single_lambda_solve_equals_closed_form_and_the_eigen_path(fit_intercept):
    """A lone lambda (the refit) is a Cholesky solve; it gives the closed form and the path's weights."""
    Z, y = regression_problem(n=50, p=120, seed=8)
    model = RidgeRegressorCV(lambda_grid=[0.3], fit_intercept=fit_intercept, solver="dual").fit(Z, y)
    coef, intercept = closed_form(Z, y, 0.3, fit_intercept)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, intercept, rtol=1e-9, atol=1e-12)
    rows, Y = np.arange(len(y)), y[:, None]
    lone = next(_dual_path(Z, Y, rows, [0.3], fit_intercept))
    on_path = list(_dual_path(Z, Y, rows, [0.3, 5.0], fit_intercept))[0]
    for a, b in zip(lone, on_path):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_dual_lambda_zero_on_wide_Z_is_the_minimum_norm_interpolant():
    Z, y = regression_problem(n=30, p=80, seed=9)
    model = RidgeRegressorCV(lambda_grid=[0.0], fit_intercept=False, solver="dual").fit(Z, y)
    np.testing.assert_allclose(model.coef_, np.linalg.pinv(Z) @ y, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(model.predict(Z), y, rtol=1e-8)


def test_dual_refuses_more_rows_than_its_gram_holds():
    with pytest.raises(ValueError, match=rf"solver='dual' forms an n x n Gram and Z has n={MAX_DUAL_ROWS + 1} "
                                         rf"rows, more than {MAX_DUAL_ROWS}; use solver='eigen'"):
        RidgeRegressorCV(solver="dual").fit(sp.csr_matrix((MAX_DUAL_ROWS + 1, 5)), np.zeros(MAX_DUAL_ROWS + 1))
