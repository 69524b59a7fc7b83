"""AsKRFF against exact asymmetric kernels written out independently here."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from rfbench.feature_map import AsKRFF
from rfbench.kernel import estimate_total_masses, make_kernel, unit_mass_grams
from rfbench.metrics import approximate_gram

SIGMA = 0.5
# Parameters with a large skew part (||K - K^T|| / ||K|| between 0.6 and 0.9 on the unit cube).
PARAMS = {
    "shift_gaussian": {"sigma": SIGMA, "r": 0.3},
    "sinh_gaussian": {"sigma": SIGMA, "beta": 0.8},
    "cosh_gaussian": {"sigma": SIGMA, "beta": 0.8},
    "gaussian": {"sigma": SIGMA},
}
ASYMMETRIC = ["shift_gaussian", "sinh_gaussian", "cosh_gaussian"]


def exact_gram(kernel, X, Y):
    """K[i, j] = k(x_i - y_j) from eqs. (9)-(11), with the scalar r / beta of PARAMS."""
    D = X[:, None, :] - Y[None, :, :]
    gauss = np.exp(-np.sum(D**2, axis=-1) / (2 * SIGMA**2))
    if kernel == "shift_gaussian":
        return np.exp(-np.sum((D + PARAMS[kernel]["r"]) ** 2, axis=-1) / (2 * SIGMA**2))
    if kernel == "sinh_gaussian":
        return gauss * (1 + np.sinh(PARAMS[kernel]["beta"] * D.sum(-1)))
    if kernel == "cosh_gaussian":
        return gauss * np.exp(PARAMS[kernel]["beta"] * D.sum(-1))
    return gauss


def naive_approximation(fmap, X, Y):
    """Eq. (7)-(8) evaluated entry by entry on explicit differences D = x_i - y_j."""
    D = X[:, None, :] - Y[None, :, :]
    xi, freqs = fmap.total_masses_, fmap.frequencies_
    approx = xi["real_pos"] * np.cos(D @ freqs["real_pos"].T).mean(-1)
    if "real_neg" in freqs:
        approx -= xi["real_neg"] * np.cos(D @ freqs["real_neg"].T).mean(-1)
    if "imag_pos" in freqs:
        approx -= 2 * xi["imag_pos"] * np.sin(D @ freqs["imag_pos"].T).mean(-1)
    return approx


def naive_features(fmap, X):
    """The documented layout [sqrt(xi1) phi_w, sqrt(xi2) phi_z, sqrt(2 xi3) phi_v, sqrt(2 xi3) psi_v]."""
    xi, freqs, M = fmap.total_masses_, fmap.frequencies_, fmap.n_components

    def phi(W):
        return np.hstack([np.cos(X @ W.T), np.sin(X @ W.T)]) / np.sqrt(M)

    def psi(W):
        return np.hstack([-np.sin(X @ W.T), np.cos(X @ W.T)]) / np.sqrt(M)

    blocks = [np.sqrt(xi["real_pos"]) * phi(freqs["real_pos"])]
    if "real_neg" in freqs and fmap.imaginary == "magnitude":
        blocks.append(np.sqrt(xi["real_neg"]) * phi(freqs["real_neg"]))
    if "imag_pos" in freqs:
        v = freqs["imag_pos"]
        blocks += [np.sqrt(2 * xi["imag_pos"]) * phi(v), np.sqrt(2 * xi["imag_pos"]) * psi(v)]
    return np.hstack(blocks)


def relative_error(A, B):
    return np.linalg.norm(A - B) / np.linalg.norm(B)


def skewness(A):
    return np.linalg.norm(A - A.T) / np.linalg.norm(A)


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).uniform(size=(20, 3))


def make(kernel, **kwargs):
    kwargs.setdefault("total_mass", "exact")
    return AsKRFF(kernel=kernel, kernel_params=PARAMS[kernel], **kwargs)


@pytest.mark.parametrize("kernel", ASYMMETRIC)
def test_exact_mass_map_is_unbiased(kernel, X):
    K = exact_gram(kernel, X, X)
    T = 150
    grams = [approximate_gram(make(kernel, n_components=32, random_state=t).fit(X), X) for t in range(T)]
    single = np.mean([relative_error(G, K) for G in grams])
    # averaging T unbiased estimates divides the error by about sqrt(T); a bias would not shrink
    assert relative_error(np.mean(grams, axis=0), K) < 2 * single / np.sqrt(T)


@pytest.mark.parametrize("total_mass", ["exact", "estimate"])
@pytest.mark.parametrize("kernel", ASYMMETRIC)
def test_large_M_approximates_the_asymmetric_gram(kernel, total_mass, X):
    K = exact_gram(kernel, X, X)
    G = approximate_gram(make(kernel, n_components=4096, total_mass=total_mass, random_state=1).fit(X), X)
    assert relative_error(G, K) < 0.05
    assert skewness(K) > 0.6
    assert abs(skewness(G) - skewness(K)) < 0.05


@pytest.mark.parametrize("kernel", ASYMMETRIC)
def test_symmetric_part_approximates_only_the_symmetric_gram(kernel, X):
    K = exact_gram(kernel, X, X)
    fmap = make(kernel, n_components=4096, part="symmetric", random_state=2).fit(X)
    assert "imag_pos" not in fmap.frequencies_
    G = approximate_gram(fmap, X)
    np.testing.assert_allclose(G, G.T, atol=1e-12)
    assert relative_error(G, (K + K.T) / 2) < 0.05
    # what the runner compares K~ with: the symmetric part for "symmetric", K itself otherwise
    np.testing.assert_allclose(fmap.approximated_gram(K), (K + K.T) / 2, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(make(kernel).approximated_gram(K), K)
    assert relative_error(G, K) > 0.3  # the skew part, about half of K here, is missed


@pytest.mark.parametrize("part", ["asymmetric", "symmetric"])
@pytest.mark.parametrize("kernel", ASYMMETRIC + ["gaussian"])
def test_gram_blocks_match_eq7_entrywise(kernel, part, X):
    Y = np.random.default_rng(3).uniform(size=(7, 3))
    fmap = make(kernel, n_components=50, part=part, total_mass="estimate", random_state=4).fit(X)
    for block_size in (1, 16, 50):
        G = approximate_gram(fmap, X, Y, block_size=block_size)
        np.testing.assert_allclose(G, naive_approximation(fmap, X, Y), rtol=0, atol=1e-12)


def test_a_part_of_zero_mass_adds_nothing_and_the_later_parts_still_count(X):
    """An estimate at its bound xi2 = 0 (set here on the fitted map): gram_blocks skips real_neg's term, and
    imag_pos's, after it in eq. (7) order, is still there."""
    Y = np.random.default_rng(3).uniform(size=(7, 3))
    fmap = make("cosh_gaussian", n_components=16, random_state=4).fit(X)
    assert list(fmap.frequencies_) == ["real_pos", "real_neg", "imag_pos"]
    fmap.total_masses_["real_neg"] = 0.0
    blocks = list(fmap.gram_blocks(X, Y, block_size=16))
    assert len(blocks) == 2  # real_pos and imag_pos, one block of 16 frequencies each
    np.testing.assert_allclose(sum(L @ R.T for L, R in blocks), naive_approximation(fmap, X, Y), rtol=0, atol=1e-12)


