"""The three asymmetric kernels of the AsK-RFF paper, eqs. (9)-(11).

With G(D) = exp(-||D||^2 / (2 sigma^2)), g the N(0, sigma^-2 I) density and the
convention k(D) = int exp(i w^T D) mu(w) dw, completing the square gives

    G(D) exp(beta^T D) = exp(sigma^2 ||beta||^2 / 2) G(D - sigma^2 beta)
                       = int exp(i w^T D) A g(w) exp(-i sigma^2 beta^T w) dw,

with A = exp(sigma^2 ||beta||^2 / 2), and G(D + r) = int exp(i w^T D) g(w) exp(i r^T w) dw.
All three Fourier pairs printed in the paper agree with this.  Each mu is
g(w) m(u^T w) (see ``modulated``); the Jordan parts and rejection envelopes are:

============  ==========  =========================  =====================================
kernel        u           m(t)                       non-zero parts (envelope c)
============  ==========  =========================  =====================================
shift         r           exp(i t)                   real_pos, real_neg, imag_pos (1)
sinh          sigma^2 b   1 - i A sin t              real_pos (1), imag_pos (A)
cosh          sigma^2 b   A exp(-i t)                real_pos, real_neg, imag_pos (A)
============  ==========  =========================  =====================================

sinh has mu_R = g >= 0, so its real_neg part is identically zero.
"""
from __future__ import annotations

from abc import abstractmethod

import numpy as np

from .base import Part, check_dim
from .modulated import (
    MAX_SPREAD,
    ModulatedGaussianKernel,
    check_direction,
    check_sigma,
    check_spread,
    squared_distances,
)


class ShiftGaussian(ModulatedGaussianKernel):
    """Shift-Gaussian kernel k(D) = exp(-||D + r||^2 / (2 sigma^2)), eq. (9).

    mu(w) = g(w) exp(i r^T w): parts g max(+-cos(r^T w), 0) and g max(sin(r^T w), 0),
    all with envelope 1 (acceptance rate = mass); k(0) = exp(-||r||^2 / (2 sigma^2)).

    Parameters
    ----------
    d : int
        Input dimension.
    sigma : float
        Bandwidth, > 0.
    r : float or array of shape (d,), optional
        Shift; a scalar means r * ones(d), None the paper's (2 / d) * ones(d).
    """

    name = "shift_gaussian"

    def __init__(self, d: int, sigma: float = 2.0, r: float | np.ndarray | None = None) -> None:
        d, sigma = check_dim(d), check_sigma(sigma)
        self.r = check_direction("r", r, d, default=2.0 / d)
        bound = MAX_SPREAD * sigma
        check_spread(_norm(self.r) / sigma, f"r={_given(r)} with sigma={sigma:g}: ||r|| / sigma",
                     f"||r|| <= {bound:.4g} (|r| <= {bound / np.sqrt(d):.4g} for a constant r at d={d})",
                     "k(0) = exp(-||r||^2 / (2 sigma^2)) is below 1e-30")
        envelopes: dict[Part, float] = {"real_pos": 1.0, "real_neg": 1.0, "imag_pos": 1.0}
        super().__init__(d, sigma, u=self.r, envelopes=envelopes)

    def modulation(self, t: np.ndarray) -> np.ndarray:
        return np.exp(1j * t)

    def value(self, delta: np.ndarray) -> np.ndarray:
        delta = self._check_last_axis(delta, "delta")
        return self._gauss(np.sum((delta + self.r) ** 2, axis=-1))

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X, Y = self._check_pair(X, Y)
        return self._gauss(squared_distances(X + self.r, Y))


