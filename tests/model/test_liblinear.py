"""LibLinearClassifier against LibLinear's own train/predict, computed independently."""
import ctypes

import numpy as np
import pytest
import scipy.sparse as sp
from liblinear.liblinearutil import parameter, predict, problem, train
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

import rfbench.model.liblinear as rc
from rfbench.model import newton_cost
from rfbench.model.liblinear import DEFAULT_C_GRID, LibLinearClassifier

libc_srand = ctypes.CDLL(None).srand


def noisy_problem(n=300, d=12, n_classes=3, seed=0, dtype=np.float32):
    """Overlapping classes, so accuracy varies with C."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.argmax(X[:, :n_classes] + 0.8 * rng.standard_normal((n, n_classes)), axis=1)
    return X.astype(dtype), y


def liblinear_options(solver, C, bias):
    return f"-s {solver} -c {C!r} -B {bias!r} -q"


def liblinear_decision(model, X):
    """LibLinear's own predictions and decision values (labels in model.get_labels() order)."""
    labels, _, values = predict([], np.asarray(X, dtype=np.float64), model, "-q")
    return np.asarray(labels, dtype=int), np.asarray(values)


def test_paper_grid():
    assert DEFAULT_C_GRID == tuple(2.0**k for k in range(-5, 6))


@pytest.mark.parametrize("bias", [1.0, 0.5, -1.0])
def test_dense_problem_trains_like_liblinear_sparse_input(bias):
    X, y = noisy_problem()
    ours = rc._train(rc._dense_problem(X, y, bias), rc.parameter("-s 2 -q"), 0.5)
    theirs = train(y.astype(float), sp.csr_matrix(X), liblinear_options(2, 0.5, bias))
    size = (X.shape[1] + (bias >= 0)) * ours.nr_class
    assert ours.get_labels() == theirs.get_labels()
    np.testing.assert_array_equal(np.ctypeslib.as_array(ours.w, (size,)), np.ctypeslib.as_array(theirs.w, (size,)))


@pytest.mark.parametrize("solver, n_classes", [(2, 2), (2, 3), (0, 4), (1, 3)])
def test_cv_scores_equal_hand_computed_fold_loop(solver, n_classes):
    X, y = noisy_problem(n_classes=n_classes)
    grid = (2.0**-6, 2.0**-2, 1.0, 8.0)
    clf = LibLinearClassifier(solver=solver, C_grid=grid, cv=4, random_state=7).fit(X, y)

    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=7).split(X, y)
    accuracy = np.zeros((4, len(grid)))
    for f, (tr, te) in enumerate(folds):
        for j, C in enumerate(grid):
            libc_srand(1)  # the dual solver shuffles with libc rand(); fit() seeds it the same way
            model = train(y[tr].astype(float), X[tr], liblinear_options(solver, C, 1.0))
            accuracy[f, j] = np.mean(liblinear_decision(model, X[te])[0] == y[te])
    expected = accuracy.mean(axis=0)
    np.testing.assert_array_equal(clf.cv_scores_, expected)
    assert clf.C_ == min(C for C, s in zip(grid, expected) if s == expected.max())


@pytest.mark.parametrize("solver", [0, 2])
def test_warm_started_cv_equals_hand_computed_warm_start_path(solver):
    X, y = noisy_problem(n_classes=3, seed=6)
    grid = (4.0, 2.0**-3, 0.5)  # unsorted: the path must still go up in C
    clf = LibLinearClassifier(solver=solver, C_grid=grid, cv=3, random_state=2, cv_warm_start=True).fit(X, y)

    accuracy = np.zeros((3, len(grid)))
    for f, (tr, te) in enumerate(StratifiedKFold(n_splits=3, shuffle=True, random_state=2).split(X, y)):
        prob, w = problem(y[tr].astype(float), X[tr]), None
        for j in np.argsort(grid):
            param = parameter(liblinear_options(solver, grid[j], 1.0))
            if w is not None:
                param.init_sol = w.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
            model = train(prob, param)
            w = np.ctypeslib.as_array(model.w, ((X.shape[1] + 1) * 3,)).copy()
            accuracy[f, j] = np.mean(liblinear_decision(model, X[te])[0] == y[te])
    np.testing.assert_array_equal(clf.cv_scores_, accuracy.mean(axis=0))


