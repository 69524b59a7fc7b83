"""Theorems 2.1, 2.2 and 3.1 of Li (2017): closed forms, and k x MSE by simulation on a grid of (rho, gamma).

Tolerance: |k MSE - V| <= 4 standard errors of k MSE (sampling error of the
mean squared error over the repetitions) + 20 V / k for the O(1/k) terms of
the asymptotic results (none for RFF, whose variance V / k is exact).  On this
grid, with 20,000 repetitions, the deviations measured at k = 50 and 200 were
at most about 12 V / k, noise included.
"""
import itertools

import numpy as np
import pytest

from rfbench.feature_map.gcws import GCWS
from rfbench.papers.li.simulation import scaled_mse, simulate_gcws, simulate_rff
from rfbench.papers.li.variance import (
    gcws_indicator_variance,
    gcws_rbf_estimate,
    gcws_variance,
    gmm_of_rho,
    nrff_variance,
    rbf_value,
    rff_variance,
    rho_of_gmm,
)

GRID = list(itertools.product([0.2, 0.5, 0.8, 0.95], [0.5, 3.0]))
ASYMPTOTIC_ALLOWANCE = 20.0  # times V / k


def within(measured: float, standard_error: float, theory: float, k: int, asymptotic: bool) -> bool:
    allowance = ASYMPTOTIC_ALLOWANCE * theory / k if asymptotic else 0.0
    return abs(measured - theory) <= 4 * standard_error + allowance


def test_closed_forms():
    K = rbf_value(0.3, 2.0)
    assert K == pytest.approx(np.exp(-1.4))
    assert rff_variance(0.3, 2.0) == pytest.approx(1 - K**2 + K**4 / 2)
    assert nrff_variance(0.3, 2.0) == pytest.approx(1 - 7 * K**2 / 4 + K**4 / 2 + K**6 / 4)
    rho = np.linspace(-1, 1, 41)
    assert np.all(nrff_variance(rho[:-1], 1.5) < rff_variance(rho[:-1], 1.5))
    assert nrff_variance(1.0, 1.5) == gcws_variance(1.0, 1.5) == 0.0
    np.testing.assert_allclose(rho_of_gmm(gmm_of_rho(rho)), rho, atol=1e-14)
    assert gmm_of_rho(1.0) == 1.0 and gmm_of_rho(-1.0) == 0.0
    # eq. (17): the GCWS estimator at its limit g is the RBF kernel.
    np.testing.assert_allclose(gcws_rbf_estimate(gmm_of_rho(rho), 3.0), rbf_value(rho, 3.0), rtol=1e-12)


@pytest.mark.parametrize("rho, gamma", GRID)
def test_theorem_2_1_rff_mean_and_variance(rho, gamma):
    k, repetitions = 20, 20_000
    rff, _ = simulate_rff(rho, gamma, k, repetitions, np.random.default_rng(1))
    K = rbf_value(rho, gamma)
    assert abs(rff.mean() - K) <= 4 * rff.std() / np.sqrt(repetitions)  # eq. (10)
    measured, se = scaled_mse(rff, K, k)
    assert within(measured, se, rff_variance(rho, gamma), k, asymptotic=False)  # eq. (11)


@pytest.mark.parametrize("rho, gamma", GRID)
def test_theorem_2_2_nrff_variance(rho, gamma):
    k, repetitions = 400, 5_000
    _, nrff = simulate_rff(rho, gamma, k, repetitions, np.random.default_rng(2))
    measured, se = scaled_mse(nrff, rbf_value(rho, gamma), k)
    theory = nrff_variance(rho, gamma)
    assert within(measured, se, theory, k, asymptotic=True)
    if rff_variance(rho, gamma) > 1.2 * theory:  # where they differ, the check rejects the unnormalized V
        assert not within(measured, se, rff_variance(rho, gamma), k, asymptotic=True)


@pytest.mark.parametrize("rho, gamma", GRID)
def test_theorem_3_1_gcws_variance(rho, gamma):
    k, repetitions = 1_000, 100_000
    estimates = simulate_gcws(rho, gamma, k, repetitions, np.random.default_rng(3))
    K = rbf_value(rho, gamma)
    assert abs(estimates.mean() - K) <= 4 * estimates.std() / np.sqrt(repetitions) + 20 * K / k  # eq. (18)
    measured, se = scaled_mse(estimates, K, k)
    assert within(measured, se, gcws_variance(rho, gamma), k, asymptotic=True)  # eqs. (19)-(20)


@pytest.mark.parametrize("rho, gamma", [(0.5, 0.5), (0.8, 3.0)])
def test_theorem_3_1_with_gcws_collisions(rho, gamma):
    # A pair with GMM exactly g(rho): u = [1], v = [g].  Full (i*, t*) collisions of the map are i.i.d.
    # Bernoulli(g) (Theorem 1.1, eq. 7); groups of k of them give the estimator of eq. (18).
    k, repetitions = 200, 1_500
    g = gmm_of_rho(rho)
    pair = np.array([[1.0], [g]])
    i_star, t_star = GCWS(n_components=k * repetitions, random_state=4).fit(pair).samples(pair)
    collide = (i_star[0] == i_star[1]) & (t_star[0] == t_star[1])
    assert abs(collide.var() - gcws_indicator_variance(g)) < 0.01
    estimates = gcws_rbf_estimate(collide.reshape(repetitions, k).mean(axis=1), gamma)
    measured, se = scaled_mse(estimates, rbf_value(rho, gamma), k)
    assert within(measured, se, gcws_variance(rho, gamma), k, asymptotic=True)
