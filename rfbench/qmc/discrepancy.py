r"""Box discrepancy of a frequency sequence for the Gaussian kernel (Avron et al., Sections 4-5).

For frequencies S = {w_1..w_s} in R^d with weights xi_l (1/s unless given), the density
p = N(0, diag(sigma_j^-2)) of the Gaussian kernel and the box []b = {u : |u_j| <= b_j},

    D(S)^2 = (2 pi)^-d prod_j int_{-b_j}^{b_j} |phi_j|^2
             - 2 (2 pi)^-d sum_l xi_l prod_j int_{-b_j}^{b_j} phi_j(beta) e^{i w_lj beta} dbeta
             + sum_{l,m} xi_l xi_m sinc_b(w_l, w_m),
    sinc_b(u, v) = pi^-d prod_j sin(b_j (u_j - v_j)) / (u_j - v_j),

which for the Gaussian (phi_j(beta) = exp(-beta^2 / (2 sigma_j^2))) is eq. (12):

    D^2 = sum_{l,m} xi_l xi_m sinc_b(w_l, w_m)
          - 2 sum_l xi_l prod_j c_lj Re erf(b_j / (sigma_j sqrt 2) - i sigma_j w_lj / sqrt 2)
          + prod_j sigma_j / (2 sqrt pi) erf(b_j / sigma_j),
    c_lj = sigma_j / sqrt(2 pi) exp(-sigma_j^2 w_lj^2 / 2).

By Theorem 12, (pi^d / prod_j b_j) D^2 is the mean over u uniform in []b of the squared
integration error |E_p[e^{-i u^T w}] - sum_l xi_l e^{-i u^T w_l}|^2; it is the paper's
"normalized" discrepancy (Section 6.1) and ``normalized=True`` returns it.

Corrections to the printed formulas (each checked by the tests in tests/qmc/):

* Eq. (11), first term (and its copies in Section 5, weighted sequences and the QP (17)):
  pi^-d prod_j int_{-b_j}^{b_j} |phi_j|^2 must be (2 pi)^-d prod_j int_{-b_j}^{b_j} |phi_j|^2
  (equivalently pi^-d prod_j int_0^{b_j}, as in the proof, eq. (21)); eq. (12) is right.
* Appendix A.5, the computation leading to eq. (22): the erf's real argument is printed
  -b_j / (sqrt 2 sigma_j) (and e^{-sigma_j w_lj / 2} in its second line lacks a square);
  with -b_j the term would change sign. Eq. (12)'s +b_j is right. A.5 also calls p_j the
  density of N(0, 1/sigma_j); it is N(0, sigma_j^-2).
* Section 2.1 defines erf(z) = int_0^z e^{-t^2} dt without the factor 2 / sqrt(pi); the
  formulas use the standard erf, and so does this module.
* Eq. (14) is the gradient of D(S)^2, not of D(S) (its left side reads dD/dw_lj).
* Appendix A.7: the diagonal term sinc_b(w_l, w_l) is pi^-d prod_j b_j, not "one"
  (a constant either way, so (14) is unaffected).

Eq. (13) (expected D^2 of Monte Carlo sequences) and the gradient terms g_j, g_j' of
Proposition 16 are right as printed.

Stability.  c_lj Re erf(x - i y) with x = b_j / (sigma_j sqrt 2), y = sigma_j w_lj / sqrt 2
is e^{-y^2} Re erf(x - i y), where erf alone overflows for |y| >~ 27. It is evaluated as
e^{-y^2} - e^{-x^2} Re[e^{2 i x y} w(y + i x)] with the Faddeeva function w = scipy's
``wofz``, bounded in the upper half plane, so every term stays finite. The computation
runs in normalized units (each coordinate's factor scaled by pi / b_j, all of them at
most 1 in absolute value) and multiplies by prod_j b_j / pi once at the end.
"""
from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erf, wofz

from rfbench.validation import is_int

#: numba options as in rfbench.feature_map._sincos: compiled once per machine, cached on disk.
_JIT = {"nogil": True, "cache": True, "boundscheck": False}

#: How the pair sums evaluate sin and cos of the pairs' differences (``BoxDiscrepancy``'s ``trig``).
TRIG = ("direct", "tables")

#: Below this |z| the tables path takes sin(z) / z and its derivative from their Taylor series:
#: there sin(u - v) by the difference formula has an absolute error of a few 1e-16, which division
#: by a small z would magnify; at `|z| = 0.25` the series' first omitted terms are below 1e-17.
TAYLOR_TABLES = 0.25


