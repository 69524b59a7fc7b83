"""OrthogonalRFF: orthogonal blocks, the chi(d) and Haar laws, unbiasedness and Yu et al.'s variance theorem."""
from __future__ import annotations

import numpy as np
from scipy import stats

from rfbench.feature_map import GaussianRFF, OrthogonalRFF

SIGMA = 1.3


def fitted(d, m, seed=0, **params):
    return OrthogonalRFF(n_components=m, sigma=SIGMA, random_state=seed, **params).fit(np.zeros((1, d)))


def test_columns_within_a_block_are_orthogonal_and_blocks_are_independent():
    d, m = 6, 15  # blocks of 6, 6 and 3 columns
    W = fitted(d, m).random_weights_
    assert W.shape == (d, m)
    gram = W.T @ W
    for block in (slice(0, 6), slice(6, 12), slice(12, 15)):
        inner = gram[block, block]
        np.testing.assert_allclose(inner - np.diag(np.diag(inner)), 0, atol=1e-12)
    assert np.abs(gram[0:6, 6:12]).max() > 0.1  # columns of different blocks are not orthogonal


def test_column_norms_have_the_chi_d_law_and_directions_are_uniform():
    """sigma ||w|| ~ chi(d); for a uniform direction u on the sphere, u_1^2 ~ Beta(1/2, (d-1)/2)."""
    d = 7
    W = fitted(d, 700 * d, seed=3).random_weights_ * SIGMA
    norms = np.linalg.norm(W, axis=0)
    assert stats.kstest(norms, stats.chi(d).cdf).pvalue > 0.01
    # s_1..s_d of one block are independent: over the 700 blocks, the correlation of two columns' norms is 0 within
    # 4 standard errors (1 / sqrt(700) each), not 1 as for a block of one common length
    by_block = norms.reshape(-1, d)
    assert abs(np.corrcoef(by_block[:, 0], by_block[:, 1])[0, 1]) < 4 / np.sqrt(len(by_block))
    first = (W[0] / norms) ** 2
    assert stats.kstest(first, stats.beta(0.5, (d - 1) / 2).cdf).pvalue > 0.01
    # the test can fail: a constant norm sqrt(d) (e.g. rows of a scaled orthogonal matrix) is rejected
    assert stats.kstest(np.full(100, np.sqrt(d)), stats.chi(d).cdf).pvalue < 1e-6


def kernel_samples(cls, d, m, norms, trials):
    """K~(x_i, 0) over ``trials`` fits, for x_i at distances ``norms`` from the origin."""
    direction = np.ones(d) / np.sqrt(d)
    X = np.vstack([norms[:, None] * direction, np.zeros((1, d))])
    samples = np.empty((trials, len(norms)))
    for t in range(trials):
        Z = cls(n_components=m, sigma=SIGMA, dtype="float64", random_state=t).fit_transform(X)
        samples[t] = Z[:-1] @ Z[-1]
    return samples


NORMS = SIGMA * np.array([0.5, 1.0, 2.0])


def test_kernel_estimate_is_unbiased():
    """Every column is marginally N(0, sigma^-2 I): the mean over T fits is k(D) within 4 standard errors."""
    samples = kernel_samples(OrthogonalRFF, 5, 12, NORMS, 2000)
    k = np.exp(-(NORMS**2) / (2 * SIGMA**2))
    standard_error = samples.std(0, ddof=1) / np.sqrt(len(samples))
    assert np.all(np.abs(samples.mean(0) - k) < 4 * standard_error), (samples.mean(0), k, standard_error)


def test_variance_is_below_that_of_rff_at_equal_m():
    """Yu et al. (2016), Theorem 1: with M = d ([cos, sin] features), Var K~_ORF < Var K~_RFF,
    here by simulation at 3 distances."""
    d, trials = 16, 1500
    var_orf, var_rff = (kernel_samples(cls, d, d, NORMS, trials).var(0, ddof=1) for cls in (OrthogonalRFF, GaussianRFF))
    # the sample variance of T draws has relative standard error about sqrt(2 / T) = 3.7% (Gaussian-like)
    margin = 4 * np.sqrt(2 / trials)
    assert np.all(var_orf * (1 + margin) < var_rff * (1 - margin)), (var_orf, var_rff)


def test_prefix_and_segment_are_those_of_gaussian_rff():
    X = np.random.default_rng(0).normal(size=(8, 4))
    orf = fitted(4, 10, seed=1, dtype="float64").fit(X)
    Z = orf.transform(X)
    part = orf.segment(0, 4)
    np.testing.assert_allclose(part.transform(X), Z[:, np.r_[0:4, 10:14]] * np.sqrt(10 / 4), rtol=1e-12)
