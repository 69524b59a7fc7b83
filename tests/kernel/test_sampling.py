"""Frequency samplers vs brute-force integration of the normalized part densities."""
import zlib
from functools import cache

import numpy as np
import pytest
from scipy import integrate, stats

from rfbench.kernel import make_kernel
from rfbench.kernel.sampling import rejection_sample
from tests.kernel.kernel_reference import CASES, grid_2d, kernel_case, quad_expectations_1d

N = 200_000
D_PROBES = {1: np.array([[0.4], [1.5], [-2.6]]), 2: np.array([[0.4, -0.3], [1.5, 0.8], [-2.0, 1.1]])}
PART_CASES = [
    (name, part)
    for name in CASES
    for part in kernel_case(name, 1).parts
]


@cache
def draws(name: str, d: int, part: str, path: str) -> tuple[np.ndarray, float]:
    kernel = kernel_case(name, d)
    rng = np.random.default_rng(zlib.crc32(f"{name}/{d}/{part}/{path}".encode()))
    sampler = kernel.sample if path == "rejection" else kernel._sample_stratified
    return sampler(part, N, rng)


def statistics(W: np.ndarray, d: int) -> np.ndarray:
    """Per-draw values of w_i, w_i w_j (i <= j), cos(w^T D), sin(w^T D): shape (n, n_stats)."""
    iu = np.triu_indices(d)
    proj = W @ D_PROBES[d].T
    return np.hstack([W, (W[:, :, None] * W[:, None, :])[:, iu[0], iu[1]], np.cos(proj), np.sin(proj)])


def reference(kernel, part: str, d: int) -> np.ndarray:
    if d == 1:
        fns = [lambda w: w, lambda w: w * w]
        fns += [lambda w, D=D: np.cos(w * D) for D in D_PROBES[1][:, 0]]
        fns += [lambda w, D=D: np.sin(w * D) for D in D_PROBES[1][:, 0]]
        return quad_expectations_1d(kernel, part, fns)
    W, _ = grid_2d(kernel, half_width_std=8.0, h=0.025)  # error < 1e-5, checked against h = 0.005
    f = kernel.part_density(part, W)
    return statistics(W, 2).T @ f / f.sum()


def assert_within_5_se(sample_stats: np.ndarray, expected: np.ndarray, ref_tol: float) -> None:
    mean = sample_stats.mean(axis=0)
    se = sample_stats.std(axis=0) / np.sqrt(len(sample_stats))
    assert np.all(np.abs(mean - expected) <= 5 * se + ref_tol), (mean, expected, se)


@pytest.mark.parametrize("path", ["rejection", "stratified"])
@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("name,part", PART_CASES)
def test_moments_match_integrated_density(name, part, d, path):
    if path == "stratified" and name == "gaussian":
        pytest.skip("the Gaussian part has rate 1 and no projection direction")
    kernel = kernel_case(name, d)
    W, _ = draws(name, d, part, path)
    assert W.shape == (N, d) and W.dtype == np.float64
    assert_within_5_se(statistics(W, d), reference(kernel, part, d), ref_tol=1e-10 if d == 1 else 1e-4)


def _cdf_1d(kernel, part):
    grid = np.linspace(-14 / kernel.sigma, 14 / kernel.sigma, 400_001)
    cum = integrate.cumulative_trapezoid(kernel.part_density(part, grid[:, None]), grid, initial=0)
    return lambda x: np.interp(x, grid, cum / cum[-1])


@pytest.mark.parametrize("path", ["rejection", "stratified"])
@pytest.mark.parametrize("name,part", PART_CASES)
def test_ks_against_integrated_cdf_1d(name, part, path):
    if path == "stratified" and name == "gaussian":
        pytest.skip("the Gaussian part has rate 1 and no projection direction")
    kernel = kernel_case(name, 1)
    W, _ = draws(name, 1, part, path)
    assert stats.kstest(W[:, 0], _cdf_1d(kernel, part)).pvalue > 1e-3


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("name,part", PART_CASES)
def test_acceptance_rate_is_mass_over_envelope(name, part, d):
    params = CASES[name][d - 1]
    sigma, beta = params.get("sigma", 2.0), np.broadcast_to(params.get("beta", 0.5 * np.pi / d), (d,))
    amplitude = np.exp(0.5 * sigma**2 * beta @ beta)  # sup |m| of eqs. (10)-(11)
    c = amplitude if name == "cosh_gaussian" or (name, part) == ("sinh_gaussian", "imag_pos") else 1.0
    p = kernel_case(name, d).exact_total_masses()[part] / c
    _, rate = draws(name, d, part, "rejection")
    assert rate == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) * p / N) + 1e-12)


