"""IdentityMap (linear baseline), and every map's defaults."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from rfbench.feature_map import AsKRFF, CauchyRFF, GaussianRFF, IdentityMap, NystroemMap, QMCFourierFeatures
from rfbench.metrics import approximate_gram


def test_identity_features_and_linear_gram():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    fmap = IdentityMap().fit(X)
    Z = fmap.transform(X)
    assert Z.dtype == np.float32
    np.testing.assert_array_equal(Z, X.astype(np.float32))
    assert IdentityMap(dtype="float64").fit(X).transform(X).dtype == np.float64
    # "a copy only when the dtype differs": float64 data, float64 features are the data themselves
    assert IdentityMap(dtype="float64").fit(X).transform(X) is X
    assert fmap.output_size(3) == (3, 0)  # the input's columns; no parameters
    np.testing.assert_allclose(approximate_gram(fmap, X, Y), X @ Y.T, atol=1e-14)


def test_identity_errors():
    with pytest.raises(NotFittedError, match="IdentityMap instance is not fitted yet"):
        IdentityMap().transform(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X has 2 features, but IdentityMap is expecting 3 features as input"):
        IdentityMap().fit(np.zeros((2, 3))).transform(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"dtype='float16' is not supported"):
        IdentityMap(dtype="float16").fit(np.zeros((2, 3)))


@pytest.mark.parametrize(("fmap", "width"), [(GaussianRFF(random_state=0), 200), (AsKRFF(random_state=0), 800),
                                              (IdentityMap(), 3)])
def test_defaults_and_clone(fmap, width):
    X = np.random.default_rng(1).uniform(size=(60, 3))
    Z = fmap.fit_transform(X)
    assert Z.shape == (60, width) and Z.dtype == np.float32
    np.testing.assert_array_equal(clone(fmap).fit_transform(X), Z)


RFF_DEFAULTS = {"n_components": 100, "sigma": 1.0, "variant": "cos_sin", "dtype": "float32", "random_state": None}


@pytest.mark.parametrize(("cls", "defaults"), [
    (GaussianRFF, RFF_DEFAULTS),
    (CauchyRFF, RFF_DEFAULTS),
    (QMCFourierFeatures, {"n_components": 100, "sigma": 1.0, "sequence": "halton", "scramble": True,
                          "dtype": "float32", "random_state": None}),
    (NystroemMap, {"n_components": 100, "kernel": "gaussian", "sigma": 1.0, "landmarks": "uniform",
                   "dtype": "float32", "random_state": None}),
    (AsKRFF, {"kernel": "shift_gaussian", "n_components": 100, "kernel_params": None, "part": "asymmetric",
              "total_mass": "estimate", "n_subset": 50, "imaginary": "magnitude", "dtype": "float32",
              "random_state": None}),
    (IdentityMap, {"dtype": "float32"}),
])
def test_every_map_has_the_defaults_its_docstring_states(cls, defaults):
    """What a configuration that leaves a parameter out gets (each class docstring's "default=")."""
    assert cls().get_params() == defaults
