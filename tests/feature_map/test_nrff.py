"""NRFF (Li 2017, Section 2): normalized random Fourier features of exp(-gamma (1 - rho))."""
import numpy as np
import pytest
from sklearn.preprocessing import normalize

from rfbench.feature_map.nrff import NRFF
from rfbench.feature_map.rff import GaussianRFF
from rfbench.kernel.cosine_rbf import CosineRBFKernel
from rfbench.papers.li.variance import nrff_variance, rff_variance


def test_features_are_the_normalized_offset_rff_of_normalized_rows():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 3)) * 4.0
    nrff = NRFF(n_components=50, gamma=2.0, dtype="float64", random_state=1).fit(X)
    Z = nrff.transform(X)
    # Independently: sqrt(2) cos(sqrt(gamma) r^T u + w) with the map's draws, then unit norm.
    rff = GaussianRFF(n_components=50, sigma=2.0**-0.5, variant="cos_offset", random_state=1).fit(X)
    raw = np.cos(normalize(X) @ rff.random_weights_ + rff.random_offset_)
    np.testing.assert_allclose(Z, raw / np.linalg.norm(raw, axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
    # rff_ is that plain map, in the map's dtype: NRFF is its features of the normalized rows, normalized
    np.testing.assert_allclose(Z, normalize(nrff.rff_.transform(normalize(X))), rtol=1e-12)
    assert NRFF(n_components=50).fit(X).transform(X).dtype == np.float32


def test_inner_products_approach_the_kernel():
    X = np.random.default_rng(2).standard_normal((6, 4))
    Z = NRFF(n_components=40_000, gamma=3.0, dtype="float64", random_state=3).fit(X).transform(X)
    K = CosineRBFKernel(4, gamma=3.0)(X)
    # Standard deviation at most sqrt(1 / k) = 0.005 (V_n <= 1).
    np.testing.assert_allclose(Z @ Z.T, K, atol=0.025)


def test_scaled_mse_of_the_map_matches_theorem_2_2():
    # Pair of cosine rho, 1000 independent maps of k features: k MSE -> V_n (eq. 13), far below V (eq. 11).
    rho, gamma, k, repetitions = 0.5, 1.0, 200, 1000
    pair = np.array([[1.0, 0.0], [rho, np.sqrt(1 - rho**2)]])
    target = np.exp(-gamma * (1 - rho))
    estimates = []
    for seed in range(repetitions):
        Z = NRFF(n_components=k, gamma=gamma, dtype="float64", random_state=seed).fit(pair).transform(pair)
        estimates.append(Z[0] @ Z[1])
    squared = k * (np.array(estimates) - target) ** 2
    tolerance = 4 * squared.std() / np.sqrt(repetitions) + 0.05 * nrff_variance(rho, gamma)
    assert abs(squared.mean() - nrff_variance(rho, gamma)) <= tolerance
    assert squared.mean() < 0.75 * rff_variance(rho, gamma)


def test_gram_blocks_is_one_float64_block():
    X = np.random.default_rng(4).standard_normal((4, 3))
    nrff = NRFF(n_components=10, random_state=0).fit(X)
    (L, R), = list(nrff.gram_blocks(X, X[:2]))
    assert L.dtype == R.dtype == np.float64 and R.shape == (2, 10)
    np.testing.assert_allclose(L, nrff.transform(X), atol=1e-6)
    (L, R), = list(nrff.gram_blocks(X))
    assert R is L  # Y=None: one set of features serves both factors


def test_output_size_counts_the_columns_and_the_drawn_numbers():
    X = np.random.default_rng(5).standard_normal((4, 3))
    nrff = NRFF(n_components=10, random_state=0)
    size = nrff.output_size(3)
    Z, rff = nrff.fit(X).transform(X), nrff.rff_
    assert size == (Z.shape[1], rff.random_weights_.size + rff.random_offset_.size) == (10, 40)


def test_from_kernel_and_approximates():
    assert CosineRBFKernel in NRFF.approximates
    nrff = NRFF.from_kernel(CosineRBFKernel(3, gamma=7.0), n_components=16)
    assert (nrff.gamma, nrff.n_components) == (7.0, 16)


@pytest.mark.parametrize("params, message", [
    ({"n_components": 0}, "n_components must be a positive integer, got 0"),
    ({"gamma": -1.0}, r"gamma=-1.0 is invalid: need 1e-60 <= gamma <= 1e\+60"),
    ({"dtype": "int8"}, "dtype='int8' is not supported"),
])
def test_bad_parameters_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        NRFF(**params).fit(np.ones((2, 2)))
