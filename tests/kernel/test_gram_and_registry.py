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


def test_linear_kernel_has_no_shift_invariant_form():
    kernel = LinearKernel(2)
    with pytest.raises(NotImplementedError, match="not shift-invariant"):
        kernel.value(np.zeros((1, 2)))
    with pytest.raises(NotImplementedError, match="no spectral measure"):
        kernel.sample("real_pos", 5, np.random.default_rng(0))


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
    ],
)
def test_bad_kernel_specs_are_rejected_clearly(name, d, params, match):
    with pytest.raises(ValueError, match=match):
        make_kernel(name, d, **params)


def test_bad_data_shape_is_rejected():
    with pytest.raises(ValueError, match=r"X must have last axis of length d=3, got shape \(4, 2\)"):
        make_kernel("sinh_gaussian", 3)(np.zeros((4, 2)))
