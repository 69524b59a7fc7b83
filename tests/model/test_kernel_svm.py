"""PrecomputedKernelSVC against scikit-learn's SVC on the raw features, hand-written CV and cdist."""
import re

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

import rfbench.model.kernel_svm as ks
from rfbench.kernel import make_kernel
from rfbench.model.kernel_svm import PrecomputedKernelSVC, squared_distances

GAMMAS = (0.05, 0.3, 2.0)
CS = (0.25, 1.0, 8.0)


def noisy_problem(n=160, d=4, n_classes=3, seed=0):
    """Overlapping classes far from the origin, so accuracy varies over the grid and centering matters."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.argmax(X[:, :n_classes] + 0.7 * rng.standard_normal((n, n_classes)), axis=1)
    return X + 10.0, np.array(list("xyzw"))[y]


@pytest.fixture(scope="module")
def data():
    X, y = noisy_problem(seed=0)
    X_test, y_test = noisy_problem(n=90, seed=1)
    return X, y, X_test, y_test


def test_squared_distances_equal_cdist(data):
    X, _, X_test, _ = data
    center = X.mean(axis=0)
    train = squared_distances(X, X, center)
    np.testing.assert_allclose(train, cdist(X, X, "sqeuclidean"), rtol=1e-10, atol=1e-12 * train.max())
    assert np.all(np.diag(train) == 0) and np.array_equal(train, train.T)
    test = squared_distances(X_test, X, center)
    np.testing.assert_allclose(test, cdist(X_test, X, "sqeuclidean"), rtol=1e-10, atol=1e-12 * test.max())
    assert test.min() >= 0


def test_every_grid_point_equals_svc_rbf_fitted_directly(data):
    X, y, X_test, y_test = data
    model = PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, cv=3, random_state=0).fit(X, y, X_test, y_test)
    for i, gamma in enumerate(GAMMAS):
        for j, C in enumerate(CS):
            assert model.test_scores_[i, j] == SVC(kernel="rbf", gamma=gamma, C=C).fit(X, y).score(X_test, y_test)
    direct = SVC(kernel="rbf", gamma=model.gamma_, C=model.C_).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X_test), direct.decision_function(X_test), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X_test), direct.predict(X_test))


def test_cv_scores_equal_hand_written_fold_loop(data):
    X, y, _, _ = data
    model = PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, cv=4, random_state=3).fit(X, y)
    expected = np.zeros((len(GAMMAS), len(CS)))
    for train, test in StratifiedKFold(n_splits=4, shuffle=True, random_state=3).split(X, y):
        for i, gamma in enumerate(GAMMAS):
            for j, C in enumerate(CS):
                svc = SVC(kernel="rbf", gamma=gamma, C=C).fit(X[train], y[train])
                expected[i, j] += svc.score(X[test], y[test]) / 4
    np.testing.assert_allclose(model.cv_scores_, expected, rtol=1e-12)
    best = [(g, c) for i, g in enumerate(GAMMAS) for j, c in enumerate(CS) if expected[i, j] == expected.max()]
    assert (model.gamma_, model.C_) == min(best) and not model.selected_on_test_
    assert np.isnan(model.test_scores_).all()
    assert list(model.grid_scores_.columns) == ["gamma", "C", "cv_score", "test_score"]
    np.testing.assert_array_equal(model.grid_scores_["cv_score"], expected.ravel())


def test_test_grid_picks_the_argmax_on_the_test_set_and_says_so(data):
    X, y, X_test, y_test = data
    model = PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, selection="test_grid").fit(X, y, X_test, y_test)
    scores = np.array([[SVC(kernel="rbf", gamma=g, C=c).fit(X, y).score(X_test, y_test) for c in CS] for g in GAMMAS])
    assert scores.max() > scores.min()  # the grid matters, so the argmax is a real choice
    i, j = np.unravel_index(np.argmax(scores), scores.shape)  # first maximum: smaller gamma, then smaller C
    assert (model.gamma_, model.C_) == (GAMMAS[i], CS[j])
    assert model.selected_on_test_ and model.score(X_test, y_test) == scores.max()
    assert np.isnan(model.cv_scores_).all()
    np.testing.assert_array_equal(model.grid_scores_["test_score"], scores.ravel())


def test_one_distance_matrix_and_one_gram_per_gamma(monkeypatch, data):
    X, y, X_test, y_test = data
    distance_calls, exp_calls = [], []

    def counting_distances(A, B, center):
        distance_calls.append((len(A), len(B)))
        return squared_distances(A, B, center)

    real_gram = PrecomputedKernelSVC._gram

    def counting_gram(self, base, gamma, out):
        exp_calls.append(base.shape)
        return real_gram(self, base, gamma, out)

    monkeypatch.setattr(ks, "squared_distances", counting_distances)
    monkeypatch.setattr(PrecomputedKernelSVC, "_gram", counting_gram)
    PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, cv=3, random_state=0).fit(X, y, X_test, y_test)
    assert distance_calls == [(len(X), len(X)), (len(X_test), len(X))]
    assert exp_calls.count((len(X_test), len(X))) == len(GAMMAS)
    assert exp_calls.count((len(X), len(X))) == len(GAMMAS)  # no refit: the grid's fit at the choice is kept


def test_callable_kernel_gives_one_gram_for_every_C(data):
    X, y, X_test, y_test = data
    calls = []

    def linear(A, B):
        calls.append((len(A), len(B)))
        return (A - 10.0) @ (B - 10.0).T

    model = PrecomputedKernelSVC(kernel=linear, C_grid=CS, cv=3, random_state=1).fit(X, y, X_test, y_test)
    assert calls == [(len(X), len(X)), (len(X_test), len(X))]
    assert np.isnan(model.gamma_) and model.cv_scores_.shape == (1, len(CS))
    for j, C in enumerate(CS):
        assert model.test_scores_[0, j] == SVC(kernel=linear, C=C).fit(X, y).score(X_test, y_test)
    np.testing.assert_array_equal(model.predict(X_test), SVC(kernel=linear, C=model.C_).fit(X, y).predict(X_test))


@pytest.mark.parametrize("name", ["gmm", "linear"])
def test_a_kernel_name_is_that_kernel_on_the_datas_dimension(data, name):
    X, y, X_test, y_test = data
    kernel = make_kernel(name, X.shape[1])
    by_name = PrecomputedKernelSVC(kernel=name, C_grid=CS, cv=3, random_state=1).fit(X, y, X_test, y_test)
    by_object = PrecomputedKernelSVC(kernel=kernel, C_grid=CS, cv=3, random_state=1).fit(X, y, X_test, y_test)
    np.testing.assert_array_equal(by_name.grid_scores_, by_object.grid_scores_)
    assert by_name.test_scores_[0, 0] == SVC(kernel=kernel, C=CS[0]).fit(X, y).score(X_test, y_test)
    valid = r"kernel='nope' is not valid; use 'rbf', 'cosine_rbf', a kernel name of \['cosh_gaussian'"
    with pytest.raises(ValueError, match=valid):
        PrecomputedKernelSVC(kernel="nope").fit(X, y)


def cosine_rbf(gamma):
    """Li's eq. 8 written directly: exp(-gamma (1 - rho)), rho the cosine of the raw rows."""
    def kernel(A, B):
        A, B = A / np.linalg.norm(A, axis=1, keepdims=True), B / np.linalg.norm(B, axis=1, keepdims=True)
        return np.exp(-gamma * (1.0 - A @ B.T))
    return kernel


