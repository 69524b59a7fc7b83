"""IdentityMap (linear baseline), and every map's defaults."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from rfbench.feature_map import AsKRFF, GaussianRFF, IdentityMap
from rfbench.metrics import approximate_gram


def test_identity_features_and_linear_gram():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    fmap = IdentityMap().fit(X)
    Z = fmap.transform(X)
    assert Z.dtype == np.float32
    np.testing.assert_array_equal(Z, X.astype(np.float32))
    assert IdentityMap(dtype="float64").fit(X).transform(X).dtype == np.float64
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