@pytest.mark.parametrize("cv_warm_start", [False, True])
def test_threaded_folds_give_identical_results(cv_warm_start):
    X, y = noisy_problem(n_classes=3)
    fits = [
        LibLinearClassifier(random_state=0, cv_warm_start=cv_warm_start, n_jobs=n_jobs).fit(X, y)
        for n_jobs in (1, 2)
    ]
    np.testing.assert_array_equal(fits[0].cv_scores_, fits[1].cv_scores_)
    assert fits[0].C_ == fits[1].C_


def test_separable_blobs_are_classified_perfectly_and_ties_go_to_smallest_C():
    rng = np.random.default_rng(1)
    centers = np.array([[8.0, 0.0], [-8.0, 0.0], [0.0, 8.0]])
    y = np.repeat(np.arange(3), 40)
    X = centers[y] + rng.standard_normal((120, 2))
    grid = (4.0, 0.25, 1.0)
    clf = LibLinearClassifier(C_grid=grid, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.cv_scores_, 1.0)
    assert clf.C_ == 0.25
    assert clf.score(X, y) == 1.0


def test_cv_rejects_an_underfitting_small_C():
    # Tiny features next to the bias feature 1: with small C the weights shrink to ~0,
    # the bias decides and every row falls to the majority class (60%); large C
    # separates the classes perfectly.
    rng = np.random.default_rng(2)
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    X = 1e-2 * (np.where(y[:, None] == 1, 3.0, -3.0) + rng.standard_normal((100, 3)))
    clf = LibLinearClassifier(random_state=0).fit(X, y)
    assert clf.cv_scores_[0] == pytest.approx(0.6)
    assert clf.cv_scores_[-1] == 1.0
    assert clf.C_ > DEFAULT_C_GRID[0]
    assert clf.score(X, y) == 1.0


@pytest.mark.parametrize("solver", [2, 4])
@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("bias", [1.0, -1.0])
def test_decision_values_and_predictions_equal_liblinear_predict(solver, n_classes, bias):
    X, y = noisy_problem(n_classes=n_classes, seed=3)
    labels = np.array(["ant", "bee", "cat", "dog"])[:n_classes]
    clf = LibLinearClassifier(solver=solver, C_grid=(0.5,), bias=bias).fit(X, labels[y])
    X_test, _ = noisy_problem(n=200, n_classes=n_classes, seed=4, dtype=np.float64)

    ll_pred, ll_values = liblinear_decision(clf.model_, X_test)
    order = clf.model_.get_labels()  # indices into classes_, liblinear's column order
    np.testing.assert_array_equal(clf.predict(X_test), clf.classes_[ll_pred])
    decision = clf.decision_function(X_test)
    if n_classes == 2:
        # sklearn convention: positive favours classes_[1]; liblinear's favours order[0].
        np.testing.assert_allclose(decision, ll_values[:, 0] * (1 if order[0] == 1 else -1), rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(decision[:, order], ll_values, rtol=1e-12, atol=1e-12)


def test_chunked_prediction_equals_unchunked(monkeypatch):
    X, y = noisy_problem(n_classes=3)
    clf = LibLinearClassifier(C_grid=(1.0,)).fit(X, y)
    X_test, _ = noisy_problem(n=1000, seed=5)
    whole_decision, whole_pred = clf.decision_function(X_test), clf.predict(X_test)
    monkeypatch.setattr(rc, "_CHUNK_BYTES", 7 * 8 * X.shape[1])  # 7 rows per chunk
    assert len(list(rc._row_chunks(X_test))) == 143
    np.testing.assert_allclose(clf.decision_function(X_test), whole_decision, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(clf.predict(X_test), whole_pred)


@pytest.mark.parametrize("solver", [2, 1, 6])
def test_fit_is_deterministic_given_random_state(solver):
    X, y = noisy_problem(n_classes=3)
    fits = [LibLinearClassifier(solver=solver, random_state=3).fit(X, y) for _ in range(2)]
    np.testing.assert_array_equal(fits[0].cv_scores_, fits[1].cv_scores_)
    assert fits[0].C_ == fits[1].C_
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))


def test_different_random_states_give_different_folds():
    X, y = noisy_problem(n_classes=3)
    scores = [LibLinearClassifier(random_state=s).fit(X, y).cv_scores_ for s in (0, 1)]
    assert not np.array_equal(*scores)