def test_cosine_rbf_equals_svc_on_the_cosine_kernel_at_every_grid_point(data):
    X, y, X_test, y_test = data
    signed, signed_test = X - 10.0, X_test - 10.0  # rows of every direction, so rho spans [-1, 1]
    model = PrecomputedKernelSVC(kernel="cosine_rbf", gamma_grid=GAMMAS, C_grid=CS, selection="test_grid")
    model.fit(signed, y, signed_test, y_test)
    expected = [[SVC(kernel=cosine_rbf(g), C=C).fit(signed, y).score(signed_test, y_test) for C in CS]
                for g in GAMMAS]
    np.testing.assert_allclose(model.test_scores_, expected)
    best = np.unravel_index(np.argmax(model.test_scores_), model.test_scores_.shape)
    assert model.score(signed_test, y_test) == pytest.approx(model.test_scores_[best])
    assert model.gamma_ in GAMMAS and model.selected_on_test_


def test_threads_and_progress_do_not_change_the_result(data):
    X, y, X_test, y_test = data
    calls = []
    serial = PrecomputedKernelSVC(gamma_grid=GAMMAS[:2], C_grid=CS, cv=3, random_state=5).fit(X, y, X_test, y_test)
    threaded = PrecomputedKernelSVC(gamma_grid=GAMMAS[:2], C_grid=CS, cv=3, random_state=5, n_jobs=3,
                                    progress=lambda done, total: calls.append((done, total))).fit(X, y, X_test, y_test)
    np.testing.assert_array_equal(threaded.cv_scores_, serial.cv_scores_)
    np.testing.assert_array_equal(threaded.test_scores_, serial.test_scores_)
    total = 2 * 3 * (3 + 1)  # no refit: with a test set the grid's fit at the choice is the model
    assert [done for done, _ in calls] == [3, 6, 9, 12, 15, 18, 21, 24] and {t for _, t in calls} == {total}


