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

Where a column's active set I is small beside p (wide dense features at the large C of a
test grid: NRFF at k = 4096 on letter), ``woodbury=True`` takes the same step by Woodbury's identity,

.. math::

    H^{-1} g = g - Z_I^\\top (\\mathrm{I} / 2C + Z_I Z_I^\\top)^{-1} Z_I g ,

one |I| x |I| Cholesky of Z_I Z_I^T, |I|^2 (p + |I| / 3) flops against the p x p system's
p^2 (p / 3 + u), u the rows its kept Z_I^T Z_I gains or loses; each step takes the cheaper (the
rule reads only the active set, so a run's route is fixed by its data).  Both systems have the
eigenvalues 1 + 2C lambda of the nonzero spectrum of Z_I^T Z_I (the p x p one also 1s): the same
step to round-off.

The stopping rule is LibLinear's ``||g(w)|| <= tol * ||g(0)||`` with a tight
default (1e-8; LibLinear's ``-s 2`` uses 1e-2), so the result is the optimum to
within round-off for the purposes of model selection, whatever the start.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence

import numpy as np
from scipy.linalg import LinAlgError, eigh
from scipy.linalg.lapack import dpotrf, dpotrs
from sklearn.exceptions import ConvergenceWarning

#: Default relative gradient tolerance ||g(w)|| <= tol ||g(0)||.
DEFAULT_TOL = 1e-8


def primal_objective(Z: np.ndarray, y: np.ndarray, C: float, w: np.ndarray) -> float:
    """f(w) = ||w||^2 / 2 + C sum_i max(0, 1 - y_i z_i^T w)^2."""
    return float(0.5 * w @ w + C * np.sum(np.maximum(0.0, 1.0 - y * (Z @ w)) ** 2))


def squared_hinge_paths(
    Z: np.ndarray,
    Y: np.ndarray,
    Cs: Sequence[float],
    W0: np.ndarray | None = None,
    tol: float = DEFAULT_TOL,
    max_iter: int = 200,
    gram: np.ndarray | None = None,
    woodbury: bool = False,
) -> Iterator[np.ndarray]:
    """Minimizers of f for each C in ``Cs``, each warm-started from the previous one, for the label
    vectors Y[:, k] of one Z together (e.g. one-vs-rest; Y[:, None] for one vector).

    Each column is its own problem, stopped by its own ||g_k|| <= tol ||g_k(0)||, with its own
    Hessian; the products with Z of all columns are single GEMMs (Z W, Z^T (y . r), Z S), so Z is
    read once per step for every column rather than once per column: the narrow dense features
    of the papers are memory-bound matrix-vector products otherwise.  A column that has converged
    takes zero steps while the others go on, so its result does not depend on the other columns
    beyond round-off in the shared products.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features), float64, C-contiguous
        Features (an intercept is a constant column of Z).
    Y : ndarray of shape (n_samples, n_columns)
        Labels in {-1.0, +1.0}, one problem per column.
    Cs : sequence of float
        Values of C, best in increasing order (warm starts then move least).
    W0 : ndarray of shape (n_features, n_columns), optional
        Start for the first C (zeros by default).
    tol : float
        Stop column k when ||g_k(w)|| <= tol * ||g_k(0)||.
    max_iter : int
        Newton steps per C; reaching it raises a ConvergenceWarning.
    gram : ndarray, optional
        ``newton_gram(Z)``, if the caller has it (it serves every label vector of
        one Z); computed here when first needed otherwise.
    woodbury : bool
        For p <= n, take each column's step by Woodbury's |I| x |I| system where it costs fewer
        flops than the p x p one (the module docstring); False: always the p x p one.

    Yields
    ------
    W : ndarray of shape (n_features, n_columns)
        A fresh array for each C.
    """
    # Each column's arrays are rows of (n_columns, ...) arrays here: contiguous for its own Newton
    # step, and the products with Z are then about twice as fast as with column-major blocks.
    W = np.zeros((Y.shape[1], Z.shape[1])) if W0 is None else np.array(W0, dtype=np.float64).T.copy()
    Y = np.ascontiguousarray(Y.T, dtype=np.float64)
    gnorm0 = np.linalg.norm(Y @ Z, axis=1)  # ||g_k(0)|| = 2C ||Z^T y_k||
    shared = _SharedGram(Z, gram)
    systems = [_ActiveGram(Z, shared, woodbury) if _primal(Z) else _RowGram(Z, shared) for _ in range(len(Y))]
    for C in Cs:
        W = _minimize(Z, Y, float(C), W, tol * 2.0 * C * gnorm0, max_iter, systems)
        yield W.T.copy()


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
    Z: np.ndarray, Y: np.ndarray, C: float, W: np.ndarray, gtol: np.ndarray, max_iter: int,
    systems: list[_ActiveGram] | list[_RowGram],
) -> np.ndarray:
    """Newton steps on every row w_k of W (labels Y[k]) until each ||g_k|| is at most ``gtol[k]``."""
    margin = W @ Z.T
    for _ in range(max_iter):
        R = 1.0 - Y * margin
        # y_i r_i on the active set, 0 off it: max(r, 0) y, so rows off the set add exact zeros.
        G = W - 2.0 * C * ((np.maximum(R, 0.0) * Y) @ Z)
        todo = np.flatnonzero(np.linalg.norm(G, axis=1) > gtol)
        if len(todo) == 0:
            return W
        S = np.zeros_like(W)
        for k in todo:
            S[k] = systems[k].newton_step(R[k] > 0, G[k], C)
        D = S @ Z.T
        E = Y * D  # y_i d_i: R and E give each column's residuals along its step
        for k in todo:
            t = line_search(R[k], E[k], C, W[k] @ S[k], S[k] @ S[k])
            W[k] += t * S[k]
            margin[k] += t * D[k]
    warnings.warn(f"Newton's method did not reach tol in {max_iter} steps at C={C}", ConvergenceWarning, stacklevel=3)
    return W


class _SharedGram:
    """``newton_gram(Z)``, computed when a column's system first needs it and then shared by all."""

    def __init__(self, Z: np.ndarray, gram: np.ndarray | None):
        self.Z, self._value = Z, gram

    @property
    def value(self) -> np.ndarray:
        if self._value is None:
            self._value = newton_gram(self.Z)
        return self._value


class _ActiveGram:
    """Z_I^T Z_I for the current active set I, updated by the rows that enter and leave it.

    Between Newton steps, and between neighbouring values of C, only a few rows
    change sides, so updating costs (|entered| + |left|) p^2 where recomputing
    costs min(|I|, n - |I|) p^2 (from Z^T Z for a large I).  With ``woodbury``, a step whose
    |I| x |I| system costs fewer flops takes that one and leaves Z_I^T Z_I as it was (the next
    update starts from the set it was kept for).
    """

    def __init__(self, Z: np.ndarray, gram: _SharedGram, woodbury: bool = False):
        self.Z, self._gram, self.woodbury = Z, gram, woodbury
        self.mask: np.ndarray | None = None
        self.value: np.ndarray | None = None

    def newton_step(self, mask: np.ndarray, g: np.ndarray, C: float) -> np.ndarray:
        """s = -H^-1 g with H = I + 2C Z_I^T Z_I: one p x p Cholesky, or one |I| x |I| (Woodbury)."""
        n_active, p = int(np.count_nonzero(mask)), self.Z.shape[1]
        if self.woodbury and n_active**2 * (p + n_active / 3) < p**2 * (p / 3 + self._update_rows(mask, n_active)):
            Z_act = self.Z.take(np.flatnonzero(mask), axis=0)
            return _woodbury_step(Z_act, Z_act @ Z_act.T, g, C)  # numpy computes A A^T with syrk
        H = 2.0 * C * self.update(mask)
        H.flat[:: len(H) + 1] += 1.0
        return -_spd_solve(H, g)

    def update(self, mask: np.ndarray) -> np.ndarray:
        n_active = int(np.count_nonzero(mask))
        if self.mask is not None and self._update_rows(mask, n_active) < min(n_active, len(mask) - n_active):
            entered, left = np.flatnonzero(mask & ~self.mask), np.flatnonzero(self.mask & ~mask)
            self.value += self._outer(entered) - self._outer(left)
        elif 2 * n_active <= len(mask):
            self.value = self._outer(np.flatnonzero(mask))
        else:
            self.value = self.gram - self._outer(np.flatnonzero(~mask))
        self.mask = mask
        return self.value

    def _update_rows(self, mask: np.ndarray, n_active: int) -> int:
        """Rows whose outer products ``update`` adds or subtracts to reach ``mask``'s Z_I^T Z_I."""
        recompute = min(n_active, len(mask) - n_active)
        return recompute if self.mask is None else min(int(np.count_nonzero(mask ^ self.mask)), recompute)

    @property
    def gram(self) -> np.ndarray:
        return self._gram.value

    def _outer(self, rows: np.ndarray) -> np.ndarray:
        Z_rows = self.Z.take(rows, axis=0)
        return Z_rows.T @ Z_rows  # numpy computes A^T A with syrk


class _RowGram:
    """Newton steps for p > n through the n x n Gram Z Z^T (Woodbury's identity), its block on
    the active rows, which is formed once for every C and label vector."""

    def __init__(self, Z: np.ndarray, gram: _SharedGram):
        self.Z, self._gram = Z, gram

    def newton_step(self, mask: np.ndarray, g: np.ndarray, C: float) -> np.ndarray:
        active = np.flatnonzero(mask)
        Z_act = self.Z.take(active, axis=0)  # take: ~10x a boolean mask
        return _woodbury_step(Z_act, self._gram.value[np.ix_(active, active)], g, C)


def _woodbury_step(Z_act: np.ndarray, K: np.ndarray, g: np.ndarray, C: float) -> np.ndarray:
    """s = -H^-1 g = Z_I^T (I / 2C + Z_I Z_I^T)^-1 Z_I g - g (Woodbury), given ``K`` = Z_I Z_I^T (overwritten):
    one |I| x |I| Cholesky (|I| = 0: H = I)."""
    if len(Z_act) == 0:
        return -g
    K.flat[:: len(K) + 1] += 1.0 / (2.0 * C)
    return Z_act.T @ _spd_solve(K, Z_act @ g) - g


def _spd_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A^-1 b for a symmetric positive definite A (overwritten) by LAPACK's Cholesky, dpotrf and dpotrs.

    Called once per Newton step and column, so LAPACK directly: scipy's cho_factor/cho_solve
    checks cost about as much as the factorization of the papers' p = 100-200.
    """
    factor, info = dpotrf(A, lower=1, clean=0, overwrite_a=1)
    if info == 0:
        x, info = dpotrs(factor, b, lower=1)
    if info != 0:
        raise LinAlgError(f"Cholesky factorization of the Newton system failed (LAPACK info {info})")
    return x


def line_search(a: np.ndarray, e: np.ndarray, C: float, ws: float, ss: float) -> float:
    """argmin_t f(w + t s): Newton's method on the convex piecewise quadratic phi(t), from t = 1.

    With the residuals a_i = 1 - y_i m_i at w and e_i = y_i d_i, d = Z s (y_i^2 = 1), the residual
    at w + t s is a_i - t e_i and
    phi'(t) = w.s + t s.s - 2C sum_A (a_i - t e_i) e_i over A(t) = {i : residual > 0},
    phi''(t) = s.s + 2C sum_A e_i^2; each step is exact on the current piece, so it ends
    once t stays on one piece.  Rows with a_i <= 0 and e_i >= 0 stay off A(t) for every t >= 0
    (s is a descent direction), so only the others are kept.
    """
    rows = (a > 0) | (e < 0)
    a, e = a[rows], e[rows]
    t = 1.0
    for _ in range(50):
        r = a - t * e
        active = r > 0
        e_act = e[active]
        step = (ws + t * ss - 2.0 * C * np.dot(r[active], e_act)) / (ss + 2.0 * C * np.dot(e_act, e_act))
        t -= step
        if abs(step) <= 1e-12 * max(1.0, abs(t)):
            break
    return t
