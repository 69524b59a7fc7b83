"""Box discrepancy against independent computations: Theorem 12 by Monte Carlo over u,
eq. (13) by averaging over random draws, eq. (14) by finite differences, eq. (12)'s terms
by quadrature."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy import integrate
from scipy.special import erf

from rfbench.qmc import discrepancy as module
from rfbench.qmc.discrepancy import BoxDiscrepancy, bounding_box

SIGMA = np.array([1.0, 0.7])
B = np.array([1.5, 2.0])


def squared_errors(W, weights, n_u, rng):
    """|E_p[e^{-iu.w}] - sum_l xi_l e^{-iu.w_l}|^2 at n_u points u uniform in the box []B."""
    U = rng.uniform(-B, B, size=(n_u, len(B)))
    exact = np.exp(-0.5 * np.sum((U / SIGMA) ** 2, axis=1))  # characteristic function of N(0, SIGMA^-2)
    return np.abs(exact - np.exp(-1j * U @ W.T) @ weights) ** 2


def normalized_mean_term(b, sigma):
    """(2 pi)^-d prod_j int_{-b_j}^{b_j} |phi_j|^2 times prod_j pi / b_j, by quadrature."""
    return np.prod(
        [integrate.quad(lambda x, s=s: np.exp(-(x**2) / s**2), -bj, bj)[0] / (2 * bj) for bj, s in zip(b, sigma)]
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_normalized_discrepancy_is_the_mean_squared_integration_error(weighted):
    """Theorem 12: pi^d / prod b * D^2 = E_u[eps^2], u uniform in the box (with weights too)."""
    rng = np.random.default_rng(0)
    W = rng.normal(size=(5, 2)) / SIGMA
    weights = rng.uniform(0.05, 0.4, size=5) if weighted else np.full(5, 0.2)
    errors = squared_errors(W, weights, 400_000, rng)
    value = BoxDiscrepancy(B, SIGMA, normalized=True).squared(W, weights if weighted else None)
    assert abs(value - errors.mean()) < 4 * errors.std() / np.sqrt(errors.size)
    raw = BoxDiscrepancy(B, SIGMA).squared(W, weights if weighted else None)
    np.testing.assert_allclose(raw, value * np.prod(B) / np.pi**2, rtol=1e-12)


def test_printed_first_term_of_eq_11_would_break_theorem_12():
    """The correction of eq. (11): its first term with pi^-d, as printed, is 2^d times too large."""
    rng = np.random.default_rng(1)
    W = rng.normal(size=(4, 2)) / SIGMA
    errors = squared_errors(W, np.full(4, 0.25), 200_000, rng)
    value = BoxDiscrepancy(B, SIGMA, normalized=True).squared(W)
    printed = value + (2**2 - 1) * normalized_mean_term(B, SIGMA)
    se = errors.std() / np.sqrt(errors.size)
    assert abs(value - errors.mean()) < 4 * se
    assert abs(printed - errors.mean()) > 100 * se


@pytest.mark.parametrize("w", [0.0, 0.3, -4.0, 40.0, -75.0, 1e4])
def test_single_point_matches_quadrature_even_for_huge_frequencies(w):
    """D^2 of {w} = sinc_b(w, w) - 2 (2 pi)^-1 int phi(beta) cos(w beta) + mean term, eq. (11), d = 1.

    For |w| sigma / sqrt 2 > 27 the erf of eq. (12) alone overflows; the result must not.
    """
    b, sigma = 2.0, 0.5
    cosine, _ = integrate.quad(
        lambda beta: np.exp(-(beta**2) / (2 * sigma**2)), -b, b, weight="cos", wvar=abs(w), epsabs=1e-15
    )
    expected = b / np.pi - 2 * cosine / (2 * np.pi) + sigma / (2 * np.sqrt(np.pi)) * erf(b / sigma)
    np.testing.assert_allclose(BoxDiscrepancy(b, sigma).squared([[w]]), expected, rtol=1e-10, atol=1e-15)


def test_mean_term_matches_quadrature():
    """The constant prod_j sigma_j / (2 sqrt pi) erf(b_j / sigma_j) of eq. (12): D^2 of a point far away
    is sinc_b(w, w) + that constant, as the point term vanishes."""
    far = np.array([[1e6, -1e6]])
    value = BoxDiscrepancy(B, SIGMA, normalized=True).squared(far)
    np.testing.assert_allclose(value, 1.0 + normalized_mean_term(B, SIGMA), rtol=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("trig", module.TRIG)
def test_gradient_matches_finite_differences(weighted, trig):
    """Eq. (14) (the gradient of D^2) against central differences, with a repeated point too."""
    rng = np.random.default_rng(2)
    W = rng.normal(size=(6, 3))
    W[5] = W[0]  # sinc'(0): coincident points
    weights = rng.uniform(0.1, 0.3, size=6) if weighted else None
    discrepancy = BoxDiscrepancy([1.5, 2.0, 0.8], [1.0, 0.7, 1.3], trig=trig)
    _, gradient = discrepancy.squared_and_gradient(W, weights)
    h = 1e-6
    numeric = np.empty_like(W)
    for index in np.ndindex(W.shape):
        step = np.zeros_like(W)
        step[index] = h
        numeric[index] = (discrepancy.squared(W + step, weights) - discrepancy.squared(W - step, weights)) / (2 * h)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-9 * np.abs(numeric).max())


def test_symmetric_pair_sum_agrees_with_the_full_double_sum():
    """With W2 = W1 each pair is visited once; the result is that of the ordered double sum."""
    from rfbench.qmc.discrepancy import _pair_sum

    rng = np.random.default_rng(3)
    W, xi = rng.normal(size=(9, 2)), rng.uniform(size=9)
    once = _pair_sum(W, W, xi, xi, B, gradient=True)
    twice = _pair_sum(W, W.copy(), xi, xi, B, gradient=True)
    np.testing.assert_allclose(once[0], twice[0], rtol=1e-13)
    np.testing.assert_allclose(once[1], twice[1], rtol=1e-12, atol=1e-15)


def test_monte_carlo_expectation_eq_13():
    """Corollary 15: the mean of D^2 over 4000 draws of s = 5 frequencies from p."""
    rng = np.random.default_rng(4)
    discrepancy = BoxDiscrepancy(B, SIGMA)
    values = np.array([discrepancy.squared(rng.normal(size=(5, 2)) / SIGMA) for _ in range(4000)])
    assert abs(values.mean() - discrepancy.expected_squared_mc(5)) < 4 * values.std() / np.sqrt(values.size)


def test_quadratic_form_reproduces_the_weighted_discrepancy():
    rng = np.random.default_rng(5)
    W, xi = rng.normal(size=(7, 2)), rng.uniform(0, 0.3, size=7)
    H, v, c = BoxDiscrepancy(B, SIGMA).quadratic_form(W)
    np.testing.assert_allclose(c - 2 * v @ xi + xi @ H @ xi, BoxDiscrepancy(B, SIGMA).squared(W, xi), rtol=1e-12)


@pytest.mark.parametrize("trig", module.TRIG)
def test_extension_is_the_discrepancy_of_the_extended_set_and_its_gradient(trig):
    rng = np.random.default_rng(6)
    W, w = rng.normal(size=(4, 2)), rng.normal(size=2)
    discrepancy = BoxDiscrepancy(B, SIGMA, trig=trig)
    value, gradient = discrepancy.extension(W)(w)
    full_value, full_gradient = discrepancy.squared_and_gradient(np.vstack([W, w]))
    np.testing.assert_allclose(value, full_value, rtol=1e-12)
    np.testing.assert_allclose(gradient, full_gradient[-1], rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(discrepancy.extension(W[:0])(w)[0], discrepancy.squared([w]), rtol=1e-12)


def test_the_tables_path_agrees_with_the_direct_sines():
    """trig="tables" against "direct": coincident points, differences on both sides of the Taylor series'
    threshold and far below it, and points far out (|b_j w_lj| up to about 60, as sigma = 0.1)."""
    rng = np.random.default_rng(8)
    b = np.array([1.0, 2.5, 0.7, 3.0])
    W = rng.normal(scale=8.0, size=(40, 4))
    W[1] = W[0]
    W[3, 0] = W[2, 0] + 0.999 * module.TAYLOR_TABLES
    W[5, 0] = W[4, 0] + 1.001 * module.TAYLOR_TABLES
    W[7, 1] = W[6, 1] + 1e-9 / b[1]
    weights = rng.uniform(0.0, 0.05, size=40)
    for normalized in (True, False):
        direct = BoxDiscrepancy(b, 0.5, normalized=normalized).squared_and_gradient(W, weights)
        tables = BoxDiscrepancy(b, 0.5, normalized=normalized, trig="tables").squared_and_gradient(W, weights)
        np.testing.assert_allclose(tables[0], direct[0], rtol=1e-12)
        np.testing.assert_allclose(tables[1], direct[1], rtol=0, atol=1e-13 * np.abs(direct[1]).max())


def test_the_taylor_series_of_sinc_and_its_slope_to_the_last_bits():
    """Below the threshold, against 60-digit values (mpmath): within 2 units in the last place, so the
    series' truncation (below 1e-17) is lost in float64's own rounding."""
    for z in np.r_[-module.TAYLOR_TABLES, np.geomspace(1e-12, module.TAYLOR_TABLES, 25), 0.0]:
        series, slope = module._sinc_taylor(z)
        with mpmath.workdps(60):  # cos z - sin(z) / z cancels some 25 digits at z = 1e-12
            exact = mpmath.sin(z) / z if z else mpmath.mpf(1)
            exact_slope = (mpmath.cos(z) - exact) / z if z else mpmath.mpf(0)
        assert abs(series - exact) <= 2 * np.spacing(series), z
        assert abs(slope - exact_slope) <= 2 * np.spacing(abs(slope)), z


def test_an_unknown_trig_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"trig='table' is not one of \['direct', 'tables'\]"):
        BoxDiscrepancy(B, SIGMA, trig="table")


def test_high_dimension_stays_finite():
    """d = 250: the normalized factors are <= 1, the scale prod b / pi is taken through logs."""
    W = np.random.default_rng(7).normal(size=(20, 250))
    value, gradient = BoxDiscrepancy(4.0, 1.0).squared_and_gradient(W)
    assert np.isfinite(value) and value > 0 and np.all(np.isfinite(gradient))


def test_bounding_box_contains_every_difference():
    X = np.random.default_rng(8).normal(size=(30, 3))
    b = bounding_box(X)
    differences = X[:, None, :] - X[None, :, :]
    np.testing.assert_allclose(np.abs(differences).max(axis=(0, 1)), b)


@pytest.mark.parametrize(
    ("b", "message"),
    [
        (0.0, r"b = 0.0 is invalid: box half-widths must be finite and > 0"),
        ([1.0, -2.0], r"b\[1\] = -2.0 is invalid: box half-widths must be finite and > 0 \(a constant feature"),
        ([1.0, np.inf], r"b\[1\] = inf is invalid"),
        ("wide", r"b must be a positive number or a vector of them \(box half-widths\), got 'wide'"),
    ],
)
def test_box_of_width_zero_or_less_is_refused(b, message):
    with pytest.raises(ValueError, match=message):
        BoxDiscrepancy(b, 1.0)


def test_mismatched_dimensions_are_refused():
    with pytest.raises(ValueError, match=r"b has 3 and sigma 1 entries, but the points have d=2 coordinates"):
        BoxDiscrepancy([1.0, 2.0, 3.0], 1.0).squared(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="weights must be 4 finite numbers"):
        BoxDiscrepancy(1.0, 1.0).squared(np.zeros((4, 2)), weights=np.ones(3))