@pytest.mark.parametrize("params", [{"cv": 1}, {"C_grid": (2.0,)}])
def test_no_cross_validation_trains_with_the_only_C(params):
    X, y = noisy_problem()
    clf = LibLinearClassifier(**params).fit(X, y)
    expected_C = params.get("C_grid", DEFAULT_C_GRID)[0]
    assert clf.C_ == expected_C
    assert np.isnan(clf.cv_scores_).all() and len(clf.cv_scores_) == len(params.get("C_grid", DEFAULT_C_GRID))
    model = train(y.astype(float), X, liblinear_options(2, expected_C, 1.0))
    np.testing.assert_array_equal(clf.predict(X), liblinear_decision(model, X)[0])


def test_tol_is_liblinear_stopping_tolerance():
    X, y = noisy_problem()
    clf = LibLinearClassifier(solver=0, C_grid=(4.0,), tol=np.float64(1e-5)).fit(X, y)
    model = train(y.astype(float), X, liblinear_options(0, 4.0, 1.0) + " -e 1e-05")
    assert clf.model_.param.eps == 1e-5
    expected = liblinear_decision(model, X)[1][:, np.argsort(model.get_labels())]
    np.testing.assert_allclose(clf.decision_function(X), expected)


def test_is_a_cloneable_sklearn_estimator():
    clf = LibLinearClassifier(solver=0, C_grid=(1.0, 2.0), cv=3, tol=0.001, random_state=4)
    assert clone(clf).get_params() == clf.get_params()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C_grid": ()}, r"C_grid must be a non-empty .*got \(\)"),
        ({"C_grid": (1.0, 0.0)}, r"C_grid=\[1.0, 0.0\] is invalid: every C must be in \[2\^-100, 2\^100\]"),
        ({"C_grid": (-2.0,)}, r"C_grid=\[-2.0\] is invalid"),
        ({"C_grid": (2.0**101,)}, r"C_grid=\[2.535301200456459e\+30\] is invalid"),
        ({"cv": 0}, r"cv must be an int >= 1, got 0"),
        ({"cv": 21}, r"cv=21 exceeds the 20 samples of the smallest class \(2\).*1 <= cv <= 20"),
        ({"solver": 11}, r"solver=11 is not a LibLinear classification solver; valid: \(0, 1"),
        ({"tol": 0.0}, r"tol must be None or > 0, got 0.0"),
        ({"bias": np.nan}, r"bias must be a finite float"),
        ({"cv_warm_start": True, "solver": 1}, r"cv_warm_start=True needs solver in \(0, 2\).*got solver=1"),
        ({"n_jobs": 0}, r"n_jobs must be an int >= 1, got 0"),
        ({"solver": "newton", "newton_step": "dual"},
         r"newton_step='dual' is not valid; choose one of \('primal', 'auto'\)"),
        ({"newton_step": "auto", "solver": 1}, r"newton_step='auto' needs solver='newton'.*got solver=1$"),
    ],
)
def test_bad_parameters_are_rejected(params, match):
    y = np.repeat([0, 1, 2], [30, 30, 20])
    X = np.random.default_rng(0).standard_normal((80, 3))
    with pytest.raises(ValueError, match=match):
        LibLinearClassifier(**params).fit(X, y)


def test_bad_data_is_rejected():
    X, y = noisy_problem(n=40)
    with pytest.raises(ValueError, match=r"at least 2 classes, got only \[5\]"):
        LibLinearClassifier().fit(X, np.full(40, 5))
    with pytest.raises(ValueError, match=r"X has 40 rows, y has shape \(39,\)"):
        LibLinearClassifier().fit(X, y[:-1])
    X_nan = X.copy()
    X_nan[17, 4] = np.nan
    with pytest.raises(ValueError, match=r"X must be finite, but X\[17, 4\] = nan"):
        LibLinearClassifier().fit(X_nan, y)
    clf = LibLinearClassifier(C_grid=(1.0,)).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 5 features, but the classifier was fitted with 12"):
        clf.predict(X[:, :5])


# --- solver="newton": LibLinear's L2-loss SVM problem, solved to optimality by rfbench ---------
@pytest.mark.parametrize("n_classes, bias, n, d", [(2, -1.0, 300, 12), (3, 1.0, 300, 12), (4, -1.0, 300, 12),
                                                  (3, -1.0, 120, 150)])  # the last: more columns than rows
