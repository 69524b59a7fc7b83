r"""Variances of the RFF, NRFF and GCWS estimators of Li (KDD 2017, Theorems 2.1, 2.2, 3.1).

Every function is vectorized over numpy-broadcastable ``rho`` (the cosine, or
the population correlation rho-bar of Section 3) and ``gamma``, and gives the
variance of ONE sample (the factor V with Var = V / k, exact for RFF and
asymptotic, up to O(1/k^2), for NRFF and GCWS).  Writing K = exp(-gamma (1 - rho)):

* RFF, eqs. (11)/(14):  V = 1/2 + (1 - K^2)^2 / 2 = 1 - K^2 + K^4 / 2;
* NRFF, eq. (13):       V_n = V - K^2 (3 - K^4) / 4 = 1 - 7 K^2 / 4 + K^4 / 2 + K^6 / 4;
* GCWS, eq. (20):       V_g = K^2 g (1 - g)^3 / (1 + g)^6 * 64 gamma^2 for the plug-in
  estimator exp(-2 gamma ((1 - X) / (1 + X))^2) of K, X the collision fraction,
  g = GMM(rho) of eq. (16);
* GCWS indicator, eq. (7): g (1 - g) for the collision fraction itself.

Checked against the proofs (delta method, moments of Theorem 2.1's proof) and
by simulation (tests/theory/).  The formulas as printed hold; the slips are
notational only: Theorem 3.1 says "X ~ binomial(k, g)" and then averages
X_1..X_k, i.e. the X_i are Bernoulli(g) (binomial(1, g)) and X-bar their mean;
its proof writes Var(e^{X^2 t}) for Var(e^{Z^2 t}); and the text's gamma appears
as "Y" in the extracted proof of Theorem 2.2 and as c^2 in that of Theorem 2.1.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def rbf_value(rho: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    """The RBF kernel K = exp(-gamma (1 - rho)) (eq. 8), the mean of RFF (eq. 10)."""
    return np.exp(-np.asarray(gamma, dtype=np.float64) * (1.0 - np.asarray(rho, dtype=np.float64)))


def rff_variance(rho: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    """V_{rho, gamma} of Theorem 2.1 (eqs. 11, 14): Var of one product sqrt(2)cos(.) sqrt(2)cos(.)."""
    K2 = rbf_value(rho, gamma) ** 2
    return 0.5 + 0.5 * (1.0 - K2) ** 2


def nrff_variance(rho: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    """V_{n, rho, gamma} of Theorem 2.2 (eq. 13): k times the asymptotic variance of NRFF."""
    K2 = rbf_value(rho, gamma) ** 2
    return rff_variance(rho, gamma) - 0.25 * K2 * (3.0 - K2**2)


def gmm_of_rho(rho: ArrayLike) -> np.ndarray:
    """g = (1 - sqrt((1 - rho)/2)) / (1 + sqrt((1 - rho)/2)), the GMM limit of eqs. (15)-(16)."""
    s = np.sqrt((1.0 - np.asarray(rho, dtype=np.float64)) / 2.0)
    return (1.0 - s) / (1.0 + s)


def rho_of_gmm(g: ArrayLike) -> np.ndarray:
    """The inverse of ``gmm_of_rho``: rho = 1 - 2 ((1 - g) / (1 + g))^2 (eq. 17)."""
    g = np.asarray(g, dtype=np.float64)
    return 1.0 - 2.0 * ((1.0 - g) / (1.0 + g)) ** 2


def gcws_rbf_estimate(collision_fraction: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    """The GCWS estimator of the RBF kernel, exp(-2 gamma ((1 - X) / (1 + X))^2) (eqs. 17-18)."""
    x = np.asarray(collision_fraction, dtype=np.float64)
    return np.exp(-2.0 * np.asarray(gamma, dtype=np.float64) * ((1.0 - x) / (1.0 + x)) ** 2)


def gcws_variance(rho: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    """V_{g, gamma} of Theorem 3.1 (eq. 20): k times the asymptotic variance of ``gcws_rbf_estimate``."""
    g = gmm_of_rho(rho)
    gamma = np.asarray(gamma, dtype=np.float64)
    return rbf_value(rho, gamma) ** 2 * g * (1.0 - g) ** 3 / (1.0 + g) ** 6 * 64.0 * gamma**2


def gcws_indicator_variance(gmm: ArrayLike) -> np.ndarray:
    """GMM (1 - GMM), the variance of one collision indicator (eq. 7)."""
    gmm = np.asarray(gmm, dtype=np.float64)
    return gmm * (1.0 - gmm)
