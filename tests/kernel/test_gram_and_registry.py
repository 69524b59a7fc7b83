"""Gram matrices vs brute force, and the kernel registry's validation."""
import numpy as np
import pytest

from rfbench.kernel import KERNELS, GaussianKernel, LinearKernel, make_kernel
from tests.kernel.kernel_reference import paper_formula

ASYMMETRIC = ["shift_gaussian", "sinh_gaussian", "cosh_gaussian"]
CUSTOM = {
    "gaussian": {"sigma": 0.8},
    "shift_gaussian": {"sigma": 0.8, "r": [0.3, -0.7, 1.1]},
    "sinh_gaussian": {"sigma": 0.8, "beta": [0.5, -0.2, 0.9]},
    "cosh_gaussian": {"sigma": 0.8, "beta": [0.5, -0.2, 0.9]},
}


@pytest.mark.parametrize("custom", [False, True])
@pytest.mark.parametrize("name", ["gaussian"] + ASYMMETRIC)
def test_gram_matches_pairwise_paper_formula(name, custom):
    params = CUSTOM[name] if custom else {}
    rng = np.random.default_rng(5)
    X, Y = rng.random((6, 3)), rng.random((4, 3))
    kernel = make_kernel(name, 3, **params)
    brute = np.array([[paper_formula(name, params, x - y) for y in Y] for x in X])
    np.testing.assert_allclose(kernel(X, Y), brute, rtol=1e-12)
    np.testing.assert_allclose(kernel.value(X[:, None, :] - Y[None, :, :]), brute, rtol=1e-12)
    assert kernel(X).shape == (6, 6) and kernel(X).dtype == np.float64


@pytest.mark.parametrize("name", ASYMMETRIC)
def test_asymmetric_kernels_give_asymmetric_grams(name):
    X = np.random.default_rng(1).random((8, 4))
    K = make_kernel(name, 4)(X)
    assert not np.allclose(K, K.T) and not make_kernel(name, 4).is_symmetric


def test_gaussian_and_linear_grams_are_symmetric():
    X = np.random.default_rng(2).normal(size=(8, 4)) * 1e3  # large norms: expansion cancels
    K = GaussianKernel(4, sigma=5e2)(X)
    np.testing.assert_array_equal(K, K.T)
    assert np.all(K <= 1.0)  # squared distances clipped at 0
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(LinearKernel(4)(X), X @ X.T)


def test_linear_gram_of_two_sets_is_their_inner_products():
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(2, 3))
    brute = [[sum(a * b for a, b in zip(x, y)) for y in Y] for x in X]
    np.testing.assert_allclose(LinearKernel(3)(X, Y), brute, rtol=1e-13)


def test_linear_kernel_has_no_shift_invariant_form():
    with pytest.raises(NotImplementedError, match=r"not shift-invariant.*use the Gram matrix kernel\(X, Y\)"):
        LinearKernel(2).value(np.zeros((1, 2)))


SPECTRAL_CALLS = {
    "spectral_density": lambda kernel: kernel.spectral_density(np.zeros((1, 2))),
    "part_density": lambda kernel: kernel.part_density("real_pos", np.zeros((1, 2))),
    "sample": lambda kernel: kernel.sample("real_pos", 5, np.random.default_rng(0)),
    "exact_total_masses": lambda kernel: kernel.exact_total_masses(),
}


@pytest.mark.parametrize("call", sorted(SPECTRAL_CALLS))
@pytest.mark.parametrize("name", ["linear", "gmm", "cosine_rbf"])
def test_a_kernel_without_spectral_measure_says_so_naming_itself(name, call):
    with pytest.raises(NotImplementedError, match=f"kernel '{name}' has no spectral measure"):
        SPECTRAL_CALLS[call](make_kernel(name, 2))


SHIFT_INVARIANT = ["gaussian", "laplacian"] + ASYMMETRIC


@pytest.mark.parametrize("name", SHIFT_INVARIANT)
def test_the_spectral_density_is_complex(name):
    """mu = mu_R + i mu_I is complex (base.py), one value per frequency, even where mu_I = 0."""
    mu = make_kernel(name, 3).spectral_density(np.random.default_rng(4).normal(size=(5, 3)))
    assert mu.dtype == np.complex128 and mu.shape == (5,)


@pytest.mark.parametrize("name", SHIFT_INVARIANT)
def test_value_takes_differences_of_shape_dots_d(name):
    """value's delta has shape (..., d): one difference (d,) gives a scalar, the same as in a batch."""
    kernel, delta = make_kernel(name, 3), np.array([0.4, -1.1, 0.7])
    value = kernel.value(delta)
    assert np.ndim(value) == 0 and value == kernel.value(delta[None])[0]


