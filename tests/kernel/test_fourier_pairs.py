"""Spectral densities vs numerical Fourier integration k(D) = int exp(i w^T D) mu(w) dw."""
import numpy as np
import pytest
from scipy import integrate, stats

from rfbench.kernel.modulated import gaussian_density
from tests.kernel.kernel_reference import CASES, grid_2d, kernel_case, paper_formula

SPECTRAL = ["gaussian", "shift_gaussian", "sinh_gaussian", "cosh_gaussian"]


@pytest.mark.parametrize("name", SPECTRAL)
def test_fourier_integral_1d_reproduces_paper_kernel(name):
    kernel = kernel_case(name, 1)
    L = 14.0 / kernel.sigma

    def integrand(w: float, D: float) -> complex:
        return np.exp(1j * w * D) * kernel.spectral_density(np.array([[w]]))[0]

    for D in [-1.7, 0.0, 0.6, 2.3]:
        re = integrate.quad(lambda w, D=D: integrand(w, D).real, -L, L, limit=500)[0]
        im = integrate.quad(lambda w, D=D: integrand(w, D).imag, -L, L, limit=500)[0]
        expected = paper_formula(name, CASES[name][0], np.array([D]))
        assert re == pytest.approx(expected, rel=1e-8, abs=1e-10)
        assert abs(im) < 1e-9 * max(1.0, abs(expected))


@pytest.mark.parametrize("name", SPECTRAL)
def test_fourier_integral_2d_reproduces_paper_kernel(name):
    kernel = kernel_case(name, 2)
    W, area = grid_2d(kernel, h=0.02)  # integrand is smooth: grid sums are spectrally accurate
    mu = kernel.spectral_density(W)
    for D in ([0.0, 0.0], [0.7, -1.1], [-0.4, 1.9]):
        D = np.array(D)
        value = np.sum(np.exp(1j * W @ D) * mu) * area
        expected = paper_formula(name, CASES[name][1], D)
        assert value.real == pytest.approx(expected, rel=1e-9)
        assert abs(value.imag) < 1e-9 * max(1.0, abs(expected))


@pytest.mark.parametrize("name", SPECTRAL)
@pytest.mark.parametrize("d", [1, 2])
def test_parts_are_the_jordan_decomposition(name, d):
    """mu_R = R+ - R-, mu_I(w) = I+(w) - I+(-w) (eq. 3); omitted parts vanish identically."""
    kernel = kernel_case(name, d)
    W = np.random.default_rng(0).normal(scale=3.0 / kernel.sigma, size=(20000, d))
    mu = kernel.spectral_density(W)
    part = {p: kernel.part_density(p, W) if p in kernel.parts else 0.0 for p in ("real_pos", "real_neg", "imag_pos")}
    minus = kernel.part_density("imag_pos", -W) if "imag_pos" in kernel.parts else 0.0
    scale = np.max(np.abs(mu))
    np.testing.assert_allclose(part["real_pos"] - part["real_neg"], mu.real, atol=1e-14 * scale)
    np.testing.assert_allclose(part["imag_pos"] - minus, mu.imag, atol=1e-14 * scale)
    for p in kernel.parts:
        assert np.all(kernel.part_density(p, W) >= 0) and np.any(kernel.part_density(p, W) > 0)


def test_omitted_parts_match_theory():
    assert kernel_case("gaussian", 2).parts == ("real_pos",)
    assert kernel_case("sinh_gaussian", 2).parts == ("real_pos", "imag_pos")
    assert kernel_case("shift_gaussian", 2).parts == ("real_pos", "real_neg", "imag_pos")
    assert kernel_case("cosh_gaussian", 2).parts == ("real_pos", "real_neg", "imag_pos")


@pytest.mark.parametrize("shape", [(4,), (2, 3, 4)])
def test_gaussian_density_takes_d_from_the_last_axis(shape):
    """g(omega), documented for omega of shape (..., d): the product of d N(0, sigma^-2) pdfs over the last axis."""
    sigma = 1.7
    omega = np.random.default_rng(8).normal(size=shape)
    expected = np.prod(stats.norm.pdf(omega, scale=1 / sigma), axis=-1)
    np.testing.assert_allclose(gaussian_density(omega, sigma), expected, rtol=1e-13)
