"""Exact solver for LibLinear's L2-loss SVM on dense, narrow features.

The L2-regularized L2-loss (squared hinge) SVM, LibLinear's ``-s 1`` (dual) and
``-s 2`` (primal), is, for labels y_i in {-1, +1},

.. math::

    \\min_w f(w) = \\tfrac12 \\|w\\|^2 + C \\sum_i \\max(0,\\, 1 - y_i z_i^\\top w)^2 .

f is convex, once differentiable and piecewise quadratic.  With the active set
I(w) = {i : y_i z_i^T w < 1}, its gradient and generalized Hessian are

.. math::

    g = w - 2C Z_I^\\top (y_I \\odot r_I), \\quad H = \\mathrm{I} + 2C Z_I^\\top Z_I,
    \\quad r = 1 - y \\odot (Z w),

and the generalized Newton method with an exact line search converges to the
optimum in a handful of steps: once the active set stops changing the problem
is a quadratic that one Newton step solves.  For random-feature matrices (p up
to a few thousand columns, n in the tens of thousands) each step is one
``dsyrk`` of the active rows and one p x p Cholesky factorization, far cheaper
than LibLinear's coordinate or CG sweeps over its sparse rows at the large C the
papers' cross-validation picks.  Along an increasing grid of C each solution
starts from the previous one, which leaves about three steps per value.

Sparse codes are often rank-deficient (GCWS's one-hot b-bit codes: each sample's
2^b columns sum to a constant, so rank Z <= (2^b - 1) k + 1 of p = 2^b k).  The
minimizer lies in the row space of Z (a part of w orthogonal to every z_i moves no
margin and only adds to ||w||^2), so ``row_space`` gives an orthonormal basis Q of
it, and the same problem is solved on the r columns of Z Q (Gram (Z Q)(Z Q)^T =
Z Z^T) with w = Q v: at b = 1, r^3 = p^3 / 8 per Cholesky factorization.

The stopping rule is LibLinear's ``||g(w)|| <= tol * ||g(0)||`` with a tight
default (1e-8; LibLinear's ``-s 2`` uses 1e-2), so the result is the optimum to
within round-off for the purposes of model selection, whatever the start.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence

import numpy as np
from scipy.linalg import cho_factor, cho_solve, eigh
from sklearn.exceptions import ConvergenceWarning

#: Default relative gradient tolerance ||g(w)|| <= tol ||g(0)||.
DEFAULT_TOL = 1e-8


def primal_objective(Z: np.ndarray, y: np.ndarray, C: float, w: np.ndarray) -> float:
    """f(w) = ||w||^2 / 2 + C sum_i max(0, 1 - y_i z_i^T w)^2."""
    return float(0.5 * w @ w + C * np.sum(np.maximum(0.0, 1.0 - y * (Z @ w)) ** 2))


def squared_hinge_path(
    Z: np.ndarray,
    y: np.ndarray,
    Cs: Sequence[float],
    w0: np.ndarray | None = None,
    tol: float = DEFAULT_TOL,
    max_iter: int = 200,
    gram: np.ndarray | None = None,
) -> Iterator[np.ndarray]:
    """Minimizers of f for each C in ``Cs``, each warm-started from the previous one.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features), float64, C-contiguous
        Features (an intercept is a constant column of Z).
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0}.
    Cs : sequence of float
        Values of C, best in increasing order (warm starts then move least).
    w0 : ndarray of shape (n_features,), optional
        Start for the first C (zeros by default).
    tol : float
        Stop when ||g(w)|| <= tol * ||g(0)||.
    max_iter : int
        Newton steps per C; reaching it raises a ConvergenceWarning.
    gram : ndarray, optional
        ``newton_gram(Z)``, if the caller has it (it serves every label vector of
        one Z); computed here when first needed otherwise.

    Yields
    ------
    w : ndarray of shape (n_features,)
        A fresh array for each C.
    """
    w = np.zeros(Z.shape[1]) if w0 is None else np.array(w0, dtype=np.float64)
    gnorm0 = np.linalg.norm(Z.T @ y)  # ||g(0)|| = 2C ||Z^T y||
    system = _ActiveGram(Z, gram) if _primal(Z) else _RowGram(Z, gram)
    for C in Cs:
        w = _minimize(Z, y, float(C), w, tol * 2.0 * C * gnorm0, max_iter, system)
        yield w.copy()


def newton_gram(Z: np.ndarray) -> np.ndarray:
    """The Gram the Newton steps use: Z^T Z (p x p) if p <= n, else Z Z^T (n x n)."""
    return Z.T @ Z if _primal(Z) else Z @ Z.T


def row_space(Z: np.ndarray) -> np.ndarray | None:
    """An orthonormal basis Q (p x r) of the row space of Z if its rank r is below p, else None.

    Q holds the eigenvectors of Z^T Z whose eigenvalues exceed p * eps times the
    largest (numpy's ``matrix_rank`` rule); Z Z^T = (Z Q)(Z Q)^T to round-off.
    """
    eigenvalues, eigenvectors = eigh(Z.T @ Z, check_finite=False)
    keep = eigenvalues > eigenvalues[-1] * len(eigenvalues) * np.finfo(np.float64).eps
    return None if keep.all() else eigenvectors[:, keep]


def _primal(Z: np.ndarray) -> bool:
    """Factor the p x p Hessian when p <= n; otherwise, by Woodbury, an |I| x |I| system."""
    return Z.shape[1] <= Z.shape[0]


def _minimize(
    Z: np.ndarray, y: np.ndarray, C: float, w: np.ndarray, gtol: float, max_iter: int,
    system: _ActiveGram | _RowGram,
) -> np.ndarray:
    margin = Z @ w
    for _ in range(max_iter):
        r = 1.0 - y * margin
        mask = r > 0
        active = np.flatnonzero(mask)
        Z_act = Z.take(active, axis=0)  # take: ~10x a boolean mask
        g = w - 2.0 * C * (Z_act.T @ (y[active] * r[active]))
        if np.linalg.norm(g) <= gtol:
            return w
        s = system.newton_step(mask, active, Z_act, g, C)
        d = Z @ s
        t = _line_search(y, margin, d, C, w @ s, s @ s)
        w += t * s
        margin += t * d
    warnings.warn(f"Newton's method did not reach tol in {max_iter} steps at C={C}", ConvergenceWarning, stacklevel=3)
    return w


class _ActiveGram:
    """Z_I^T Z_I for the current active set I, updated by the rows that enter and leave it.

    Between Newton steps, and between neighbouring values of C, only a few rows
    change sides, so updating costs (|entered| + |left|) p^2 where recomputing
    costs min(|I|, n - |I|) p^2 (from Z^T Z for a large I).
    """

    def __init__(self, Z: np.ndarray, gram: np.ndarray | None):
        self.Z, self._gram = Z, gram
        self.mask: np.ndarray | None = None
        self.value: np.ndarray | None = None

    def newton_step(
        self, mask: np.ndarray, active: np.ndarray, Z_act: np.ndarray, g: np.ndarray, C: float
    ) -> np.ndarray:
        """s = -H^-1 g with H = I + 2C Z_I^T Z_I, one p x p Cholesky."""
        H = 2.0 * C * self.update(mask)
        H[np.diag_indices_from(H)] += 1.0
        return -cho_solve(cho_factor(H, lower=True, check_finite=False), g, check_finite=False)

    def update(self, mask: np.ndarray) -> np.ndarray:
        n_active = int(np.count_nonzero(mask))
        recompute_cost = min(n_active, len(mask) - n_active)
        if self.mask is not None:
            entered, left = np.flatnonzero(mask & ~self.mask), np.flatnonzero(self.mask & ~mask)
            if len(entered) + len(left) < recompute_cost:
                self.value += self._outer(entered) - self._outer(left)
                self.mask = mask
                return self.value
        if 2 * n_active <= len(mask):
            self.value = self._outer(np.flatnonzero(mask))
        else:
            self.value = self.gram - self._outer(np.flatnonzero(~mask))
        self.mask = mask
        return self.value

    @property
    def gram(self) -> np.ndarray:
        if self._gram is None:
            self._gram = self.Z.T @ self.Z
        return self._gram

    def _outer(self, rows: np.ndarray) -> np.ndarray:
        Z_rows = self.Z.take(rows, axis=0)
        return Z_rows.T @ Z_rows  # numpy computes A^T A with syrk


class _RowGram:
    """Newton steps for p > n through the n x n Gram Z Z^T (Woodbury's identity).

    H^-1 g = g - Z_I^T (I / 2C + Z_I Z_I^T)^-1 Z_I g: one |I| x |I| Cholesky
    (|I| <= n < p) on a block of Z Z^T, which is formed once for every C and label vector.
    """

    def __init__(self, Z: np.ndarray, gram: np.ndarray | None):
        self.rows = Z @ Z.T if gram is None else gram

    def newton_step(
        self, mask: np.ndarray, active: np.ndarray, Z_act: np.ndarray, g: np.ndarray, C: float
    ) -> np.ndarray:
        if len(active) == 0:
            return -g  # H = I
        K = self.rows[np.ix_(active, active)]
        K[np.diag_indices_from(K)] += 1.0 / (2.0 * C)
        v = cho_solve(cho_factor(K, lower=True, check_finite=False), Z_act @ g, check_finite=False)
        return Z_act.T @ v - g


def _line_search(y: np.ndarray, margin: np.ndarray, d: np.ndarray, C: float, ws: float, ss: float) -> float:
    """argmin_t f(w + t s): Newton's method on the convex piecewise quadratic phi(t), from t = 1.

    phi'(t) = w.s + t s.s - 2C sum_A (1 - y_i (m_i + t d_i)) y_i d_i over A(t) = {i : residual > 0},
    phi''(t) = s.s + 2C sum_A d_i^2; each step is exact on the current piece, so it ends
    once t stays on one piece.
    """
    t = 1.0
    for _ in range(50):
        r = 1.0 - y * (margin + t * d)
        active = r > 0
        d_act = d[active]
        slope = ws + t * ss - 2.0 * C * np.dot(y[active] * r[active], d_act)
        step = slope / (ss + 2.0 * C * np.dot(d_act, d_act))
        t -= step
        if abs(step) <= 1e-12 * max(1.0, abs(t)):
            break
    return t