def test_newton_cv_and_model_equal_tightly_converged_liblinear(n_classes, bias, n, d):
    """Same folds, grid and problem as LibLinear -s 2 at -e 1e-10: same CV scores, C, predictions."""
    X, y = noisy_problem(n=n, d=d, n_classes=n_classes, seed=n_classes)
    grid = (2.0**-6, 2.0**-2, 1.0, 8.0)
    clf = LibLinearClassifier(solver="newton", C_grid=grid, cv=4, bias=bias, random_state=7).fit(X, y)

    tight = f"-s 2 -e 1e-10 -B {bias!r} -q"
    accuracy = np.zeros((4, len(grid)))
    for f, (tr, te) in enumerate(StratifiedKFold(n_splits=4, shuffle=True, random_state=7).split(X, y)):
        for j, C in enumerate(grid):
            model = train(y[tr].astype(float), X[tr], f"{tight} -c {C!r}")
            accuracy[f, j] = np.mean(liblinear_decision(model, X[te])[0] == y[te])
    np.testing.assert_array_equal(clf.cv_scores_, accuracy.mean(axis=0))
    model = train(y.astype(float), X, f"{tight} -c {clf.C_!r}")
    ll_pred, ll_values = liblinear_decision(model, X)
    np.testing.assert_array_equal(clf.predict(X), ll_pred)
    expected = ll_values[:, np.argsort(model.get_labels())] if n_classes > 2 else ll_values[:, 0] * (
        1 if model.get_labels()[0] == 1 else -1)
    np.testing.assert_allclose(clf.decision_function(X), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("selection", ["cv", "test_grid"])
def test_newton_steps_by_woodbury_give_the_primal_steps_model(monkeypatch, selection):
    """newton_step="auto" on wide features (small one-vs-rest active sets at large C): Woodbury steps
    taken, the same scores, C and weights as the p x p steps to the solver's tolerance."""
    import rfbench.model.newton_svc as newton_svc

    X, y = noisy_problem(n=400, d=250, n_classes=3, seed=9, dtype=np.float64)
    y = np.argmax(X[:, :3], axis=1)  # separable: the active sets shrink as C grows
    X_test, y_test = X[300:], y[300:]
    X, y = X[:300], y[:300]
    fit = {"cv": (X, y), "test_grid": (X, y, X_test, y_test)}[selection]
    params = dict(solver="newton", C_grid=(2.0**-2, 1.0, 4.0, 16.0, 64.0), cv=3, random_state=0, selection=selection)
    primal = LibLinearClassifier(**params).fit(*fit)
    calls, woodbury_step = [], newton_svc._woodbury_step
    monkeypatch.setattr(newton_svc, "_woodbury_step", lambda *a: calls.append(len(a[0])) or woodbury_step(*a))
    auto = LibLinearClassifier(newton_step="auto", **params).fit(*fit)
    assert calls
    np.testing.assert_array_equal(auto.grid_scores_, primal.grid_scores_)
    assert auto.C_ == primal.C_ and auto.model_path_.startswith(primal.model_path_ + ", each step by the cheaper")
    np.testing.assert_allclose(auto.coef_, primal.coef_, rtol=1e-7, atol=1e-9 * np.abs(primal.coef_).max())


def test_newton_result_does_not_depend_on_threads():
    X, y = noisy_problem(n_classes=3)
    fits = [LibLinearClassifier(solver="newton", random_state=0, n_jobs=n_jobs).fit(X, y) for n_jobs in (1, 3)]
    np.testing.assert_array_equal(fits[0].cv_scores_, fits[1].cv_scores_)
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)


