"""Independent reference computations for the kernel tests.

Kernels are written out from the paper's formulas (not via the package), and
expectations under part densities are computed by brute-force integration in
omega-space (quad in d = 1, a dense grid in d = 2).
"""
from __future__ import annotations

import numpy as np
from scipy import integrate

from rfbench.kernel import make_kernel

# name -> (params in d = 1, params in d = 2 with non-axis-aligned directions)
CASES = {
    "gaussian": ({"sigma": 1.3}, {"sigma": 1.5}),
    "shift_gaussian": ({}, {"sigma": 1.5, "r": [1.6, -1.1]}),
    "sinh_gaussian": ({}, {"sigma": 1.5, "beta": [0.6, 0.45]}),
    "cosh_gaussian": ({}, {"sigma": 1.5, "beta": [0.6, 0.45]}),
}


def kernel_case(name: str, d: int):
    return make_kernel(name, d, **CASES[name][d - 1])


def paper_formula(name: str, params: dict, D: np.ndarray) -> np.ndarray:
    """k(D) of eqs. (9)-(11) written out directly, D of shape (..., d)."""
    d = D.shape[-1]
    sigma = params.get("sigma", 1.0 if name == "gaussian" else 2.0)
    sq = np.sum(D**2, axis=-1)
    if name == "gaussian":
        return np.exp(-sq / (2 * sigma**2))
    if name == "shift_gaussian":
        r = np.broadcast_to(params.get("r", 2.0 / d), (d,))
        return np.exp(-np.sum((D + r) ** 2, axis=-1) / (2 * sigma**2))
    beta = np.broadcast_to(params.get("beta", 0.5 * np.pi / d), (d,))
    if name == "sinh_gaussian":
        return np.exp(-sq / (2 * sigma**2)) * (1 + np.sinh(D @ beta))
    return np.exp(-sq / (2 * sigma**2)) * np.exp(D @ beta)


def kinks_1d(kernel) -> np.ndarray:
    """Zeros of cos/sin(u w) in [-40, 40], where part densities have kinks (d = 1)."""
    u = abs(float(kernel.u[0]))
    if u == 0:
        return np.empty(0)
    j = np.arange(-int(80 * u / np.pi) - 1, int(80 * u / np.pi) + 2)
    pts = 0.5 * np.pi * j / u
    return pts[np.abs(pts) < 40]


def quad_expectations_1d(kernel, part: str, stats) -> np.ndarray:
    """E[stat(w)] under the normalized part density, by quad over omega (d = 1)."""
    L = 14.0 / kernel.sigma
    pts = kinks_1d(kernel)
    pts = pts[np.abs(pts) < L]

    def integral(fn, epsabs):
        return integrate.quad(
            lambda w: fn(w) * kernel.part_density(part, np.array([[w]]))[0],
            -L, L, points=pts, limit=2000, epsabs=epsabs, epsrel=1e-10,
        )[0]

    mass = integral(lambda w: 1.0, epsabs=0.0)  # positive integrand: relative accuracy
    # statistics may integrate to 0 (odd ones): absolute accuracy relative to the mass
    return np.array([integral(fn, epsabs=1e-12 * mass) / mass for fn in stats])


def grid_2d(kernel, half_width_std: float = 9.0, h: float = 0.01):
    """Dense grid over [-L, L]^2 (L = half_width_std / sigma) and its cell area."""
    L = half_width_std / kernel.sigma
    axis = np.arange(-L, L + h / 2, h)
    W = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    return W, h * h
