"""Kernels whose spectral density is a Gaussian modulated along one direction.

The Gaussian kernel and the three asymmetric kernels of the AsK-RFF paper
(eqs. 9-11) all have a spectral density (convention k(D) = int exp(i w^T D) mu(w) dw)

    mu(w) = g(w) m(u^T w),   g(w) = (sigma / sqrt(2 pi))^d exp(-sigma^2 ||w||^2 / 2),

where g is the N(0, sigma^-2 I) density, u in R^d a fixed direction and m a
complex function of the scalar projection t = u^T w.  Hence, for each part,

* the density (eq. 2) is g(w) h(t) with h = max(Re m, 0), max(-Re m, 0) or max(Im m, 0);
* acceptance-rejection with proposal g accepts w with probability h(t) / c,
  c = sup h = sup f / g (``envelopes``), at rate ||part|| / c;
* the total mass is one-dimensional whatever d is: under g, t ~ N(0, s^2) with
  s = ||u|| / sigma, so ||part|| = int g(w) h(u^T w) dw = E_{t ~ N(0, s^2)}[h(t)].
"""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from functools import cached_property

import numpy as np
from scipy import integrate
from scipy.special import ndtr
from scipy.stats import truncnorm

from rfbench.validation import is_real

from .base import PARTS, Kernel, Part, check_dim
from .sampling import rejection_sample

#: Standard deviations of t covered by the mass integral; the tail beyond is < 1e-32.
_Z_MAX = 12.0


def gaussian_density(omega: np.ndarray, sigma: float) -> np.ndarray:
    """g(omega) = (sigma / sqrt(2 pi))^d exp(-sigma^2 ||omega||^2 / 2), the N(0, sigma^-2 I) pdf.

    It is the spectral density of exp(-||D||^2 / (2 sigma^2)); omega has shape (..., d).
    """
    d = omega.shape[-1]
    sq_norm = np.einsum("...i,...i->...", omega, omega)
    return (sigma / np.sqrt(2.0 * np.pi)) ** d * np.exp(-0.5 * sigma**2 * sq_norm)


def squared_distances(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """||x_i - y_j||^2 as ||x_i||^2 + ||y_j||^2 - 2 x_i^T y_j (one GEMM, no (n, m, d) tensor).

    Cancellation can make the expansion slightly negative; it is clipped at 0.
    """
    sq = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Y, Y)[None, :] - 2.0 * X @ Y.T
    return np.maximum(sq, 0.0)


def projection_pieces(h: Callable[[float], float], s: float) -> tuple[np.ndarray, np.ndarray]:
    """Split E[h(t)], t = s z with z ~ N(0, 1), into pieces on which h is smooth.

    ``h`` must be smooth between consecutive points of (pi / 2) Z, which holds for
    max(+-cos, 0), max(+-sin, 0) and constants, so adaptive quadrature never meets
    a kink.  Pieces cover |z| <= _Z_MAX and at least three more pieces each side,
    so a part living in the far tail (e.g. real_neg for small s) is still resolved;
    relative (not absolute) tolerance keeps tiny masses accurate.

    Returns
    -------
    z_edges : ndarray of shape (p + 1,)
        Increasing piece boundaries in z.
    masses : ndarray of shape (p,)
        int over each piece of h(s z) phi(z) dz; their sum is E[h(t)].
    """
    z_edges = np.array([-_Z_MAX, 0.0, _Z_MAX])
    if s > 0:
        n_breaks = int(np.ceil(_Z_MAX * s / (0.5 * np.pi))) + 3
        z_edges = np.union1d(z_edges, 0.5 * np.pi * np.arange(-n_breaks, n_breaks + 1) / s)

    def integrand(z: float) -> float:
        return h(s * z) * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)

    masses = [integrate.quad(integrand, a, b, epsabs=0.0, epsrel=1e-10)[0] for a, b in zip(z_edges[:-1], z_edges[1:])]
    return z_edges, np.array(masses)


