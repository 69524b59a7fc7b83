r"""Monte Carlo of the RFF, NRFF and GCWS estimators of Li (KDD 2017, Fig. 2), to check
the variances of ``rfbench.papers.li.variance``.

For a pair u, v of unit vectors with cosine rho (u = e1, v = rho e1 + sqrt(1 - rho^2) e2),
each of k samples draws r ~ N(0, I), w ~ U(0, 2 pi), so x = r^T u and y = r^T v
are standard normal with correlation rho (Theorem 2.1's setting), and
X = sqrt(2) cos(sqrt(gamma) x + w), Y = sqrt(2) cos(sqrt(gamma) y + w).  RFF
estimates exp(-gamma (1 - rho)) by mean(X Y), NRFF by
sum X Y / sqrt(sum X^2 sum Y^2) (eq. 12).  GCWS (Theorem 3.1) draws the
collision fraction as binomial(k, g) / k with g = GMM(rho) of eq. (16).
"""
from __future__ import annotations

import numpy as np

from rfbench.papers.li.variance import gcws_rbf_estimate, gmm_of_rho

#: Repetitions x k values drawn at once: bounds the temporaries at 32 MiB each.
CHUNK_ELEMENTS = 2**22


def simulate_rff(
    rho: float, gamma: float, k: int, repetitions: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """RFF and NRFF estimates of exp(-gamma (1 - rho)) from k samples, ``repetitions`` times.

    Returns
    -------
    rff, nrff : ndarray of shape (repetitions,)
        mean(X Y) and sum X Y / sqrt(sum X^2 sum Y^2) of each repetition.
    """
    u = np.array([1.0, 0.0])
    v = np.array([rho, np.sqrt(1.0 - rho**2)])
    rff, nrff = np.empty(repetitions), np.empty(repetitions)
    step = max(1, CHUNK_ELEMENTS // k)
    for start in range(0, repetitions, step):
        n = min(step, repetitions - start)
        r = rng.standard_normal((n, k, 2))
        w = rng.uniform(0.0, 2.0 * np.pi, (n, k))
        X = np.sqrt(2.0) * np.cos(np.sqrt(gamma) * (r @ u) + w)
        Y = np.sqrt(2.0) * np.cos(np.sqrt(gamma) * (r @ v) + w)
        XY = np.einsum("ij,ij->i", X, Y)
        rff[start:start + n] = XY / k
        nrff[start:start + n] = XY / np.sqrt(np.einsum("ij,ij->i", X, X) * np.einsum("ij,ij->i", Y, Y))
    return rff, nrff


def simulate_gcws(rho: float, gamma: float, k: int, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """GCWS estimates exp(-2 gamma ((1 - X) / (1 + X))^2), X ~ binomial(k, GMM(rho)) / k (Theorem 3.1)."""
    return gcws_rbf_estimate(rng.binomial(k, gmm_of_rho(rho), repetitions) / k, gamma)


def scaled_mse(estimates: np.ndarray, target: float, k: int) -> tuple[float, float]:
    """k times the empirical MSE of ``estimates`` around ``target``, and its standard error.

    The standard error is k std((estimate - target)^2) / sqrt(repetitions), the
    sampling error of the mean of the squared errors.
    """
    squared = k * (np.asarray(estimates, dtype=np.float64) - target) ** 2
    return float(squared.mean()), float(squared.std(ddof=1) / np.sqrt(len(squared)))