def test_estimated_masses_satisfy_the_constraints_of_problem_12(X):
    r, n = PARAMS["shift_gaussian"]["r"], X.shape[1]
    fmap = make("shift_gaussian", n_components=2048, total_mass="estimate", random_state=5).fit(X)
    xi = fmap.total_masses_
    assert xi["real_pos"] - xi["real_neg"] == pytest.approx(np.exp(-n * r**2 / (2 * SIGMA**2)), abs=1e-12)
    assert min(xi.values()) >= 0
    exact = fmap.kernel_.exact_total_masses()
    assert all(abs(xi[p] - exact[p]) < 0.03 for p in xi)
    gaussian = make("gaussian", n_components=64, total_mass="estimate", random_state=5).fit(X)
    assert gaussian.total_masses_ == {"real_pos": pytest.approx(1.0, abs=1e-12)}


def test_fitted_attributes_and_small_training_set():
    X = np.random.default_rng(6).uniform(size=(10, 3))  # fewer rows than n_subset=50
    fmap = make("cosh_gaussian", n_components=16, total_mass="estimate", random_state=0).fit(X)
    assert list(fmap.frequencies_) == ["real_pos", "real_neg", "imag_pos"]
    assert all(W.shape == (16, 3) for W in fmap.frequencies_.values())
    assert fmap.acceptance_rates_.keys() == fmap.total_masses_.keys() == fmap.frequencies_.keys()
    assert all(0 < rate <= 1 for rate in fmap.acceptance_rates_.values())
    assert fmap.n_features_in_ == 3 and fmap.kernel_.d == 3
    # "all rows are used when X has fewer": problem (12) on the 10 rows, each once (their order is immaterial)
    kernel = fmap.kernel_
    expected = estimate_total_masses(kernel(X, X), unit_mass_grams(X, fmap.frequencies_), kernel.k0)
    assert fmap.total_masses_ == {p: pytest.approx(expected[p], rel=1e-9, abs=1e-12) for p in fmap.total_masses_}