def test_newton_class_blocks_do_not_depend_on_threads_and_match_classes_solved_alone(monkeypatch):
    """Seven classes in blocks of at most 3 (3, 2, 2): bit-equal for any n_jobs, and each class as if alone."""
    X, y = noisy_problem(n=420, n_classes=7)
    monkeypatch.setattr(rc, "NEWTON_BLOCK", 3)
    assert [len(block) for block in rc.class_blocks(7)] == [3, 2, 2]
    fits = [LibLinearClassifier(solver="newton", random_state=0, n_jobs=n_jobs).fit(X, y) for n_jobs in (1, 2, 3)]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.cv_scores_, fits[0].cv_scores_)
        np.testing.assert_array_equal(fit.coef_, fits[0].coef_)
    monkeypatch.setattr(rc, "NEWTON_BLOCK", 1)
    alone = LibLinearClassifier(solver="newton", random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(alone.cv_scores_, fits[0].cv_scores_)
    np.testing.assert_allclose(alone.coef_, fits[0].coef_, rtol=1e-7, atol=1e-9 * np.abs(alone.coef_).max())


def test_the_iterative_paths_class_blocks_give_the_weights_of_all_classes_solved_together(monkeypatch):
    """On sparse codes the blocks are jobs too (both threads busy through 5 folds and the refit); each
    column is its own problem, so any blocks and threads give the same bits."""
    monkeypatch.setattr(rc, "MAX_NEWTON_FEATURES", 12)
    X, y = noisy_problem(n=420, d=12, n_classes=7)
    fits = []
    for block, n_jobs in ((7, 1), (3, 2), (2, 3)):
        monkeypatch.setattr(rc, "NEWTON_BLOCK", block)
        fits.append(LibLinearClassifier(solver="newton", random_state=0, n_jobs=n_jobs).fit(sp.csr_matrix(X), y))
    assert fits[0].model_path_.startswith("newton iterative")
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.cv_scores_, fits[0].cv_scores_)
        np.testing.assert_array_equal(fit.coef_, fits[0].coef_)


@pytest.mark.parametrize("solver, n_jobs", [(1, 1), (2, 2), ("newton", 2)])
def test_progress_counts_every_fit_up_to_the_refit(solver, n_jobs):
    X, y = noisy_problem(n_classes=3)
    calls = []
    LibLinearClassifier(solver=solver, C_grid=(0.5, 1.0, 2.0), cv=4, random_state=0, n_jobs=n_jobs,
                        progress=lambda done, total: calls.append((done, total))).fit(X, y)
    done = [d for d, _ in calls]
    assert {t for _, t in calls} == {4 * 3 + 1}
    assert done == sorted(done) and done[-1] == 13


def test_newton_takes_the_iterative_path_for_a_design_wider_than_its_hessian_limit(monkeypatch):
    monkeypatch.setattr(rc, "MAX_NEWTON_FEATURES", 12)
    X, y = noisy_problem(d=12)
    assert LibLinearClassifier(solver="newton", bias=1.0).fit(X, y).model_path_.startswith("newton iterative")
    assert LibLinearClassifier(solver="newton", bias=-1.0, C_grid=(1.0,)).fit(X, y).model_path_.startswith(
        "newton dense")


@pytest.mark.parametrize("solver, n_classes", [(1, 2), (2, 4), ("newton", 2), ("newton", 4)])
def test_coef_columns_follow_classes_order_whatever_the_solver(solver, n_classes):
    """coef_ column k scores classes_[k] (two classes: one column, positive for classes_[1])."""
    X, y = noisy_problem(n_classes=n_classes, seed=9)
    y = (n_classes - 1 - y) * 10  # first-seen label order differs from sorted order
    clf = LibLinearClassifier(solver=solver, C_grid=(1.0,), bias=-1.0).fit(X, y)
    scores = X @ clf.coef_ + clf.intercept_
    expected = np.where(scores[:, 0] > 0, clf.classes_[1], clf.classes_[0]) if n_classes == 2 else \
        clf.classes_[np.argmax(scores, axis=1)]
    np.testing.assert_array_equal(clf.predict(X), expected)


@pytest.mark.parametrize("solver", [1, 2])
@pytest.mark.parametrize("bias", [1.0, -1.0])
def test_sparse_features_train_as_the_dense_ones_without_densifying(solver, bias):
    X, y = noisy_problem(n=240, d=30, seed=3, dtype=np.float64)
    X[np.abs(X) < 0.8] = 0.0  # about half the entries
    params = dict(solver=solver, C_grid=[0.25, 4.0], cv=3, bias=bias, random_state=0)
    dense = LibLinearClassifier(**params).fit(X, y)
    sparse = LibLinearClassifier(**params).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse.cv_scores_, dense.cv_scores_)
    np.testing.assert_array_equal(sparse.coef_, dense.coef_)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))
    assert sparse.n_features_in_ == 30


