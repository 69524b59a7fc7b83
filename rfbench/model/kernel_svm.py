"""Exact-kernel SVM over a (gamma, C) grid, every grid point served by precomputed Grams.

``PrecomputedKernelSVC`` trains scikit-learn's ``SVC(kernel="precomputed")`` (libsvm) on the
exact Gram, for Li's tables of exact-kernel accuracies.  The grid reuses its work:

* ONE matrix of pairwise squared distances (train-train, and test-train when a test set is
  given) serves every gamma of the RBF kernel exp(-gamma ||x - y||^2);
* ONE Gram per gamma serves every C: each CV fold fits on slices of it, none is recomputed;
* with a test set, the grid's fit on all the training data at the chosen (gamma, C) is the final
  model: libsvm is deterministic, so refitting it on the same Gram would repeat it bit for bit.

A callable kernel (e.g. a GMM kernel) gives one Gram, which serves every C.  ``"cosine_rbf"`` is
Li's RBF exp(-gamma (1 - rho)), rho the cosine of x and y (Li 2017, eq. 8): the rows are scaled to
unit l2 norm, so 1 - rho = ||u - v||^2 / 2, and one matrix of those half squared distances serves
every gamma.

Memory: an n x n float64 matrix takes 8 n^2 bytes, so 24 GiB hold one up to n = 56,755 training
points.  ``fit`` holds the distances, one Gram and one fold's slices (n_train x n_fold_train
floats), about ``2.8 n^2`` floats for cv=5, plus 2 n_test n for a test set: in 24 GiB that is
n <= 33,918 (cv=5, no test set).  ``fit`` refuses, before any work, when its estimate exceeds
``memory_limit_gib``.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import normalize
from sklearn.svm import SVC
from sklearn.utils.validation import check_array, check_is_fitted

from rfbench.kernel import KERNELS, make_kernel
from rfbench.kernel.modulated import squared_distances as kernel_squared_distances
from rfbench.model.grid_search import GridSearchResults, Progress, check_cv, check_grid, make_folds
from rfbench.model.liblinear import DEFAULT_C_GRID
from rfbench.model.pool import worker_pool
from rfbench.validation import is_int, is_real

#: Default RBF grid gamma = 2^-4, 2^-2, 1, 4, 16 (for features scaled to about [-1, 1]).
DEFAULT_GAMMA_GRID: tuple[float, ...] = tuple(float(g) for g in 2.0 ** np.arange(-4, 5, 2))

SELECTIONS: tuple[str, ...] = ("cv", "test_grid")

log = logging.getLogger("rfbench")

#: Kernels swept over ``gamma_grid``: exp(-gamma ||x - y||^2), and the same on unit rows with
#: half the squared distance, exp(-gamma (1 - rho)).
GAMMA_KERNELS: tuple[str, ...] = ("rbf", "cosine_rbf")

#: Upper bound on the test-train Gram rows computed at once in predict / decision_function.
_CHUNK_BYTES = 32 * 2**20

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]


class PrecomputedKernelSVC(GridSearchResults, ClassifierMixin, BaseEstimator):
    """Exact-kernel SVC (libsvm on a precomputed Gram) with (gamma, C) chosen over a grid.

    Parameters
    ----------
    kernel : "rbf", "cosine_rbf", a kernel name, or callable, default="rbf"
        "rbf" is exp(-gamma ||x - y||^2) over ``gamma_grid``; "cosine_rbf" is exp(-gamma (1 - rho)),
        rho the cosine of x and y, over ``gamma_grid`` (the rows scaled to unit norm first).  A name
        of ``rfbench.kernel.KERNELS`` (e.g. "gmm", "linear") is that kernel with its default
        parameters on the data's dimension.  A callable ``kernel(A, B)`` returns the
        (len(A), len(B)) Gram.  Neither has a gamma (``gamma_grid`` is ignored, as SVC
        ignores ``gamma`` for kernels without one).
    gamma_grid : sequence of float, default=2^-4, 2^-2, 1, 4, 16
        The gammas of "rbf" and "cosine_rbf", all > 0.
    C_grid : sequence of float, default=2^-5, ..., 2^5
        Candidate values of C, all > 0.
    selection : {"cv", "test_grid"}, default="cv"
        "cv": the best mean accuracy of stratified k-fold CV on the training set.
        "test_grid": the best accuracy on the test set passed to ``fit`` (Li's protocol; it
        selects on the test set, and ``selected_on_test_`` says so).  Ties go to the
        smaller gamma, then the smaller C.
    cv : int, default=5
        Number of shuffled stratified folds for ``selection="cv"``, 2 <= cv <= the size
        of the smallest class.
    tol : float, default=1e-3
        libsvm's stopping tolerance (SVC's ``tol``).
    cache_size : float, default=200
        libsvm's kernel cache in MB (SVC's ``cache_size``).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling of the folds.
    memory_limit_gib : float, default=8.0
        ``fit`` refuses when its estimate of the float64 matrices it holds exceeds this.
    n_jobs : int, default=1
        Threads fitting the C values of one fold (libsvm releases the GIL); the result
        does not depend on it.
    progress : callable or None, default=None
        Called as ``progress(done, total)`` in the calling thread, counting SVC fits (the
        refit on all of X is the last; with a test set there is none: the grid's fit is kept).

    Attributes
    ----------
    gamma_ : float
        The chosen gamma (NaN for a callable kernel).
    C_ : float
        The chosen C.
    selected_on_test_ : bool
        True when (gamma_, C_) were chosen on the test set (``selection="test_grid"``).
    cv_scores_ : ndarray of shape (n_gamma, len(C_grid))
        Mean CV accuracy per grid point, in grid order (NaN without CV); n_gamma is 1 for a
        callable kernel.
    test_scores_ : ndarray of shape (n_gamma, len(C_grid))
        Test accuracy of the model fitted on all training data, per grid point (NaN when
        ``fit`` got no test set).
    grid_scores_ : pandas.DataFrame
        The same as a tidy table: one row per (gamma, C), columns ``gamma``, ``C``,
        ``cv_score``, ``test_score``; e.g. for a curve of accuracy vs C.
    model_ : sklearn.svm.SVC
        Fitted on the whole training set at (gamma_, C_): the grid's own fit there when ``fit``
        got a test set, else a refit.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    """

    tasks = ("classification",)

    def __init__(
        self,
        kernel: str | Kernel = "rbf",
        gamma_grid: Sequence[float] = DEFAULT_GAMMA_GRID,
        C_grid: Sequence[float] = DEFAULT_C_GRID,
        selection: str = "cv",
        cv: int = 5,
        tol: float = 1e-3,
        cache_size: float = 200,
        random_state: int | np.random.RandomState | None = None,
        memory_limit_gib: float = 8.0,
        n_jobs: int = 1,
        progress: Callable[[int, int], None] | None = None,
    ):
        self.kernel = kernel
        self.gamma_grid = gamma_grid
        self.C_grid = C_grid
        self.selection = selection
        self.cv = cv
        self.tol = tol
        self.cache_size = cache_size
        self.random_state = random_state
        self.memory_limit_gib = memory_limit_gib
        self.n_jobs = n_jobs
        self.progress = progress

    def check_params(self) -> None:
        """Raise ValueError naming the first invalid constructor parameter; ``fit`` calls it first."""
        if not (self.kernel in GAMMA_KERNELS or self.kernel in KERNELS or callable(self.kernel)):
            raise ValueError(f"kernel={self.kernel!r} is not valid; use 'rbf', 'cosine_rbf', a kernel name of "
                             f"{sorted(KERNELS)}, or a callable kernel(A, B) -> Gram")
        if self.kernel in GAMMA_KERNELS:
            check_grid("gamma_grid", self.gamma_grid)
        check_grid("C_grid", self.C_grid)
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection={self.selection!r} is not valid; choose one of {SELECTIONS}")
        check_cv(self.cv)
        for name in ("tol", "cache_size", "memory_limit_gib"):
            value = getattr(self, name)
            if not (is_real(value) and np.isfinite(value) and value > 0):
                raise ValueError(f"{name}={value!r} is invalid: a finite number > 0")
        if not is_int(self.n_jobs) or self.n_jobs < 1:
            raise ValueError(f"n_jobs must be an int >= 1, got {self.n_jobs!r}")

    def fit(
        self, X: np.ndarray, y: np.ndarray, X_test: np.ndarray | None = None, y_test: np.ndarray | None = None,
    ) -> PrecomputedKernelSVC:
        """Score every grid point (CV and/or test set), choose (gamma, C), refit on all of (X, y).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
            Class labels, at least two distinct values.
        X_test, y_test : ndarrays or None
            A test set: every grid point's model fitted on all of (X, y) is scored on it
            (``test_scores_``).  Required by ``selection="test_grid"``.

        Returns
        -------
        self
        """
        self.check_params()
        X, y, X_test, y_test = self._check_data(X, y, X_test, y_test)
        X, X_test = self._rows(X), None if X_test is None else self._rows(X_test)
        folds = (make_folds(self.cv, y, stratified=True, random_state=self.random_state)
                 if self.selection == "cv" else [])
        self._check_memory(len(X), 0 if X_test is None else len(X_test), folds)
        log.info("model: libsvm (exact, its only path) on a precomputed %d x %d Gram of kernel=%s, dense float64",
                 len(X), len(X), self.kernel if isinstance(self.kernel, str) else type(self.kernel).__name__)
        self.n_features_in_, self.X_train_, self._center = X.shape[1], X, X.mean(axis=0)
        named = isinstance(self.kernel, str) and self.kernel not in GAMMA_KERNELS
        self._kernel = make_kernel(self.kernel, X.shape[1]) if named else self.kernel
        gammas = (np.asarray(self.gamma_grid, dtype=np.float64) if self.kernel in GAMMA_KERNELS
                  else np.array([np.nan]))
        Cs = np.asarray(self.C_grid, dtype=np.float64)
        progress = Progress(self.progress, len(gammas) * len(Cs) * (len(folds) + (X_test is not None))
                            + (X_test is None))
        base, gram, model = self._score_grid(y, X_test, y_test, folds, gammas, Cs, progress)
        i, j = _select(self._selection_scores(), gammas, Cs)
        self.gamma_, self.C_, self.selected_on_test_ = float(gammas[i]), float(Cs[j]), self.selection == "test_grid"
        if model is None:  # no test set, so no fit on all of (X, y) yet
            if i != len(gammas) - 1:  # the buffer holds the last gamma's Gram
                gram = self._gram(base, self.gamma_, gram)
            model = self._svc(self.C_).fit(gram, y)
            progress()
        self.model_ = model
        self._record_grid({"gamma": np.repeat(gammas, len(Cs)), "C": np.tile(Cs, len(gammas))}, self.cv_scores_,
                          {"gamma": self.gamma_, "C": self.C_}, test_scores=self.test_scores_,
                          on_test=self.selected_on_test_)
        return self

    def _score_grid(
        self, y: np.ndarray, X_test: np.ndarray | None, y_test: np.ndarray | None,
        folds: list[tuple[np.ndarray, np.ndarray]], gammas: np.ndarray, Cs: np.ndarray, progress: Progress,
    ) -> tuple[np.ndarray, np.ndarray, SVC | None]:
        """Fill ``cv_scores_`` and ``test_scores_``; return the distances (or the callable's Gram),
        the Gram buffer, which holds the last gamma's Gram, and, with a test set, the fit on all the
        training data at the grid point ``fit`` selects (None without a test set).

        One Gram per gamma; each fold fits every C on the same two slices of it.  The selection
        scores of a gamma are complete after its test fits (its folds come first), so the best
        point of the gammas so far is known there, and its fit is kept; the last one kept is the
        point selected over the whole grid (a later gamma only wins by a better score).
        """
        shape = (len(gammas), len(Cs))
        self.cv_scores_ = np.zeros(shape) if folds else np.full(shape, np.nan)
        self.test_scores_ = np.full(shape, np.nan)
        base, test_base = self._base(self.X_train_), None if X_test is None else self._base(X_test)
        gram, test_gram = self._buffer(base), self._buffer(test_base)
        model = None
        with worker_pool(self.n_jobs) as pool:
            for i, gamma in enumerate(gammas):
                gram = self._gram(base, gamma, gram)
                for train, test in folds:
                    fold_gram, held_out = gram[np.ix_(train, train)], gram[np.ix_(test, train)]
                    scores, _ = self._scores(pool, fold_gram, y[train], held_out, y[test], Cs)
                    self.cv_scores_[i] += scores / len(folds)
                    progress(len(Cs))
                if X_test is not None:
                    test_gram = self._gram(test_base, gamma, test_gram)
                    self.test_scores_[i], models = self._scores(pool, gram, y, test_gram, y_test, Cs)
                    progress(len(Cs))
                    best_gamma, best_C = _select(self._selection_scores()[: i + 1], gammas[: i + 1], Cs)
                    model = models[best_C] if best_gamma == i else model
        return base, gram, model

    def _selection_scores(self) -> np.ndarray:
        """The scores ``fit`` selects on: the test set's (``selection="test_grid"``) or the CV means."""
        return self.test_scores_ if self.selection == "test_grid" else self.cv_scores_

    def _check_data(
        self, X: np.ndarray, y: np.ndarray, X_test: np.ndarray | None, y_test: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Validated float64 X (and X_test), labels; sets ``classes_``."""
        X, y = check_array(X, dtype=np.float64), np.asarray(y)
        if y.ndim != 1 or len(y) != len(X):
            raise ValueError(f"y must be 1-D with one label per row of X: X has {len(X)} rows, y has shape {y.shape}")
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"y must contain at least 2 classes, got only {self.classes_.tolist()}")
        if (X_test is None) != (y_test is None):
            raise ValueError("pass both X_test and y_test, or neither")
        if X_test is None:
            if self.selection == "test_grid":
                raise ValueError("selection='test_grid' scores every grid point on a test set: "
                                 "call fit(X, y, X_test=..., y_test=...)")
            return X, y, None, None
        X_test, y_test = check_array(X_test, dtype=np.float64), np.asarray(y_test)
        if X_test.shape[1] != X.shape[1] or y_test.shape != (len(X_test),):
            raise ValueError(f"X_test must have {X.shape[1]} columns and one label per row, "
                             f"got X_test {X_test.shape} and y_test {y_test.shape}")
        return X, y, X_test, y_test

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """SVC's decision values on the Gram between X and the training set (row chunks)."""
        return np.concatenate([self.model_.decision_function(gram) for gram in self._test_grams(X)])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.concatenate([self.model_.predict(gram) for gram in self._test_grams(X)])

    # --- helpers -----------------------------------------------------------------------
    def _svc(self, C: float) -> SVC:
        return SVC(kernel="precomputed", C=C, tol=self.tol, cache_size=self.cache_size)

    def _scores(
        self, pool: ThreadPoolExecutor, gram: np.ndarray, y: np.ndarray, test_gram: np.ndarray, y_test: np.ndarray,
        Cs: np.ndarray,
    ) -> tuple[np.ndarray, list[SVC]]:
        """Accuracy on (test_gram, y_test) of an SVC fitted on (gram, y), and that SVC, for each C."""
        def fit_and_score(C: float) -> tuple[float, SVC]:
            svc = self._svc(C).fit(gram, y)
            return svc.score(test_gram, y_test), svc

        scores, models = zip(*pool.map(fit_and_score, Cs))
        return np.array(scores), list(models)

    def _base(self, A: np.ndarray) -> np.ndarray:
        """What every Gram between A and the training set derives from: for "rbf" the squared
        distances (computed once per fit), for "cosine_rbf" half of them (1 - rho on unit rows), for
        a callable kernel the Gram itself."""
        if self.kernel not in GAMMA_KERNELS:
            return self._kernel(A, self.X_train_)
        distances = squared_distances(A, self.X_train_, self._center)
        if self.kernel == "cosine_rbf":
            distances *= 0.5
        return distances

    def _rows(self, X: np.ndarray) -> np.ndarray:
        """X with its rows scaled to unit l2 norm for "cosine_rbf", else X as is."""
        return normalize(X) if self.kernel == "cosine_rbf" else X

    def _buffer(self, base: np.ndarray | None) -> np.ndarray | None:
        """Memory reused by the Gram of every gamma (none for a callable kernel: its base is the Gram)."""
        return np.empty_like(base) if base is not None and self.kernel in GAMMA_KERNELS else None

    def _gram(self, base: np.ndarray, gamma: float, out: np.ndarray | None) -> np.ndarray:
        """exp(-gamma D) into ``out`` for a gamma kernel (no temporary n x n array); the callable's Gram as is."""
        if self.kernel not in GAMMA_KERNELS:
            return base
        np.multiply(base, -gamma, out=out)
        return np.exp(out, out=out)

    def _test_grams(self, X: np.ndarray) -> Iterator[np.ndarray]:
        """The Gram between row chunks of X and the training set, at the chosen gamma."""
        check_is_fitted(self, "model_")
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with {self.n_features_in_}")
        X = self._rows(X)
        rows = max(1, _CHUNK_BYTES // (8 * len(self.X_train_)))
        for start in range(0, len(X), rows):
            base = self._base(X[start : start + rows])
            yield self._gram(base, self.gamma_, base)

    def memory_needs(self, n_rows: int, width: int, stored: int, sparse: bool) -> dict[str, int]:
        """Bytes of the float64 matrices ``fit`` holds, known before it starts (``_matrix_bytes``,
        without the test set's, which ``fit`` adds); parameters as ``LibLinearClassifier.memory_needs``."""
        fold_train = (self.cv - 1) / self.cv if self.selection == "cv" and is_int(self.cv) and self.cv > 1 else 0.0
        return {"libsvm's precomputed distances and Grams (n x n)": int(_matrix_bytes(n_rows, 0, fold_train))}

    def _check_memory(self, n: int, n_test: int, folds: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Refuse before any work when the float64 matrices held at once would exceed the limit."""
        fold_train = max((len(train) for train, _ in folds), default=0) / max(n, 1)
        need = _matrix_bytes(n, n_test, fold_train)
        limit = self.memory_limit_gib * 2**30
        if need > limit:
            # largest n within the limit: 8 (2 + fold_train) n^2 + 16 n_test n = limit
            a, b = 8 * (2 + fold_train), 16 * n_test
            n_max = int((-b + np.sqrt(b * b + 4 * a * limit)) / (2 * a))
            raise ValueError(
                f"PrecomputedKernelSVC would hold about {need / 2**30:.1f} GiB of float64 matrices for "
                f"n={n} training and {n_test} test points (distances, one Gram, a CV fold's slices), above "
                f"memory_limit_gib={self.memory_limit_gib}; subsample the training set to n <= {n_max} "
                f"or raise memory_limit_gib")


def _matrix_bytes(n: int, n_test: int, fold_train: float) -> float:
    """Bytes of the distances and one Gram (n x n each), a fold's slices (fold_train n x n) and the
    test distances and Gram (n_test x n each)."""
    return 8.0 * ((2 + fold_train) * n * n + 2 * n_test * n)


def _select(scores: np.ndarray, gammas: np.ndarray, Cs: np.ndarray) -> tuple[int, int]:
    """(gamma index, C index) of the best score; ties to the smaller gamma, then the smaller C."""
    rows, columns = np.nonzero(scores == np.max(scores))
    return min(zip(np.nan_to_num(gammas[rows]), Cs[columns], rows, columns))[2:]


def squared_distances(A: np.ndarray, B: np.ndarray, center: np.ndarray) -> np.ndarray:
    """||a - b||^2 for every row a of A and b of B, in float64, clipped at 0.

    The expansion ||a||^2 + ||b||^2 - 2 a.b is taken after subtracting ``center`` (the
    training mean) from both, which keeps the norms, and so the cancellation, small.  When A
    is B the matrix is exactly symmetric with a zero diagonal.
    """
    A_c = A - center
    distances = kernel_squared_distances(A_c, A_c if B is A else B - center)
    if A is B:  # exactly symmetric with a zero diagonal, as a Gram of the same points must be
        distances += distances.T  # numpy buffers the overlapping transpose
        distances *= 0.5
        np.fill_diagonal(distances, 0.0)
    return distances