@pytest.mark.parametrize(
    ("kernel", "part", "imaginary", "n_blocks"),
    [
        ("shift_gaussian", "asymmetric", "magnitude", 4),
        ("shift_gaussian", "asymmetric", "drop", 3),
        ("shift_gaussian", "symmetric", "magnitude", 2),
        ("shift_gaussian", "symmetric", "drop", 1),
        ("sinh_gaussian", "asymmetric", "magnitude", 3),  # mu_R >= 0: no phi_z block
        ("sinh_gaussian", "symmetric", "drop", 1),
        ("cosh_gaussian", "asymmetric", "magnitude", 4),
        ("gaussian", "asymmetric", "magnitude", 1),
    ],
)
def test_transform_layout(kernel, part, imaginary, n_blocks, X):
    fmap = make(kernel, n_components=12, part=part, imaginary=imaginary, dtype="float64", random_state=7)
    Z = fmap.fit(X).transform(X)
    assert Z.shape == (len(X), 2 * 12 * n_blocks)
    np.testing.assert_allclose(Z, naive_features(fmap, X), rtol=0, atol=1e-12)


@pytest.mark.parametrize(("kernel", "part"), [("gaussian", "asymmetric"), ("sinh_gaussian", "symmetric")])
def test_transform_inner_products_equal_the_gram_for_a_positive_measure(kernel, part, X):
    """With mu_R^- = mu_I = 0 the classification features are the kernel's own features."""
    Y = X[:5] + 0.1
    fmap = make(kernel, n_components=64, part=part, dtype="float64", random_state=8).fit(X)
    Z_X, Z_Y = fmap.transform(X), fmap.transform(Y)
    np.testing.assert_allclose(Z_X @ Z_Y.T, approximate_gram(fmap, X, Y), atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_and_reproducibility(dtype, X):
    def fitted(seed):
        fmap = make("shift_gaussian", total_mass="estimate", n_components=8, dtype=dtype, random_state=seed)
        return fmap.fit(X)

    Z = fitted(9).transform(X)
    assert Z.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(Z, fitted(9).transform(X))
    assert not np.allclose(Z, fitted(10).transform(X))
    np.testing.assert_allclose(Z, naive_features(fitted(9), X), atol=1e-5)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_components": 0}, "n_components must be a positive integer, got 0"),
        ({"n_subset": -3}, "n_subset=-3 is invalid: an integer >= 3"),
        ({"n_subset": 2}, "n_subset=2 is invalid: an integer >= 3"),
        ({"part": "both"}, r"part='both' is not valid; choose one of \('asymmetric', 'symmetric'\)"),
        ({"total_mass": "mc"}, r"total_mass='mc' is not valid; choose one of \('estimate', 'exact'\)"),
        ({"imaginary": "real"}, r"imaginary='real' is not valid; choose one of \('magnitude', 'drop'\)"),
        ({"dtype": "int32"}, r"dtype='int32' is not supported; choose one of \('float32', 'float64'\)"),
        ({"kernel": "laplace"}, r"unknown kernel 'laplace'; valid names: \['cosh_gaussian'"),
        ({"kernel": "linear"}, "kernel 'linear' has no spectral measure to sample"),
        ({"kernel_params": {"bogus": 1}}, r"unknown parameter\(s\) \['bogus'\] for kernel 'shift_gaus"),
        ({"kernel_params": "sigma=2"}, "kernel_params must be a mapping or None, got 'sigma=2'"),
    ],
)
def test_bad_parameters_raise_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        AsKRFF(**params).fit(np.zeros((4, 2)))