@pytest.mark.parametrize("selection", ["cv", "test_grid"])
def test_newton_densifies_sparse_features_to_the_dense_result(selection):
    X, y = noisy_problem(n=240, d=30, seed=3, dtype=np.float64)
    X[np.abs(X) < 0.8] = 0.0
    params = dict(solver="newton", C_grid=[0.25, 4.0], cv=3, random_state=0, selection=selection)
    dense = LibLinearClassifier(**params).fit(X, y, X, y)
    sparse = LibLinearClassifier(**params).fit(sp.csr_matrix(X), y, sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse.cv_scores_, dense.cv_scores_)
    np.testing.assert_array_equal(sparse.coef_, dense.coef_)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


@pytest.mark.parametrize("selection", ["cv", "test_grid"])
def test_newton_on_rank_deficient_sparse_codes_equals_newton_on_their_dense_copy(selection):
    """Sparse one-hot codes are solved on their row space (k + 1 of 2k columns); dense input is not reduced."""
    rng = np.random.default_rng(4)
    codes = rng.integers(2, size=(240, 10))
    X = np.zeros((240, 20))
    X[np.arange(240)[:, None], codes + 2 * np.arange(10)] = 1 / np.sqrt(10)
    y = np.digitize(codes[:, :4].sum(axis=1) + rng.normal(0, 0.7, 240), [1.5, 2.5])  # 3 classes
    params = dict(solver="newton", C_grid=[0.25, 4.0, 64.0], cv=3, random_state=0, selection=selection)
    dense = LibLinearClassifier(**params).fit(X, y, X, y)
    sparse = LibLinearClassifier(**params).fit(sp.csr_matrix(X), y, sp.csr_matrix(X), y)
    assert np.linalg.matrix_rank(X) == 11
    np.testing.assert_array_equal(sparse.cv_scores_, dense.cv_scores_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-9 * np.abs(dense.coef_).max())
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))


@pytest.mark.parametrize("solver", ["newton", 2])
def test_test_grid_scores_every_C_on_the_test_set_and_keeps_the_best(solver):
    X, y = noisy_problem(n=300, seed=4)
    Xt, yt = noisy_problem(n=200, seed=5)
    grid = [4.0, 0.001, 0.01, 0.1, 1.0]
    model = LibLinearClassifier(solver=solver, C_grid=grid, selection="test_grid", tol=1e-10 if solver == 2 else None
                                ).fit(X, y, Xt, yt)
    # independently: one model per C on all training rows, scored on the test set
    expected = [np.mean(LibLinearClassifier(solver=solver, C_grid=[C], cv=1, tol=model.tol).fit(X, y).predict(Xt) == yt)
                for C in grid]
    np.testing.assert_allclose(model.grid_scores_["test_score"], expected, atol=1 / len(yt) + 1e-12)
    scores = model.grid_scores_["test_score"].to_numpy()
    assert model.C_ == min(C for C, s in zip(grid, scores) if s == scores.max())
    assert model.selected_on_test_ and model.best_params_ == {"C": model.C_}
    assert np.isnan(model.cv_scores_).all() and np.isnan(model.cv_score_)
    assert np.mean(model.predict(Xt) == yt) == scores.max()  # the kept model is the best one


def test_test_grid_needs_the_test_set():
    X, y = noisy_problem()
    with pytest.raises(ValueError, match="selection='test_grid' chooses C on a test set: pass X_test and y_test"):
        LibLinearClassifier(selection="test_grid").fit(X, y)
    with pytest.raises(ValueError, match=r"selection='best' is not valid; choose one of \('cv', 'test_grid'\)"):
        LibLinearClassifier(selection="best").fit(X, y)


def one_hot_codes(n=400, grids=6, bins=12, n_classes=3, seed=0):
    """Binning-like sparse codes: each row one bin in each of ``grids`` grids (value 1/sqrt(grids)),
    labels from a noisy linear score of the bins, so C matters."""
    rng = np.random.default_rng(seed)
    cells = rng.integers(bins, size=(n, grids)) + bins * np.arange(grids)
    X = sp.csr_matrix((np.full(n * grids, grids ** -0.5), cells.ravel(), np.arange(0, n * grids + 1, grids)),
                      shape=(n, grids * bins))
    scores = X @ rng.standard_normal((grids * bins, n_classes)) + 0.7 * rng.standard_normal((n, n_classes))
    return X, np.argmax(scores, axis=1)