class BoxDiscrepancy:
    r"""D(S)^2 on the box []b for the Gaussian kernel's density N(0, diag(sigma_j^-2)).

    Parameters
    ----------
    b : float or array-like of shape (d,)
        Half-widths b_j > 0 of the box; for data X, ``bounding_box(X)`` (the paper's
        b_j = sup |x_j - z_j|), or a fraction of it (b/2, b/4) for its central part.
    sigma : float or array-like of shape (d,)
        Kernel bandwidth(s) sigma_j > 0.
    normalized : bool, default=False
        Return (pi^d / prod_j b_j) D^2, the mean squared integration error over the box
        (Theorem 12), instead of D^2; gradients are scaled alike.
    trig : {"direct", "tables"}, default="direct"
        How the sum over pairs gets sin and cos of z = b_j (w_lj - w_mj): ``"direct"`` evaluates
        them for every pair and coordinate; ``"tables"`` evaluates sin and cos of b_j w_lj once per
        point and forms the pairs' by sin(u - v) = sin u cos v - cos u sin v (and cos alike), four
        to eight times faster at s = 800 (``make bench``, section ``discrepancy``). A pair's sine
        then carries an absolute error of about 1e-16 max(1, |b_j w_lj|, |b_j w_mj|), so the factor
        sin(z) / z errs by that over |z| and its derivative by that over z^2, with |z| at least
        TAYLOR_TABLES (below it both come from their Taylor series in z): agreement to 1e-13 of the
        largest gradient entry, not bit for bit, so a CG that runs many iterations ends elsewhere.
    """

    def __init__(self, b: float | ArrayLike, sigma: float | ArrayLike, *, normalized: bool = False,
                 trig: str = "direct") -> None:
        self.b = _positive_vector(
            "b", b, "box half-widths", " (a constant feature gives b_j = 0: drop it before taking its box)"
        )
        self.sigma = _positive_vector("sigma", sigma, "bandwidths")
        self.normalized = normalized
        if trig not in TRIG:
            raise ValueError(f"trig={trig!r} is not one of {list(TRIG)}")
        self.trig = trig

    # --- public quantities ------------------------------------------------------
    def squared(self, W: ArrayLike, weights: ArrayLike | None = None) -> float:
        """D(S)^2 of the rows of W (s, d), eq. (12) (with ``weights``, its weighted form)."""
        return self._evaluate(W, weights, gradient=False)[0]

    def squared_and_gradient(self, W: ArrayLike, weights: ArrayLike | None = None) -> tuple[float, np.ndarray]:
        """D(S)^2 and its gradient with respect to W, shape (s, d) (eq. (14), Proposition 16)."""
        return self._evaluate(W, weights, gradient=True)

    def expected_squared_mc(self, s: int, d: int | None = None) -> float:
        """E[D(S)^2] over s i.i.d. frequencies from p, eq. (13) of Corollary 15.

        ``d`` is needed only when b and sigma are both scalars.
        """
        if not is_int(s) or s < 1:
            raise ValueError(f"s must be a positive integer, got {s!r}")
        b, sigma = self._vectors(d)
        return self._scale(b) * (1.0 - _mean_term(b, sigma)) / s

    def quadratic_form(self, W: ArrayLike) -> tuple[np.ndarray, np.ndarray, float]:
        """(H, v, c) with D(S, xi)^2 = c - 2 v^T xi + xi^T H xi for the points W (Section 5).

        H_lm = sinc_b(w_l, w_m) and v_l = (2 pi)^-d prod_j int phi_j(beta) e^{i w_lj beta},
        both scaled like ``squared``.
        """
        W, _, b, sigma = self._check(W, None)
        scale = self._scale(b)
        H = _sinc_gram(W, b)
        v = np.prod(_point_factors(W, b, sigma), axis=-1)
        return scale * H, scale * v, scale * _mean_term(b, sigma)

    def extension(self, W: ArrayLike) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
        """f(w) = (D^2 of the rows of W and w, uniform weights; its gradient in w), for greedy steps.

        W may have no rows. The terms of W alone are summed once, so each call costs O(s d).
        """
        W, _, b, sigma = self._check(W, None, allow_empty=True)
        t = len(W) + 1
        ones = np.ones(len(W))
        old = _mean_term(b, sigma) - 2.0 * _point_sum(W, ones, b, sigma, False)[0] / t
        old += (_pair_sum(W, W, ones, ones, b, False, self.trig)[0] + 1.0) / t**2  # + sinc_b(w, w) = 1
        scale = self._scale(b)
        tables = _trig_tables(W, b) if self.trig == "tables" else None  # W's, once for every call

        def value_and_gradient(w: np.ndarray) -> tuple[float, np.ndarray]:
            w = np.asarray(w, dtype=np.float64).reshape(1, -1)
            point, point_grad = _point_sum(w, np.ones(1), b, sigma, gradient=True)
            cross, cross_grad = _pair_sum(w, W, np.ones(1), ones, b, True, self.trig, tables)
            value = old - 2.0 * point / t + 2.0 * cross / t**2
            return scale * value, scale * (2.0 * cross_grad[0] / t**2 - 2.0 * point_grad[0] / t)

        return value_and_gradient

    # --- evaluation, checks and scaling --------------------------------------------
    def _evaluate(self, W: ArrayLike, weights: ArrayLike | None, gradient: bool) -> tuple[float, np.ndarray | None]:
        W, xi, b, sigma = self._check(W, weights)
        point, point_grad = _point_sum(W, xi, b, sigma, gradient)
        pair, pair_grad = _pair_sum(W, W, xi, xi, b, gradient, self.trig)
        scale = self._scale(b)
        value = scale * (_mean_term(b, sigma) - 2.0 * point + pair)
        # sum_{l,m} is symmetric: the derivative in w_l counts the pairs (l, m) and (m, l)
        return value, (scale * (2.0 * pair_grad - 2.0 * point_grad) if gradient else None)

    def _vectors(self, d: int | None) -> tuple[np.ndarray, np.ndarray]:
        """b and sigma broadcast to dimension d (that of the non-scalar one when d is None)."""
        sizes = {v.size for v in (self.b, self.sigma) if v.size > 1}
        if d is None:
            if not sizes:
                raise ValueError("b and sigma are scalars: give the dimension d")
            d = sizes.pop()
        if sizes - {d}:
            raise ValueError(
                f"b has {self.b.size} and sigma {self.sigma.size} entries, but the points have d={d} coordinates"
            )
        return np.broadcast_to(self.b, d), np.broadcast_to(self.sigma, d)

    def _check(
        self, W: ArrayLike, weights: ArrayLike | None, allow_empty: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        W = np.asarray(W, dtype=np.float64)
        if W.ndim != 2 or (W.shape[0] == 0 and not allow_empty) or not np.all(np.isfinite(W)):
            raise ValueError(f"W must be a finite 2-D array of frequencies (s >= 1, d), got shape {W.shape}")
        b, sigma = self._vectors(W.shape[1])
        if weights is None:
            return W, np.full(len(W), 1.0 / max(1, len(W))), b, sigma
        xi = np.asarray(weights, dtype=np.float64)
        if xi.shape != (len(W),) or not np.all(np.isfinite(xi)):
            raise ValueError(f"weights must be {len(W)} finite numbers, one per frequency, got shape {xi.shape}")
        return W, xi, b, sigma

    def _scale(self, b: np.ndarray) -> float:
        """1 when normalized, else prod_j b_j / pi (through logarithms: d may be in the hundreds)."""
        return 1.0 if self.normalized else float(np.exp(np.sum(np.log(b / np.pi))))


def bounding_box(X: ArrayLike) -> np.ndarray:
    """b_j = max_i x_ij - min_i x_ij, so that every difference x - z of rows lies in []b."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or len(X) < 2:
        raise ValueError(f"X must be 2-D with at least 2 rows, got shape {X.shape}")
    return X.max(axis=0) - X.min(axis=0)


# --- terms in normalized units (each coordinate's factor times pi / b_j) -------------
def _mean_term(b: np.ndarray, sigma: np.ndarray) -> float:
    """(2 pi)^-d prod_j int_{-b_j}^{b_j} |phi_j|^2, times prod_j pi / b_j.

    That is prod_j sigma_j sqrt(pi) erf(b_j / sigma_j) / (2 b_j), eq. (21) normalized.
    """
    return float(np.prod(sigma * np.sqrt(np.pi) * erf(b / sigma) / (2.0 * b)))


def _point_factors(W: np.ndarray, b: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """(pi / b_j) c_lj Re erf(x_j - i y_lj) = sqrt(pi) / (2 x_j) e^{-y^2} Re erf(x - i y), shape (s, d)."""
    x = b / (sigma * np.sqrt(2.0))
    y = W * (sigma / np.sqrt(2.0))
    # e^{-y^2} erf(x - iy) = e^{-y^2} - e^{-x^2} e^{2ixy} w(y + ix): no overflow for large |y|.
    damped = np.exp(-(y**2)) - np.exp(-(x**2)) * np.real(np.exp(2j * x * y) * wofz(y + 1j * x))
    return np.sqrt(np.pi) / (2.0 * x) * damped


def _point_sum(
    W: np.ndarray, xi: np.ndarray, b: np.ndarray, sigma: np.ndarray, gradient: bool
) -> tuple[float, np.ndarray | None]:
    """sum_l xi_l prod_j F_lj and its gradient in W (Proposition 16's g_j, g_j', normalized)."""
    F = _point_factors(W, b, sigma)
    value = float(xi @ np.prod(F, axis=-1))
    if not gradient:
        return value, None
    # (pi / b) g'(w) = -sigma^2 w F + (sigma^2 / b) e^{-b^2 / (2 sigma^2)} sin(b w)
    dF = -(sigma**2) * W * F + (sigma**2 / b) * np.exp(-(b**2) / (2.0 * sigma**2)) * np.sin(b * W)
    return value, xi[:, None] * dF * _products_of_others(F)


def _pair_sum(
    W1: np.ndarray, W2: np.ndarray, xi1: np.ndarray, xi2: np.ndarray, b: np.ndarray, gradient: bool,
    trig: str = "direct", tables2: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[float, np.ndarray | None]:
    """sum_{l,m} xi1_l xi2_m prod_j sinc(b_j (w1_lj - w2_mj)) and its gradient in W1 (Lemma 19).

    sinc(z) = sin(z) / z is sinc_b's factor in normalized units. With W2 W1 itself, each
    unordered pair is visited once. O(s1 s2 d) time, O(d) memory (``trig="direct"``) or
    O((s1 + s2) d) (``"tables"``; ``tables2``: W2's, if already computed).
    """
    grad = np.zeros_like(W1)
    if trig == "direct":
        value = _pair_kernel(W1, W2, xi1, xi2, b, W2 is W1, gradient, grad)
    else:
        sin1, cos1 = _trig_tables(W1, b)
        sin2, cos2 = (sin1, cos1) if W2 is W1 else tables2 if tables2 is not None else _trig_tables(W2, b)
        value = _pair_kernel_tables(W1, W2, sin1, cos1, sin2, cos2, xi1, xi2, b, W2 is W1, gradient, grad)
    return value, (grad if gradient else None)


def _trig_tables(W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sin and cos of b_j w_lj, each (s, d)."""
    u = W * b
    return np.sin(u), np.cos(u)


@numba.njit(**_JIT)
def _pair_kernel(
    W1: np.ndarray,
    W2: np.ndarray,
    xi1: np.ndarray,
    xi2: np.ndarray,
    b: np.ndarray,
    symmetric: bool,
    gradient: bool,
    grad: np.ndarray,
) -> float:
    """The loops of ``_pair_sum``; adds the gradient into ``grad`` (zeros on entry).

    For each pair, prefix products of the factors are kept on the forward pass and suffix
    products formed on the backward one, so prod_{q != j} needs no division (factors vanish
    at b_j (w_pj - w_mj) in pi Z). Symmetric: the pair (m, p) has the same product and the
    opposite derivative of (p, m), as the kernel depends on w_p - w_m and is even.
    """
    d = W1.shape[1]
    z, factor, derivative, before = np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    total = 0.0
    for p in range(W1.shape[0]):
        for m in range(p if symmetric else 0, W2.shape[0]):
            product = 1.0
            for j in range(d):
                z[j] = b[j] * (W1[p, j] - W2[m, j])
                factor[j] = _sinc(z[j])
                before[j] = product
                product *= factor[j]
            weight = xi1[p] * xi2[m]
            total += weight * product * (2.0 if symmetric and m != p else 1.0)
            if gradient:  # (on the diagonal of a symmetric sum, the two terms cancel)
                for j in range(d):
                    derivative[j] = _sinc_derivative(z[j])
                _add_pair_gradient(grad, p, m, symmetric, weight, b, factor, derivative, before)
    return total


@numba.njit(inline="always", **_JIT)
def _add_pair_gradient(grad: np.ndarray, p: int, m: int, symmetric: bool, weight: float, b: np.ndarray,
                       factor: np.ndarray, derivative: np.ndarray, before: np.ndarray) -> None:
    """The pair (p, m)'s terms of the gradient: the suffix products formed backwards, times the prefix ones."""
    after = 1.0
    for j in range(len(factor) - 1, -1, -1):
        term = weight * b[j] * derivative[j] * before[j] * after
        grad[p, j] += term
        if symmetric:
            grad[m, j] -= term
        after *= factor[j]


@numba.njit(**_JIT)
def _pair_kernel_tables(W1: np.ndarray, W2: np.ndarray, sin1: np.ndarray, cos1: np.ndarray, sin2: np.ndarray,
                        cos2: np.ndarray, xi1: np.ndarray, xi2: np.ndarray, b: np.ndarray, symmetric: bool,
                        gradient: bool, grad: np.ndarray) -> float:
    """``_pair_kernel`` with sin z and cos z from the points' tables (no call in the inner loop, which
    the compiler can then vectorize); the Taylor series below |z| = TAYLOR_TABLES."""
    d = W1.shape[1]
    factor, derivative, before = np.empty(d), np.empty(d), np.empty(d)
    total = 0.0
    for p in range(W1.shape[0]):
        for m in range(p if symmetric else 0, W2.shape[0]):
            for j in range(d):  # both forms, then a choice: no branch, so the loop vectorizes
                z = b[j] * (W1[p, j] - W2[m, j])
                small = abs(z) < TAYLOR_TABLES
                divisor = 1.0 if small else z
                sine = (sin1[p, j] * cos2[m, j] - cos1[p, j] * sin2[m, j]) / divisor
                cosine = cos1[p, j] * cos2[m, j] + sin1[p, j] * sin2[m, j]
                series, slope = _sinc_taylor(z)
                factor[j] = series if small else sine
                derivative[j] = slope if small else (cosine - sine) / divisor
            product = 1.0
            for j in range(d):
                before[j] = product
                product *= factor[j]
            weight = xi1[p] * xi2[m]
            total += weight * product * (2.0 if symmetric and m != p else 1.0)
            if gradient:
                _add_pair_gradient(grad, p, m, symmetric, weight, b, factor, derivative, before)
    return total


@numba.njit(inline="always", **_JIT)
def _sinc_taylor(z: float) -> tuple[float, float]:
    """sin(z) / z and its derivative by their Taylor series, to 1e-17 for |z| < TAYLOR_TABLES."""
    t = z * z
    sinc = 1.0 - t / 6.0 * (1.0 - t / 20.0 * (1.0 - t / 42.0 * (1.0 - t / 72.0 * (1.0 - t / 110.0))))
    slope = -z / 3.0 * (1.0 - t / 10.0 * (1.0 - t / 28.0 * (1.0 - t / 54.0 * (1.0 - t / 88.0 * (1.0 - t / 130.0)))))
    return sinc, slope


@numba.njit(**_JIT)
def _sinc_gram(W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """H_lm = prod_j sinc(b_j (w_lj - w_mj)), shape (s, s)."""
    s, d = W.shape
    H = np.empty((s, s))
    for p in range(s):
        for m in range(p + 1):
            product = 1.0
            for j in range(d):
                product *= _sinc(b[j] * (W[p, j] - W[m, j]))
            H[p, m] = H[m, p] = product
    return H


@numba.njit(inline="always", **_JIT)
def _sinc(z: float) -> float:
    return 1.0 if z == 0.0 else np.sin(z) / z


@numba.njit(inline="always", **_JIT)
def _sinc_derivative(z: float) -> float:
    """d/dz sin(z)/z = (cos z - sin(z)/z) / z, by its Taylor series -z/3 + z^3/30 near 0."""
    if abs(z) < 1e-3:
        return -z / 3.0 + z**3 / 30.0
    return (np.cos(z) - np.sin(z) / z) / z


def _products_of_others(F: np.ndarray) -> np.ndarray:
    """prod_{q != j} F[..., q] for every j, without dividing (factors may vanish)."""
    ones = np.ones(F.shape[:-1] + (1,))
    before = np.cumprod(np.concatenate([ones, F[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, F[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def _positive_vector(name: str, value: float | ArrayLike, what: str, hint: str = "") -> np.ndarray:
    """A 1-D float64 array of finite positive entries, else ValueError naming the first bad one."""
    try:
        vector = np.atleast_1d(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError):
        vector = np.empty((0, 0))
    if vector.ndim != 1 or vector.size == 0:
        raise ValueError(f"{name} must be a positive number or a vector of them ({what}), got {value!r}")
    bad = np.flatnonzero(~(np.isfinite(vector) & (vector > 0)))
    if bad.size:
        j = int(bad[0])
        where = "" if vector.size == 1 else f"[{j}]"
        raise ValueError(f"{name}{where} = {float(vector[j])!r} is invalid: {what} must be finite and > 0{hint}")
    return vector
