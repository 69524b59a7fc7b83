r"""The RBF kernel in Li's parametrization (KDD 2017, eqs. 1 and 8).

    RBF(u, v; gamma) = exp(-gamma (1 - rho)),   rho = u^T v / (||u||_2 ||v||_2)   (eqs. 8, 1)

Relation to rfbench's other RBF parametrizations.  On rows scaled to unit l2
norm, ||u - v||^2 = 2 (1 - rho), so

    exp(-gamma (1 - rho)) = exp(-||u - v||^2 / (2 sigma^2))   with sigma = gamma^(-1/2)
                          = exp(-gamma' ||u - v||^2)           with gamma' = gamma / 2,

i.e. ``GaussianKernel(d, sigma=gamma**-0.5)`` applied to the normalized rows, or
``rfbench.model.kernel_svm.PrecomputedKernelSVC`` on normalized rows with its
``gamma_grid`` set to the paper's gamma values halved.  This kernel normalizes
the rows itself, so it takes raw data.  Rule for zero rows (rho undefined):
like ``sklearn.preprocessing.normalize``, a zero row stays the zero vector,
so its value with a unit row is exp(-gamma / 2) and with another zero row 1;
the kernel stays positive definite and equal to what ``NRFF`` approximates.
"""
from __future__ import annotations

import numpy as np
from sklearn.preprocessing import normalize

from rfbench.validation import is_real

from .base import Kernel, check_dim
from .gaussian import GaussianKernel

#: gamma = sigma^-2 over the Gaussian kernel's bandwidth range, written as the round numbers it means
#: (``1e-30 ** -2`` is ``9.999999999999998e+59`` in floating point, which refused gamma = 1e60 itself).
GAMMA_RANGE = (1e-60, 1e60)


def check_gamma(gamma: float) -> float:
    """Validate gamma in ``GAMMA_RANGE`` (the paper searches ``0.001`` to ``1000``)."""
    lo, hi = GAMMA_RANGE
    if not (is_real(gamma) and lo <= gamma <= hi):
        raise ValueError(f"gamma={gamma!r} is invalid: need {lo!r} <= gamma <= {hi!r} (the paper uses 0.001 to 1000)")
    return float(gamma)


class CosineRBFKernel(Kernel):
    """exp(-gamma (1 - cos(u, v))), the RBF kernel of Li (eq. 8); see the module docstring.

    Not shift-invariant on raw data (it depends on directions only), so
    ``value`` is undefined; ``__call__`` gives the Gram matrix.  Its random
    features are ``rfbench.feature_map.NRFF``.

    Parameters
    ----------
    d : int
        Input dimension.
    gamma : float, default=1.0
        The paper's gamma > 0; the Gaussian bandwidth on normalized rows is gamma^(-1/2).
    """

    name = "cosine_rbf"

    def __init__(self, d: int, gamma: float = 1.0) -> None:
        self.d = check_dim(d)
        self.gamma = check_gamma(gamma)
        self._gaussian = GaussianKernel(self.d, sigma=self.gamma**-0.5)

    def value(self, delta: np.ndarray) -> np.ndarray:
        raise NotImplementedError(
            "the cosine RBF kernel exp(-gamma (1 - rho)) is not shift-invariant on raw data, so k(delta) is "
            "undefined; use the Gram matrix kernel(X, Y), or GaussianKernel(d, sigma=gamma**-0.5) on rows "
            "normalized to unit l2 norm"
        )

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """exp(-gamma (1 - rho(x_i, y_j))) for all pairs, float64 of shape (n, m)."""
        X, Y = self._check_pair(X, Y)
        return self._gaussian(normalize(X), normalize(Y))
