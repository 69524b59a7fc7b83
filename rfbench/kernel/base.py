"""Shift-invariant kernels and their spectral (complex) measures.

A real, absolutely integrable, shift-invariant kernel k(x, y) = k(x - y) is the
Fourier transform of a complex measure (He et al. 2022, Prop. 4)

    k(Delta) = int exp(i w^T Delta) mu(dw),    mu = mu_R + i mu_I,

whose Jordan decomposition gives four finite positive measures
mu_R^+, mu_R^-, mu_I^+, mu_I^- (eq. 2).  Because mu_I is odd, mu_I^-(w) = mu_I^+(-w)
(eq. 3), so only three parts are ever sampled:

    k(Delta) = |mu_R^+| E[cos(w^T Delta)] - |mu_R^-| E[cos(z^T Delta)]
               - 2 |mu_I^+| E[sin(v^T Delta)]                         (eq. 7)

with w, z, v drawn from the normalized parts.  ``Kernel`` fixes that vocabulary;
concrete kernels live in ``gaussian.py`` and ``asymmetric.py``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from numbers import Integral
from typing import Literal

import numpy as np

#: The three sampled Jordan parts of the spectral measure, in eq. (7) order.
Part = Literal["real_pos", "real_neg", "imag_pos"]
PARTS: tuple[Part, ...] = ("real_pos", "real_neg", "imag_pos")


def check_dim(d: int) -> int:
    """Validate the input dimension d >= 1."""
    if isinstance(d, bool) or not isinstance(d, Integral) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    return int(d)


class Kernel(ABC):
    """A shift-invariant kernel on R^d with exact evaluation and spectral measure.

    Subclasses set ``name`` and ``d`` and implement ``value``; kernels with a
    spectral measure also implement ``spectral_density``, ``part_density``,
    ``sample`` and ``exact_total_masses`` and list their non-zero parts in
    ``parts``.
    """

    name: str
    d: int
    #: Jordan parts with non-zero mass, a subset of ``PARTS`` in that order.
    parts: tuple[Part, ...] = ()

    @abstractmethod
    def value(self, delta: np.ndarray) -> np.ndarray:
        """k(Delta) for an array of differences of shape (..., d), float64."""

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """Exact Gram matrix K[i, j] = k(x_i - y_j) in float64 (not symmetric in general)."""
        raise NotImplementedError

    @property
    def k0(self) -> float:
        """k(0), the constraint |mu_R^+| - |mu_R^-| = k(0) of Corollary 5."""
        return float(self.value(np.zeros((1, self.d)))[0])

    @property
    def is_symmetric(self) -> bool:
        """True when k(Delta) = k(-Delta), i.e. mu_I = 0."""
        return "imag_pos" not in self.parts

    # --- spectral measure -------------------------------------------------------
    def spectral_density(self, omega: np.ndarray) -> np.ndarray:
        """Complex density mu(omega) w.r.t. Lebesgue measure, omega of shape (n, d)."""
        raise NotImplementedError(f"kernel {self.name!r} has no spectral measure")

    def part_density(self, part: Part, omega: np.ndarray) -> np.ndarray:
        """Unnormalized density of one Jordan part (eq. 2) at omega of shape (n, d)."""
        raise NotImplementedError(f"kernel {self.name!r} has no spectral measure")

    def sample(self, part: Part, n: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """n frequencies (n, d) from the normalized part, and the acceptance rate used."""
        raise NotImplementedError(f"kernel {self.name!r} has no spectral measure")

    def exact_total_masses(self) -> dict[Part, float]:
        """|mu_R^+|, |mu_R^-|, |mu_I^+| by numerical integration (0 for absent parts)."""
        raise NotImplementedError(f"kernel {self.name!r} has no spectral measure")

    # --- input checks shared by subclasses -------------------------------------
    def _check_last_axis(self, a: np.ndarray, what: str) -> np.ndarray:
        """``a`` as float64, its last axis required to have length d."""
        a = np.asarray(a, dtype=np.float64)
        if a.ndim == 0 or a.shape[-1] != self.d:
            raise ValueError(f"{what} must have last axis of length d={self.d}, got shape {a.shape}")
        return a

    def _check_points(self, X: np.ndarray, what: str) -> np.ndarray:
        """Data matrix of shape (n, d) as float64."""
        X = self._check_last_axis(X, what)
        if X.ndim != 2:
            raise ValueError(f"{what} must be 2-D of shape (n, {self.d}), got shape {X.shape}")
        return X

    def _check_pair(self, X: np.ndarray, Y: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Gram arguments (X, Y) as float64 (n, d) and (m, d); Y defaults to X."""
        X = self._check_points(X, "X")
        return X, (X if Y is None else self._check_points(Y, "Y"))

    def _check_part(self, part: str) -> None:
        if part not in self.parts:
            raise ValueError(
                f"part {part!r} is not a non-zero part of kernel {self.name!r}; "
                f"valid parts: {list(self.parts)}"
            )
