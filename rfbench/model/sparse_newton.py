"""Exact solver for LibLinear's L2-loss SVM on wide sparse codes: Newton-CG on the active rows.

The problem is :mod:`rfbench.model.newton_svc`'s, for each one-vs-rest column k,

.. math::

    \\min_w f(w) = \\tfrac12 \\|w\\|^2 + C \\sum_i \\max(0,\\, 1 - y_{ik} z_i^\\top w)^2 ,

on a design too wide to factor its p x p Hessian (binning's and GCWS's codes on letter: thousands
of columns).  Each Newton direction solves H_k s = -g_k, H_k = I + 2C Z_{I_k}^T Z_{I_k}, by
conjugate gradients, and only the active rows I_k = {i : y_ik z_i^T w_k < 1} enter its products:
at the large C the cross-validation picks, a one-vs-rest column's active rows are a few of the n
(most rows are far on the right side), so a product costs what LibLinear's own Hessian products
cost.  Where each column's stored values are one value (GCWS's codes, 1/sqrt(k), and the bias
column: Z = B diag(s), B the 0/1 pattern), the products multiply by B and s (``_pattern_product``),
class by class over its own active rows: an active pair reads only the row's column indices, and its
scattered reads and writes stay within one class's vectors; the gradient's Z^T product scatters the
active pairs' rows only.  Other codes take ``_hessian_product``, one pass over the rows for all
columns, row i's stored values read once for every column whose active set holds it.  On GCWS
letter the pattern product makes the path cheaper (its ratio: ``make bench``, section ``sparse_path``).

The stopping rule is LibLinear ``-s 2``'s at ``-e tol``: column k stops at
||g_k(w)|| <= tol max(min(n+, n-), 1) / n ||g_k(0)||, n+ and n- its positive and negative rows; the
result is then that of ``LibLinear -s 2 -e tol`` to the same tolerance (the problem is strictly
convex: the same minimizer), whatever the start.  Each direction's CG stops at
``||r|| <= min(0.5, max(sqrt(||g|| / ||g_start||), g_stop / ||g||)) ||g||``, g_start the gradient where
this C's Newton steps start (a forcing term: loose far from this C's optimum, tight near it; measured
against ||g(0)||, as before, the first step of each warm-started C was solved as tightly as its last),
g_stop the stopping rule's bound on ||g||: the CG's residual r = H s + g is the gradient the quadratic
model predicts after the step, so a last step is not solved beyond what the rule asks of the gradient
(the rule itself still decides when to stop).  The step length is the exact minimizer along the
direction (``newton_svc.line_search``).  Each C after the first starts from the
last C's solution moved along the path's last step, w(C_j) - w(C_j-1), to the exact minimizer of the
new f on that line when it lies ahead (a start: the optimum is the same).  The two cut the products a
letter fold's path makes by about a fifth (``make bench``, section ``sparse_path``; benchmarks/README.md).
"""
from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from rfbench.model.newton_svc import line_search

#: Newton steps per C and CG iterations per step before a ConvergenceWarning.
MAX_NEWTON_STEPS, MAX_CG_STEPS = 200, 1000


def stopping_scale(Y: np.ndarray) -> np.ndarray:
    """LibLinear's factor max(min(n+, n-), 1) / n of ``-s 2``'s stopping rule, per column of the +-1 ``Y``."""
    positives = np.count_nonzero(Y > 0, axis=0)
    return np.maximum(np.minimum(positives, len(Y) - positives), 1) / len(Y)


