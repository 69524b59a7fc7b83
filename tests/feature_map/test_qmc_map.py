"""QMCFourierFeatures: inverse-CDF frequencies, unbiasedness, prefixes, kernel wiring, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import ndtri

from rfbench.feature_map.qmc import QMCFourierFeatures
from rfbench.feature_map.rff import GaussianRFF
from rfbench.kernel.gaussian import GaussianKernel
from rfbench.metrics import approximate_gram, relative_gram_errors_by_prefix
from rfbench.qmc.sequences import SEQUENCES, unit_points

SIGMA = 1.3
RANDOMIZED = ["mc", "sobol", "lattice", "digital_net"]


def gaussian(X, Y, sigma=SIGMA):
    return np.exp(-cdist(X, Y, "sqeuclidean") / (2 * sigma**2))


@pytest.mark.parametrize("scramble", [True, False])
@pytest.mark.parametrize("sequence", SEQUENCES)
def test_frequencies_are_the_inverse_normal_cdf_of_the_points(sequence, scramble):
    qmc = QMCFourierFeatures(n_components=12, sigma=SIGMA, sequence=sequence, scramble=scramble, random_state=4)
    qmc.fit(np.zeros((1, 3)))
    points = unit_points(sequence, 12, 3, scramble=scramble, seed=4)
    np.testing.assert_allclose(qmc.random_weights_, ndtri(points).T / SIGMA)


@pytest.mark.parametrize("sequence", ["halton", "sobol", "lattice", "digital_net"])
def test_frequency_moments_are_those_of_n_0_sigma_minus_2(sequence):
    """4096 QMC frequencies: mean 0, variance sigma^-2, fourth moment 3 sigma^-4 per coordinate,
    to 0.02 relative (the MC standard errors would be 0.016, 0.022 and 0.05)."""
    qmc = QMCFourierFeatures(n_components=4096, sigma=SIGMA, sequence=sequence, random_state=0)
    W = qmc.fit(np.zeros((1, 3))).random_weights_ * SIGMA  # standard normal
    np.testing.assert_allclose(W.mean(axis=1), 0, atol=0.02)
    np.testing.assert_allclose(W.var(axis=1), 1, rtol=0.02)
    np.testing.assert_allclose(np.mean(W**4, axis=1), 3, rtol=0.02)


@pytest.mark.parametrize("sequence", RANDOMIZED)
def test_randomized_sequences_are_unbiased_for_the_kernel(sequence):
    """The mean of K~(x, y) over 300 randomizations is k(x - y) within 4 standard errors."""
    X = np.array([[0.3, -0.2, 0.5], [1.0, 0.4, -0.6], [-0.9, 1.5, 0.2], [0.0, 0.0, 0.0]])
    samples = []
    for seed in range(300):
        Z = QMCFourierFeatures(n_components=8, sigma=SIGMA, sequence=sequence, dtype="float64", random_state=seed)
        Z = Z.fit_transform(X)
        samples.append(Z[:-1] @ Z[-1])
    samples = np.array(samples)
    exact = gaussian(X[:-1], X[-1:])[:, 0]
    standard_error = samples.std(axis=0, ddof=1) / np.sqrt(len(samples))
    assert np.all(np.abs(samples.mean(axis=0) - exact) < 4 * standard_error + 1e-12)


def test_deterministic_halton_does_not_depend_on_the_seed():
    X = np.random.default_rng(0).normal(size=(5, 3))
    a, b = (QMCFourierFeatures(n_components=16, sequence="halton", random_state=seed).fit_transform(X)
            for seed in (1, 2))
    np.testing.assert_array_equal(a, b)


def test_features_are_algorithm_1_in_real_form():
    """z(x)^T z(y) = Re <Psi(x), Psi(y)> = (1/s) sum_l cos(w_l^T (x - y)); 2s columns."""
    X = np.random.default_rng(1).normal(size=(6, 3))
    qmc = QMCFourierFeatures(n_components=10, sigma=SIGMA, sequence="sobol", dtype="float64", random_state=0).fit(X)
    Z = qmc.transform(X)
    assert Z.shape == (6, 20)
    psi = np.exp(-1j * X @ qmc.random_weights_) / np.sqrt(10)
    np.testing.assert_allclose(Z @ Z.T, np.real(psi @ psi.conj().T), atol=1e-12)
    np.testing.assert_allclose(approximate_gram(qmc, X), Z @ Z.T, atol=1e-12)


@pytest.mark.parametrize("sequence", SEQUENCES)
def test_gram_errors_by_prefix_equal_separate_fits(sequence):
    """One pass over the prefixes gives the error of the map fitted with n_components = s."""
    X = np.random.default_rng(2).normal(size=(25, 3))
    K = gaussian(X, X)
    sizes = [3, 8, 21]
    qmc = QMCFourierFeatures(n_components=21, sigma=SIGMA, sequence=sequence, random_state=5).fit(X)
    by_prefix = relative_gram_errors_by_prefix(K, qmc, X, sizes, block_size=4)
    for s in sizes:
        alone = QMCFourierFeatures(n_components=s, sigma=SIGMA, sequence=sequence, random_state=5).fit(X)
        expected = np.linalg.norm(approximate_gram(alone, X) - K) / np.linalg.norm(K)
        assert by_prefix[s] == pytest.approx(expected, rel=1e-10)


def test_qmc_approximates_the_gram_matrix_better_than_mc():
    """Mean relative Frobenius error over 10 randomizations, s = 256, d = 4 (Figure 2's claim),
    for data spread over about a bandwidth (the ratios measured: 0.13 to 0.40)."""
    X = 0.5 * np.random.default_rng(3).normal(size=(60, 4))
    K = gaussian(X, X)

    def error(sequence, seed):
        qmc = QMCFourierFeatures(n_components=256, sigma=SIGMA, sequence=sequence, random_state=seed).fit(X)
        return np.linalg.norm(approximate_gram(qmc, X) - K) / np.linalg.norm(K)

    mc = np.mean([error("mc", seed) for seed in range(10)])
    for sequence in ["halton", "sobol", "lattice", "digital_net"]:
        assert np.mean([error(sequence, seed) for seed in range(10)]) < 0.6 * mc


def test_from_kernel_takes_the_bandwidth():
    qmc = QMCFourierFeatures.from_kernel(GaussianKernel(3, sigma=2.5), n_components=7, sequence="lattice")
    assert (qmc.sigma, qmc.n_components, qmc.sequence) == (2.5, 7, "lattice")
    assert GaussianKernel in QMCFourierFeatures.approximates


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"sequence": "sobel"}, r"sequence='sobel' is not valid; choose one of \('mc', 'halton', 'sobol', 'lattice'"),
        ({"n_components": 0}, "n_components must be a positive integer, got 0"),
        ({"sigma": -1.0}, "sigma must be a positive finite number, got -1.0"),
        ({"scramble": "yes"}, "scramble must be true or false, got 'yes'"),
        ({"dtype": "int8"}, r"dtype='int8' is not supported"),
    ],
)
def test_bad_parameters_raise_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        QMCFourierFeatures(**params).fit(np.zeros((2, 3)))


def test_too_many_dimensions_states_the_limit():
    with pytest.raises(ValueError, match=r"sequence 'lattice' supports at most 9125 dimensions, got d=9126"):
        QMCFourierFeatures(n_components=4, sequence="lattice").fit(np.zeros((1, 9126)))


def test_a_segment_is_the_gaussian_rff_of_the_same_kernel_on_its_frequencies():
    """segment(start, stop) is GaussianRFF ("cos_sin", the same sigma and dtype) with frequencies [start, stop):
    its features are the map's columns of these frequencies times sqrt(M / (stop - start))."""
    X = np.random.default_rng(7).normal(size=(5, 3))
    qmc = QMCFourierFeatures(n_components=8, sigma=SIGMA, sequence="sobol", dtype="float64", random_state=1).fit(X)
    part = qmc.segment(2, 6)
    assert isinstance(part, GaussianRFF)
    assert part.get_params() == {"n_components": 4, "sigma": SIGMA, "variant": "cos_sin", "dtype": "float64",
                                 "random_state": None}
    np.testing.assert_array_equal(part.random_weights_, qmc.random_weights_[:, 2:6])
    Z = qmc.transform(X)
    np.testing.assert_allclose(part.transform(X), np.hstack([Z[:, 2:6], Z[:, 10:14]]) * np.sqrt(2.0), atol=1e-12)


def test_segment_out_of_range_is_refused():
    qmc = QMCFourierFeatures(n_components=4).fit(np.zeros((1, 2)))
    with pytest.raises(ValueError, match=r"segment\(0, 5\) is not valid"):
        qmc.segment(0, 5)


def test_output_size_is_the_width_and_the_numbers_held_while_fitting():
    """Before fitting: the 2M columns, and the M x d frequencies and the M x d points of the cube they
    are computed from, held at once while fitting (the estimate the runner's memory check uses)."""
    d, M = 3, 12
    qmc = QMCFourierFeatures(n_components=M, sequence="sobol", random_state=4)
    size = qmc.output_size(d)
    Z = qmc.fit_transform(np.zeros((2, d)))
    points = unit_points("sobol", M, d, seed=4)
    assert size == (Z.shape[1], qmc.random_weights_.size + points.size)


@pytest.mark.parametrize("block_size", [4, 21])
def test_gram_blocks_of_two_sets_are_blocks_of_their_features(block_size):
    """sum_b L_b R_b^T = z(X) z(Y)^T, each block of at most block_size frequencies (2 columns each)."""
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    qmc = QMCFourierFeatures(n_components=21, sigma=SIGMA, sequence="lattice", dtype="float64", random_state=2).fit(X)
    blocks = list(qmc.gram_blocks(X, Y, block_size=block_size))
    assert len(blocks) == -(-21 // block_size)
    assert all(L.shape == (7, R.shape[1]) and R.shape[0] == 5 and R.shape[1] <= 2 * block_size for L, R in blocks)
    np.testing.assert_allclose(sum(L @ R.T for L, R in blocks), qmc.transform(X) @ qmc.transform(Y).T, atol=1e-12)
