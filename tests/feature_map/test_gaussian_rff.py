"""GaussianRFF against the exact Gaussian kernel and the variance theorems."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.exceptions import NotFittedError

from rfbench.feature_map import GaussianRFF
from rfbench.metrics import approximate_gram

SIGMA = 1.3


def gaussian(X, Y, sigma=SIGMA):
    return np.exp(-cdist(X, Y, "sqeuclidean") / (2 * sigma**2))


def theoretical_variance(k_D, k_2D, variant, M):
    """Var of one entry of K~: Var[cos(w.D)] / M, or Var[2 cos(w.x+b) cos(w.y+b)] / M."""
    if variant == "cos_sin":
        return (1 + k_2D - 2 * k_D**2) / (2 * M)
    frequencies = 2 * M if variant == "cos_offset_2m" else M
    return (1 + k_2D / 2 - k_D**2) / frequencies


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset", "cos_offset_2m"])
def test_entry_mean_and_variance_match_theorem(variant):
    """Over T independent fits, K~(x, 0) has mean k(D) and the theorem's variance."""
    d, M, T = 3, 8, 2000
    direction = np.ones(d) / np.sqrt(d)
    norms = np.array([0.4, 1.1, 2.5])
    # rows x_1..x_3 at differences D = x_i - 0 of three lengths, then the origin
    X = np.vstack([norms[:, None] * direction, np.zeros((1, d))])
    samples = np.empty((T, len(norms)))
    for t in range(T):
        rff = GaussianRFF(n_components=M, sigma=SIGMA, variant=variant, dtype="float64", random_state=t)
        Z = rff.fit_transform(X)
        samples[t] = Z[:-1] @ Z[-1]
    k_D = np.exp(-(norms**2) / (2 * SIGMA**2))
    k_2D = np.exp(-4 * norms**2 / (2 * SIGMA**2))
    expected_var = theoretical_variance(k_D, k_2D, variant, M)

    mean, var = samples.mean(0), samples.var(0, ddof=1)
    assert np.all(np.abs(mean - k_D) < 4 * np.sqrt(expected_var / T))
    # standard error of the sample variance, from the sample fourth central moment
    fourth = np.mean((samples - mean) ** 4, axis=0)
    se_var = np.sqrt((fourth - var**2) / T)
    assert np.all(np.abs(var - expected_var) < 4 * se_var), (var, expected_var, se_var)


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset"])
def test_mean_gram_over_fits_converges_to_exact_kernel(variant):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 4))
    K = gaussian(X, X)
    T = 300
    grams = [
        approximate_gram(GaussianRFF(n_components=16, sigma=SIGMA, variant=variant, random_state=t).fit(X), X)
        for t in range(T)
    ]
    single = np.mean([np.linalg.norm(G - K) for G in grams]) / np.linalg.norm(K)
    averaged = np.linalg.norm(np.mean(grams, axis=0) - K) / np.linalg.norm(K)
    # unbiased: averaging T fits divides the error by about sqrt(T)
    assert averaged < 2 * single / np.sqrt(T)


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset"])
def test_relative_error_decays_like_inverse_sqrt_M(variant):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4))
    K = gaussian(X, X)
    Ms = 2 ** np.arange(4, 11)

    def error(M, seed):
        rff = GaussianRFF(n_components=M, sigma=SIGMA, variant=variant, random_state=seed).fit(X)
        return np.linalg.norm(approximate_gram(rff, X) - K)

    errors = [np.mean([error(M, seed) for seed in range(6)]) for M in Ms]
    slope = np.polyfit(np.log(Ms), np.log(errors), 1)[0]
    assert -0.6 <= slope <= -0.4, slope


@pytest.mark.parametrize(("variant", "width"), [("cos_sin", 2 * 7), ("cos_offset", 7), ("cos_offset_2m", 2 * 7)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_shape_dtype_and_reproducibility(variant, width, dtype):
    X = np.random.default_rng(3).normal(size=(9, 4))
    Z = GaussianRFF(n_components=7, variant=variant, dtype=dtype, random_state=5).fit_transform(X)
    assert Z.shape == (9, width) and Z.dtype == np.dtype(dtype)
    again = GaussianRFF(n_components=7, variant=variant, dtype=dtype, random_state=5).fit_transform(X)
    other = GaussianRFF(n_components=7, variant=variant, dtype=dtype, random_state=6).fit_transform(X)
    np.testing.assert_array_equal(Z, again)
    assert not np.allclose(Z, other)


def test_frequencies_have_the_spectral_distribution():
    """W ~ N(0, sigma^-2 I): its sample std is 1 / sigma and the offsets fill [0, 2 pi)."""
    rff = GaussianRFF(n_components=20000, sigma=2.0, variant="cos_offset", random_state=0)
    rff.fit(np.zeros((1, 3)))
    assert rff.random_weights_.shape == (3, 20000)
    np.testing.assert_allclose(rff.random_weights_.std(axis=1), 0.5, rtol=0.02)
    assert 0 <= rff.random_offset_.min() < 0.01 and 2 * np.pi - 0.01 < rff.random_offset_.max() < 2 * np.pi


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_components": 0}, "n_components must be a positive integer, got 0"),
        ({"n_components": 2.5}, "n_components must be a positive integer, got 2.5"),
        ({"sigma": 0.0}, "sigma must be a positive finite number, got 0.0"),
        ({"sigma": -1}, "sigma must be a positive finite number, got -1"),
        ({"sigma": np.inf}, "sigma must be a positive finite number, got inf"),
        ({"variant": "cos"}, r"variant='cos' is not valid; choose one of \('cos_sin', 'cos_offset', 'cos_offset_2m'\)"),
        ({"dtype": "float16"}, r"dtype='float16' is not supported; choose one of \('float32', 'float64'\)"),
    ],
)
def test_bad_parameters_raise_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        GaussianRFF(**params).fit(np.zeros((2, 3)))


