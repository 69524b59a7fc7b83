"""Fastfood against its dense matrix S H G Pi H B / (sigma sqrt(p)) built with scipy, and its chi row norms."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.linalg import hadamard

from rfbench.feature_map import Fastfood

SIGMA = 0.7


def dense(fastfood):
    """W^T (M, p): the blocks S H G Pi H B / (sigma sqrt(p)) stacked, truncated to M rows; S without sigma sqrt(p)."""
    p = fastfood.n_padded_
    H = hadamard(p)
    blocks = []
    for b in range(len(fastfood.signs_)):
        permutation = np.eye(p)[fastfood.permutations_[b]]  # (Pi v)_k = v_perm[k]
        s = fastfood.scales_[b] * fastfood.sigma * np.sqrt(p)
        V = np.diag(s) @ H @ np.diag(fastfood.gaussians_[b]) @ permutation @ H @ np.diag(fastfood.signs_[b])
        blocks.append(V / (fastfood.sigma * np.sqrt(p)))
    return np.vstack(blocks)[: fastfood.n_components]


@pytest.mark.parametrize(("d", "m"), [(5, 3), (5, 20), (12, 16), (16, 40), (1, 3)])
def test_projection_and_features_equal_the_dense_matrix_applied(d, m):
    X = np.random.default_rng(d).normal(size=(30, d))
    fastfood = Fastfood(n_components=m, sigma=SIGMA, dtype="float64", random_state=1).fit(X)
    p = fastfood.n_padded_
    projection = np.hstack([X, np.zeros((30, p - d))]) @ dense(fastfood).T
    np.testing.assert_allclose(fastfood.project(X), projection, rtol=0, atol=1e-11)
    expected = np.hstack([np.cos(projection), np.sin(projection)]) / np.sqrt(m)
    np.testing.assert_allclose(fastfood.transform(X), expected, rtol=0, atol=1e-12)
    gram = sum(L @ R.T for L, R in fastfood.gram_blocks(X, block_size=3))
    np.testing.assert_allclose(gram, expected @ expected.T, rtol=0, atol=1e-12)


def test_row_norms_have_the_chi_p_law():
    """Row k of a block has norm s_k / sigma exactly, s_k ~ chi(p): checked on the dense rows."""
    p = 16
    fastfood = Fastfood(n_components=p * 60, sigma=SIGMA, random_state=5).fit(np.zeros((1, p)))
    V = dense(fastfood)
    norms = np.linalg.norm(V, axis=1) * SIGMA
    np.testing.assert_allclose(norms, fastfood.scales_.ravel() * SIGMA * np.sqrt(p)
                               * np.linalg.norm(fastfood.gaussians_, axis=1).repeat(p), rtol=1e-10)
    assert stats.kstest(norms, stats.chi(p).cdf).pvalue > 0.01
    assert stats.kstest(norms * 1.1, stats.chi(p).cdf).pvalue < 0.01  # a 10% scale error is detected


def test_the_diagonals_have_their_laws():
    fastfood = Fastfood(n_components=4096, random_state=6).fit(np.zeros((1, 64)))
    assert np.all(np.isin(fastfood.signs_, (-1.0, 1.0))) and abs(fastfood.signs_.mean()) < 0.05
    assert all(np.array_equal(np.sort(row), np.arange(64)) for row in fastfood.permutations_)
    assert stats.kstest(fastfood.gaussians_.ravel(), "norm").pvalue > 0.01
