"""Subset least-squares estimation of the total masses, problem (12) of the paper.

With unit-mass Gram matrices on a subset X_s of Ns points,

    C_w[i, j] = mean_l cos(w_l^T (x_i - x_j)),   C_z likewise from z ~ mu_R^- / ||mu_R^-||,
    S_v[i, j] = mean_l sin(v_l^T (x_i - x_j)) = [phi(v, x_i)^T psi(v, x_j)] of eq. (8),

eq. (7) reads K ~ xi1 C_w - xi2 C_z - 2 xi3 S_v, and the masses solve

    min_xi ||K - xi1 C_w + xi2 C_z + 2 xi3 S_v||_F^2   s.t.  xi1 - xi2 = k(0),  xi >= 0.

(The paper prints "- 2 xi3 phi psi^T" inside the norm, which contradicts eq. (7).)

Symmetric variant: C_w, C_z are symmetric and S_v is antisymmetric, so the
objective splits into ||sym(K) - xi1 C_w + xi2 C_z||^2 + ||skew(K) + 2 xi3 S_v||^2.
Passing only the real_pos/real_neg bases with target (K + K^T) / 2 therefore
fits the symmetric part alone (and gives the same xi1, xi2 as the full problem).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.optimize import nnls

from .base import PARTS, Part


def unit_mass_grams(Xs: np.ndarray, freqs: Mapping[Part, np.ndarray]) -> dict[Part, np.ndarray]:
    """Unit-mass Gram matrices C_w, C_z, S_v of each part from its frequencies.

    Uses cos(a - b) = cos a cos b + sin a sin b and sin(a - b) = sin a cos b - cos a sin b
    with a = X_s w_l, so only (Ns, M) matrices and GEMMs are formed.

    Parameters
    ----------
    Xs : ndarray of shape (Ns, d)
    freqs : mapping from part to ndarray of shape (M, d), M >= 1
        Frequencies sampled from the normalized part.

    Returns
    -------
    dict from part to ndarray of shape (Ns, Ns)
    """
    Xs = np.asarray(Xs, dtype=np.float64)
    grams: dict[Part, np.ndarray] = {}
    for part, W in freqs.items():
        _check_part_name(part)
        W = np.asarray(W, dtype=np.float64)
        if W.ndim != 2 or W.shape[0] == 0 or W.shape[1] != Xs.shape[1]:
            raise ValueError(f"freqs[{part!r}] must have shape (M >= 1, d={Xs.shape[1]}), got {W.shape}")
        proj = Xs @ W.T
        cos, sin = np.cos(proj), np.sin(proj)
        gram = sin @ cos.T - cos @ sin.T if part == "imag_pos" else cos @ cos.T + sin @ sin.T
        grams[part] = gram / W.shape[0]
    return grams


def estimate_total_masses(target: np.ndarray, bases: Mapping[Part, np.ndarray], k0: float) -> dict[Part, float]:
    """Solve problem (12) exactly for the total masses xi = (xi1, xi2, xi3).

    Substituting xi1 = k0 + xi2 leaves the bound-constrained least squares

        min ||(K - k0 C_w) - xi2 (C_w - C_z) + 2 xi3 S_v||_F^2,  xi2 >= max(0, -k0),  xi3 >= 0,

    which, after shifting xi2 to its lower bound, is a non-negative least-squares
    problem solved exactly by the active-set method (scipy.optimize.nnls).

    Parameters
    ----------
    target : ndarray of shape (Ns, Ns)
        Exact (sub-)Gram matrix K[i, j] = k(x_i - x_j).
    bases : mapping from part to ndarray of shape (Ns, Ns)
        Unit-mass Gram matrices (``unit_mass_grams``); "real_pos" is required,
        absent parts have their mass fixed to 0.
    k0 : float
        k(0).

    Returns
    -------
    dict from each part in PARTS to its estimated total mass.
    """
    target = np.asarray(target, dtype=np.float64)
    if target.ndim != 2 or target.shape[0] != target.shape[1]:
        raise ValueError(f"target must be a square matrix, got shape {target.shape}")
    for part, basis in bases.items():
        _check_part_name(part)
        if np.shape(basis) != target.shape:
            raise ValueError(f"bases[{part!r}] has shape {np.shape(basis)}, target has {target.shape}")
    if "real_pos" not in bases:
        raise ValueError(f"bases must contain 'real_pos', got {sorted(bases)}")
    if k0 < 0 and "real_neg" not in bases:
        raise ValueError(f"k0={k0} < 0 requires a 'real_neg' basis (xi1 - xi2 = k0 with xi >= 0)")

    c_w = np.asarray(bases["real_pos"], dtype=np.float64)
    # free unknown -> (its column in the residual, its lower bound)
    design: dict[Part, tuple[np.ndarray, float]] = {}
    if "real_neg" in bases:
        design["real_neg"] = (c_w - np.asarray(bases["real_neg"], dtype=np.float64), max(0.0, -k0))
    if "imag_pos" in bases:
        design["imag_pos"] = (-2.0 * np.asarray(bases["imag_pos"], dtype=np.float64), 0.0)

    masses = dict.fromkeys(PARTS, 0.0)
    if design:
        A = np.stack([col.ravel() for col, _ in design.values()], axis=1)
        lb = np.array([bound for _, bound in design.values()])
        shifted, _ = nnls(A, (target - k0 * c_w).ravel() - A @ lb)
        masses.update(zip(design, (shifted + lb).tolist()))
    masses["real_pos"] = k0 + masses["real_neg"]
    return masses


def _check_part_name(part: str) -> None:
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}; valid parts: {list(PARTS)}")
