"""NamedKernelSVC against scikit-learn's SVC with the same kernels written out by hand."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.svm import SVC

from rfbench.model.named_kernel_svm import NamedKernelSVC

GAMMAS = (0.5, 4.0, 30.0)
CS = (0.25, 4.0)


def problem(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 5))
    return X, (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.standard_normal(n) > 0.9).astype(int)


def cosine_rbf(gamma):
    def kernel(A, B):
        A, B = A / np.linalg.norm(A, axis=1, keepdims=True), B / np.linalg.norm(B, axis=1, keepdims=True)
        return np.exp(-gamma * (1.0 - A @ B.T))
    return kernel


def gmm(A, B):
    """eq. (3) written directly: sum of minima over sum of maxima of the positive/negative split."""
    def split(M):
        return np.concatenate([np.maximum(M, 0), np.maximum(-M, 0)], axis=1)
    A, B = split(A), split(B)
    return np.array([[np.minimum(a, b).sum() / np.maximum(a, b).sum() for b in B] for a in A])


@pytest.fixture(scope="module")
def data():
    return (*problem(150, 0), *problem(100, 1))


@pytest.mark.parametrize("metric, kernels", [
    ("cosine_rbf", [cosine_rbf(g) for g in GAMMAS]),
    ("linear", [lambda A, B: A @ B.T]),
    ("gmm", [gmm]),
])
def test_test_grid_scores_equal_svc_on_the_same_kernel(data, metric, kernels):
    X, y, X_test, y_test = data
    X_signed, X_test_signed = X - 0.4, X_test - 0.4  # negative entries exercise GMM's split
    model = NamedKernelSVC(metric=metric, gamma_grid=GAMMAS, C_grid=CS, selection="test_grid")
    model.fit(X_signed, y, X_test_signed, y_test)
    expected = [[SVC(kernel=k, C=C).fit(X_signed, y).score(X_test_signed, y_test) for C in CS] for k in kernels]
    np.testing.assert_allclose(model.test_scores_, expected)
    best = np.unravel_index(np.argmax(model.test_scores_), model.test_scores_.shape)
    assert model.score(X_test_signed, y_test) == pytest.approx(model.test_scores_[best])
    assert model.selected_on_test_


def test_metric_survives_clone_and_a_bad_name_is_refused(data):
    X, y, _, _ = data
    assert clone(NamedKernelSVC(metric="gmm")).get_params()["metric"] == "gmm"
    valid = r"metric='poly' is not valid; choose one of \('cosine_rbf', 'linear', 'gmm'\)"
    with pytest.raises(ValueError, match=valid):
        NamedKernelSVC(metric="poly").fit(X, y)
