"""Exact total masses: Corollary 5, closed-form Fourier series, brute-force grids."""
import numpy as np
import pytest

from rfbench.kernel import PARTS, make_kernel
from rfbench.kernel.modulated import MAX_SPREAD, projection_pieces
from tests.kernel.kernel_reference import grid_2d, kernel_case

SPECTRAL = ["gaussian", "shift_gaussian", "sinh_gaussian", "cosh_gaussian"]


def _series(s: float) -> dict[str, float]:
    """E[max(cos t, 0)], E[max(-cos t, 0)], E[max(sin t, 0)] for t ~ N(0, s^2).

    From max(cos, 0) = 1/pi + cos/2 - (2/pi) sum_k (-1)^k cos(2kt) / (4k^2 - 1),
    max(sin, 0) = 1/pi + sin/2 - (2/pi) sum_k cos(2kt) / (4k^2 - 1) and
    E[cos(jt)] = exp(-j^2 s^2 / 2), E[sin(jt)] = 0.
    """
    k = np.arange(1, 200)
    e2k = np.exp(-2.0 * k**2 * s**2) / (4 * k**2 - 1)
    alt = (2 / np.pi) * np.sum((-1.0) ** k * e2k)
    half_cos = 0.5 * np.exp(-0.5 * s**2)
    return {
        "cos+": 1 / np.pi + half_cos - alt,
        "cos-": 1 / np.pi - half_cos - alt,
        "sin+": 1 / np.pi - (2 / np.pi) * np.sum(e2k),
    }


@pytest.mark.parametrize("name", SPECTRAL)
@pytest.mark.parametrize("d", [1, 2, 7])
def test_corollary_5(name, d):
    kernel = make_kernel(name, d)
    m = kernel.exact_total_masses()
    assert set(m) == set(PARTS)
    assert m["real_pos"] - m["real_neg"] == pytest.approx(kernel.k0, rel=1e-9)
    assert all(m[p] > 0 for p in kernel.parts) and all(m[p] == 0 for p in PARTS if p not in kernel.parts)


@pytest.mark.parametrize(("d", "norm"), [(1, 0.8), (3, 1.5), (8, 2.2)])
def test_masses_match_fourier_series_in_any_dimension(d, norm):
    # A random direction; the norm keeps every mass well above the series' cancellation
    # error (~1e-16), which the tail test below takes over.
    rng = np.random.default_rng(d)
    sigma, vec = 1.7, rng.normal(size=d)
    vec *= norm / np.linalg.norm(vec)
    shift = make_kernel("shift_gaussian", d, sigma=sigma, r=vec).exact_total_masses()
    ser = _series(np.linalg.norm(vec) / sigma)
    assert min(ser.values()) > 1e-4
    assert shift["real_pos"] == pytest.approx(ser["cos+"], rel=1e-9, abs=0)
    assert shift["real_neg"] == pytest.approx(ser["cos-"], rel=1e-6, abs=0)
    assert shift["imag_pos"] == pytest.approx(ser["sin+"], rel=1e-9, abs=0)

    ser = _series(sigma * np.linalg.norm(vec))
    amplitude = np.exp(0.5 * sigma**2 * vec @ vec)
    sinh = make_kernel("sinh_gaussian", d, sigma=sigma, beta=vec).exact_total_masses()
    cosh = make_kernel("cosh_gaussian", d, sigma=sigma, beta=vec).exact_total_masses()
    assert sinh["real_pos"] == pytest.approx(1.0, rel=1e-12, abs=0)
    assert sinh["imag_pos"] == pytest.approx(amplitude * ser["sin+"], rel=1e-9, abs=0)
    assert cosh["real_pos"] == pytest.approx(amplitude * ser["cos+"], rel=1e-9, abs=0)
    assert cosh["real_neg"] == pytest.approx(amplitude * ser["cos-"], rel=1e-6, abs=0)
    assert cosh["imag_pos"] == pytest.approx(amplitude * ser["sin+"], rel=1e-9, abs=0)


