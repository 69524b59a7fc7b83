"""The Bochner tutorial's demonstration, as a job: K random features estimate a 1-D kernel.

The tutorial (``../shared/papers/bochner-rff-tutorial.txt``) draws w_1..w_K ~ p = N(0, 1),
maps a point x to psi(x) = K^-1/2 [cos(w_k x), sin(w_k x)]_k, and estimates the kernel at
x = 1, y = 2 by psi(x)^T psi(y) = (1/K) sum_k cos(w_k (x - y)), plotting the error against K
for the "true kernel" it states, (2 pi)^-1/2 exp(-(x - y)^2 / 2).  By the law of large numbers
the estimate tends to E[cos(w D)] = int cos(w D) p(w) dw = exp(-D^2 / 2) (the characteristic
function of N(0, 1)): :func:`compute` records the errors against both, and
:mod:`rfbench.papers.tutorial.report` sets that limit, in closed form and by quadrature, against
the stated target.  ``rfbench job=tutorial`` runs it (``configs/job/tutorial.yaml``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import integrate, stats

from rfbench.engine import jobs

#: Differences D at which the estimated kernel is drawn, for these K (one draw of w).
CURVE_D = np.linspace(-5.0, 5.0, 401)
CURVE_K = (10, 100, 1000)


def compute(trial: int, seed: int, x: float, y: float, k_max: int, reps: int) -> dict[str, pd.DataFrame]:
    """``reps`` independent sweeps K = 1..k_max of the estimate at (x, y), and one draw's kernel curves.

    Returns ``errors`` (one row per K: mean and single-run estimate, RMS errors against the stated
    target and the actual limit, with their theoretical values) and ``curves`` (D, K, estimate).
    """
    w = np.random.default_rng(jobs.trial_seed(seed, trial)).standard_normal((reps, k_max))
    errors = error_table(running_estimates(w, x, y), x - y).round(8)
    curves = pd.concat([pd.DataFrame({"D": CURVE_D, "K": K, "estimate": running_estimates(w[0, :K], CURVE_D[:, None],
                                                                                          0.0)[:, -1]})
                        for K in CURVE_K if K <= k_max], ignore_index=True)
    return {"errors": errors, "curves": curves}


def stated_target(D: np.ndarray | float) -> np.ndarray:
    """The tutorial's "true kernel" (2 pi)^-1/2 exp(-D^2 / 2), i.e. the N(0, 1) density at D."""
    return stats.norm.pdf(D)


def exact_limit(D: np.ndarray | float) -> np.ndarray:
    """E_{w ~ N(0,1)}[cos(w D)] = exp(-D^2 / 2), the characteristic function of N(0, 1)."""
    return np.exp(-0.5 * np.square(D))


def quadrature_limit(D: float) -> tuple[float, float]:
    """int e^{-i w D} p(w) dw by numerical integration: (real part, imaginary part)."""
    re = integrate.quad(lambda w: np.cos(w * D) * stats.norm.pdf(w), -np.inf, np.inf, epsabs=1e-13)[0]
    im = -integrate.quad(lambda w: np.sin(w * D) * stats.norm.pdf(w), -np.inf, np.inf, epsabs=1e-13)[0]
    return re, im


def running_estimates(w: np.ndarray, x: float, y: float) -> np.ndarray:
    """psi(x)^T psi(y) with the first K frequencies of each row of ``w``, for K = 1..w.shape[-1].

    Computed as the tutorial writes it, cos(w x) cos(w y) + sin(w x) sin(w y).
    """
    terms = np.cos(w * x) * np.cos(w * y) + np.sin(w * x) * np.sin(w * y)
    return np.cumsum(terms, axis=-1) / np.arange(1, w.shape[-1] + 1)


def error_table(estimates: np.ndarray, D: float) -> pd.DataFrame:
    """RMS error over repetitions against both targets, with its theoretical value, for every K.

    One term cos(w D) has variance v = (1 + e^{-2 D^2}) / 2 - e^{-D^2}, so the estimate has
    RMS error sqrt(v / K) about the limit and sqrt(v / K + bias^2) about the stated target.
    """
    limit, stated = exact_limit(D), stated_target(D)
    var = 0.5 * (1.0 + exact_limit(2 * D)) - limit**2
    K = np.arange(1, estimates.shape[1] + 1)
    return pd.DataFrame({
        "K": K,
        "mean_estimate": estimates.mean(axis=0),
        "single_run_estimate": estimates[0],
        "rms_error_vs_stated": np.sqrt(np.mean((estimates - stated) ** 2, axis=0)),
        "theory_vs_stated": np.sqrt(var / K + (limit - stated) ** 2),
        "rms_error_vs_limit": np.sqrt(np.mean((estimates - limit) ** 2, axis=0)),
        "theory_vs_limit": np.sqrt(var / K),
    })
