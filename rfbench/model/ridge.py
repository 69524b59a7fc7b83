"""Ridge regression and one-vs-rest ridge classification on features, lambda by k-fold CV.

Both estimators solve, for every lambda of a grid,

    min_w ||Z w - y||^2 + lambda ||w||^2

(sums, not means: lambda scales with n), with an unpenalized intercept when ``fit_intercept``
(Z and y centered by their training means).  The grid is served without one solve per lambda:

* ``solver="eigen"`` (dense or sparse Z of at most ``MAX_EIGEN_FEATURES`` columns): ONE
  eigendecomposition Z^T Z = V diag(s) V^T per fold serves every lambda and every target column,
  w(lambda) = V diag(1 / (s + lambda)) V^T Z^T y.  The Gram is accumulated over row chunks in
  float64, so a float32 or sparse Z is converted a chunk at a time.  Directions with
  s + lambda <= p * eps * max(s) are dropped (lambda = 0 then gives the minimum-norm least
  squares solution).
* ``solver="dual"`` (Z of at most ``MAX_DUAL_ROWS`` rows, of any width): ONE eigendecomposition of
  the rows' Gram C C^T = U diag(s) U^T per fold (C the centered Z) serves every lambda,
  w(lambda) = C^T U diag(1 / (s + lambda)) U^T y: the primal solution by the push-through
  identity (Z^T Z + lambda I)^-1 Z^T = Z^T (Z Z^T + lambda I)^-1, at a cost set by the rows, not
  the columns.  The same directions are dropped, with max(n, p) in place of p; a single lambda
  above that cutoff (the refit) is one Cholesky solve of C C^T + lambda I instead.
* ``solver="lsqr"`` (Z wider than ``MAX_EIGEN_FEATURES`` and taller than ``MAX_DUAL_ROWS``): scipy's LSQR
  on the stacked system [Z; sqrt(lambda) I],
  lambda from the largest to the smallest, each solve warm-started from the previous lambda's
  solution (scipy's own ``x0`` would damp ||w - x0|| instead of ||w||, so the warm start is
  written as a correction: min ||[Z; sqrt(lambda) I] dx - [y - Z w0; -sqrt(lambda) w0]||).
"""
from __future__ import annotations

import inspect
import logging
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, lsqr
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array, check_is_fitted
from threadpoolctl import threadpool_limits

from rfbench.model.grid_search import GridSearchResults, Progress, check_cv, check_grid, make_folds
from rfbench.model.pool import worker_pool
from rfbench.validation import is_int, is_real

log = logging.getLogger("rfbench")

#: Default grid lambda = 10^-4, 10^-3, ..., 10^4.
DEFAULT_LAMBDA_GRID: tuple[float, ...] = tuple(float(v) for v in 10.0 ** np.arange(-4, 5))

#: Widest Z for ``solver="eigen"``: its Gram and eigenvectors are p x p float64 each.
MAX_EIGEN_FEATURES = 8192

#: Tallest Z for ``solver="dual"``: its rows' Gram and eigenvectors are n x n float64 each.
MAX_DUAL_ROWS = 8192

SOLVERS: tuple[str, ...] = ("auto", "eigen", "dual", "lsqr")

#: Upper bound on a float64 chunk of rows of Z.
_CHUNK_BYTES = 32 * 2**20

#: A path yields (coef (p, k), intercept (k,)) for each lambda, in the order given.
Path = Iterator[tuple[np.ndarray, np.ndarray]]


