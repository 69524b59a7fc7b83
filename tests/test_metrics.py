"""Gram approximation error and accuracy against direct dense computation."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from rfbench.feature_map import AsKRFF, GaussianRFF, IdentityMap
from rfbench.metrics import accuracy, approximate_gram, relative_gram_error

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 4))
Y = RNG.normal(size=(11, 4))


def dense_gram(fmap, A, B):
    """K~ from the complete factors [L_1 .. L_b] [R_1 .. R_b]^T in one product."""
    blocks = list(fmap.gram_blocks(A, B, block_size=10**9))
    return np.hstack([L for L, _ in blocks]) @ np.hstack([R for _, R in blocks]).T


@pytest.mark.parametrize("block_size", [1, 3, 7, 40, 1000])
def test_approximate_gram_equals_feature_products(block_size):
    rff = GaussianRFF(n_components=40, dtype="float64", random_state=0).fit(X)
    G = approximate_gram(rff, X, Y, block_size=block_size)
    assert G.shape == (30, 11) and G.dtype == np.float64
    np.testing.assert_allclose(G, rff.transform(X) @ rff.transform(Y).T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(approximate_gram(IdentityMap().fit(X), X, Y), X @ Y.T, atol=1e-12)


def test_relative_gram_error_equals_direct_computation():
    K = np.exp(-cdist(X, X, "sqeuclidean") / 2)
    rff = GaussianRFF(n_components=25, variant="cos_offset", dtype="float64", random_state=1).fit(X)
    Z = rff.transform(X)
    direct = np.linalg.norm(K - Z @ Z.T) / np.linalg.norm(K)
    assert relative_gram_error(K, rff, X, block_size=4) == pytest.approx(direct, abs=1e-12)


@pytest.mark.parametrize("kernel", ["shift_gaussian", "cosh_gaussian"])
def test_block_size_does_not_change_the_error(kernel):
    U = RNG.uniform(size=(25, 4))
    fmap = AsKRFF(kernel=kernel, n_components=37, total_mass="exact", random_state=2).fit(U)
    K = fmap.kernel_(U, U)
    direct = np.linalg.norm(K - dense_gram(fmap, U, U)) / np.linalg.norm(K)
    errors = [relative_gram_error(K, fmap, U, block_size=b) for b in (1, 5, 36, 37, 1000)]
    np.testing.assert_allclose(errors, direct, rtol=0, atol=1e-10)


def test_memory_is_independent_of_the_number_of_features():
    """2 * 20000 features of 200 points would take 64 MB; blocks of 256 need about 4 MB."""
    U = RNG.normal(size=(200, 4))
    rff = GaussianRFF(n_components=20000, random_state=3).fit(U)
    K = np.exp(-cdist(U, U, "sqeuclidean") / 2)
    tracemalloc.start()
    try:
        error = relative_gram_error(K, rff, U, block_size=256)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error < 0.02
    assert peak < 8 * 2**20, peak


def test_relative_gram_error_rejects_bad_K():
    rff = GaussianRFF(n_components=4).fit(X)
    with pytest.raises(ValueError, match=r"K has shape \(30, 29\), expected \(30, 30\) for X with 30 rows"):
        relative_gram_error(np.ones((30, 29)), rff, X)
    with pytest.raises(ValueError, match="K is all zeros"):
        relative_gram_error(np.zeros((30, 30)), rff, X)


def test_accuracy():
    assert accuracy([1, -1, 1, 1], [1, 1, 1, -1]) == 0.5
    assert accuracy(np.array(["a", "b"]), np.array(["a", "b"])) == 1.0
    with pytest.raises(ValueError, match=r"equal length, got shapes \(3,\) and \(2,\)"):
        accuracy([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="non-empty"):
        accuracy([], [])


class _ShuffledBlocks(IdentityMap):
    """Factor pairs without structure: L = X[:, :2], R = X[:, 2:] and back."""

    def gram_blocks(self, X, Y=None, block_size=1):
        X, Y = self._validate_pair(X, Y)
        yield X[:, :2], Y[:, 2:]
        yield X[:, 2:], Y[:, :2]


@pytest.mark.parametrize(
    "fmap",
    [
        AsKRFF(kernel="shift_gaussian", n_components=33, random_state=4),  # R = L, R = -L and R = [L2, -L1]
        GaussianRFF(n_components=33, variant="cos_offset", random_state=4),
        _ShuffledBlocks(),
    ],
    ids=["askrff", "rff", "unstructured"],
)
def test_symmetric_shortcuts_equal_the_general_product(fmap):
    """Y=None recognizes structured factor pairs; Y=copy of X always takes the general GEMM."""
    fmap.fit(X)
    np.testing.assert_allclose(approximate_gram(fmap, X, block_size=7), dense_gram(fmap, X, X.copy()), atol=1e-13)
    np.testing.assert_allclose(approximate_gram(fmap, X, block_size=7), approximate_gram(fmap, X, X.copy()), atol=1e-13)