def test_three_rows_are_enough_for_problem_12(X):
    """n_subset >= 3 is valid, 3 included: the estimate then uses 3 of the training rows."""
    fmap = make("shift_gaussian", n_components=8, total_mass="estimate", n_subset=3, random_state=0).fit(X)
    assert set(fmap.total_masses_) == {"real_pos", "real_neg", "imag_pos"}


def test_transform_before_fit_and_wrong_width(X):
    with pytest.raises(NotFittedError, match="AsKRFF instance is not fitted yet"):
        AsKRFF().transform(X)
    fmap = make("shift_gaussian", n_components=4).fit(X)
    with pytest.raises(ValueError, match="X has 2 features, but AsKRFF is expecting 3 features as input"):
        fmap.transform(X[:, :2])
    with pytest.raises(ValueError, match="block_size must be a positive integer, got 0"):
        next(fmap.gram_blocks(X, block_size=0))


@pytest.mark.parametrize("part", ["asymmetric", "symmetric"])
@pytest.mark.parametrize("kernel", ASYMMETRIC + ["gaussian"])
def test_output_size_is_the_width_and_the_frequencies_drawn(kernel, part, X):
    """Before fitting: transform's columns (2M per block, psi_v a block of its own) and the M x d
    frequencies of each part sampled. A kernel given by name counts all three parts (an upper bound)."""
    kernel_object = make_kernel(kernel, 3, **PARAMS[kernel])
    fmap = AsKRFF(kernel=kernel_object, n_components=12, part=part, total_mass="exact", random_state=7)
    size, by_name = fmap.output_size(3), make(kernel, n_components=12, part=part).output_size(3)
    Z = fmap.fit(X).transform(X)
    drawn = sum(W.size for W in fmap.frequencies_.values())
    assert size == (Z.shape[1], drawn)
    blocks, parts = (4, 3) if part == "asymmetric" else (2, 2)  # the parts of cosh_gaussian, the widest
    assert by_name == (2 * 12 * blocks, 12 * 3 * parts)
    assert by_name[0] >= size[0] and by_name[1] >= size[1]


def test_from_kernel_uses_the_kernel_object_and_the_parameters():
    kernel = make_kernel("sinh_gaussian", 3, **PARAMS["sinh_gaussian"])
    fmap = AsKRFF.from_kernel(kernel, n_components=5, part="symmetric")
    assert fmap.kernel is kernel and (fmap.n_components, fmap.part) == (5, "symmetric")
    with pytest.raises(ValueError, match=r"^X has 2 features, but kernel 'sinh_gaussian' is defined on R\^3$"):
        fmap.fit(np.zeros((4, 2)))
