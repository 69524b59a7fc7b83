"""LibLinear classifier with the papers' cross-validated choice of C.

The AsK-RFF paper (Section 5.3) trains LibLinear on random-feature matrices and
tunes C by 5-fold cross-validation over C = 2^-5, ..., 2^5.  ``LibLinearClassifier``
does exactly that, and is fast enough to sit in the inner loop of many trials:

* The dense matrix is converted to LibLinear's sparse ``feature_node`` rows once,
  in a vectorized way (liblinear's own ``problem(y, ndarray)`` loops over every
  entry in Python and is ~150x slower).  Each CV fold's training set only points
  at those rows, so the folds cost no copy of X.
* Decision values are one float64 GEMM per chunk of rows with the learned weight
  matrix, so prediction memory stays bounded for any number of test rows.
* ``solver="newton"`` solves LibLinear's L2-loss SVM problem (``-s 1``/``-s 2``) to
  optimality by the path that fits the features (:func:`rfbench.model.newton_cost.choose_path`):
  :mod:`rfbench.model.newton_svc` on the dense design, warm-started along the C grid, with
  folds (and then classes) in threads (at the papers' sizes about 10x LibLinear per core, see
  benchmarks/README.md, Model selection); or, where its p x p Hessians would take more than an
  hour, the iterative path on the features as given, warm-started along C, to LibLinear ``-s 2``'s
  stopping rule at a tight ``-e``: on wide sparse codes (binning, GCWS) rfbench's Newton-CG on the
  active rows (:mod:`rfbench.model.sparse_newton`), on dense features LibLinear ``-s 2`` itself.
  ``model_path_`` says which.
"""
from __future__ import annotations

import ctypes
import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from liblinear.liblinear import feature_node, liblinear, parameter, problem, toPyModel
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_array, check_is_fitted
from threadpoolctl import threadpool_limits

from rfbench.model.grid_search import GridSearchResults
from rfbench.model.newton_cost import (
    DENSE,
    ITERATIVE_SOLVER,
    ITERATIVE_TOL,
    NewtonPath,
    choose_path,
    dense_fits,
    log_once,
    newton_cg_takes,
)
from rfbench.model.newton_svc import DEFAULT_TOL, newton_gram, row_space, squared_hinge_paths
from rfbench.model.pool import worker_pool
from rfbench.model.sparse_newton import squared_hinge_paths_sparse
from rfbench.validation import is_int, is_real

#: The paper's grid C = 2^-5, 2^-4, ..., 2^5.
DEFAULT_C_GRID: tuple[float, ...] = tuple(float(c) for c in 2.0 ** np.arange(-5, 6))

#: LibLinear classification solvers (``-s``); 11-13 (regression) and 21 (one-class) are excluded.
CLASSIFICATION_SOLVERS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)

#: Solvers that accept an initial solution and never call rand(), so their folds
#: can be warm-started and run in threads without changing the result.
PRIMAL_SOLVERS: tuple[int, ...] = (0, 2)

#: rfbench's exact solver of the L2-loss SVM problem of solvers 1 and 2 (dense features).
NEWTON = "newton"

#: How ``solver="newton"``'s dense path solves its Newton systems (``LibLinearClassifier.newton_step``).
NEWTON_STEPS: tuple[str, ...] = ("primal", "auto")

#: Widest design matrix (features + bias) for ``solver="newton"``: its Hessian is p x p float64.
MAX_NEWTON_FEATURES = 8192

#: Most one-vs-rest columns ``solver="newton"`` solves together (one GEMM with Z per Newton step for
#: all of them): 26 classes make two blocks of 13, two jobs per fold for two cores.
NEWTON_BLOCK = 16

#: Upper bound on the float64 copy of X made per chunk when computing decision values.
_CHUNK_BYTES = 32 * 2**20

log = logging.getLogger("rfbench")

_libc = ctypes.CDLL(None)
# liblinear's dual and L1 solvers shuffle with libc rand(); reseeding it before
# every training call makes their result independent of earlier calls.
_libc_srand = _libc.srand
# '-q' installs a Python callback as liblinear's message sink, and a Ctrl-C that lands
# in it is swallowed by ctypes ("Exception ignored"), so the run went on.  A C sink
# keeps Python out of training: strlen reads the message and its result is dropped.
_SILENT = ctypes.CFUNCTYPE(None, ctypes.c_char_p)(ctypes.cast(_libc.strlen, ctypes.c_void_p).value)


#: How C is chosen: k-fold CV on the training set, or the best test accuracy on the grid (Li's protocol).
SELECTIONS = ("cv", "test_grid")
#: The C values LibLinear takes: about 1e-30..1e30, where its objective stays finite.
C_RANGE = (2.0**-100, 2.0**100)