def counting_svc_fits(monkeypatch) -> list[float]:
    """The C of every SVC fit PrecomputedKernelSVC makes, in order."""
    fits, real_svc = [], PrecomputedKernelSVC._svc

    def counted(self, C):
        fits.append(C)
        return real_svc(self, C)

    monkeypatch.setattr(PrecomputedKernelSVC, "_svc", counted)
    return fits


@pytest.mark.parametrize("selection", ["cv", "test_grid"])
def test_with_a_test_set_the_grids_fit_at_the_choice_is_the_model_bit_for_bit(monkeypatch, data, selection):
    X, y, X_test, y_test = data
    fits = counting_svc_fits(monkeypatch)
    model = PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, cv=3, random_state=0, selection=selection)
    model.fit(X, y, X_test, y_test)
    assert len(fits) == len(GAMMAS) * len(CS) * ((selection == "cv") * 3 + 1)  # no refit
    refit = SVC(kernel="precomputed", C=model.C_).fit(np.exp(-model.gamma_ * squared_distances(X, X, X.mean(0))), y)
    for name in ("support_", "dual_coef_", "intercept_", "n_iter_"):
        np.testing.assert_array_equal(getattr(model.model_, name), getattr(refit, name))
    assert model.score(X_test, y_test) == model.test_scores_[GAMMAS.index(model.gamma_), CS.index(model.C_)]


def test_without_a_test_set_the_choice_is_refitted(monkeypatch, data):
    X, y, _, _ = data
    fits = counting_svc_fits(monkeypatch)
    model = PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, cv=3, random_state=0).fit(X, y)
    assert len(fits) == len(GAMMAS) * len(CS) * 3 + 1 and fits[-1] == model.C_


def test_memory_limit_refuses_and_its_suggested_n_fits(data):
    X, y, _, _ = data
    limit = 8 * 2.8 * 120**2 / 2**30  # cv=5 needs ~2.8 n^2 floats: room for about n = 120
    with pytest.raises(ValueError, match=r"would hold about .* GiB of float64 matrices for n=160 training and 0 test "
                                         r"points .* above memory_limit_gib=.*; subsample the training set to n <= "
                                         r"\d+ or raise memory_limit_gib") as error:
        PrecomputedKernelSVC(memory_limit_gib=limit).fit(X, y)
    n_max = int(re.search(r"n <= (\d+)", str(error.value)).group(1))
    assert 110 <= n_max <= 125
    PrecomputedKernelSVC(gamma_grid=[1.0], C_grid=[1.0], memory_limit_gib=limit).fit(X[:n_max], y[:n_max])


@pytest.mark.parametrize("params, fit_kwargs, message", [
    ({"C_grid": []}, {}, r"C_grid must be a non-empty 1-D sequence of floats > 0, got \[\]"),
    ({"gamma_grid": [1.0, 0.0]}, {}, r"every value of gamma_grid must be finite and > 0, got gamma_grid\[1\] = 0.0"),
    ({"kernel": "poly"}, {}, r"kernel='poly' is not valid; use 'rbf', 'cosine_rbf', a kernel name of"),
    ({"selection": "test"}, {}, r"selection='test' is not valid; choose one of \('cv', 'test_grid'\)"),
    ({"selection": "test_grid"}, {},
     r"selection='test_grid' scores every grid point on a test set: call fit\(X, y, X_test=..., y_test=...\)"),
    ({"cv": 1}, {}, r"cv=1 is invalid: k-fold cross-validation needs an int cv >= 2"),
    ({"cv": 100}, {}, r"cv=100 exceeds the \d+ samples of the smallest class .* stratified CV needs 2 <= cv <= \d+"),
    ({"memory_limit_gib": -1}, {}, r"memory_limit_gib=-1 is invalid: a finite number > 0"),
    ({}, {"y_test": np.zeros(3)}, r"pass both X_test and y_test, or neither"),
])
def test_bad_parameters_are_rejected_naming_value_and_range(data, params, fit_kwargs, message):
    X, y, _, _ = data
    with pytest.raises(ValueError, match=message):
        PrecomputedKernelSVC(**params).fit(X, y, **fit_kwargs)