#: Bandwidths for which the frequencies ~1/sigma stay well inside float32, the features' dtype.
SIGMA_RANGE = (1e-30, 1e30)
#: Largest spread s = ||u|| / sigma: the skewed kernels' amplitude exp(s^2 / 2) and the
#: Shift-Gaussian's k(0) = exp(-s^2 / 2) stay within 1e30 and 1e-30 of 1, so total masses
#: and features are finite in float32 and the mass integral has a few dozen pieces.
MAX_SPREAD = float(np.sqrt(2.0 * np.log(1e30)))


def check_sigma(sigma: float) -> float:
    """Validate a bandwidth in ``SIGMA_RANGE``."""
    lo, hi = SIGMA_RANGE
    if not (is_real(sigma) and lo <= sigma <= hi):
        raise ValueError(f"sigma={sigma!r} is invalid: a bandwidth with {lo:g} <= sigma <= {hi:g}")
    return float(sigma)


def check_spread(spread: float, given: str, limit: str, reason: str) -> None:
    """Raise ValueError unless ``spread`` = ||u|| / sigma <= MAX_SPREAD.

    ``given`` names the parameters and the spread, ``limit`` the largest valid
    direction and ``reason`` what breaks beyond it, for the message.
    """
    if not spread <= MAX_SPREAD:
        raise ValueError(f"{given} = {spread:.4g} is too large: {reason}; choose {limit}")