class LibLinearClassifier(GridSearchResults, ClassifierMixin, BaseEstimator):
    """LibLinear linear classifier with C chosen by stratified k-fold cross-validation.

    Parameters
    ----------
    solver : int or "newton", default=2
        LibLinear solver (``-s``), one of ``CLASSIFICATION_SOLVERS``; 2 is the
        L2-regularized L2-loss SVC solved in the primal.  ``"newton"`` solves
        that same problem (no bias: LibLinear's ``-s 1``/``-s 2`` model) to
        optimality with rfbench's generalized Newton method
        (:mod:`rfbench.model.newton_svc`) where its estimated cost fits the hour and the
        design at most ``MAX_NEWTON_FEATURES`` columns (sparse ones densified), else to
        LibLinear ``-s 2 -e 1e-6``'s stopping rule, warm-started along C, on the features as given
        (sparse: :mod:`rfbench.model.sparse_newton`; dense: LibLinear itself; the same optimum to
        that tolerance; ``newton_cost.choose_path``); one-vs-rest for more than two classes, as
        LibLinear.
    C_grid : sequence of float, default=2^-5, ..., 2^5
        Candidate values of C, all > 0.
    cv : int, default=5
        Number of stratified folds, at most the size of the smallest class.
        ``cv=1`` or a single-value grid skips cross-validation and trains with
        the smallest C of the grid.
    bias : float, default=1.0
        LibLinear's ``-B``: if >= 0 each row gets an extra constant feature of this
        value (a regularized intercept); if < 0 there is no intercept.
    tol : float or None, default=None
        Stopping tolerance (``-e``); None uses LibLinear's default for the solver,
        and ``newton_svc.DEFAULT_TOL`` (||g(w)|| <= 1e-8 ||g(0)||) for ``"newton"``.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling of the stratified folds; an int makes ``fit``
        deterministic.
    cv_warm_start : bool, default=False
        Within each fold, train the C values in increasing order, each starting
        from the previous solution (LibLinear's ``init_sol``; solvers 0 and 2
        only).  About 3x faster CV; the solutions differ from cold-started ones
        within the solver tolerance, so a flat CV curve may pick another C.
    selection : {"cv", "test_grid"}, default="cv"
        "cv": stratified k-fold CV on the training set.  "test_grid": every C is trained
        on all training data and scored on the test set given to ``fit``, and the best is
        kept (Li's protocol: it selects on the test set; ``selected_on_test_`` says so,
        and ``grid_scores_`` holds every C's test accuracy, e.g. for accuracy vs C).
    n_jobs : int, default=1
        Threads running folds in parallel (LibLinear releases the GIL).  Used
        only for solvers 0, 2 and ``"newton"``: the others shuffle with libc
        rand(), whose shared state would make threaded results depend on timing.
        ``"newton"`` runs with one BLAS thread per worker (and the refit's
        classes in the workers), so its result does not depend on ``n_jobs``.
    newton_step : {"primal", "auto"}, default="primal"
        How ``"newton"``'s dense path solves each Newton system: "primal", the p x p Cholesky of
        I + 2C Z_I^T Z_I; "auto", at each step the cheaper in flops of that and Woodbury's
        |I| x |I| system (the same step to round-off; about twice as fast on Li's Fig. 7 NRFF paths,
        whose active sets at the large C are small beside p: ``make bench``, section ``newton_step``).
        ``"newton"`` only.
    progress : callable or None, default=None
        Called as ``progress(done, total)`` in the calling thread as model
        selection proceeds, counting fits of one C on one fold (the refit is the
        last); for a progress display.

    Attributes
    ----------
    C_ : float
        The chosen C: the grid value with the highest mean CV accuracy, ties
        broken toward the smaller C.
    cv_scores_ : ndarray of shape (len(C_grid),)
        Mean accuracy over the folds for each grid value, in grid order (NaN
        when cross-validation was skipped).
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels.
    coef_ : ndarray of shape (n_features, n_w)
        Weights of the model refitted on all training data with ``C_``: one
        column for two classes (positive means ``classes_[1]``), else one per
        class in ``classes_`` order (LibLinear's Crammer-Singer, solver 4, keeps
        its two columns for two classes, in LibLinear's label order).
    intercept_ : ndarray of shape (n_w,)
        ``bias`` times the weight of the bias feature (zeros when ``bias < 0``).
    model_ : liblinear model
        The LibLinear model refitted on all training data with ``C_``; its labels
        are indices into ``classes_`` (LibLinear solvers only).
    n_features_in_ : int
        Number of features seen in ``fit``.
    model_path_ : str
        The solver that ran, with its configuration (for ``"newton"``: which of its paths).
    best_params_, grid_scores_, selected_on_test_, cv_score_
        The grid search's report (``rfbench.model.grid_search.GridSearchResults``).
    """

    tasks = ("classification",)

    def __init__(
        self,
        solver: int = 2,
        C_grid: Sequence[float] = DEFAULT_C_GRID,
        cv: int = 5,
        bias: float = 1.0,
        tol: float | None = None,
        random_state: int | np.random.RandomState | None = None,
        cv_warm_start: bool = False,
        selection: str = "cv",
        n_jobs: int = 1,
        newton_step: str = "primal",
        progress: Callable[[int, int], None] | None = None,
    ):
        self.solver = solver
        self.C_grid = C_grid
        self.cv = cv
        self.bias = bias
        self.tol = tol
        self.random_state = random_state
        self.cv_warm_start = cv_warm_start
        self.selection = selection
        self.n_jobs = n_jobs
        self.newton_step = newton_step
        self.progress = progress

    def fit(self, X: np.ndarray | sp.spmatrix, y: np.ndarray, X_test: np.ndarray | sp.spmatrix | None = None,
            y_test: np.ndarray | None = None) -> LibLinearClassifier:
        """Choose C on the grid, then refit on all of (X, y).

        ``selection="cv"``: C is the grid value with the highest mean accuracy over the
        held-out folds.  ``"test_grid"``: every C is trained on all of (X, y) and scored on
        (X_test, y_test), and the best is kept.  Ties go to the smaller C.

        Parameters
        ----------
        X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
            Float32 or float64 features, all finite.  Sparse (CSR) features go to
            LibLinear's solvers as they are; ``"newton"`` on its dense path densifies them (at
            most ``MAX_NEWTON_FEATURES`` columns) and, if they are rank-deficient like GCWS's
            one-hot codes, solves on their row space (``newton_svc.row_space``): on hashed
            features of a few thousand columns many times faster than ``-s 1``
            (results/li/README.md); on its iterative path they stay sparse.
        y : ndarray of shape (n_samples,)
            Class labels, at least two distinct values.
        X_test, y_test : the test set, required by ``selection="test_grid"`` (unused otherwise)

        Returns
        -------
        self
        """
        self.check_params()
        grid = np.asarray(self.C_grid, dtype=np.float64)
        sparse = sp.issparse(X)
        self._dense_newton = self._own_newton = False
        if self.solver == NEWTON:  # before densifying: a refusal costs nothing
            n_rows, n_features = X.shape if sparse else np.shape(X)
            path = self._path(n_rows, n_features, len(np.unique(np.asarray(y))), sparse, X.nnz if sparse else None)
            log_once(path, self._newton_tol())
            self._dense_newton, self.model_path_ = path.kind == DENSE, path.describe(self._newton_tol())
            if self._dense_newton and self.newton_step == "auto":
                self.model_path_ += ", each step by the cheaper of the p x p and the |I| x |I| (Woodbury) system"
            self._own_newton = self._dense_newton or path.newton_cg  # else LibLinear -s 2 (_liblinear_options)
        else:
            log.info("model: LibLinear -s %s on %s features (%d x %d)", self.solver, "sparse" if sparse else "dense",
                     *X.shape)
            self.model_path_ = f"LibLinear -s {self.solver} -e {'default' if self.tol is None else f'{self.tol:g}'}"
        self._options = self._liblinear_options()
        X = _check_X(X, dense=self._dense_newton)
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X: X has {X.shape[0]} rows, "
                             f"y has shape {y.shape}")
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y must contain at least 2 classes, got only {self.classes_.tolist()}")
        self.n_features_in_ = X.shape[1]
        test = self._test_set(X_test, y_test) if self.selection == "test_grid" else None
        cross_validate = test is None and not (self.cv == 1 or len(grid) == 1)
        if cross_validate:
            self.check_cv(y)
        self._fits = 0
        self._total_fits = (self.cv * len(grid) if cross_validate else 0) + (len(grid) if test else 1)
        if test is not None:
            self._fit_test_grid(X, y_idx, grid, *test, sparse=sparse)
        elif self._own_newton:
            self._fit_newton(X, y_idx, grid, cross_validate, sparse)
        else:
            self._fit_liblinear(X, y_idx, grid, cross_validate)
        return self

    def memory_needs(self, n_rows: int, width: int, stored: int, sparse: bool) -> dict[str, int]:
        """Bytes of the largest arrays ``fit`` holds beside the features, known before it starts.

        Parameters
        ----------
        n_rows : int
            Training rows n.
        width : int
            Columns of the features (p = width + 1 with the bias column).
        stored : int
            Values stored per row: every column, or a sparse row's nonzeros.
        sparse : bool
            Whether the features come as a sparse matrix.

        Returns
        -------
        dict of str to int
            ``"newton"`` on its dense path: its float64 design n x p (sparse features densified, then
            once more on their row space), and one p x p Hessian per thread with the one the refit
            shares (for sparse features also the row-space basis and its eigendecomposition, 2 p^2);
            its iterative path on long sparse rows (``sparse_newton``): the float64 CSR design, n (stored + 1)
            values of 12 bytes, and one fold's rows of it per thread (the whole for an upper bound);
            LibLinear's solvers, and the iterative path on dense features: their copy of the features as
            16-byte feature nodes, n (stored + 2).  The class count is not known here: the path is the one of two
            classes, dense wherever any class count could take it (the larger need, an upper bound).
        """
        p = width + (self.bias >= 0)
        threads = self.n_jobs if is_int(self.n_jobs) and self.n_jobs > 0 else 1
        if self.solver != NEWTON or not dense_fits(n_rows, p, 1, self._solves(), MAX_NEWTON_FEATURES):
            if self.solver == NEWTON and sparse and newton_cg_takes(stored):
                return {"solver=newton's float64 CSR design and its folds'": (1 + threads) * n_rows * (stored + 1) * 12}
            solver = ITERATIVE_SOLVER if self.solver == NEWTON else self.solver
            return {f"LibLinear -s {solver}'s feature nodes": n_rows * (stored + 2) * 16}
        return {f"solver=newton's float64 design{' (densified)' if sparse else ''}": (1 + sparse) * n_rows * p * 8,
                "solver=newton's p x p Hessians": (threads + 1 + 2 * sparse) * p * p * 8}

    def check_cost(self, n_rows: int, width: int, n_classes: int, sparse: bool, quiet: bool = False) -> None:
        """Refuse features on which no path of ``"newton"`` fits the hour (``newton_cost.choose_path``), or log
        the path (unless ``quiet``); the runner calls it once the data are loaded, before any trial, with the
        width the feature map states."""
        if self.solver == NEWTON:
            path = self._path(n_rows, width, n_classes, sparse, None)
            if not quiet:
                log_once(path, self._newton_tol())

    def _path(self, n_rows: int, width: int, n_classes: int, sparse: bool, stored: int | None) -> NewtonPath:
        """The path ``"newton"`` takes on n_rows x width features of ``stored`` values (None: not known yet)."""
        return choose_path(n_rows, width + (self.bias >= 0), 1 if n_classes <= 2 else n_classes, self._solves(),
                           sparse, None if stored is None else stored + n_rows * (self.bias >= 0), MAX_NEWTON_FEATURES)

    def _solves(self) -> int:
        """Values of C solved in a model selection: each C on each fold and the refit, or each C on the test set."""
        n_C = len(self.C_grid)
        return n_C if self.selection == "test_grid" else (self.cv * n_C + 1 if self.cv > 1 and n_C > 1 else 1)

    @property
    def _woodbury(self) -> bool:
        return self.newton_step == "auto"

    def _newton_tol(self) -> float:
        return DEFAULT_TOL if self.tol is None else float(self.tol)

    def _own_tol(self) -> float:
        """The tolerance of rfbench's own solver on this path: the dense path's, or LibLinear -s 2's ``-e``
        on the iterative one (``sparse_newton`` stops by LibLinear's rule)."""
        return self._newton_tol() if self._dense_newton else ITERATIVE_TOL

    def _liblinear_options(self) -> _Options:
        """What LibLinear runs: the given solver, or the iterative path of ``"newton"``."""
        if self.solver == NEWTON:
            return _Options(ITERATIVE_SOLVER, ITERATIVE_TOL, warm_start=True)
        return _Options(self.solver, self.tol, self.cv_warm_start)

    def _test_set(self, X_test, y_test) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
        """The test features and their labels as indices into ``classes_`` (-1: a label not trained on)."""
        if X_test is None or y_test is None:
            raise ValueError("selection='test_grid' chooses C on a test set: pass X_test and y_test to fit")
        X_test = _check_X(X_test, dense=self._dense_newton)
        if X_test.shape[1] != self.n_features_in_:
            raise ValueError(f"X_test has {X_test.shape[1]} features, but X has {self.n_features_in_}")
        y_test = np.asarray(y_test)
        index = np.searchsorted(self.classes_, y_test).clip(max=len(self.classes_) - 1)
        return X_test, np.where(self.classes_[index] == y_test, index, -1)

    def _fit_test_grid(
        self, X, y_idx: np.ndarray, grid: np.ndarray, X_test, y_test: np.ndarray, sparse: bool
    ) -> None:
        """Train every C on all of (X, y), score it on the test set, keep the best (ties: the smaller C)."""
        order = np.argsort(grid, kind="stable")
        scores, weights = np.empty(len(grid)), [None] * len(grid)
        if self._own_newton:
            (Z, Q), tol = _newton_design(X, self.bias, sparse), self._own_tol()
            signs = _one_vs_rest_signs(y_idx, len(self.classes_))
            Z_test = _in_basis(_design_matrix(X_test, self.bias), Q)
            with threadpool_limits(limits=1), worker_pool(self.n_jobs) as pool:
                W = _newton_paths(pool, Z, signs, grid[order], tol, woodbury=self._woodbury).result()
            scores[order] = _newton_accuracy(W, Z_test, y_test)
            W = _from_basis(W, Q)
            for rank, j in enumerate(order):
                weights[j] = self._split_bias(W[rank])
            self._labels = self._newton_labels()
            self._fitted(len(grid))
        else:
            prob, param = _problem_of(X, y_idx, self.bias), self._parameter()
            for j in order:
                model = _train(prob, param, grid[j])
                if self.solver == NEWTON:  # its iterative path walks C warm (cv_warm_start is about CV folds)
                    init_sol = _raw_w(model)  # a copy: model.w is freed with the model
                    param.init_sol = init_sol.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
                coef, intercept, labels = _in_class_order(*_weights(model))
                scores[j] = np.mean(_liblinear_argmax(_decision(X_test, coef, intercept), labels) == y_test)
                weights[j] = (model, coef, intercept, labels)  # scored as ``predict`` will predict
                self._fitted(1)
        self._select_C(grid, None, test_scores=scores)
        best = weights[int(np.flatnonzero(grid == self.C_)[0])]
        if self._own_newton:
            self.coef_, self.intercept_ = best
        else:
            self.model_, self.coef_, self.intercept_, self._labels = best

    def _fit_liblinear(self, X, y_idx: np.ndarray, grid: np.ndarray, cross_validate: bool) -> None:
        prob = _problem_of(X, y_idx, self.bias)
        self._select_C(grid, self._cross_validate(X, y_idx, prob, grid) if cross_validate else None)
        self.model_ = _train(prob, self._parameter(), self.C_)
        self._fitted(1)
        self.coef_, self.intercept_, self._labels = _in_class_order(*_weights(self.model_))

    def _fit_newton(
        self, X: np.ndarray, y_idx: np.ndarray, grid: np.ndarray, cross_validate: bool, sparse: bool
    ) -> None:
        """CV and refit by ``squared_hinge_paths`` (``squared_hinge_paths_sparse`` on the iterative path's
        sparse features): each fold's class blocks in threads, then the refit's.

        Each fold walks the grid upwards, warm-starting each C from the last; the refit
        starts from the folds' mean solution at the chosen C.  All of it runs with one
        BLAS thread per worker, so the result does not depend on ``n_jobs``.  The basis of
        the whole Z's row space holds every fold's, so the folds share it.
        """
        Z, Q = _newton_design(X, self.bias, sparse)
        signs = _one_vs_rest_signs(y_idx, len(self.classes_))
        tol = self._own_tol()
        order = np.argsort(grid, kind="stable")
        with threadpool_limits(limits=1), worker_pool(self.n_jobs) as pool:
            start = None
            if cross_validate:
                folds = list(StratifiedKFold(n_splits=self.cv, shuffle=True, random_state=self.random_state)
                             .split(X, y_idx))
                paths = [_newton_paths(pool, Z[train], signs[train], grid[order], tol, woodbury=self._woodbury)
                         for train, _ in folds]
                scores, weights = np.empty((self.cv, len(grid))), []
                for f, ((_, test), path) in enumerate(zip(folds, paths)):
                    weights.append(path.result())
                    scores[f, order] = _newton_accuracy(weights[-1], Z[test], y_idx[test])
                    self._fitted(len(grid))
                self._select_C(grid, scores.mean(axis=0))
                start = np.mean(weights, axis=0)[np.flatnonzero(grid[order] == self.C_)[0]]
            else:
                self._select_C(grid, None)
            refit = _newton_paths(pool, Z, signs, np.array([self.C_]), tol, start, self._woodbury)
            W = _from_basis(refit.result()[0], Q)
        self._fitted(1)
        self.coef_, self.intercept_ = self._split_bias(W)
        self._labels = self._newton_labels()

    def fit_record(self) -> dict[str, str]:
        """``model_path``: the solver that ran with its configuration (``model_path_``), for the trial's row."""
        return {"model_path": self.model_path_}

    def _split_bias(self, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(coef, intercept) of Newton weights over the design matrix (bias column last)."""
        return (W[:-1], W[-1] * self.bias) if self.bias >= 0 else (W, np.zeros(W.shape[1]))

    def _newton_labels(self) -> np.ndarray:
        """LibLinear's label order of the weight columns: one column for two classes (+ means ``classes_[1]``)."""
        return np.array([1, 0]) if len(self.classes_) == 2 else np.arange(len(self.classes_))

    def _select_C(self, grid: np.ndarray, scores: np.ndarray | None, test_scores: np.ndarray | None = None) -> None:
        """``C_``: the best mean CV accuracy (or test accuracy, for ``"test_grid"``), ties to the smaller C;
        without scores the smallest C."""
        self.cv_scores_ = np.full(len(grid), np.nan) if scores is None else scores
        chosen_by = test_scores if test_scores is not None else scores
        self.C_ = float(grid.min() if chosen_by is None else grid[chosen_by == chosen_by.max()].min())
        self._record_grid({"C": grid}, self.cv_scores_, {"C": self.C_}, test_scores=test_scores,
                          on_test=test_scores is not None)

    def _fitted(self, n: int) -> None:
        self._fits += n
        if self.progress is not None:
            self.progress(self._fits, self._total_fits)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Decision values, computed chunk-wise from the weight matrix.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes) with columns in ``classes_``
        order.
        """
        raw = self._raw_decision(X)
        if len(self._labels) == 2:
            # liblinear decides two classes by the first value alone, which favours its first label.
            return raw[:, 0] if self._labels[0] == 1 else -raw[:, 0]
        return raw[:, np.argsort(self._labels)]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class labels, with LibLinear's own rule applied to the decision values."""
        raw = self._raw_decision(X)
        return self.classes_[_liblinear_argmax(raw, self._labels)]

    # --- helpers -----------------------------------------------------------------
    def _raw_decision(self, X: np.ndarray) -> np.ndarray:
        check_is_fitted(self, "coef_")
        X = _check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the classifier was fitted with {self.n_features_in_}")
        return _decision(X, self.coef_, self.intercept_)

    def check_params(self) -> None:
        """Raise ValueError naming the first invalid constructor parameter; ``fit`` calls it first."""
        if not (self.solver == NEWTON or (is_int(self.solver) and self.solver in CLASSIFICATION_SOLVERS)):
            raise ValueError(f"solver={self.solver!r} is not a LibLinear classification solver; "
                             f"valid: {CLASSIFICATION_SOLVERS}, or {NEWTON!r} (rfbench's exact L2-loss SVM solver)")
        grid = np.asarray(self.C_grid, dtype=np.float64)
        if grid.ndim != 1 or grid.size == 0:
            raise ValueError(f"C_grid must be a non-empty 1-D sequence of floats > 0, got {self.C_grid!r}")
        if not np.all((grid >= C_RANGE[0]) & (grid <= C_RANGE[1])):
            raise ValueError(f"C_grid={grid.tolist()} is invalid: every C must be in [2^-100, 2^100] "
                             "(LibLinear's objective stays finite there)")
        if not is_int(self.cv) or self.cv < 1:
            raise ValueError(f"cv must be an int >= 1, got {self.cv!r}")
        if not is_real(self.bias) or not np.isfinite(self.bias):
            raise ValueError(f"bias must be a finite float (< 0 means no intercept), got {self.bias!r}")
        if self.tol is not None and not (is_real(self.tol) and self.tol > 0):
            raise ValueError(f"tol must be None or > 0, got {self.tol!r}")
        if self.cv_warm_start and self.solver not in PRIMAL_SOLVERS:
            raise ValueError(f"cv_warm_start=True needs solver in {PRIMAL_SOLVERS} (LibLinear's init_sol), "
                             f"got solver={self.solver}")
        if self.newton_step not in NEWTON_STEPS:
            raise ValueError(f"newton_step={self.newton_step!r} is not valid; choose one of {NEWTON_STEPS}")
        if self.newton_step != "primal" and self.solver != NEWTON:
            raise ValueError(f"newton_step={self.newton_step!r} needs solver={NEWTON!r} (it is how that solver's "
                             f"dense path takes its steps), got solver={self.solver}")
        if not is_int(self.n_jobs) or self.n_jobs < 1:
            raise ValueError(f"n_jobs must be an int >= 1, got {self.n_jobs!r}")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection={self.selection!r} is not valid; choose one of {SELECTIONS}")

    def check_cv(self, y: np.ndarray) -> None:
        """Raise ValueError unless ``cv`` folds fit the smallest class of labels ``y`` (``fit`` calls it)."""
        classes, counts = np.unique(y, return_counts=True)
        if self.cv > 1 and len(self.C_grid) > 1 and self.cv > counts.min():
            smallest = classes.tolist()[counts.argmin()]
            raise ValueError(
                f"cv={self.cv} exceeds the {counts.min()} samples of the smallest class "
                f"({smallest!r}); stratified CV needs 1 <= cv <= {counts.min()}"
            )

    def _parameter(self) -> parameter:
        solver, tol = self._options.solver, self._options.tol
        return parameter(f"-s {solver} -q" + ("" if tol is None else f" -e {float(tol)!r}"))

    def _cross_validate(self, X: np.ndarray, y_idx: np.ndarray, prob: problem, grid: np.ndarray) -> np.ndarray:
        """Mean fold accuracy for each C in ``grid``."""
        folds = StratifiedKFold(n_splits=self.cv, shuffle=True, random_state=self.random_state)

        def fold_scores(fold: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            return self._fold_scores(X, y_idx, prob, grid, *fold)

        if self.n_jobs > 1 and self._options.solver in PRIMAL_SOLVERS:
            with worker_pool(self.n_jobs) as pool:
                scores = list(pool.map(fold_scores, folds.split(X, y_idx)))
        else:
            scores = [fold_scores(fold) for fold in folds.split(X, y_idx)]
        return np.mean(scores, axis=0)

    def _fold_scores(
        self, X: np.ndarray, y_idx: np.ndarray, prob: problem, grid: np.ndarray, train: np.ndarray, test: np.ndarray
    ) -> np.ndarray:
        """Test-fold accuracy for each C; the fold's problem is built once and reused for every C."""
        sub = _subproblem(prob, train, y_idx)
        param = self._parameter()  # one per fold: C and init_sol are mutated
        scores = np.empty(len(grid))
        for j in np.argsort(grid, kind="stable"):
            model = _train(sub, param, grid[j])
            if self._options.warm_start:
                init_sol = _raw_w(model)  # a copy: model.w is freed with the model
                param.init_sol = init_sol.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
            coef, intercept, labels = _weights(model)
            scores[j] = np.mean(_liblinear_argmax(_decision(X[test], coef, intercept), labels) == y_idx[test])
            self._fitted(1)
        return scores


@dataclass(frozen=True)
class _Options:
    """The LibLinear solver a fit runs, its ``-e`` (None: LibLinear's default) and whether each C of a
    fold's grid starts from the previous C's solution (``init_sol``)."""

    solver: int
    tol: float | None
    warm_start: bool


class _NewtonPaths:
    """Weights (n_C, p, n_w) along a grid of C, its class blocks computed by a thread pool."""

    def __init__(self, jobs: list[Future]):
        self.jobs = jobs

    def result(self) -> np.ndarray:
        return np.concatenate([job.result() for job in self.jobs], axis=-1)


def _newton_paths(
    pool: ThreadPoolExecutor, Z: np.ndarray, signs: np.ndarray, Cs: np.ndarray, tol: float,
    start: np.ndarray | None = None, woodbury: bool = False,
) -> _NewtonPaths:
    """The path of each one-vs-rest column of ``signs`` along the increasing ``Cs``: one job per class block.

    The columns are independent problems (each its own stopping, CG and line search), so the blocks
    give every column's weights to the last bit; on sparse Z they also keep both threads busy where a
    job per fold would not (5 folds on 2 threads, then the refit alone).
    """
    blocks = class_blocks(signs.shape[1])
    if sp.issparse(Z):
        solve = _sparse_newton_path
    else:
        solve = functools.partial(_newton_path, gram=newton_gram(Z) if len(blocks) > 1 else None,  # shared
                                  woodbury=woodbury)
    return _NewtonPaths([pool.submit(solve, Z, signs[:, block], Cs, tol, None if start is None else start[:, block])
                         for block in blocks])


def _newton_path(
    Z: np.ndarray, Y: np.ndarray, Cs: np.ndarray, tol: float, start: np.ndarray | None, gram: np.ndarray | None,
    woodbury: bool,
) -> np.ndarray:
    """Weights (n_C, p, n_columns) of the columns of Y along ``Cs``."""
    return np.array(list(squared_hinge_paths(Z, Y, Cs, start, tol, gram=gram, woodbury=woodbury)))


def _sparse_newton_path(Z: sp.csr_matrix, Y: np.ndarray, Cs: np.ndarray, tol: float, start: np.ndarray | None
                        ) -> np.ndarray:
    """Weights (n_C, p, n_columns) of the columns of Y along ``Cs`` on sparse Z."""
    return np.array(list(squared_hinge_paths_sparse(Z, Y, Cs, start, tol)))


def _newton_accuracy(W: np.ndarray, Z_eval: np.ndarray | sp.csr_matrix, y_eval: np.ndarray) -> np.ndarray:
    """Accuracy on (Z_eval, y_eval) of each of the weights W (n_C, p, n_w): one column is binary."""
    # (n_C, n_eval, n_w); scipy's products take 2-D operands only
    decisions = np.stack([Z_eval @ w for w in W]) if sp.issparse(Z_eval) else Z_eval @ W
    predicted = (decisions[..., 0] > 0) if W.shape[-1] == 1 else np.argmax(decisions, axis=-1)
    return np.mean(predicted == y_eval, axis=1)


def class_blocks(n_w: int) -> list[np.ndarray]:
    """The one-vs-rest columns solved together, at most ``NEWTON_BLOCK`` each, in near-equal blocks.

    Fixed by the number of columns alone, so that the shared GEMMs, and with them the result to
    the last bit, do not depend on the threads.
    """
    return np.array_split(np.arange(n_w), -(-n_w // NEWTON_BLOCK))


def _newton_design(X: np.ndarray, bias: float, sparse: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Newton's design matrix Z, or (Z Q, Q) on the basis Q of its row space (``newton_svc.row_space``)
    when X came sparse and Z is rank-deficient (the same optimum, w = Q v); X still sparse (the iterative
    path, not densified) gives its CSR design as it is.

    Only sparse features are checked: hashed one-hot codes are rank-deficient by
    construction, dense random features of p < n columns are not worth an eigendecomposition.
    """
    Z = _design_matrix(X, bias)  # dense: at most MAX_NEWTON_FEATURES columns, choose_path saw to it
    if sp.issparse(Z):  # the iterative path: sparse_newton on the codes as given
        return Z, None
    Q = row_space(Z) if sparse else None
    return _in_basis(Z, Q), Q


def _in_basis(Z: np.ndarray, Q: np.ndarray | None) -> np.ndarray:
    return Z if Q is None else Z @ Q


def _from_basis(W: np.ndarray, Q: np.ndarray | None) -> np.ndarray:
    """Weights over the design matrix's columns from weights (..., r, n_w) over Z Q."""
    return W if Q is None else Q @ W


def _design_matrix(X: np.ndarray | sp.csr_matrix, bias: float) -> np.ndarray | sp.csr_matrix:
    """X in float64 (CSR if it came sparse), with a constant column ``bias`` appended when bias >= 0
    (LibLinear's -B)."""
    if sp.issparse(X):
        columns = [X] + ([sp.csr_matrix(np.full((X.shape[0], 1), bias))] if bias >= 0 else [])
        return sp.hstack(columns, format="csr", dtype=np.float64)
    Z = np.empty((len(X), X.shape[1] + (bias >= 0)))
    Z[:, : X.shape[1]] = X
    if bias >= 0:
        Z[:, -1] = bias
    return Z


def _one_vs_rest_signs(y_idx: np.ndarray, n_classes: int) -> np.ndarray:
    """±1 targets, (n, 1) for two classes (+1 = class 1), else one-vs-rest (n, n_classes)."""
    if n_classes == 2:
        return np.where(y_idx == 1, 1.0, -1.0)[:, None]
    return np.where(y_idx[:, None] == np.arange(n_classes), 1.0, -1.0)


# --- LibLinear plumbing --------------------------------------------------------------
def _check_X(X: np.ndarray | sp.spmatrix, dense: bool = False) -> np.ndarray | sp.csr_matrix:
    """X as a float array (or CSR matrix, unless ``dense``), or ValueError naming a non-finite entry."""
    if dense and sp.issparse(X):
        # Only for the dense Newton path, whose p x p Hessian bounds p: the copy takes at most 8 n p bytes.
        X = X.toarray()
    X = check_array(X, accept_sparse="csr", dtype=(np.float64, np.float32), ensure_all_finite=False)
    if sp.issparse(X):
        bad = ~np.isfinite(X.data)
        if bad.any():
            k = int(np.argmax(bad))
            i = int(np.searchsorted(X.indptr, k, side="right") - 1)
            raise ValueError(f"X must be finite, but X[{i}, {X.indices[k]}] = {X.data[k]}")
        return X
    for start, chunk in _row_chunks(X):
        bad = ~np.isfinite(chunk)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"X must be finite, but X[{start + i}, {j}] = {chunk[i, j]}")
    return X


def _row_chunks(X: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, rows) pieces of X whose float64 copy fits in ``_CHUNK_BYTES``."""
    rows = max(1, _CHUNK_BYTES // (8 * max(1, X.shape[1])))
    for start in range(0, len(X), rows):
        yield start, X[start : start + rows]


def _problem_of(X: np.ndarray | sp.csr_matrix, y_idx: np.ndarray, bias: float) -> problem:
    return _sparse_problem(X, y_idx, bias) if sp.issparse(X) else _dense_problem(X, y_idx, bias)


def _sparse_problem(X: sp.csr_matrix, y_idx: np.ndarray, bias: float) -> problem:
    """A LibLinear problem of CSR rows: row i is its stored entries (1-based indices), [(n+1, bias)], (-1, 0)."""
    n_rows, n = X.shape
    X = X.copy() if not X.has_sorted_indices else X
    X.sort_indices()
    has_bias = bias >= 0
    extra = 1 + has_bias
    counts = np.diff(X.indptr)
    starts = X.indptr[:-1] + extra * np.arange(n_rows)
    ends = starts + counts
    nodes = np.empty(X.nnz + extra * n_rows, dtype=feature_node)
    at = np.arange(X.nnz) + extra * np.repeat(np.arange(n_rows), counts)
    nodes["index"][at], nodes["value"][at] = X.indices + 1, X.data
    if has_bias:
        nodes["index"][ends], nodes["value"][ends] = n + 1, bias
    nodes["index"][ends + has_bias], nodes["value"][ends + has_bias] = -1, 0.0
    rows = nodes.ctypes.data + starts.astype(np.uint64) * np.uint64(nodes.itemsize)
    return _problem(nodes, rows, y_idx, n + has_bias, bias if has_bias else -1.0)


def _dense_problem(X: np.ndarray, y_idx: np.ndarray, bias: float) -> problem:
    """A LibLinear problem whose rows hold every entry of X (zeros too), plus the bias node.

    Row i is the ``feature_node`` run (1, X[i,0]), ..., (n, X[i,n-1]), [(n+1, bias)],
    (-1, 0).  Explicit zeros change no sum, so training matches liblinear's own
    sparse conversion bit for bit (checked in the tests).
    """
    n_rows, n = X.shape
    has_bias = bias >= 0
    width = n + 1 + has_bias
    nodes = np.empty((n_rows, width), dtype=feature_node)
    nodes["index"][:, :n] = np.arange(1, n + 1, dtype=np.int32)
    nodes["value"][:, :n] = X
    if has_bias:
        nodes["index"][:, n] = n + 1
        nodes["value"][:, n] = bias
    nodes["index"][:, -1] = -1
    nodes["value"][:, -1] = 0.0
    rows = nodes.ctypes.data + np.arange(n_rows, dtype=np.uint64) * np.uint64(nodes.strides[0])
    return _problem(nodes, rows, y_idx, n + has_bias, bias if has_bias else -1.0)


def _subproblem(prob: problem, rows: np.ndarray, y_idx: np.ndarray) -> problem:
    """The problem restricted to ``rows``, sharing the parent's feature nodes."""
    return _problem(prob.x_space, prob.row_ptrs[rows], y_idx[rows], prob.n, prob.bias)


def _problem(nodes: np.ndarray, row_ptrs: np.ndarray, y_idx: np.ndarray, n: int, bias: float) -> problem:
    prob = problem.__new__(problem)
    # The ctypes struct only holds raw pointers, so the arrays must stay referenced.
    prob.x_space = nodes
    prob.row_ptrs = np.ascontiguousarray(row_ptrs, dtype=np.uint64)
    prob.y_array = np.ascontiguousarray(y_idx, dtype=np.float64)
    prob.l = len(prob.y_array)
    prob.n = n
    prob.bias = bias
    prob.y = prob.y_array.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    prob.x = prob.row_ptrs.ctypes.data_as(ctypes.POINTER(ctypes.POINTER(feature_node)))
    return prob


def _train(prob: problem, param: parameter, C: float):
    param.C = C
    error = liblinear.check_parameter(prob, param)
    if error:
        raise ValueError(f"LibLinear rejected the parameters: {error.decode()}")
    _libc_srand(1)
    liblinear.set_print_string_function(_SILENT)
    return toPyModel(liblinear.train(prob, param))


def _weights(model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(coef (n_features, n_w), intercept (n_w,), labels) of a LibLinear model.

    LibLinear stores w row-major as (n_features [+1 bias row], n_w), with one
    column per label in ``model.get_labels()`` order (a single column for two
    classes, positive for the first label).
    """
    w, labels = _raw_w(model), np.array(model.get_labels())
    if model.bias >= 0:
        return w[:-1], w[-1] * model.bias, labels
    return w, np.zeros(w.shape[1]), labels


def _in_class_order(coef: np.ndarray, intercept: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, ...]:
    """LibLinear's weights as ``coef_`` documents them: one column per class in ``classes_`` order, or
    one column positive for class 1 (Crammer-Singer's two columns for two classes stay as LibLinear
    has them).  Predictions change only on exact ties, where LibLinear's rule favours its first label."""
    if coef.shape[1] == 1:
        sign = 1.0 if labels[0] == 1 else -1.0
        return sign * coef, sign * intercept, np.array([1, 0])
    if coef.shape[1] == len(labels) > 2:
        order = np.argsort(labels)
        return coef[:, order], intercept[order], labels[order]
    return coef, intercept, labels


def _raw_w(model) -> np.ndarray:
    """A copy of ``model.w`` shaped (n_features [+1 bias row], n_w)."""
    n_w = 1 if model.nr_class == 2 and model.param.solver_type != 4 else model.nr_class
    n_rows = model.nr_feature + (model.bias >= 0)
    return np.ctypeslib.as_array(model.w, shape=(n_rows * n_w,)).reshape(n_rows, n_w).copy()


def _decision(X: np.ndarray | sp.csr_matrix, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    if sp.issparse(X):
        return X @ coef + intercept
    out = np.empty((len(X), coef.shape[1]))
    for start, chunk in _row_chunks(X):
        np.matmul(chunk.astype(np.float64, copy=False), coef, out=out[start : start + len(chunk)])
    out += intercept
    return out


def _liblinear_argmax(raw: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """LibLinear's prediction rule: for two classes the first label iff the first value
    is > 0 (even for Crammer-Singer's two columns), else the label of the first maximum."""
    if len(labels) == 2:
        return np.where(raw[:, 0] > 0, labels[0], labels[1])
    return labels[np.argmax(raw, axis=1)]
