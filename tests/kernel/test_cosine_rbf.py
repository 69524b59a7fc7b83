"""Li's RBF kernel exp(-gamma (1 - rho)) (eq. 8) and its relation to the Gaussian kernel."""
import numpy as np
import pytest
from sklearn.preprocessing import normalize

from rfbench.kernel.cosine_rbf import CosineRBFKernel
from rfbench.kernel.gaussian import GaussianKernel


@pytest.mark.parametrize("params, gamma", [({"gamma": 2.5}, 2.5), ({}, 1.0)], ids=["gamma=2.5", "default"])
def test_gram_is_exp_of_cosine(params, gamma):
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((5, 3)) * 7.0, rng.standard_normal((4, 3))
    cosine = np.array([[x @ y / np.linalg.norm(x) / np.linalg.norm(y) for y in Y] for x in X])
    np.testing.assert_allclose(CosineRBFKernel(3, **params)(X, Y), np.exp(-gamma * (1 - cosine)), rtol=1e-12)


def test_is_gaussian_with_sigma_gamma_to_minus_half_on_normalized_rows():
    X = np.random.default_rng(1).standard_normal((6, 4))
    gamma = 11.0
    np.testing.assert_allclose(
        CosineRBFKernel(4, gamma=gamma)(X), GaussianKernel(4, sigma=gamma**-0.5)(normalize(X)), rtol=1e-13
    )


def test_zero_row_rule():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]])
    K = CosineRBFKernel(2, gamma=3.0)(X)
    assert K[0, 2] == pytest.approx(1.0) and K[0, 1] == pytest.approx(np.exp(-1.5))
    assert np.all(np.linalg.eigvalsh(K) > -1e-12)


@pytest.mark.parametrize("gamma", [0, -1.0, np.inf, np.nan, "1", True, 1e61])
def test_bad_gamma_is_refused(gamma):
    with pytest.raises(ValueError, match=r"gamma=.* is invalid: need 1e-60 <= gamma <= 1e\+60"):
        CosineRBFKernel(3, gamma=gamma)


@pytest.mark.parametrize("gamma", [1e-60, 1e60])
def test_the_ends_of_the_gamma_range_are_accepted(gamma):
    kernel = CosineRBFKernel(3, gamma=gamma)
    assert kernel.gamma == gamma
    np.testing.assert_allclose(np.diag(kernel(np.eye(3))), 1.0)


def test_value_is_undefined():
    # the refusal says why and names both ways out
    match = r"not shift-invariant on raw data.*GaussianKernel\(d, sigma=gamma\*\*-0\.5\) on rows normalized to unit l2"
    with pytest.raises(NotImplementedError, match=match):
        CosineRBFKernel(2).value(np.zeros((1, 2)))
