"""A toy feature map and a toy model, added from outside the package as a user would.

They join rfbench through their YAML alone (``configs/``, passed with ``--config-dir``): no file of
``rfbench/`` or ``configs/`` names them.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import ortho_group
from sklearn.base import BaseEstimator, ClassifierMixin

from rfbench.feature_map import FeatureMap
from rfbench.kernel import GaussianKernel, Kernel, LinearKernel
from rfbench.model.grid_search import GridSearchResults


class RandomRotation(FeatureMap):
    """z(x) = Q x for a random orthogonal Q: z(x)^T z(y) = x^T y exactly (the linear kernel)."""

    approximates = (LinearKernel,)

    def __init__(self, scale: float = 1.0, random_state: int | None = None) -> None:
        self.scale = scale
        self.random_state = random_state

    def check_params(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"scale={self.scale!r} is invalid: a number > 0")

    def fit(self, X, y=None) -> RandomRotation:
        self.check_params()
        d = self._validate_X(X, reset=True).shape[1]
        self.rotation_ = ortho_group.rvs(d, random_state=self.random_state) if d > 1 else np.ones((1, 1))
        return self

    def transform(self, X) -> np.ndarray:
        return self.scale * self._validate_X(X) @ self.rotation_.T


class PlainGaussianRFF(FeatureMap):
    """z(x) = M^-1/2 [cos(W^T x), sin(W^T x)], W ~ N(0, sigma^-2 I) in float64: Rahimi & Recht's features
    written from scratch, a Gaussian-kernel map for the atlas (``configs/feature_map/toy_rff.yaml``)."""

    approximates = (GaussianKernel,)

    def __init__(self, n_components: int = 100, sigma: float = 1.0, random_state: int | None = None) -> None:
        self.n_components = n_components
        self.sigma = sigma
        self.random_state = random_state

    @classmethod
    def from_kernel(cls, kernel: Kernel, **params) -> PlainGaussianRFF:
        return cls(sigma=kernel.sigma, **params)

    def check_params(self) -> None:
        if not self.n_components >= 1:
            raise ValueError(f"n_components={self.n_components!r} is invalid: an integer >= 1")

    def fit(self, X, y=None) -> PlainGaussianRFF:
        self.check_params()
        d = self._validate_X(X, reset=True).shape[1]
        rng = np.random.default_rng(self.random_state)
        self.random_weights_ = rng.standard_normal((d, self.n_components)) / self.sigma
        return self

    def transform(self, X) -> np.ndarray:
        projected = self._validate_X(X) @ self.random_weights_
        return np.hstack([np.cos(projected), np.sin(projected)]) / np.sqrt(self.n_components)


class NearestCentroid(GridSearchResults, ClassifierMixin, BaseEstimator):
    """Nearest class mean after shrinking each mean toward the overall mean by a factor on a grid,
    the factor chosen on the training set."""

    tasks = ("classification",)

    def __init__(self, shrink_grid=(0.0, 0.5)) -> None:
        self.shrink_grid = shrink_grid

    def check_params(self) -> None:
        if not all(0 <= s < 1 for s in self.shrink_grid):
            raise ValueError(f"shrink_grid={list(self.shrink_grid)!r} is invalid: values in [0, 1)")

    def fit(self, Z, y) -> NearestCentroid:
        self.check_params()
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        means = np.stack([Z[y_idx == k].mean(axis=0) for k in range(len(self.classes_))])
        center = Z.mean(axis=0)
        grid = np.asarray(self.shrink_grid, dtype=float)
        scores = []
        for s in grid:
            self.centroids_ = center + (1 - s) * (means - center)
            scores.append(np.mean(self.predict(Z) == y))
        best = float(grid[int(np.argmax(scores))])
        self.centroids_ = center + (1 - best) * (means - center)
        self._record_grid({"shrink": grid}, np.array(scores), {"shrink": best})
        return self

    def predict(self, Z) -> np.ndarray:
        distances = ((Z[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(distances, axis=1)]