def check_direction(name: str, value: float | np.ndarray | None, d: int, default: float) -> np.ndarray:
    """A non-zero vector of length d from None (default * ones), a scalar (scalar * ones) or a vector."""
    try:
        v = np.asarray(default if value is None else value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a scalar or a vector of length d={d}, got {value!r}") from None
    if v.ndim == 0:
        v = np.full(d, float(v))
    if v.shape != (d,):
        raise ValueError(f"{name} must be a scalar or a vector of length d={d}, got shape {v.shape}")
    if not np.all(np.isfinite(v)) or not np.any(v):
        raise ValueError(
            f"{name} must be finite and not all zero ({name}=0 is the plain 'gaussian' kernel), got {value!r}"
        )
    return v


class ModulatedGaussianKernel(Kernel):
    """Kernel with spectral density mu(w) = g(w) m(u^T w); see the module docstring.

    Subclasses implement ``value``, ``__call__`` and ``modulation`` and pass u and
    ``envelopes`` (c = sup h for every non-zero part; its keys define ``parts``).
    """

    #: Acceptance rate of the paper's rejection sampler below which ``sample``
    #: switches to the exact stratified sampler.
    MIN_REJECTION_RATE = 1e-3

    def __init__(self, d: int, sigma: float, u: np.ndarray, envelopes: dict[Part, float]) -> None:
        self.d = check_dim(d)
        self.sigma = check_sigma(sigma)
        self.u = u
        self.envelopes = envelopes
        self.parts = tuple(p for p in PARTS if p in envelopes)

    def _gauss(self, sq_dist: np.ndarray) -> np.ndarray:
        """exp(-sq_dist / (2 sigma^2)), the Gaussian kernel of a squared distance."""
        return np.exp(-0.5 * sq_dist / self.sigma**2)

    @abstractmethod
    def modulation(self, t: np.ndarray) -> np.ndarray:
        """m(t), complex, so that mu(w) = g(w) m(u^T w)."""

    def _profile(self, part: Part, t: np.ndarray) -> np.ndarray:
        """h(t) = part density / g, for a part already checked."""
        m = self.modulation(t)
        signed = {"real_pos": m.real, "real_neg": -m.real, "imag_pos": m.imag}[part]
        return np.maximum(signed, 0.0)

    def spectral_density(self, omega: np.ndarray) -> np.ndarray:
        omega = self._check_points(omega, "omega")
        return gaussian_density(omega, self.sigma) * self.modulation(omega @ self.u)

    def part_density(self, part: Part, omega: np.ndarray) -> np.ndarray:
        self._check_part(part)
        omega = self._check_points(omega, "omega")
        return gaussian_density(omega, self.sigma) * self._profile(part, omega @ self.u)

    def sample(self, part: Part, n: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """n frequencies from the normalized part, and the empirical acceptance rate.

        The paper's scheme (Section 4): propose w ~ g = N(0, sigma^-2 I), accept
        with probability h(u^T w) / c; the rate is ||part|| / c.  Below
        ``MIN_REJECTION_RATE`` (e.g. real_neg of shift_gaussian for d >= 8 with the
        paper's r, rate 6e-7 at d = 8 and 1e-34 at d = 57) that needs > 1 / rate
        proposals per sample, so ``_sample_stratified`` draws the same law instead.
        """
        self._check_part(part)
        c = self.envelopes[part]
        expected_rate = self._masses[part] / c
        if expected_rate < self.MIN_REJECTION_RATE:
            return self._sample_stratified(part, n, rng)
        return rejection_sample(
            propose=lambda gen, size: gen.standard_normal((size, self.d)) / self.sigma,
            accept_prob=lambda W: self._profile(part, W @ self.u) / c,
            n=n,
            rng=rng,
            expected_rate=min(1.0, expected_rate),
            max_batch=max(1, 2**24 // self.d),
        )

    def _sample_stratified(self, part: Part, n: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """The paper's scheme with the proposal restricted to the part's support, in 1-D.

        Under g, w = (z u_hat + P x) / sigma with z ~ N(0, 1), P = I - u_hat u_hat^T
        and x ~ N(0, I_d) independent of z, and t = u^T w = s z, s = ||u|| / sigma.
        The part density g(w) h(t) only reweights z, to phi(z) h(s z).  So z is
        drawn by acceptance-rejection (probability h(s z) / c) from phi truncated
        to the pieces of ``projection_pieces`` where h is not identically 0 (piece
        chosen with its normal probability), which is exact for parts of any mass;
        the returned rate is that of this 1-D step.
        """
        z_edges, piece_masses = self._pieces[part]
        lo, hi = z_edges[:-1][piece_masses > 0], z_edges[1:][piece_masses > 0]
        if len(lo) == 0:
            raise ValueError(f"part {part!r} of kernel {self.name!r} has numerically zero mass; it cannot be sampled")
        # normal probability of each piece, from the nearer tail to keep far pieces accurate
        prob = np.where(lo > 0, ndtr(-lo) - ndtr(-hi), ndtr(hi) - ndtr(lo))
        s, c = float(np.linalg.norm(self.u)) / self.sigma, self.envelopes[part]

        def propose(gen: np.random.Generator, size: int) -> np.ndarray:
            j = gen.choice(len(prob), size=size, p=prob / prob.sum())
            return truncnorm.rvs(lo[j], hi[j], size=size, random_state=gen)[:, None]

        z, rate = rejection_sample(
            propose,
            lambda z: self._profile(part, s * z[:, 0]) / c,
            n,
            rng,
            expected_rate=min(1.0, self._masses[part] / (c * prob.sum())),
        )
        u_hat = self.u / np.linalg.norm(self.u)
        x = rng.standard_normal((n, self.d))
        x -= np.outer(x @ u_hat, u_hat)
        return (z * u_hat + x) / self.sigma, rate

    def exact_total_masses(self) -> dict[Part, float]:
        """||part|| = E_{t ~ N(0, s^2)}[h(t)], s = ||u|| / sigma: a 1-D integral in any d."""
        return dict(self._masses)

    @cached_property
    def _pieces(self) -> dict[Part, tuple[np.ndarray, np.ndarray]]:
        """``projection_pieces`` of every non-zero part."""
        s = float(np.linalg.norm(self.u)) / self.sigma
        return {p: projection_pieces(lambda t, p=p: self._profile(p, t), s) for p in self.parts}

    @cached_property
    def _masses(self) -> dict[Part, float]:
        return {p: float(self._pieces[p][1].sum()) if p in self.parts else 0.0 for p in PARTS}