def test_transform_before_fit_and_wrong_width():
    with pytest.raises(NotFittedError, match="GaussianRFF instance is not fitted yet"):
        GaussianRFF().transform(np.zeros((2, 3)))
    rff = GaussianRFF().fit(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X has 4 features, but GaussianRFF is expecting 3 features as input"):
        rff.transform(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="X has 2 features, but GaussianRFF is expecting 3 features as input"):
        next(rff.gram_blocks(np.zeros((2, 3)), np.zeros((2, 2))))


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset", "cos_offset_2m"])
def test_output_size_is_the_width_and_the_numbers_drawn(variant):
    """Before fitting: transform's columns, and W (d x m) plus one offset per frequency (b, drawn by the
    cos_offset variants; counted for cos_sin too, an upper bound), what the runner's memory check uses."""
    d, M = 4, 7
    rff = GaussianRFF(n_components=M, variant=variant, random_state=0)
    size = rff.output_size(d)
    Z = rff.fit_transform(np.zeros((2, d)))
    W = rff.random_weights_
    if variant != "cos_sin":
        assert rff.random_offset_.shape == (W.shape[1],)
    else:
        assert not hasattr(rff, "random_offset_")  # "only for the cos_offset variants"
    assert size == (Z.shape[1], W.size + W.shape[1])


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset", "cos_offset_2m"])
def test_a_segment_is_its_frequencies_columns_renormalized(variant):
    """segment(start, stop) keeps the frequencies [start, stop) of the fitted map: its features are
    those columns of the full map's (cos and sin halves for cos_sin; 2 columns per frequency for
    cos_offset_2m), times sqrt(M / (stop - start)) for the normalization by its own count."""
    M, start, stop = 7, 2, 5
    X = np.random.default_rng(4).normal(size=(6, 3))
    rff = GaussianRFF(n_components=M, sigma=SIGMA, variant=variant, dtype="float64", random_state=1).fit(X)
    part = rff.segment(start, stop)
    if variant == "cos_sin":
        cols = np.r_[start:stop, M + start : M + stop]
    elif variant == "cos_offset":
        cols = np.arange(start, stop)
    else:
        cols = np.arange(2 * start, 2 * stop)
    np.testing.assert_allclose(part.transform(X), rff.transform(X)[:, cols] * np.sqrt(M / (stop - start)),
                               rtol=1e-12, atol=1e-12)
    # the map of the same kernel and variant with n_components = stop - start
    assert (part.n_components, part.sigma, part.variant, part.dtype) == (stop - start, SIGMA, variant, "float64")


@pytest.mark.parametrize(("start", "stop"), [(3, 3), (4, 3), (-1, 2), (0, 8), (0, 2.0)])
def test_a_segment_out_of_range_or_empty_is_refused(start, stop):
    rff = GaussianRFF(n_components=7, random_state=0).fit(np.zeros((1, 2)))
    with pytest.raises(ValueError, match=rf"segment\({start!r}, {stop!r}\) is not valid; need integers "
                                         r"0 <= start < stop <= n_components=7"):
        rff.segment(start, stop)


@pytest.mark.parametrize("variant", ["cos_sin", "cos_offset", "cos_offset_2m"])
def test_gram_blocks_are_blocks_of_the_features_and_reuse_them_when_y_is_x(variant):
    """sum_b L_b R_b^T = z(X) z(Y)^T in float64 over blocks of at most 3 frequencies; with Y=None each block's
    right factor is its left one (one trigonometric pass, and metrics' symmetric shortcut)."""
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    rff = GaussianRFF(n_components=7, sigma=SIGMA, variant=variant, dtype="float64", random_state=2).fit(X)
    for other in (Y, None):
        blocks = list(rff.gram_blocks(X, other, block_size=3))
        assert len(blocks) == (5 if variant == "cos_offset_2m" else 3)  # ceil(m / 3) of the m frequencies
        assert all(L.dtype == R.dtype == np.float64 for L, R in blocks)
        right = rff.transform(X if other is None else other)
        np.testing.assert_allclose(sum(L @ R.T for L, R in blocks), rff.transform(X) @ right.T, atol=1e-12)
    assert all(R is L for L, R in blocks)
