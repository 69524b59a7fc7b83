"""The Laplacian kernel against its formula, brute-force Grams and numerical Fourier integrals."""
import tracemalloc

import numpy as np
import pytest
from scipy import integrate, stats

from rfbench.kernel.laplacian import LaplacianKernel


def formula(D: np.ndarray, sigma: float) -> np.ndarray:
    return np.exp(-np.sum(np.abs(D), axis=-1) / sigma)


def test_value_and_gram_match_the_formula_entry_by_entry():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 4)), rng.normal(size=(5, 4))
    kernel = LaplacianKernel(4, sigma=1.7)
    expected = np.array([[formula(x - y, 1.7) for y in Y] for x in X])
    np.testing.assert_allclose(kernel(X, Y), expected, rtol=1e-13)
    np.testing.assert_allclose(kernel(X), kernel(X, X), rtol=0)
    np.testing.assert_allclose(kernel.value(X[:, None, :] - Y[None]), expected, rtol=1e-13)
    assert kernel.k0 == 1.0 and kernel.is_symmetric


def test_the_default_bandwidth_is_1():
    D = np.array([[0.5, -0.25]])
    np.testing.assert_allclose(LaplacianKernel(2).value(D), np.exp(-0.75), rtol=1e-15)
    np.testing.assert_allclose(LaplacianKernel(2)(D, np.zeros((1, 2))), [[np.exp(-0.75)]], rtol=1e-15)


@pytest.mark.parametrize("other", [True, False], ids=["K(X,Y)", "K(X,X)"])
def test_the_gram_takes_the_memory_of_its_output_alone(other):
    """cdist writes the L1 distances into the (n, m) output, scaled and exponentiated in place (the docstring's
    promise); one temporary of that size, e.g. exp without out=, would double the peak."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(600, 4)), rng.normal(size=(500, 4))
    tracemalloc.start()
    try:
        K = LaplacianKernel(4, sigma=1.7)(X, Y if other else None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * K.nbytes, peak / K.nbytes  # measured: 1.0002 output


@pytest.mark.parametrize("sigma", [0.4, 2.5])
@pytest.mark.parametrize("D", [0.0, 0.3, -1.9, 4.0])
def test_fourier_integral_1d_reproduces_the_kernel(sigma, D):
    """k(D) = int cos(w D) mu(w) dw (mu even), with the Cauchy tails integrated by QAWF."""
    kernel = LaplacianKernel(1, sigma=sigma)

    def mu(w: float) -> float:
        return kernel.spectral_density(np.array([[w]]))[0].real

    if D == 0.0:
        value = 2 * integrate.quad(mu, 0, np.inf, epsabs=1e-13)[0]
    else:
        value = 2 * integrate.quad(mu, 0, np.inf, weight="cos", wvar=abs(D))[0]
    assert value == pytest.approx(np.exp(-abs(D) / sigma), rel=1e-7, abs=1e-10)


def test_density_in_2d_is_the_product_of_cauchy_densities_and_the_only_part():
    kernel = LaplacianKernel(2, sigma=0.8)
    W = np.random.default_rng(1).normal(scale=3.0, size=(50, 2))
    expected = stats.cauchy(scale=1 / 0.8).pdf(W).prod(axis=1)
    np.testing.assert_allclose(kernel.spectral_density(W), expected, rtol=1e-13)
    assert kernel.spectral_density(W).dtype == np.complex128  # the complex mu of Kernel.spectral_density
    np.testing.assert_allclose(kernel.part_density("real_pos", W), expected, rtol=1e-13)
    assert kernel.parts == ("real_pos",)
    assert kernel.exact_total_masses() == {"real_pos": 1.0, "real_neg": 0.0, "imag_pos": 0.0}
    with pytest.raises(ValueError, match="'real_neg'.*valid parts: \\['real_pos'\\]"):
        kernel.part_density("real_neg", W)


def test_samples_follow_the_density_and_estimate_the_kernel_in_2d():
    sigma, n = 0.8, 200_000
    kernel = LaplacianKernel(2, sigma=sigma)
    W, rate = kernel.sample("real_pos", n, np.random.default_rng(2))
    assert W.shape == (n, 2) and rate == 1.0
    for k in range(2):
        assert stats.kstest(W[:, k], stats.cauchy(scale=1 / sigma).cdf).pvalue > 1e-3
    D = np.array([0.5, -0.9])
    cosines = np.cos(W @ D)
    # Monte Carlo mean within 5 standard errors of the exact kernel
    assert abs(cosines.mean() - formula(D, sigma)) < 5 * cosines.std() / np.sqrt(n)


@pytest.mark.parametrize("sigma", [0, -1.0, np.inf, "1"])
def test_bad_sigma_is_refused_naming_it(sigma):
    with pytest.raises(ValueError, match=f"sigma={sigma!r}"):
        LaplacianKernel(2, sigma=sigma)


def test_bad_sample_size_and_shapes_are_refused():
    kernel = LaplacianKernel(3)
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        kernel.sample("real_pos", 0, np.random.default_rng(0))
    W, rate = kernel.sample("real_pos", 1, np.random.default_rng(0))  # the smallest valid n
    assert W.shape == (1, 3) and np.isfinite(W).all() and rate == 1.0
    with pytest.raises(ValueError, match="length d=3"):
        kernel(np.ones((2, 2)))
