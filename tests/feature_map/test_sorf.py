"""StructuredOrthogonalRFF against its dense matrix sqrt(p)/sigma H D1 H D2 H D3 built with scipy."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard
from scipy.spatial.distance import cdist

from rfbench.feature_map import GaussianRFF, OrthogonalRFF, StructuredOrthogonalRFF
from rfbench.metrics import approximate_gram

SIGMA = 1.3


def dense(sorf):
    """W^T (M, p): the blocks sqrt(p)/sigma H D1 H D2 H D3 (H normalized) stacked, truncated to M rows."""
    p = sorf.n_padded_
    H = hadamard(p) / np.sqrt(p)
    blocks = [np.sqrt(p) / sorf.sigma * H @ np.diag(d1) @ H @ np.diag(d2) @ H @ np.diag(d3)
              for d3, d2, d1 in sorf.signs_]
    return np.vstack(blocks)[: sorf.n_components]


def padded(X, p):
    return np.hstack([X, np.zeros((len(X), p - X.shape[1]))])


@pytest.mark.parametrize(("d", "m"), [(5, 3), (5, 20), (12, 16), (16, 40), (1, 3)])
def test_projection_and_features_equal_the_dense_matrix_applied(d, m):
    X = np.random.default_rng(d).normal(size=(30, d))
    sorf = StructuredOrthogonalRFF(n_components=m, sigma=SIGMA, dtype="float64", random_state=1).fit(X)
    V = dense(sorf)
    projection = padded(X, sorf.n_padded_) @ V.T
    np.testing.assert_allclose(sorf.project(X), projection, rtol=0, atol=1e-12)
    expected = np.hstack([np.cos(projection), np.sin(projection)]) / np.sqrt(m)
    np.testing.assert_allclose(sorf.transform(X), expected, rtol=0, atol=1e-12)
    single = StructuredOrthogonalRFF(n_components=m, sigma=SIGMA, random_state=1).fit(X).transform(X)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=0, atol=1e-5)


def test_gram_blocks_cut_inside_blocks_sum_to_the_features_gram():
    X = np.random.default_rng(0).normal(size=(25, 6))  # p = 8, M = 21: blocks cut at 3, 6, 9, ...
    sorf = StructuredOrthogonalRFF(n_components=21, sigma=SIGMA, random_state=2).fit(X)
    Z = sorf.transform(X).astype(np.float64)
    total = sum(L @ R.T for L, R in sorf.gram_blocks(X, block_size=3))
    np.testing.assert_allclose(total, Z @ Z.T, rtol=0, atol=1e-5)
    assert np.abs(approximate_gram(sorf, X) - total).max() < 1e-12


def test_blocks_are_orthogonal_with_rows_of_norm_sqrt_p_over_sigma():
    sorf = StructuredOrthogonalRFF(n_components=64, sigma=SIGMA, random_state=3).fit(np.zeros((1, 10)))
    V = dense(sorf)
    for block in (V[:16], V[16:32]):
        np.testing.assert_allclose(block @ block.T, 16 / SIGMA**2 * np.eye(16), atol=1e-10)
    assert np.all(np.isin(sorf.signs_, (-1.0, 1.0)))
    # Rademacher: +1 and -1 equally likely; the mean of these 4 * 3 * 16 = 192 signs has standard deviation 0.072
    assert abs(sorf.signs_.mean()) < 4 / np.sqrt(sorf.signs_.size)


def test_kernel_error_is_close_to_orf_at_moderate_d():
    """Yu et al.: SORF's error is close to ORF's once p is moderate (here d = p = 64, M = 2d)."""
    X = np.random.default_rng(4).normal(size=(60, 64))
    sigma = 8.0
    K = np.exp(-cdist(X, X, "sqeuclidean") / (2 * sigma**2))

    def mean_error(cls):
        errors = [np.linalg.norm(approximate_gram(cls(n_components=128, sigma=sigma, random_state=s).fit(X), X) - K)
                  for s in range(20)]
        return np.mean(errors) / np.linalg.norm(K)

    assert mean_error(StructuredOrthogonalRFF) < 1.25 * mean_error(OrthogonalRFF)


def test_padding_costs_the_orthogonality_orf_would_have_in_the_data_width():
    """d = 40, padded to p = 64, M = d (issue 45's MNIST effect, small): SORF's rows are orthogonal in R^p,
    not on the d data coordinates, so its mean squared Gram error is ORF's drawn in R^p on the zero-padded
    data, not ORF's in R^d. Yu et al.'s variance reduction is a sum over pairs of one block's frequencies,
    each pair's term of order 1 / (block width): at M = d it keeps about d / p of ORF's reduction below RFF."""
    d, p, m = 40, 64, 40
    X = np.random.default_rng(5).normal(size=(40, d))
    sigma = np.sqrt(d)
    K = np.exp(-cdist(X, X, "sqeuclidean") / (2 * sigma**2))

    def mse(cls, data):
        return np.mean([np.sum((approximate_gram(cls(n_components=m, sigma=sigma, random_state=s).fit(data), data)
                                - K) ** 2) for s in range(100)])

    rff, orf, sorf = mse(GaussianRFF, X), mse(OrthogonalRFF, X), mse(StructuredOrthogonalRFF, X)
    orf_padded = mse(OrthogonalRFF, padded(X, p))
    assert sorf == pytest.approx(orf_padded, rel=0.15)
    assert sorf > 1.5 * orf
    assert sorf / rff == pytest.approx(1 - (1 - orf / rff) * d / p, rel=0.15)


def test_bad_parameters_and_wrong_width():
    with pytest.raises(ValueError, match="n_components must be a positive integer, got 0"):
        StructuredOrthogonalRFF(n_components=0).fit(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"dtype='float16' is not supported"):
        StructuredOrthogonalRFF(dtype="float16").fit(np.zeros((2, 3)))
    sorf = StructuredOrthogonalRFF().fit(np.zeros((2, 3)))
    expected = "X has 4 features, but StructuredOrthogonalRFF is expecting 3 features as input"
    with pytest.raises(ValueError, match=expected):
        sorf.transform(np.zeros((2, 4)))
