"""CauchyRFF: the Cauchy law of its frequencies and an unbiased estimate of the Laplacian kernel."""
from __future__ import annotations

import numpy as np
from scipy import stats

from rfbench.feature_map import CauchyRFF
from rfbench.kernel import LaplacianKernel

SIGMA = 1.7


def test_frequencies_have_the_cauchy_law_of_scale_one_over_sigma():
    W = CauchyRFF(n_components=4000, sigma=SIGMA, random_state=0).fit(np.zeros((1, 3))).random_weights_
    assert stats.kstest(W.ravel(), stats.cauchy(scale=1 / SIGMA).cdf).pvalue > 0.01
    # the test can fail: Gaussian frequencies of the same scale are rejected
    assert stats.kstest(np.random.default_rng(0).normal(size=3000) / SIGMA,
                        stats.cauchy(scale=1 / SIGMA).cdf).pvalue < 1e-6


def test_kernel_estimate_is_unbiased_against_the_exact_l1_laplacian():
    """The mean of K~(x, y) over T fits is exp(-||x - y||_1 / sigma) within 4 standard errors."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4, 3))
    exact = LaplacianKernel(3, sigma=SIGMA)(X, X)[0, 1:]
    samples = np.array([(Z := CauchyRFF(n_components=8, sigma=SIGMA, dtype="float64", random_state=t)
                         .fit_transform(X))[0] @ Z[1:].T for t in range(3000)])
    standard_error = samples.std(0, ddof=1) / np.sqrt(len(samples))
    assert np.all(np.abs(samples.mean(0) - exact) < 4 * standard_error), (samples.mean(0), exact, standard_error)


def test_runs_from_the_kernel_config():
    fmap = CauchyRFF.from_kernel(LaplacianKernel(5, sigma=SIGMA), n_components=6, random_state=0)
    assert fmap.sigma == SIGMA and fmap.fit_transform(np.zeros((2, 5))).shape == (2, 12)