@pytest.mark.parametrize("name", SHIFT_INVARIANT)
def test_an_argument_of_the_wrong_length_is_refused_by_its_name(name):
    """value's delta and the densities' omega must end in d coordinates; the refusal names the argument."""
    kernel, wrong = make_kernel(name, 3), np.zeros((2, 4))
    with pytest.raises(ValueError, match=r"^delta must have last axis of length d=3, got shape \(2, 4\)$"):
        kernel.value(wrong)
    with pytest.raises(ValueError, match=r"^omega must have last axis of length d=3, got shape \(2, 4\)$"):
        kernel.spectral_density(wrong)
    with pytest.raises(ValueError, match=r"^omega must have last axis of length d=3, got shape \(2, 4\)$"):
        kernel.part_density(kernel.parts[0], wrong)


def test_parameter_defaults_follow_the_paper():
    assert make_kernel("shift_gaussian", 4).sigma == 2.0
    np.testing.assert_array_equal(make_kernel("shift_gaussian", 4).r, np.full(4, 0.5))
    np.testing.assert_array_equal(make_kernel("cosh_gaussian", 4).beta, np.full(4, np.pi / 8))
    np.testing.assert_array_equal(make_kernel("sinh_gaussian", 3, beta=0.2).beta, np.full(3, 0.2))


def test_registry_names():
    assert sorted(KERNELS) == ["cosh_gaussian", "cosine_rbf", "gaussian", "gmm", "laplacian", "linear",
                               "shift_gaussian", "sinh_gaussian"]


@pytest.mark.parametrize(
    "name,d,params,match",
    [
        ("rbf", 2, {}, r"unknown kernel 'rbf'; valid names: \['cosh_gaussian', 'cosine_rbf', 'gaussian'"),
        ("gaussian", 2, {"gamma": 1.0}, r"unknown parameter\(s\) \['gamma'\].*accepted: \['sigma'\]"),
        ("shift_gaussian", 2, {"sigma": 0.0}, r"sigma=0.0 is invalid: a bandwidth with 1e-30 <= sigma <= 1e\+30"),
        ("sinh_gaussian", 2, {"sigma": -1}, "sigma=-1 is invalid: a bandwidth with"),
        ("shift_gaussian", 3, {"r": [1.0, 2.0]}, r"r must be a scalar or a vector of length d=3, got shape \(2,\)"),
        ("cosh_gaussian", 2, {"beta": 0.0}, "beta must be finite and not all zero .*, got 0.0$"),
        ("shift_gaussian", 2, {"r": "abc"}, "r must be a scalar or a vector of length d=2, got 'abc'"),
        ("gaussian", 0, {}, "d must be a positive integer, got 0"),
        ("laplacian", True, {}, "d must be a positive integer, got True"),
        ("gmm", 2.5, {}, "d must be a positive integer, got 2.5"),
    ],
)
def test_bad_kernel_specs_are_rejected_clearly(name, d, params, match):
    with pytest.raises(ValueError, match=match):
        make_kernel(name, d, **params)


# The same numbers in other machine types: float32 would round the Gram's arithmetic, int8 overflow in |x| or x^2.
TYPED_DATA = {
    "float32": np.random.default_rng(6).normal(scale=0.7, size=(4, 3)).astype(np.float32),
    "int8": np.array([[-128, 3, 0], [5, 0, -1], [2, 1, -3], [0, -1, 1]], dtype=np.int8),
}


@pytest.mark.parametrize("dtype", sorted(TYPED_DATA))
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_data_of_any_numeric_type_give_the_float64_gram_of_their_values(name, dtype):
    """Kernels compute in float64 (base.py): the Gram of typed data is the Gram of their values as float64."""
    X = TYPED_DATA[dtype]
    kernel = make_kernel(name, 3)
    gram = kernel(X, X[:2])
    assert gram.dtype == np.float64
    np.testing.assert_array_equal(gram, kernel(X.astype(np.float64), X[:2].astype(np.float64)))
    if name in SHIFT_INVARIANT:
        delta = X[:, None, :] - X[None, :2, :]  # same dtype: int8 differences wrap, so compare with the same input
        np.testing.assert_array_equal(kernel.value(delta), kernel.value(delta.astype(np.float64)))


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("X, Y, match", [
    (np.zeros((4, 2)), None, r"^X must have last axis of length d=3, got shape \(4, 2\)$"),
    (np.zeros((2, 2, 3)), None, r"^X must be 2-D of shape \(n, 3\), got shape \(2, 2, 3\)$"),
    (np.zeros((2, 3)), np.zeros((4, 2)), r"^Y must have last axis of length d=3, got shape \(4, 2\)$"),
    (np.zeros((2, 3)), np.zeros(3), r"^Y must be 2-D of shape \(n, 3\), got shape \(3,\)$"),
], ids=["X-length", "X-3D", "Y-length", "Y-1D"])
def test_bad_data_shape_is_rejected(name, X, Y, match):
    with pytest.raises(ValueError, match=match):
        make_kernel(name, 3)(X, Y)
