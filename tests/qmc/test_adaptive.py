"""Adaptive sequences decrease the box discrepancy of their Halton start (Section 5)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import nnls
from scipy.special import ndtri

from rfbench.qmc.adaptive import global_adaptive, greedy_adaptive, halton_frequencies, optimal_weights
from rfbench.qmc.discrepancy import BoxDiscrepancy
from rfbench.qmc.sequences import unit_points

S, D, SIGMA = 16, 2, 1.0
B = np.array([2.0, 3.0])


@pytest.fixture
def start():
    return halton_frequencies(S, D, SIGMA)


def test_halton_start_is_the_scrambled_halton_sequence(start):
    np.testing.assert_array_equal(start, ndtri(unit_points("halton", S, D)) / SIGMA)


@pytest.mark.parametrize("box", [B, B / 4])
def test_global_adaptive_decreases_the_discrepancy_monotonically(start, box):
    discrepancy = BoxDiscrepancy(box, SIGMA)
    history = []
    W = global_adaptive(start, discrepancy, maxiter=15, callback=lambda W: history.append(discrepancy.squared(W)))
    assert W.shape == start.shape
    assert 1 <= len(history) <= 15
    assert np.all(np.diff([discrepancy.squared(start), *history]) <= 1e-15)
    assert discrepancy.squared(W) < 0.5 * discrepancy.squared(start)


@pytest.mark.parametrize("box", [B, B / 4])
def test_each_greedy_step_decreases_the_discrepancy_from_its_start(start, box):
    """D(S_{t-1} + {w_t})^2 <= D(S_{t-1} + {t-th Halton point})^2, and w_t is stationary."""
    discrepancy = BoxDiscrepancy(box, SIGMA)
    W = greedy_adaptive(start, discrepancy, maxiter=30)
    for t in range(S):
        step = discrepancy.extension(W[:t])
        assert step(W[t])[0] <= step(start[t])[0]
    assert np.linalg.norm(step(W[-1])[1]) < 1e-3 * np.prod(box / np.pi)


def test_greedy_adaptive_beats_halton_on_the_full_box(start):
    """As in Table 2 (Greedy_b below Halton). Not on b/4: there the myopic first points
    pile up near 0, which is why the paper's Figure 7(c) finds the small box worse."""
    discrepancy = BoxDiscrepancy(B, SIGMA)
    W = greedy_adaptive(start, discrepancy, maxiter=30)
    for t in (4, 8, 16):
        assert discrepancy.squared(W[:t]) < discrepancy.squared(start[:t])


@pytest.mark.parametrize("box", [B, B / 4])
def test_optimal_weights_solve_the_qp(start, box):
    """Weights are >= 0, lower D^2 than 1/s, and satisfy the KKT conditions of (17)."""
    discrepancy = BoxDiscrepancy(box, SIGMA, normalized=True)
    xi = optimal_weights(start, discrepancy)
    assert np.all(xi >= 0)
    assert discrepancy.squared(start, xi) < discrepancy.squared(start)
    H, v, _ = discrepancy.quadratic_form(start)
    gradient = 2 * (H @ xi - v)
    active = xi > 1e-8
    np.testing.assert_allclose(gradient[active], 0, atol=1e-6)
    assert np.all(gradient[~active] > -1e-6)


@pytest.mark.parametrize("box", [B, B / 4])
def test_optimal_weights_equal_nnls_on_the_cholesky_factor(start, box):
    """(17) by another solver: with H = L L^T, xi^T H xi - 2 v^T xi = ||L^T xi - L^-1 v||^2 - const, a
    non-negative least-squares problem (scipy's NNLS, an active-set method); on b/4, H is ill-conditioned."""
    discrepancy = BoxDiscrepancy(box, SIGMA, normalized=True)
    H, v, _ = discrepancy.quadratic_form(start)
    L = np.linalg.cholesky(H)
    exact, _ = nnls(L.T, np.linalg.solve(L, v))
    xi = optimal_weights(start, discrepancy)
    np.testing.assert_allclose(discrepancy.squared(start, xi), discrepancy.squared(start, exact), rtol=1e-6)


def test_optimal_weights_ignore_the_scale_of_the_discrepancy(start):
    """D^2 and its normalized form have the same minimizer: the weights do not depend on it."""
    raw = optimal_weights(start, BoxDiscrepancy(B, SIGMA))
    np.testing.assert_allclose(raw, optimal_weights(start, BoxDiscrepancy(B, SIGMA, normalized=True)))