def squared_hinge_paths_sparse(
    Z: sp.csr_matrix, Y: np.ndarray, Cs: Sequence[float], W0: np.ndarray | None = None, tol: float = 1e-6,
    by_pattern: bool = True,
) -> Iterator[np.ndarray]:
    """Minimizers of f for each C in ``Cs`` (best increasing), each warm-started from the last, for the
    +-1 columns of ``Y`` together.

    Parameters
    ----------
    Z : scipy.sparse matrix of shape (n_samples, n_features)
        Features (an intercept is a constant column); used as float64 CSR.
    Y : ndarray of shape (n_samples, n_columns)
        Labels in {-1.0, +1.0}, one problem per column.
    Cs : sequence of float
        Values of C.
    W0 : ndarray of shape (n_features, n_columns), optional
        Start for the first C (zeros by default).
    tol : float
        LibLinear's ``-e`` for ``-s 2`` (see the module's docstring).
    by_pattern : bool
        Multiply by Z's 0/1 pattern and one value per column when each column's stored values are
        equal (GCWS's codes and the bias column; see ``_pattern_product``); False reads the stored
        values in every product (the former product, for ``make bench``).  The same Hessian either way.

    Yields
    ------
    W : ndarray of shape (n_features, n_columns)
        A fresh array for each C.
    """
    Z = sp.csr_matrix(Z, dtype=np.float64)
    Z.sort_indices()
    product = _product(Z, by_pattern)
    # Each column's arrays are rows of (n_columns, ...) arrays here: a column's vector over the p
    # features is then contiguous, what the products with Z gather from and scatter to.
    Y = np.ascontiguousarray(Y.T, dtype=np.float64)
    W = np.zeros((len(Y), Z.shape[1])) if W0 is None else np.array(W0, dtype=np.float64).T.copy()
    margins = np.asarray(Z @ W.T).T.copy()
    gnorm0 = np.linalg.norm(np.asarray(Z.T @ Y.T), axis=0)  # ||g_k(0)|| = 2C ||Z^T y_k||
    scale = tol * stopping_scale(Y.T)
    last = None
    for C in Cs:
        if last is not None:
            _along_the_path(Y, float(C), W, margins, *last)
        last = W.copy(), margins.copy()
        _minimize(Z, product, Y, float(C), W, margins, 2.0 * C * gnorm0, scale)
        yield W.T.copy()


class _Product(NamedTuple):
    """A Hessian product on Z: ``multiply(*active(mask), rows, P, coef)`` is p_k + coef Z^T diag(mask[k]) Z p_k
    for each k in ``rows`` of P, ``mask`` (m, n) the active rows of each column, which ``active`` puts in the
    form ``multiply`` reads (once per Newton step: the CG's products share it)."""

    active: Callable[[np.ndarray], tuple[np.ndarray, ...]]
    multiply: Callable[..., np.ndarray]
    #: V (m, n) -> (Z^T v_k)_k (m, p): the gradients' product, V zero off the active pairs.
    transposed: Callable[[np.ndarray], np.ndarray]


def _product(Z: sp.csr_matrix, by_pattern: bool) -> _Product:
    """Z's Hessian product: by its pattern and column values when they describe Z (and ``by_pattern``),
    else by its stored values."""
    values = column_values(Z) if by_pattern else None
    if values is None:
        # Unsigned column indices: numba then skips the wraparound of negative indices on every gather and
        # scatter (about a fifth of a product's time on GCWS codes).
        multiply = functools.partial(_hessian_product, Z.indptr, Z.indices.astype(np.uint32), Z.data)
        return _Product(lambda mask: (np.ascontiguousarray(mask.T),), multiply, lambda V: np.asarray(Z.T @ V.T).T)
    # Half the index bytes where the columns allow it (GCWS letter: 4,097): the pattern product reads
    # little else.
    indices = Z.indices.astype(np.uint16 if Z.shape[1] <= 2**16 else np.uint32)
    return _Product(_row_lists, functools.partial(_pattern_product, Z.indptr, indices, values),
                    functools.partial(_pattern_transposed, Z.indptr, indices, values))