@pytest.mark.parametrize("name", ["shift_gaussian", "sinh_gaussian", "cosh_gaussian"])
def test_eq7_identity_reproduces_kernel(name):
    """k(D) = |R+| E cos - |R-| E cos - 2 |I+| E sin with exact masses and sampled frequencies."""
    kernel = kernel_case(name, 2)
    masses = kernel.exact_total_masses()
    sign = {"real_pos": 1.0, "real_neg": -1.0, "imag_pos": -2.0}
    D = np.random.default_rng(7).normal(size=(5, 2))
    estimate, var = np.zeros(5), np.zeros(5)
    for part in kernel.parts:
        proj = draws(name, 2, part, "rejection")[0] @ D.T
        trig = np.sin(proj) if part == "imag_pos" else np.cos(proj)
        coef = sign[part] * masses[part]
        estimate += coef * trig.mean(axis=0)
        var += coef**2 * trig.var(axis=0) / N
    np.testing.assert_array_less(np.abs(estimate - kernel.value(D)), 5 * np.sqrt(var))


def test_tiny_rate_part_switches_to_exact_stratified_sampler():
    kernel = make_kernel("shift_gaussian", 1, sigma=2.0, r=0.5)  # real_neg lives > 6 std out
    mass = kernel.exact_total_masses()["real_neg"]
    assert mass < kernel.MIN_REJECTION_RATE
    W, rate = kernel.sample("real_neg", 50_000, np.random.default_rng(3))
    assert rate > kernel.MIN_REJECTION_RATE  # the 1-D step's rate, not the paper scheme's
    assert np.all(np.abs(W) >= np.pi - 1e-12)  # support of max(-cos(0.5 w), 0) near the origin
    stats_fns = [lambda w: np.abs(w), lambda w: w * w, lambda w: np.cos(1.3 * w)]
    expected = quad_expectations_1d(kernel, "real_neg", stats_fns)
    values = np.column_stack([np.abs(W[:, 0]), W[:, 0] ** 2, np.cos(1.3 * W[:, 0])])
    assert_within_5_se(values, expected, ref_tol=1e-8)


@pytest.mark.parametrize("n", [0, -3, 2.5, True])
def test_bad_sample_size_rejected(n):
    with pytest.raises(ValueError, match="n must be a positive integer"):
        kernel_case("shift_gaussian", 1).sample("real_pos", n, np.random.default_rng(0))


@pytest.mark.parametrize("part", ["real_neg", "imaginary"])
def test_unknown_or_zero_part_rejected_with_valid_list(part):
    with pytest.raises(ValueError, match=r"valid parts: \['real_pos', 'imag_pos'\]"):
        kernel_case("sinh_gaussian", 1).sample(part, 10, np.random.default_rng(0))


def test_rejection_sample_on_known_target():
    """Half-normal by rejection from N(0, 1) with accept prob 1{w > 0}: rate 1/2, E w = sqrt(2/pi)."""
    W, rate = rejection_sample(
        lambda rng, size: rng.standard_normal((size, 1)), lambda W: (W[:, 0] > 0).astype(float),
        n=100_000, rng=np.random.default_rng(11), expected_rate=0.9,  # poor guess on purpose
    )
    assert W.shape == (100_000, 1) and np.all(W > 0)
    assert W.mean() == pytest.approx(np.sqrt(2 / np.pi), abs=5 * np.sqrt(1 - 2 / np.pi) / np.sqrt(1e5))
    assert rate == pytest.approx(0.5, abs=0.005)
