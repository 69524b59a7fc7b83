"""The Laplacian kernel k(D) = exp(-||D||_1 / sigma) and its spectral measure.

Rahimi and Recht (2007, Fig. 1 table) list k(D) = exp(-||D||_1) with Fourier transform
prod_k 1 / (pi (1 + w_k^2)); with a bandwidth sigma, by rescaling D -> D / sigma,

    k(D) = exp(-||D||_1 / sigma) = int exp(i w^T D) mu(w) dw,
    mu(w) = prod_k sigma / (pi (1 + sigma^2 w_k^2)),

the product of d Cauchy densities of scale 1 / sigma (the characteristic function of
Cauchy(0, g) is exp(-g |t|)).  mu is a probability density, so its only Jordan part is
real_pos, of mass k(0) = 1, sampled exactly (acceptance rate 1).  The kernel is also
the one random binning features approximate (``rfbench.feature_map.binning``).
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from rfbench.validation import is_int

from .base import PARTS, Kernel, Part, check_dim
from .modulated import check_sigma


class LaplacianKernel(Kernel):
    """Laplacian kernel k(D) = exp(-||D||_1 / sigma), shift-invariant and positive definite.

    Parameters
    ----------
    d : int
        Input dimension.
    sigma : float, default=1.0
        Bandwidth, the scale of the L1 distance; in [1e-30, 1e30].
    """

    name = "laplacian"
    parts: tuple[Part, ...] = ("real_pos",)

    def __init__(self, d: int, sigma: float = 1.0) -> None:
        self.d = check_dim(d)
        self.sigma = check_sigma(sigma)

    def value(self, delta: np.ndarray) -> np.ndarray:
        delta = self._check_last_axis(delta, "delta")
        return np.exp(-np.sum(np.abs(delta), axis=-1) / self.sigma)

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """Exact Gram matrix exp(-||x_i - y_j||_1 / sigma), shape (n, m), float64.

        ``cdist`` accumulates the L1 distances straight into the (n, m) output, so
        memory is the output's alone: no (n, m, d) difference tensor is formed.
        """
        X, Y = self._check_pair(X, Y)
        gram = cdist(X, Y, metric="cityblock")
        gram /= -self.sigma
        return np.exp(gram, out=gram)

    # --- spectral measure: product of Cauchy(0, 1 / sigma) densities -------------------
    def spectral_density(self, omega: np.ndarray) -> np.ndarray:
        """mu(omega) = prod_k sigma / (pi (1 + sigma^2 omega_k^2)), real, returned as complex128."""
        return self._cauchy_density(self._check_points(omega, "omega")).astype(np.complex128)

    def part_density(self, part: Part, omega: np.ndarray) -> np.ndarray:
        self._check_part(part)
        return self._cauchy_density(self._check_points(omega, "omega"))

    def sample(self, part: Part, n: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """n frequencies with i.i.d. Cauchy(0, 1 / sigma) coordinates, drawn exactly (rate 1)."""
        self._check_part(part)
        if not is_int(n) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        return rng.standard_cauchy((n, self.d)) / self.sigma, 1.0

    def exact_total_masses(self) -> dict[Part, float]:
        """mu is a probability density: |mu_R^+| = 1, the other parts 0 (no integration needed)."""
        return {p: 1.0 if p == "real_pos" else 0.0 for p in PARTS}

    def _cauchy_density(self, omega: np.ndarray) -> np.ndarray:
        s = self.sigma
        return np.prod(s / (np.pi * (1.0 + (s * omega) ** 2)), axis=-1)