class _RidgeCV(GridSearchResults, BaseEstimator):
    """Shared fit/CV/predict of ridge on features; subclasses set the task and its score.

    Parameters
    ----------
    lambda_grid : sequence of float, default=10^-4, ..., 10^4
        Candidate values of lambda, all finite and >= 0 (0 is least squares).
    cv : int, default=5
        Number of shuffled folds, 2 <= cv <= n (classification: stratified, at most the
        size of the smallest class).  A one-value grid skips cross-validation.
    fit_intercept : bool, default=True
        Fit an unpenalized intercept by centering Z and the targets on the training rows.
    solver : {"auto", "eigen", "dual", "lsqr"}, default="auto"
        "auto" is "eigen" for Z of at most ``MAX_EIGEN_FEATURES`` columns, dense or sparse (on
        random binning's codes, cpu_act, P = 350: 22 s against more than 11 min for LSQR), else
        "dual" for Z of at most ``MAX_DUAL_ROWS`` rows, else "lsqr".  "eigen" and "dual" give
        the same solutions to rounding; the smaller of p and n is the cheaper.  ``fit`` logs the
        one it runs.
    tol : float, default=1e-10
        LSQR's ``atol`` and ``btol`` (unused by "eigen").
    max_iter : int or None, default=None
        LSQR's iteration limit per solve (None: scipy's default, 2 p).
    scoring : str or None, default=None
        CV score.  Regression: "relative_error" (the default, ||y_hat - y||_2 / ||y||_2
        per fold) or "mse"; lower is better.  Classification: "accuracy" (the default).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling of the folds.
    n_jobs : int, default=1
        Threads running folds in parallel, each with one BLAS thread (the whole fit runs
        with one BLAS thread per worker, so the result does not depend on ``n_jobs``).
    progress : callable or None, default=None
        Called as ``progress(done, total)`` in the calling thread, counting solves of one
        lambda on one fold (the refit is the last).

    Attributes
    ----------
    lambda_ : float
        The chosen lambda: the best mean CV score, ties toward the larger lambda.
    cv_scores_ : ndarray of shape (len(lambda_grid),)
        Mean score over the folds per grid value, in grid order (NaN without CV).
    coef_ : ndarray of shape (n_features,) or (n_features, n_w)
        Weights refitted on all data with ``lambda_``.
    intercept_ : float or ndarray of shape (n_w,)
        The unpenalized intercept (0 without ``fit_intercept``).
    solver_ : str
        The solver used ("eigen" or "lsqr").
    n_features_in_ : int
    """

    task: str
    _scorings: tuple[str, ...]
    _greater_is_better: bool

    def __init__(
        self,
        lambda_grid: Sequence[float] = DEFAULT_LAMBDA_GRID,
        cv: int = 5,
        fit_intercept: bool = True,
        solver: str = "auto",
        tol: float = 1e-10,
        max_iter: int | None = None,
        scoring: str | None = None,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int = 1,
        progress: Callable[[int, int], None] | None = None,
    ):
        self.lambda_grid = lambda_grid
        self.cv = cv
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.scoring = scoring
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress

    @property
    def score_name(self) -> str:
        """The CV score: ``scoring``, or the task's default."""
        return self.scoring or self._scorings[0]

    def check_params(self) -> None:
        """Raise ValueError naming the first invalid constructor parameter; ``fit`` calls it first."""
        check_grid("lambda_grid", self.lambda_grid, allow_zero=True)
        check_cv(self.cv)
        if not isinstance(self.fit_intercept, bool):
            raise ValueError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver={self.solver!r} is not valid; choose one of {SOLVERS}")
        if not (is_real(self.tol) and 0 < self.tol < 1):
            raise ValueError(f"tol={self.tol!r} is invalid: LSQR's tolerance needs 0 < tol < 1")
        if self.max_iter is not None and not (is_int(self.max_iter) and self.max_iter >= 1):
            raise ValueError(f"max_iter={self.max_iter!r} is invalid: None or an int >= 1")
        if self.scoring is not None and self.scoring not in self._scorings:
            raise ValueError(f"scoring={self.scoring!r} is not valid for {self.task}; choose one of {self._scorings}")
        if not is_int(self.n_jobs) or self.n_jobs < 1:
            raise ValueError(f"n_jobs must be an int >= 1, got {self.n_jobs!r}")

    def fit(self, Z: np.ndarray | sp.spmatrix, y: np.ndarray) -> _RidgeCV:
        """Choose lambda by k-fold CV on (Z, y), then refit on all of (Z, y).

        Parameters
        ----------
        Z : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
            Features, float32 or float64, all finite (sparse: converted to CSR float64).
        y : ndarray of shape (n_samples,) (regression: or (n_samples, n_targets))
            Targets (regression) or class labels (classification).

        Returns
        -------
        self
        """
        self.check_params()
        grid = np.asarray(self.lambda_grid, dtype=np.float64)
        Z = _check_Z(Z)
        y = np.asarray(y)
        if len(y) != Z.shape[0]:
            raise ValueError(f"y must have one entry per row of Z: Z has {Z.shape[0]} rows, y has {len(y)}")
        Y, labels = self._targets(y)
        self.n_features_in_ = Z.shape[1]
        self.solver_ = self._pick_solver(Z)
        cross_validate = len(grid) > 1
        folds = (make_folds(self.cv, labels, stratified=self.task == "classification", random_state=self.random_state)
                 if cross_validate else [])
        progress = Progress(self.progress, len(folds) * len(grid) + 1)
        with threadpool_limits(limits=1), worker_pool(self.n_jobs) as pool:
            jobs = [pool.submit(self._fold_scores, Z, Y, labels, grid, *fold) for fold in folds]
            scores = np.zeros(len(grid))
            for job in jobs:
                scores += job.result() / len(folds)
                progress(len(grid))
            self.cv_scores_ = scores if cross_validate else np.full(len(grid), np.nan)
            self.lambda_ = self._select(grid, scores) if cross_validate else float(grid[0])
            self._record_grid({"lambda": grid}, self.cv_scores_, {"lambda": self.lambda_})
            coef, intercept = next(self._path(Z, Y, np.arange(Z.shape[0]), [self.lambda_]))
        progress()
        self.coef_, self.intercept_ = self._shape_weights(coef, intercept)
        return self

    def decision_function(self, Z: np.ndarray | sp.spmatrix) -> np.ndarray:
        """Z @ coef_ + intercept_, computed in float64 chunks."""
        check_is_fitted(self, "coef_")
        Z = _check_Z(Z)
        if Z.shape[1] != self.n_features_in_:
            raise ValueError(f"Z has {Z.shape[1]} features, but the model was fitted with {self.n_features_in_}")
        return _decision(Z, np.arange(Z.shape[0]), self.coef_, self.intercept_)

    # --- subclass hooks --------------------------------------------------------------
    def _targets(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(float64 targets (n, k), labels for stratification or the targets themselves)."""
        raise NotImplementedError

    def _score(self, decision: np.ndarray, labels: np.ndarray) -> float:
        raise NotImplementedError

    def _shape_weights(self, coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray | float]:
        return coef, intercept

    # --- helpers -----------------------------------------------------------------------
    def memory_needs(self, n_rows: int, width: int, stored: int, sparse: bool) -> dict[str, int]:
        """Bytes of the largest arrays ``fit`` holds beside the features, known before it starts.

        ``"eigen"``: per fold thread the normal equations' p x p matrix C^T C, its eigenvectors
        and LAPACK's workspace, about 3 p^2 float64; ``"dual"``: the same of the rows' n x n
        Gram C C^T; ``"lsqr"``: per fold thread the fold's rows
        in float64 (their stored values and, sparse, a column index each).  Parameters as
        ``LibLinearClassifier.memory_needs``.
        """
        threads = self.n_jobs if is_int(self.n_jobs) and self.n_jobs > 0 else 1
        solver = self._solver_for(n_rows, width)
        if solver == "eigen":
            return {"ridge's normal equations (p x p per fold)": threads * 3 * width * width * 8}
        if solver == "dual":
            return {"ridge's rows' Gram (n x n per fold)": threads * 3 * n_rows * n_rows * 8}
        return {"ridge's float64 rows (lsqr, per fold)": threads * n_rows * stored * (8 + 8 * sparse)}

    def _solver_for(self, n_rows: int, width: int) -> str:
        """The solver ``fit`` runs on ``n_rows`` x ``width`` features (``"auto"`` resolved)."""
        if self.solver != "auto":
            return self.solver
        if width <= MAX_EIGEN_FEATURES:
            return "eigen"
        return "dual" if n_rows <= MAX_DUAL_ROWS else "lsqr"

    def _pick_solver(self, Z: np.ndarray | sp.spmatrix) -> str:
        solver = self._solver_for(*Z.shape)
        if solver == "eigen" and Z.shape[1] > MAX_EIGEN_FEATURES:
            raise ValueError(f"solver='eigen' forms a p x p Gram and Z has p={Z.shape[1]} columns, more than "
                             f"{MAX_EIGEN_FEATURES}; use solver='dual' (n <= {MAX_DUAL_ROWS} rows) or 'lsqr'")
        if solver == "dual" and Z.shape[0] > MAX_DUAL_ROWS:
            raise ValueError(f"solver='dual' forms an n x n Gram and Z has n={Z.shape[0]} rows, more than "
                             f"{MAX_DUAL_ROWS}; use solver='eigen' (p <= {MAX_EIGEN_FEATURES} columns) or 'lsqr'")
        log.info("model: ridge, solver=%s%s, on %s features (%d x %d)", solver,
                 " (auto)" if self.solver == "auto" else "", "sparse" if sp.issparse(Z) else "dense", *Z.shape)
        return solver

    def _path(self, Z: np.ndarray | sp.spmatrix, Y: np.ndarray, rows: np.ndarray, grid: Sequence[float]) -> Path:
        if self.solver_ == "eigen":
            return _eigen_path(Z, Y, rows, grid, self.fit_intercept)
        if self.solver_ == "dual":
            return _dual_path(Z, Y, rows, grid, self.fit_intercept)
        return _lsqr_path(Z, Y, rows, grid, self.fit_intercept, self.tol, self.max_iter)

    def _fold_scores(
        self, Z: np.ndarray | sp.spmatrix, Y: np.ndarray, labels: np.ndarray, grid: np.ndarray,
        train: np.ndarray, test: np.ndarray,
    ) -> np.ndarray:
        """Test-fold score for each lambda, walking the grid from the largest lambda down."""
        order = np.argsort(-grid, kind="stable")
        scores = np.empty(len(grid))
        for j, (coef, intercept) in zip(order, self._path(Z, Y, train, grid[order])):
            scores[j] = self._score(_decision(Z, test, coef, intercept), labels[test])
        return scores

    def _select(self, grid: np.ndarray, scores: np.ndarray) -> float:
        """The best mean score; ties toward the larger lambda (the simpler model)."""
        best = scores.max() if self._greater_is_better else scores.min()
        return float(grid[scores == best].max())


class RidgeRegressorCV(RegressorMixin, _RidgeCV):
    """Ridge regression on features with lambda chosen by shuffled k-fold CV.

    Lower scores are better ("relative_error" or "mse"); ``coef_`` is (n_features,) for 1-D
    y, else (n_features, n_targets).  Parameters and attributes: see ``_RidgeCV``.
    """

    task = "regression"
    tasks = (task,)
    _scorings = ("relative_error", "mse")
    _greater_is_better = False

    def _targets(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if y.ndim not in (1, 2):
            raise ValueError(f"y must be 1-D or 2-D, got shape {y.shape}")
        Y = check_array(y.reshape(len(y), -1), dtype=np.float64)
        self._1d = y.ndim == 1
        return Y, Y

    def _score(self, decision: np.ndarray, target: np.ndarray) -> float:
        if self.scoring == "mse":
            return float(np.mean((decision - target) ** 2))
        norm = np.linalg.norm(target)
        if norm == 0:
            raise ValueError("the targets of a CV fold are all 0, so their relative error is undefined; "
                             "use scoring='mse'")
        return float(np.linalg.norm(decision - target) / norm)

    def _shape_weights(self, coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray | float]:
        return (coef[:, 0], float(intercept[0])) if self._1d else (coef, intercept)

    def predict(self, Z: np.ndarray | sp.spmatrix) -> np.ndarray:
        """Predicted targets, (n_samples,) for 1-D y, else (n_samples, n_targets)."""
        return self.decision_function(Z)


class RidgeClassifierCV(ClassifierMixin, _RidgeCV):
    """One-vs-rest ridge classification on ±1 targets, lambda chosen by stratified k-fold CV.

    Two classes use one column (+1 means ``classes_[1]``), more use one column per class;
    the CV score is accuracy.  Parameters and attributes: see ``_RidgeCV``; also
    ``classes_``.  ``coef_`` is (n_features, n_w) as in ``LibLinearClassifier``.
    """

    task = "classification"
    tasks = (task,)
    _scorings = ("accuracy",)
    _greater_is_better = True

    def _targets(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D class labels, got shape {y.shape}")
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y must contain at least 2 classes, got only {self.classes_.tolist()}")
        columns = np.arange(len(self.classes_)) if len(self.classes_) > 2 else np.array([1])
        return np.where(y_idx[:, None] == columns, 1.0, -1.0), y_idx

    def _score(self, decision: np.ndarray, y_idx: np.ndarray) -> float:
        return float(np.mean(_argmax(decision) == y_idx))

    def decision_function(self, Z: np.ndarray | sp.spmatrix) -> np.ndarray:
        """(n_samples,) for two classes (positive means ``classes_[1]``), else (n_samples, n_classes)."""
        decision = super().decision_function(Z)
        return decision[:, 0] if decision.shape[1] == 1 else decision

    def predict(self, Z: np.ndarray | sp.spmatrix) -> np.ndarray:
        return self.classes_[_argmax(super().decision_function(Z))]


def ridge_cv(task: str = "regression", **params: Any) -> RidgeRegressorCV | RidgeClassifierCV:
    """The ridge model of a task: ``RidgeRegressorCV`` or ``RidgeClassifierCV`` with ``params``.

    One config option (``classifier=ridge``) serves regression and classification datasets:
    the runner passes the dataset's ``task``.
    """
    models = {m.task: m for m in (RidgeRegressorCV, RidgeClassifierCV)}
    if task not in models:
        raise ValueError(f"task={task!r} is invalid; ridge serves {sorted(models)}")
    return models[task](**params)


ridge_cv.tasks = ("classification", "regression")
ridge_cv.__signature__ = inspect.signature(_RidgeCV).replace(parameters=[
    inspect.Parameter("task", inspect.Parameter.KEYWORD_ONLY, default="regression"),
    *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in inspect.signature(_RidgeCV).parameters.values())])


def _argmax(decision: np.ndarray) -> np.ndarray:
    """Class indices from (n, 1) (+1 = class 1) or one-vs-rest (n, n_classes) decision values."""
    return (decision[:, 0] > 0).astype(int) if decision.shape[1] == 1 else np.argmax(decision, axis=1)


def _check_Z(Z: np.ndarray | sp.spmatrix) -> np.ndarray | sp.csr_matrix:
    Z = check_array(Z, accept_sparse="csr", dtype=(np.float64, np.float32))
    return Z.astype(np.float64) if sp.issparse(Z) else Z


def _dense_rows(Z: np.ndarray | sp.spmatrix, rows: np.ndarray) -> Iterator[tuple[slice, np.ndarray]]:
    """(positions in ``rows``, float64 dense copy of those rows of Z) in chunks of ``_CHUNK_BYTES``."""
    step = max(1, _CHUNK_BYTES // (8 * max(1, Z.shape[1])))
    for start in range(0, len(rows), step):
        chunk = Z[rows[start : start + step]]
        # fancy indexing already copied the rows: no second copy when they are float64
        yield slice(start, start + step), chunk.toarray() if sp.issparse(chunk) else np.asarray(chunk, dtype=np.float64)


def _decision(Z: np.ndarray | sp.spmatrix, rows: np.ndarray, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Z[rows] @ coef + intercept; dense Z in float64 chunks, sparse Z by its own product."""
    if sp.issparse(Z):
        return Z[rows] @ coef + intercept
    out = np.empty((len(rows), *coef.shape[1:]))
    for where, chunk in _dense_rows(Z, rows):
        out[where] = chunk @ coef
    return out + intercept


def _means(
    Z: np.ndarray | sp.spmatrix, Y: np.ndarray, rows: np.ndarray, fit_intercept: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Column means of Z[rows] and Y[rows] (zeros without an intercept)."""
    if not fit_intercept:
        return np.zeros(Z.shape[1]), np.zeros(Y.shape[1])
    if sp.issparse(Z):
        z_sum = np.asarray(Z[rows].sum(axis=0)).ravel()
    else:
        z_sum = sum(chunk.sum(axis=0) for _, chunk in _dense_rows(Z, rows))
    return z_sum / len(rows), Y[rows].mean(axis=0)


def _centered_products(
    Z: np.ndarray | sp.spmatrix, targets: np.ndarray, rows: np.ndarray, z_mean: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """C^T C and C^T targets for C = Z[rows] - z_mean, in float64.

    Sparse Z is never densified: with A = Z[rows], C^T C = A^T A - n m m^T and
    C^T T = A^T T - m 1^T T, whose sparse products cost O(nnz^2 / n) instead of O(n p^2).
    """
    if sp.issparse(Z):
        A = Z[rows].astype(np.float64)
        gram = (A.T @ A).toarray() - len(rows) * np.outer(z_mean, z_mean)
        return gram, A.T @ targets - np.outer(z_mean, targets.sum(axis=0))
    gram, ZtY = np.zeros((Z.shape[1], Z.shape[1])), np.zeros((Z.shape[1], targets.shape[1]))
    for where, chunk in _dense_rows(Z, rows):
        chunk -= z_mean
        gram += chunk.T @ chunk
        ZtY += chunk.T @ targets[where]
    return gram, ZtY


def _eigen_path(
    Z: np.ndarray | sp.spmatrix, Y: np.ndarray, rows: np.ndarray, grid: Sequence[float], fit_intercept: bool,
) -> Path:
    """Ridge solutions for every lambda from one eigendecomposition of the centered Z[rows]^T Z[rows]."""
    z_mean, y_mean = _means(Z, Y, rows, fit_intercept)
    gram, ZtY = _centered_products(Z, Y[rows] - y_mean, rows, z_mean)
    s, V = np.linalg.eigh(gram)
    s = np.maximum(s, 0.0)  # rounding makes the tiny eigenvalues of a PSD Gram slightly negative
    VtZtY = V.T @ ZtY
    cutoff = Z.shape[1] * np.finfo(np.float64).eps * s.max()
    for lam in grid:
        denominator = s + lam
        inverse = np.divide(1.0, denominator, out=np.zeros_like(s), where=denominator > cutoff)
        coef = V @ (inverse[:, None] * VtZtY)
        yield coef, y_mean - z_mean @ coef


def _row_gram(A: np.ndarray | sp.spmatrix, z_mean: np.ndarray) -> np.ndarray:
    """C C^T for C = A - z_mean, in float64 (n x n), A the fold's rows of Z.

    Sparse A: A A^T - g 1^T - 1 g^T + (m . m) with g = A m, never densifying A.
    Dense A: the centered rows' products accumulated over chunks of columns (float64 temporaries
    of a bounded size, whatever A's dtype).
    """
    if sp.issparse(A):
        A = A.astype(np.float64, copy=False)
        g = A @ z_mean
        return (A @ A.T).toarray() - g[:, None] - g[None, :] + z_mean @ z_mean
    gram = np.zeros((A.shape[0], A.shape[0]))
    step = max(1, _CHUNK_BYTES // (8 * A.shape[0]))
    for start in range(0, A.shape[1], step):
        chunk = np.asarray(A[:, start : start + step], dtype=np.float64) - z_mean[start : start + step]
        gram += chunk @ chunk.T
    return gram


def _dual_path(
    Z: np.ndarray | sp.spmatrix, Y: np.ndarray, rows: np.ndarray, grid: Sequence[float], fit_intercept: bool,
) -> Path:
    """Ridge solutions for every lambda from one eigendecomposition of the centered Z[rows] Z[rows]^T.

    With C = Z[rows] - m and targets T, w(lambda) = C^T (C C^T + lambda I)^-1 T.  Directions with
    s + lambda <= max(n, p) eps max(s) are dropped, as in the primal path; a lone lambda above the
    bound max(n, p) eps trace(C C^T) of that cutoff drops none, so it is one Cholesky solve.
    """
    z_mean, y_mean = _means(Z, Y, rows, fit_intercept)
    targets = Y[rows] - y_mean
    A = Z[rows]  # indexed once: the Gram and every lambda's C^T alpha read it
    gram = _row_gram(A, z_mean)
    scale = max(gram.shape[0], Z.shape[1]) * np.finfo(np.float64).eps
    if len(grid) == 1 and grid[0] > scale * np.trace(gram):
        gram[np.diag_indices_from(gram)] += grid[0]
        duals = [scipy.linalg.solve(gram, targets, assume_a="pos", overwrite_a=True)]
    else:
        s, U = np.linalg.eigh(gram)
        s = np.maximum(s, 0.0)
        Ut_targets = U.T @ targets
        cutoff = scale * s.max()
        duals = (U @ (np.divide(1.0, s + lam, out=np.zeros_like(s), where=s + lam > cutoff)[:, None] * Ut_targets)
                 for lam in grid)
    for alpha in duals:
        coef = np.asarray(A.T @ alpha) - np.outer(z_mean, alpha.sum(axis=0))
        yield coef, y_mean - z_mean @ coef


def _lsqr_path(
    Z: np.ndarray | sp.spmatrix, Y: np.ndarray, rows: np.ndarray, grid: Sequence[float], fit_intercept: bool,
    tol: float, max_iter: int | None,
) -> Path:
    """Ridge solutions for each lambda in turn by LSQR, each warm-started from the previous one."""
    A = Z[rows] if sp.issparse(Z) else np.asarray(Z[rows], dtype=np.float64)
    z_mean, y_mean = _means(Z, Y, rows, fit_intercept)
    targets = Y[rows] - y_mean
    n, p = A.shape

    def centered(v: np.ndarray) -> np.ndarray:
        return A @ v - z_mean @ v

    coef = np.zeros((p, Y.shape[1]))
    for lam in grid:
        root = np.sqrt(lam)
        stacked = LinearOperator(
            (n + p, p), dtype=np.float64,
            matvec=lambda v, root=root: np.concatenate([centered(v.ravel()), root * v.ravel()]),
            rmatvec=lambda u, root=root: A.T @ u[:n] - z_mean * u[:n].sum() + root * u[n:])
        for k in range(coef.shape[1]):
            w0 = coef[:, k]
            rhs = np.concatenate([targets[:, k] - centered(w0), -root * w0])
            dx, istop, iterations = lsqr(stacked, rhs, atol=tol, btol=tol, iter_lim=max_iter)[:3]
            if istop == 7:
                warnings.warn(f"LSQR stopped at its iteration limit ({iterations}) for lambda={lam:g}, target "
                              f"column {k}; raise max_iter or tol", ConvergenceWarning, stacklevel=2)
            coef[:, k] = w0 + dx
        yield coef.copy(), y_mean - z_mean @ coef
