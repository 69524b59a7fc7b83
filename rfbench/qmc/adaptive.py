r"""Frequency sequences adapted to a box by minimizing its discrepancy (Avron et al., Section 5).

* ``global_adaptive``: all s points at once, S* = argmin_S D(S)^2, from a starting sequence
  (the paper's: Halton) by nonlinear conjugate gradient (scipy's ``minimize(method="CG")``,
  Polak-Ribiere) with the gradient of eq. (14).
* ``greedy_adaptive``: one point at a time, w_t = argmin_w D(S_{t-1} + {w})^2 (eq. (15)),
  the t-th point of the starting sequence as the initial guess, also by CG.
* ``optimal_weights``: for fixed points, the non-negative weights of least D(S, xi)^2, the
  quadratic program (17), min xi^T H xi - 2 v^T xi s.t. xi >= 0, solved by L-BFGS-B with
  bounds (the paper used CVX).

Each takes a ``BoxDiscrepancy`` whose box is the data's ``bounding_box`` b or its central
part (b/2, b/4: pass ``bounding_box(X) / 4``). The objective is the normalized discrepancy
(pi^d / prod_j b_j) D^2, of the same minimizers as D^2 but of order one whatever d and b,
so that the solvers' absolute tolerances mean the same thing everywhere.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.special import ndtri

from .discrepancy import BoxDiscrepancy
from .sequences import unit_points

#: CG's stopping tolerance on the gradient's largest entry.  scipy's default, 1e-5, is above the
#: gradients of the normalized D^2 (about 9e-6 at s = 300 on cpu), so CG stopped before its first
#: step; at 1e-12 the iteration limit decides, as in the paper's early stopping.
GTOL = 1e-12


def halton_frequencies(s: int, d: int, sigma: float) -> np.ndarray:
    """The paper's starting sequence: the scrambled Halton points mapped to N(0, sigma^-2 I), shape (s, d)."""
    return ndtri(unit_points("halton", s, d)) / sigma


def global_adaptive(
    W0: ArrayLike,
    discrepancy: BoxDiscrepancy,
    *,
    maxiter: int = 100,
    gtol: float = GTOL,
    callback: Callable[[np.ndarray], None] | None = None,
) -> np.ndarray:
    """Minimize D(S)^2 over all s points jointly from W0 (s, d) by nonlinear CG.

    Parameters
    ----------
    W0 : array-like of shape (s, d)
        Starting frequencies, e.g. ``halton_frequencies(s, d, sigma)``.
    discrepancy : BoxDiscrepancy
    maxiter : int, default=100
        CG iterations; the paper stops early (Section 6.2), as the error on data can rise
        while the discrepancy keeps falling.
    gtol : float, default=GTOL
        CG stops when the gradient's largest entry is below it (see ``GTOL``).
    callback : callable, optional
        Called with the current frequencies (s, d) after every iteration, e.g. to record
        Gram errors along the optimization (Figure 6).

    Returns
    -------
    ndarray of shape (s, d)
    """
    W0 = np.asarray(W0, dtype=np.float64)
    objective = _normalized(discrepancy)

    def value_and_gradient(flat: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = objective.squared_and_gradient(flat.reshape(W0.shape))
        return value, grad.ravel()

    report = None if callback is None else (lambda flat: callback(flat.reshape(W0.shape)))
    result = minimize(
        value_and_gradient, W0.ravel(), jac=True, method="CG", callback=report,
        options={"maxiter": maxiter, "gtol": gtol},
    )
    return result.x.reshape(W0.shape)


def greedy_adaptive(
    W0: ArrayLike, discrepancy: BoxDiscrepancy, *, maxiter: int = 50, gtol: float = GTOL
) -> np.ndarray:
    """Add points one at a time, each minimizing D(S_{t-1} + {w})^2 from the t-th row of W0.

    The result is extensible: its first t rows are the greedy sequence of t points.

    Parameters
    ----------
    W0 : array-like of shape (s, d)
        Initial guesses, e.g. ``halton_frequencies(s, d, sigma)``.
    discrepancy : BoxDiscrepancy
    maxiter : int, default=50
        CG iterations per point.
    gtol : float, default=GTOL
        CG's gradient tolerance per point (see ``GTOL``).

    Returns
    -------
    ndarray of shape (s, d)
    """
    W0 = np.asarray(W0, dtype=np.float64)
    objective = _normalized(discrepancy)
    W = np.empty_like(W0)
    for t, start in enumerate(W0):
        step = objective.extension(W[:t])
        W[t] = minimize(step, start, jac=True, method="CG", options={"maxiter": maxiter, "gtol": gtol}).x
    return W


def optimal_weights(W: ArrayLike, discrepancy: BoxDiscrepancy) -> np.ndarray:
    """Non-negative weights xi of least D(S, xi)^2 for the points W (s, d), the QP (17).

    Starts from the uniform weights 1/s, so the result's discrepancy is never larger.
    The weighted feature map is z(x) = [sqrt(xi_l) cos(w_l^T x), sqrt(xi_l) sin(w_l^T x)]_l.
    """
    H, v, _ = _normalized(discrepancy).quadratic_form(W)
    s = len(v)
    result = minimize(
        lambda xi: (xi @ H @ xi - 2.0 * v @ xi, 2.0 * (H @ xi - v)),
        np.full(s, 1.0 / s),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * s,
        options={"maxiter": 10 * s + 1000, "ftol": 1e-15, "gtol": 1e-12},
    )
    return result.x


def _normalized(discrepancy: BoxDiscrepancy) -> BoxDiscrepancy:
    return BoxDiscrepancy(discrepancy.b, discrepancy.sigma, normalized=True, trig=discrepancy.trig)