def _row_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lists, starts): lists[starts[k]:starts[k + 1]] the rows i of mask[k, i], in order."""
    _, lists = np.nonzero(mask)
    return lists, np.concatenate([[0], np.cumsum(np.count_nonzero(mask, axis=1))])


def column_values(Z: sp.csr_matrix) -> np.ndarray | None:
    """s with Z = B diag(s), B the 0/1 pattern of Z's stored entries, when every column's stored values
    are one value s_j (0 for a column with none); else None."""
    values = np.zeros(Z.shape[1])
    values[Z.indices] = Z.data
    return values if np.array_equal(values[Z.indices], Z.data) else None


def _along_the_path(Y: np.ndarray, C: float, W: np.ndarray, margins: np.ndarray, W_last: np.ndarray,
                    margins_last: np.ndarray) -> None:
    """Move each row w_k of W (in place, with its margins) along the path's last step w_k - w_k(last C) to
    the minimizer of this C's f on that line, when it lies ahead (t > 0): a start that already follows the
    path's bend.  The step's margins are the difference of the two margins: no product with Z."""
    S, D = W - W_last, margins - margins_last
    R = 1.0 - Y * margins
    for k in range(len(W)):
        ss = S[k] @ S[k]
        if ss == 0.0:
            continue
        t = line_search(R[k], Y[k] * D[k], C, W[k] @ S[k], ss)
        if t > 0.0:  # line_search's rows are those of t >= 0: a minimizer behind the start is not taken
            W[k] += t * S[k]
            margins[k] += t * D[k]


def _minimize(Z: sp.csr_matrix, product: _Product, Y: np.ndarray, C: float, W: np.ndarray, margins: np.ndarray,
              gnorm0: np.ndarray, scale: np.ndarray) -> None:
    """Newton-CG steps on the rows w_k of W (labels Y[k]; in place, with their margins Z w_k) until each
    ||g_k|| <= scale[k] ||g_k(0)|| (``gnorm0``)."""
    start, bound = None, scale * gnorm0
    for _ in range(MAX_NEWTON_STEPS):
        R = 1.0 - Y * margins
        # y_i r_i on the active set, 0 off it: rows off the set add exact zeros.
        G = W - 2.0 * C * product.transposed(np.maximum(R, 0.0) * Y)
        norms = np.linalg.norm(G, axis=1)
        start = norms if start is None else start
        todo = np.flatnonzero(norms > bound)
        if len(todo) == 0:
            return
        forcing = np.minimum(0.5, np.maximum(np.sqrt(norms[todo] / start[todo]), bound[todo] / norms[todo]))
        S = _conjugate_gradients(product, product.active(R[todo] > 0), C, -G[todo], forcing * norms[todo])
        D = np.asarray(Z @ S.T).T
        for j, k in enumerate(todo):
            t = line_search(R[k], Y[k] * D[j], C, W[k] @ S[j], S[j] @ S[j])
            W[k] += t * S[j]
            margins[k] += t * D[j]
    warnings.warn(f"Newton-CG did not reach tol in {MAX_NEWTON_STEPS} steps at C={C}", ConvergenceWarning,
                  stacklevel=3)


def _conjugate_gradients(product: _Product, active: tuple[np.ndarray, ...], C: float, B: np.ndarray,
                         stop: np.ndarray) -> np.ndarray:
    """x_k solving H_k x_k = b_k (H_k = I + 2C Z^T diag(a_k) Z, a_k column k's active rows in ``active``,
    ``product.active``'s form) for every row k of B, by CG from 0 until ||r_k|| <= stop[k]; the rows still
    iterating share each product."""
    X, R = np.zeros_like(B), B.copy()
    P, rr = R.copy(), np.sum(R * R, axis=1)
    live = np.arange(len(B))
    for _ in range(MAX_CG_STEPS):
        live = live[np.sqrt(rr[live]) > stop[live]]
        if len(live) == 0:
            return X
        _cg_step(live, product.multiply(*active, live, P, 2.0 * C), X, R, P, rr)
    warnings.warn(f"CG did not reach its tolerance in {MAX_CG_STEPS} steps at C={C}", ConvergenceWarning,
                  stacklevel=3)
    return X


@numba.njit(nogil=True, cache=True)
def _cg_step(live: np.ndarray, HP: np.ndarray, X: np.ndarray, R: np.ndarray, P: np.ndarray, rr: np.ndarray
             ) -> None:  # pragma: no cover (numba)
    """One CG step in place for each row k = live[a] (HP[a] = H_k p_k): x += alpha p, r -= alpha H p,
    p = r + beta p, rr = ||r||^2, in two passes over the row (numpy's fancy-indexed copies made eight)."""
    for a in range(len(live)):
        k = live[a]
        pHp = 0.0
        for j in range(P.shape[1]):
            pHp += P[k, j] * HP[a, j]
        alpha = rr[k] / pHp
        rr_new = 0.0
        for j in range(P.shape[1]):
            X[k, j] += alpha * P[k, j]
            R[k, j] -= alpha * HP[a, j]
            rr_new += R[k, j] * R[k, j]
        beta = rr_new / rr[k]
        for j in range(P.shape[1]):
            P[k, j] = R[k, j] + beta * P[k, j]
        rr[k] = rr_new


@numba.njit(nogil=True, cache=True)
def _hessian_product(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, active: np.ndarray,
                     rows: np.ndarray, P: np.ndarray, coef: float) -> np.ndarray:  # pragma: no cover (numba)
    """p_k + coef Z^T diag(active[:, k]) Z p_k for each k in ``rows`` of P (in that order): row i of Z is
    read once for all the k whose active set holds it (``active``: n x m, row i's flags together)."""
    out = np.empty((len(rows), P.shape[1]))
    for a in range(len(rows)):
        out[a] = P[rows[a]]
    for i in range(len(indptr) - 1):
        start, end = indptr[i], indptr[i + 1]
        for a in range(len(rows)):
            k = rows[a]
            if not active[i, k]:
                continue
            u = 0.0
            for t in range(start, end):
                u += data[t] * P[k, indices[t]]
            u *= coef
            for t in range(start, end):
                out[a, indices[t]] += u * data[t]
    return out


@numba.njit(nogil=True, cache=True)
def _pattern_product(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, lists: np.ndarray,
                     starts: np.ndarray, rows: np.ndarray, P: np.ndarray, coef: float
                     ) -> np.ndarray:  # pragma: no cover (numba)
    """``_hessian_product`` for Z = B diag(values), B Z's 0/1 pattern (``column_values``): p_k + coef
    diag(s) B^T diag(a_k) B diag(s) p_k for each k in ``rows``, a_k the rows lists[starts[k]:starts[k + 1]].

    Class by class over its own active rows: an active pair reads only the row's column indices (not its
    stored values; 16-bit where the columns allow), and its gathers and scatters stay within one class's
    two vectors (64 KB on GCWS letter, where the shared pass spread them over all live classes'); the
    gather sums in four accumulators.  About 2x faster than ``_hessian_product`` on GCWS's codes
    (benchmarks/README.md)."""
    out = np.zeros((len(rows), P.shape[1]))
    scaled = np.empty(P.shape[1])
    for a in range(len(rows)):
        k = rows[a]
        scaled[:] = P[k] * values
        scatter = out[a]
        for r in range(starts[k], starts[k + 1]):
            start, end = indptr[lists[r]], indptr[lists[r] + 1]
            u0 = u1 = u2 = u3 = 0.0
            quads = start + (end - start) // 4 * 4
            for t in range(start, quads, 4):
                u0 += scaled[indices[t]]
                u1 += scaled[indices[t + 1]]
                u2 += scaled[indices[t + 2]]
                u3 += scaled[indices[t + 3]]
            for t in range(quads, end):
                u0 += scaled[indices[t]]
            u = coef * ((u0 + u1) + (u2 + u3))
            for t in range(start, end):
                scatter[indices[t]] += u
        out[a] = P[k] + values * scatter
    return out


@numba.njit(nogil=True, cache=True)
def _pattern_transposed(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, V: np.ndarray
                        ) -> np.ndarray:  # pragma: no cover (numba)
    """diag(s) B^T v_k for each row v_k of V (m, n), Z = B diag(s): a scatter of row i's pattern for each
    nonzero V[k, i] only (the gradient's, nonzero on the active pairs: where scipy's product reads all)."""
    out = np.zeros((V.shape[0], len(values)))
    for k in range(V.shape[0]):
        scatter = out[k]
        for i in range(V.shape[1]):
            v = V[k, i]
            if v != 0.0:
                for t in range(indptr[i], indptr[i + 1]):
                    scatter[indices[t]] += v
        out[k] = values * scatter
    return out
