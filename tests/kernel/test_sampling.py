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
    # p = 1 (sinh's real_pos) is a quadrature's sum and may exceed 1 by a rounding: no negative variance
    assert rate == pytest.approx(p, abs=5 * np.sqrt(max(p * (1 - p), 0.0) * p / N) + 1e-12)


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


@pytest.mark.parametrize("name,params", [
    ("shift_gaussian", {"r": 0.5}),  # real_neg lives > 6 std out
    # the paper scheme's rate is the mass over the envelope A = 1.17: 8.2e-4, below the threshold,
    # while the mass times A would be 1.1e-3, above it
    ("cosh_gaussian", {"beta": 0.28}),
])
def test_tiny_rate_part_switches_to_exact_stratified_sampler(name, params):
    kernel = make_kernel(name, 1, sigma=2.0, **params)
    rate_of_paper_scheme = kernel.exact_total_masses()["real_neg"] / kernel.envelopes["real_neg"]
    assert rate_of_paper_scheme < kernel.MIN_REJECTION_RATE
    W, rate = kernel.sample("real_neg", 50_000, np.random.default_rng(3))
    assert rate > kernel.MIN_REJECTION_RATE  # the 1-D step's rate, not the paper scheme's
    # support of max(-cos(u w), 0) near the origin: |u w| >= pi / 2
    assert np.all(np.abs(W * kernel.u[0]) >= np.pi / 2 - 1e-12)
    stats_fns = [lambda w: np.abs(w), lambda w: w * w, lambda w: np.cos(1.3 * w)]
    expected = quad_expectations_1d(kernel, "real_neg", stats_fns)
    values = np.column_stack([np.abs(W[:, 0]), W[:, 0] ** 2, np.cos(1.3 * W[:, 0])])
    assert_within_5_se(values, expected, ref_tol=1e-8)


def test_part_beyond_8_std_is_sampled_on_both_sides():
    """real_neg of shift_gaussian with ||r|| / sigma = 0.18 lives beyond z = pi / (2 * 0.18) = 8.7 std of u^T w
    (the paper's default at d = 57 beyond 11.9). Its density g(w) max(-cos(r w), 0) is even, so half the draws
    are positive. A piece's normal probability there is 1e-18, below the rounding of ndtr(hi) - ndtr(lo) (both
    round to 1): only the upper-tail form ndtr(-lo) - ndtr(-hi) keeps the positive side."""
    kernel = make_kernel("shift_gaussian", 1, sigma=2.0, r=0.36)
    n = 500
    W, _ = kernel.sample("real_neg", n, np.random.default_rng(5))
    assert np.all(np.abs(W * kernel.u[0]) >= np.pi / 2 - 1e-12)
    assert np.mean(W > 0) == pytest.approx(0.5, abs=5 * np.sqrt(0.25 / n))  # binomial(n, 1/2) within 5 sd


def test_stratified_draws_come_from_the_generator_given():
    # the same seed gives the same frequencies (real_neg of this kernel takes the stratified sampler), so
    # no draw comes from numpy's global random state
    kernel = make_kernel("shift_gaussian", 1, sigma=2.0, r=0.5)
    assert kernel.exact_total_masses()["real_neg"] / kernel.envelopes["real_neg"] < kernel.MIN_REJECTION_RATE
    first, second = (kernel.sample("real_neg", 50, np.random.default_rng(9))[0] for _ in range(2))
    np.testing.assert_array_equal(first, second)


def test_a_part_of_numerically_zero_mass_is_refused_by_name():
    # ||r|| / sigma = 0.025: real_neg starts at z = 63 std, where the normal density underflows to 0
    kernel = make_kernel("shift_gaussian", 1, sigma=2.0, r=0.05)
    assert kernel.exact_total_masses()["real_neg"] == 0.0
    with pytest.raises(ValueError, match=r"part 'real_neg' of kernel 'shift_gaussian' has numerically zero mass"):
        kernel.sample("real_neg", 10, np.random.default_rng(0))


