"""What the grid-searching models share: grid and fold checks, the folds, progress counting.

``RidgeRegressorCV``/``RidgeClassifierCV`` (:mod:`rfbench.model.ridge`) and ``PrecomputedKernelSVC``
(:mod:`rfbench.model.kernel_svm`) validate their grids and fold counts, split and report progress the
same way, with the messages of ``LibLinearClassifier``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, StratifiedKFold

from rfbench.validation import is_int


def check_grid(name: str, values: Sequence[float], *, allow_zero: bool = False) -> np.ndarray:
    """``values`` as a float64 array, or ValueError naming the bad value and the valid range.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    values : sequence of float
        The grid: non-empty, 1-D, finite, > 0 (>= 0 with ``allow_zero``).
    allow_zero : bool, default=False
        Accept 0 (e.g. lambda = 0: least squares).
    """
    bound = ">= 0" if allow_zero else "> 0"
    try:
        grid = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        grid = np.empty(0)
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of floats {bound}, got {values!r}")
    bad = ~(np.isfinite(grid) & ((grid >= 0) if allow_zero else (grid > 0)))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"every value of {name} must be finite and {bound}, got {name}[{i}] = {grid[i]}")
    return grid


def check_cv(cv: object) -> None:
    """ValueError unless ``cv`` is an int >= 2 (the upper bound needs the data: ``make_folds``)."""
    if not is_int(cv) or cv < 2:
        raise ValueError(f"cv={cv!r} is invalid: k-fold cross-validation needs an int cv >= 2")


def make_folds(
    cv: int, y: np.ndarray, *, stratified: bool, random_state: int | np.random.RandomState | None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of shuffled k-fold CV, stratified by the labels ``y`` if asked.

    Raises ValueError naming ``cv`` and its valid range when there are fewer samples (or,
    stratified, fewer samples of the smallest class) than folds.
    """
    if stratified:
        labels, counts = np.unique(y, return_counts=True)
        if cv > counts.min():
            raise ValueError(
                f"cv={cv} exceeds the {counts.min()} samples of the smallest class "
                f"({labels[counts.argmin()].item()!r}); stratified CV needs 2 <= cv <= {counts.min()}")
        splitter = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    else:
        if cv > len(y):
            raise ValueError(f"cv={cv} exceeds the {len(y)} training samples; k-fold CV needs 2 <= cv <= {len(y)}")
        splitter = KFold(n_splits=cv, shuffle=True, random_state=random_state)
    return list(splitter.split(np.zeros((len(y), 1)), y))


class Progress:
    """Counts finished fits and reports ``callback(done, total)``; a no-op without a callback."""

    def __init__(self, callback: Callable[[int, int], None] | None, total: int):
        self.callback, self.total, self.done = callback, total, 0

    def __call__(self, n: int = 1) -> None:
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)


class GridSearchResults:
    """How a model fitted over a grid reports to the runner, whatever its hyperparameters.

    Attributes set by ``_record_grid`` in ``fit``
    ---------------------------------------------
    best_params_ : dict of str -> float
        The selected grid point, e.g. ``{"C": 32.0}``.
    grid_scores_ : pandas.DataFrame
        One row per grid point: a column per hyperparameter, ``cv_score`` (mean over the folds,
        NaN without CV) and ``test_score`` (NaN unless scored on a test set).
    selected_on_test_ : bool
        Whether ``best_params_`` was chosen on the test set (Li's protocol, ``selection="test_grid"``).
    cv_score_ : float
        ``cv_score`` at ``best_params_``.
    """

    #: The tasks the model serves ("classification", "regression"); the runner refuses others.
    tasks: tuple[str, ...] = ()
    #: The name of ``cv_score`` and ``test_score`` (e.g. "accuracy"), and whether higher is better.
    score_name: str = "accuracy"

    def fit_record(self) -> dict[str, str]:
        """Columns of a trial's row that say how the model was fitted (e.g. which solver path ran); none here."""
        return {}

    def _record_grid(self, grid: dict[str, np.ndarray], cv_scores: np.ndarray, best: dict[str, float], *,
                     test_scores: np.ndarray | None = None, on_test: bool = False) -> None:
        cv_scores = np.ravel(cv_scores)
        test = np.full(cv_scores.shape, np.nan) if test_scores is None else np.ravel(test_scores)
        self.grid_scores_ = pd.DataFrame({**{k: np.ravel(v) for k, v in grid.items()},
                                          "cv_score": cv_scores, "test_score": test})
        self.best_params_, self.selected_on_test_ = dict(best), on_test
        at_best = np.logical_and.reduce([np.isclose(self.grid_scores_[k], v, rtol=0, atol=0, equal_nan=True)
                                         for k, v in best.items()])
        self.cv_score_ = float(cv_scores[np.flatnonzero(at_best)[0]])