@pytest.mark.parametrize("s", [0.11, 7.1, 9.3, 11.7])
def test_masses_reach_the_quadratures_tolerance_at_the_ends_of_the_spread_range(s):
    """Each piece is integrated to a relative 1e-10, so the masses are too, for spreads near 0 and near MAX_SPREAD.

    For a large s the pieces are many and narrow (a kink every pi / (2 s) in z); for a small s they are few and wide.
    Only parts well above the series' cancellation error (~1e-16) are compared.
    """
    assert s < MAX_SPREAD
    masses = make_kernel("shift_gaussian", 1, sigma=1.0, r=s).exact_total_masses()
    ser = _series(s)
    for part, key in [("real_pos", "cos+"), ("real_neg", "cos-"), ("imag_pos", "sin+")]:
        if ser[key] > 1e-4:
            assert masses[part] == pytest.approx(ser[key], rel=1e-10, abs=0), part


@pytest.mark.parametrize("name", SPECTRAL)
def test_masses_match_2d_grid_integration(name):
    kernel = kernel_case(name, 2)
    W, area = grid_2d(kernel, h=0.01)
    exact = kernel.exact_total_masses()
    mu = kernel.spectral_density(W)
    for p in kernel.parts:  # kinks along lines: O(h^2) accuracy
        assert np.sum(kernel.part_density(p, W)) * area == pytest.approx(exact[p], rel=2e-4)
    # |mu_I^-| from the raw density, never sampled nor computed by the package
    assert np.sum(np.maximum(-mu.imag, 0)) * area == pytest.approx(exact["imag_pos"], rel=2e-4, abs=1e-12)


def test_tiny_mass_in_far_tail_is_resolved():
    """real_neg of shift_gaussian at d = 57 lives > 12 std out; compare with a direct tail quad.

    t = r.w ~ N(0, s^2) and cos t < 0 first on (pi/2, 3pi/2) and its mirror image; the next
    intervals, > 35 std out, add nothing at double precision.
    """
    from scipy import integrate

    kernel = make_kernel("shift_gaussian", 57)
    s = np.linalg.norm(kernel.r) / kernel.sigma
    one_tail = integrate.quad(
        lambda t: max(-np.cos(t), 0.0) * np.exp(-0.5 * (t / s) ** 2) / (s * np.sqrt(2 * np.pi)),
        np.pi / 2, 3 * np.pi / 2, epsabs=0, epsrel=1e-12,
    )[0]
    assert 0 < one_tail < 1e-30
    assert kernel.exact_total_masses()["real_neg"] == pytest.approx(2 * one_tail, rel=1e-8, abs=0)


@pytest.mark.parametrize("s", [0.13, 0.5, 3.0, 11.7])
def test_every_kink_of_the_profiles_is_a_piece_edge(s):
    """projection_pieces' contract: max(+-cos, 0) and max(+-sin, 0) are smooth inside each piece, i.e. every zero
    of cos(s z) and sin(s z), z in (pi / 2) Z / s, within the pieces' range is an edge. The stratified sampler
    relies on it: a piece with mass then lies inside the part's support, so its 1-D acceptance rate is not the mass
    over the normal probability of a region where h = 0 (real_neg of the paper's shift_gaussian at d = 57,
    s = 0.13, has mass 1e-34: such a rate would never end)."""
    z_edges, masses = projection_pieces(lambda t: max(-np.cos(t), 0.0), s)
    assert z_edges[0] <= -12 and z_edges[-1] >= 12 and len(masses) == len(z_edges) - 1
    kinks = 0.5 * np.pi * np.arange(-200, 201) / s
    kinks = kinks[(kinks > z_edges[0]) & (kinks < z_edges[-1])]
    distance_to_an_edge = np.min(np.abs(kinks[:, None] - z_edges[None, :]), axis=1)
    assert len(kinks) >= 3 and np.all(distance_to_an_edge <= 1e-12 * np.maximum(1.0, np.abs(kinks)))
