"""float32 features change results by far less than the trial-to-trial spread.

For the same seed, a map with ``dtype="float32"`` and one with ``"float64"``
are compared on the two per-trial results, against their standard deviation
over seeds (what a new trial draws anew):

* the Gram error.  ``relative_gram_error`` uses the float64 ``gram_blocks``
  whatever the dtype, so it is identical; the float32 rounding of the features
  moves the Gram matrix of ``transform`` by ||Z32 Z32^T - Z64 Z64^T||_F / ||K||_F,
  a bound on how much a Gram error computed from them could change;
* the test accuracy of the cross-validated LibLinear classifier.  A per-trial
  difference of a few test points happens when the CV curve is flat and the
  rounding tips the choice of C; the mean over trials, what results report,
  moves by less than its standard error.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.preprocessing import MinMaxScaler

from rfbench.feature_map import AsKRFF, GaussianRFF
from rfbench.kernel import make_kernel
from rfbench.metrics import accuracy, relative_gram_error
from rfbench.model.liblinear import LibLinearClassifier

SEEDS = range(6)
N_GRAM = 200


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, ...]:
    X, y = make_classification(n_samples=1000, n_features=8, n_informative=6, flip_y=0.05, random_state=0)
    X = MinMaxScaler().fit_transform(X)
    return X[:500], y[:500], X[500:], y[500:]


def trial(make_map, kernel: str, seed: int, data) -> dict[str, tuple]:
    """Per dtype: (Gram error, Gram matrix of the transform / ||K||_F, test accuracy) of one seed."""
    X_train, y_train, X_test, y_test = data
    K = make_kernel(kernel, X_train.shape[1], sigma=1.0)(X_train[:N_GRAM], X_train[:N_GRAM])
    results = {}
    for dtype in ("float32", "float64"):
        fmap = make_map(seed).set_params(dtype=dtype).fit(X_train)
        Z = fmap.transform(X_train[:N_GRAM]).astype(np.float64)
        clf = LibLinearClassifier(random_state=0).fit(fmap.transform(X_train), y_train)
        test_accuracy = accuracy(y_test, clf.predict(fmap.transform(X_test)))
        results[dtype] = (relative_gram_error(K, fmap, X_train[:N_GRAM]), Z @ Z.T / np.linalg.norm(K), test_accuracy)
    return results


def rff(seed: int) -> GaussianRFF:
    return GaussianRFF(n_components=32, sigma=1.0, random_state=seed)


def askrff(seed: int) -> AsKRFF:
    return AsKRFF(kernel="shift_gaussian", n_components=16, kernel_params={"sigma": 1.0}, random_state=seed)


@pytest.mark.parametrize("make_map, kernel", [(rff, "gaussian"), (askrff, "shift_gaussian")], ids=["rff", "askrff"])
def test_float32_changes_far_less_than_the_trial_spread(make_map, kernel, data):
    trials = [trial(make_map, kernel, seed, data) for seed in SEEDS]
    errors = np.array([[t[dtype][0] for dtype in ("float32", "float64")] for t in trials])
    gram_shift = np.array([np.linalg.norm(t["float32"][1] - t["float64"][1]) for t in trials])
    accuracies = np.array([[t[dtype][2] for dtype in ("float32", "float64")] for t in trials])

    np.testing.assert_array_equal(errors[:, 0], errors[:, 1])
    assert gram_shift.max() < 1e-4 * errors[:, 1].std(ddof=1)

    accuracy_spread = accuracies[:, 1].std(ddof=1)
    mean_shift = abs(accuracies[:, 0].mean() - accuracies[:, 1].mean())
    assert mean_shift < accuracy_spread / np.sqrt(len(SEEDS))
    assert np.median(np.abs(accuracies[:, 0] - accuracies[:, 1])) < 0.25 * accuracy_spread