class _SkewedGaussian(ModulatedGaussianKernel):
    """k(D) = G(D) a(beta^T D) with u = sigma^2 beta and A = exp(sigma^2 ||beta||^2 / 2).

    Subclasses give the skew factor a and the envelopes as a function of A.
    """

    def __init__(self, d: int, sigma: float = 2.0, beta: float | np.ndarray | None = None) -> None:
        d, sigma = check_dim(d), check_sigma(sigma)
        self.beta = check_direction("beta", beta, d, default=0.5 * np.pi / d)
        bound = MAX_SPREAD / sigma
        check_spread(sigma * _norm(self.beta), f"beta={_given(beta)} with sigma={sigma:g}: sigma ||beta||",
                     f"||beta|| <= {bound:.4g} (|beta| <= {bound / np.sqrt(d):.4g} for a constant beta at d={d})",
                     "the spectral measure's amplitude exp(sigma^2 ||beta||^2 / 2) exceeds 1e30")
        self.amplitude = float(np.exp(0.5 * sigma**2 * self.beta @ self.beta))
        super().__init__(d, sigma, u=sigma**2 * self.beta, envelopes=self._envelopes(self.amplitude))

    @staticmethod
    @abstractmethod
    def _envelopes(amplitude: float) -> dict[Part, float]:
        """Envelope c of each non-zero part."""

    @staticmethod
    @abstractmethod
    def skew(p: np.ndarray) -> np.ndarray:
        """a(p) for p = beta^T D."""

    def value(self, delta: np.ndarray) -> np.ndarray:
        delta = self._check_last_axis(delta, "delta")
        return self._gauss(np.sum(delta**2, axis=-1)) * self.skew(delta @ self.beta)

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        X, Y = self._check_pair(X, Y)
        # beta^T (x_i - y_j) as an outer difference: (n, m), never (n, m, d)
        return self._gauss(squared_distances(X, Y)) * self.skew(np.subtract.outer(X @ self.beta, Y @ self.beta))


class SinhGaussian(_SkewedGaussian):
    """Sinh-Gaussian kernel k(D) = G(D) (1 + sinh(beta^T D)), eq. (10).

    mu(w) = g(w) [1 - i A sin(sigma^2 beta^T w)]: real_pos = g (mass 1, direct
    sampling), imag_pos = A g max(-sin(sigma^2 beta^T w), 0) with envelope A.

    Parameters
    ----------
    d : int
        Input dimension.
    sigma : float
        Bandwidth, > 0.
    beta : float or array of shape (d,), optional
        Skew direction; a scalar means beta * ones(d), None the paper's (pi / (2 d)) * ones(d).
    """

    name = "sinh_gaussian"

    @staticmethod
    def _envelopes(amplitude: float) -> dict[Part, float]:
        return {"real_pos": 1.0, "imag_pos": amplitude}

    @staticmethod
    def skew(p: np.ndarray) -> np.ndarray:
        return 1.0 + np.sinh(p)

    def modulation(self, t: np.ndarray) -> np.ndarray:
        return 1.0 - 1j * self.amplitude * np.sin(t)


class CoshGaussian(_SkewedGaussian):
    """"Cosh"-Gaussian kernel k(D) = G(D) exp(beta^T D), eq. (11) (an exp, not a cosh, skew).

    mu(w) = A g(w) exp(-i sigma^2 beta^T w): parts A g max(+-cos(t), 0) and
    A g max(-sin(t), 0), t = sigma^2 beta^T w, all with envelope A.

    Parameters
    ----------
    d : int
        Input dimension.
    sigma : float
        Bandwidth, > 0.
    beta : float or array of shape (d,), optional
        Skew direction; a scalar means beta * ones(d), None the paper's (pi / (2 d)) * ones(d).
    """

    name = "cosh_gaussian"

    @staticmethod
    def _envelopes(amplitude: float) -> dict[Part, float]:
        return {"real_pos": amplitude, "real_neg": amplitude, "imag_pos": amplitude}

    @staticmethod
    def skew(p: np.ndarray) -> np.ndarray:
        return np.exp(p)

    def modulation(self, t: np.ndarray) -> np.ndarray:
        return self.amplitude * np.exp(-1j * t)


def _norm(v: np.ndarray) -> float:
    """||v||, inf (without a warning) when its square overflows."""
    with np.errstate(over="ignore"):
        return float(np.linalg.norm(v))


def _given(value: object) -> str:
    """A direction as given in the config (null: the paper's default)."""
    return "null (the paper's default)" if value is None else repr(value)