@pytest.mark.parametrize("d,sigma,beta", [(1, 1.5, 0.3), (2, 1.0, 0.2), (3, 2.0, 0.1)])
def test_sinh_real_part_is_the_gaussian_sampled_without_rejection(d, sigma, beta):
    """mu_R = g for sinh (eq. 10): envelope 1, rate 1, draws N(0, sigma^-2 I).

    Its mass is 1 up to the quadrature's rounding, which for these parameters gives 1 + 2e-16: the expected
    rate handed to the sampler must still be at most 1.
    """
    kernel = make_kernel("sinh_gaussian", d, sigma=sigma, beta=beta)
    W, rate = kernel.sample("real_pos", 20_000, np.random.default_rng(d))
    assert rate == 1.0  # accept probability g / (1 g) = 1: every proposal kept
    z = (W * sigma).ravel()  # N(0, 1) entries; var of the sample variance is 2 / n
    assert z.mean() == pytest.approx(0.0, abs=5 / np.sqrt(z.size))
    assert z.var() == pytest.approx(1.0, abs=5 * np.sqrt(2 / z.size))


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


class _Stream:
    """Deterministic proposals: the i-th proposal overall is [accepted[i]], kept with probability accepted[i] in {0, 1}.

    It records the size of every batch asked for, so the batching documented by ``rejection_sample`` is checked
    without any randomness (U < 1 always, U < 0 never).
    """

    def __init__(self, accepted):
        self.accepted, self.pos, self.sizes = np.asarray(accepted, dtype=float), 0, []

    def propose(self, rng, size):
        self.sizes.append(size)
        W = self.accepted[self.pos:self.pos + size, None]
        self.pos += size
        return W


def test_rejection_batches_follow_the_rate_so_far_and_the_rate_counts_every_proposal():
    # Batch sizes ceil(1.1 * remaining / rate): first with expected_rate, then with the empirical rate,
    # divided by 10 while nothing has been kept. Stream: 5 + 41 rejected and 1 kept, then everything kept.
    stream = _Stream([0] * 46 + [1] + [1] * 200)
    W, rate = rejection_sample(stream.propose, lambda W: W[:, 0], n=3, rng=np.random.default_rng(0),
                               expected_rate=0.8)
    # 1.1 * 3 / 0.8 = 4.125; nothing kept: 1.1 * 3 / 0.08 = 41.25; 1 of 47 kept: 1.1 * 2 * 47 = 103.4
    assert stream.sizes == [5, 42, 104]
    assert rate == 105 / 151  # accepted / proposed over all batches, not just the n returned
    np.testing.assert_array_equal(W, np.ones((3, 1)))


def test_rejection_batches_are_capped_and_one_sample_is_enough():
    stream = _Stream(np.ones(1000))
    W, rate = rejection_sample(stream.propose, lambda W: W[:, 0], n=100, rng=np.random.default_rng(0),
                               expected_rate=1.0, max_batch=30)
    assert stream.sizes[:3] == [30, 30, 30] and max(stream.sizes) == 30 and sum(stream.sizes) >= 100
    assert W.shape == (100, 1) and rate == 1.0
    W, rate = rejection_sample(_Stream([0, 1, 1]).propose, lambda W: W[:, 0], n=1,
                               rng=np.random.default_rng(0), expected_rate=0.5)
    assert W.shape == (1, 1) and rate == 2 / 3  # ceil(1.1 / 0.5) = 3 proposals, 2 kept


@pytest.mark.parametrize("expected_rate", [0.0, -0.2, 1.5, np.nan])
def test_rejection_refuses_an_expected_rate_outside_0_1(expected_rate):
    with pytest.raises(ValueError, match=r"expected_rate must be in \(0, 1\], got "):
        rejection_sample(_Stream(np.ones(10)).propose, lambda W: W[:, 0], n=2, rng=np.random.default_rng(0),
                         expected_rate=expected_rate)