def ovr_objective(model, X, y, C):
    """sum over the one-vs-rest columns of ||w||^2 / 2 + C sum_i max(0, 1 - y_i w^T x_i)^2 (no bias here)."""
    W, signs = model.coef_, np.where(y[:, None] == model.classes_, 1.0, -1.0)
    return float(0.5 * np.sum(W * W) + C * np.sum(np.maximum(0.0, 1.0 - signs * (X @ W)) ** 2))


@pytest.mark.parametrize("selection", ["cv", "test_grid"])
@pytest.mark.parametrize("min_values, solver", [(6, "rfbench's Newton-CG on the active rows, LibLinear -s 2's stopping "
                                                    "rule ||g|| <= 1e-06"), (7, "LibLinear -s 2 -e 1e-06")])
def test_the_iterative_path_reaches_the_dense_optimum(monkeypatch, selection, min_values, solver):
    """The same problem on both paths of solver='newton' (the iterative one on codes of 6 values a row: our
    Newton-CG from 6 values a row, LibLinear -s 2 below) and on LibLinear -s 2 -e 1e-6 warm along C: the
    same CV scores and C, objectives equal to 1e-7 (the iterative path stops at LibLinear -s 2's
    ||g|| <= 1e-6 min(n+, n-)/n ||g(0)||, the dense one at 1e-8 ||g(0)||) and the same predictions."""
    X, y = one_hot_codes()
    Xt, yt = one_hot_codes(seed=1)
    params = dict(solver="newton", bias=-1.0, cv=3, random_state=0, C_grid=2.0 ** np.arange(-3, 6), selection=selection)
    fit_args = (Xt, yt) if selection == "test_grid" else ()
    dense = LibLinearClassifier(**params).fit(X, y, *fit_args)
    monkeypatch.setattr(rc, "MAX_NEWTON_FEATURES", 10)  # the dense path no longer fits
    monkeypatch.setattr(newton_cost, "NEWTON_CG_MIN_VALUES_PER_ROW", min_values)
    monkeypatch.setattr(sp.csr_matrix, "toarray", lambda self: pytest.fail("the iterative path densified"))
    iterative = LibLinearClassifier(**params).fit(X, y, *fit_args)
    liblinear = LibLinearClassifier(**{**params, "solver": 2, "tol": 1e-6, "cv_warm_start": True}).fit(X, y, *fit_args)
    assert dense.model_path_.startswith("newton dense") and iterative.model_path_.startswith(
        f"newton iterative: {solver}")
    for other in (iterative, liblinear):
        np.testing.assert_array_equal(other.cv_scores_, dense.cv_scores_)
        np.testing.assert_array_equal(other.grid_scores_["test_score"], dense.grid_scores_["test_score"])
        assert other.C_ == dense.C_
        f_dense, f_other = ovr_objective(dense, X, y, dense.C_), ovr_objective(other, X, y, dense.C_)
        assert f_dense <= f_other <= f_dense * (1 + 1e-7)
        np.testing.assert_array_equal(other.predict(Xt), dense.predict(Xt))


def test_wide_sparse_features_take_the_iterative_path_without_densifying(monkeypatch):
    monkeypatch.setattr(newton_cost, "NEWTON_CG_MIN_VALUES_PER_ROW", 3)
    """9,000 sparse columns: beyond the dense path's Hessian (8,192), a second for the iterative one."""
    X, y = one_hot_codes(n=600, grids=3, bins=3000)
    monkeypatch.setattr(sp.csr_matrix, "toarray", lambda self: pytest.fail("densified"))
    model = LibLinearClassifier(solver="newton", bias=-1.0, cv=2, C_grid=[1.0, 4.0], random_state=0).fit(X, y)
    assert model.model_path_.startswith("newton iterative") and model.fit_record() == {"model_path": model.model_path_}
    assert model.model_path_.startswith("newton iterative: rfbench's Newton-CG")
    # the CSR design and a fold's copy of it, not a dense design and 9,000 x 9,000 Hessians
    assert model.memory_needs(600, 9000, 3, sparse=True) == {"solver=newton's float64 CSR design and its folds'":
                                                             2 * 600 * 4 * 12}
    assert model.memory_needs(600, 9000, 2, sparse=True) == {"LibLinear -s 2's feature nodes": 600 * 4 * 16}
