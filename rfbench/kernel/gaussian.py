"""Symmetric reference kernels: Gaussian (shift-invariant, PD) and linear (not shift-invariant)."""
from __future__ import annotations

import numpy as np

from .base import Kernel, check_dim
from .modulated import ModulatedGaussianKernel, squared_distances


class GaussianKernel(ModulatedGaussianKernel):
    """Gaussian kernel k(D) = exp(-||D||^2 / (2 sigma^2)).

    Its spectral measure is the probability density g = N(0, sigma^-2 I)
    (m = 1, u = 0): a single part real_pos of mass k(0) = 1, sampled with
    acceptance rate 1.

    Parameters
    ----------
    d : int
        Input dimension.
    sigma : float
        Bandwidth, > 0.
    """

    name = "gaussian"

    def __init__(self, d: int, sigma: float = 1.0) -> None:
        super().__init__(d, sigma, u=np.zeros(check_dim(d)), envelopes={"real_pos": 1.0})

    def modulation(self, t: np.ndarray) -> np.ndarray:
        return np.ones_like(t, dtype=np.complex128)

    def value(self, delta: np.ndarray) -> np.ndarray:
        delta = self._check_last_axis(delta, "delta")
        return self._gauss(np.sum(delta**2, axis=-1))

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X, Y = self._check_pair(X, Y)
        return self._gauss(squared_distances(X, Y))


class LinearKernel(Kernel):
    """Linear kernel k(x, y) = x^T y, the baseline of a linear classifier.

    It is not shift-invariant (x^T y is no function of x - y), so it has no
    ``value`` and no spectral measure: only the Gram matrix is available.
    """

    name = "linear"

    def __init__(self, d: int) -> None:
        self.d = check_dim(d)

    def value(self, delta: np.ndarray) -> np.ndarray:
        raise NotImplementedError(
            "the linear kernel x^T y is not shift-invariant, so k(delta) is undefined; "
            "use the Gram matrix kernel(X, Y)"
        )

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X, Y = self._check_pair(X, Y)
        return X @ Y.T
