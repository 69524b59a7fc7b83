"""What the grid-searching models share: grid and fold checks, the folds, progress counting.

``RidgeRegressorCV``/``RidgeClassifierCV`` (:mod:`rfbench.ridge`) and ``PrecomputedKernelSVC``
(:mod:`rfbench.kernel_svm`) validate their grids and fold counts, split and report progress the
same way, with the messages of ``LibLinearClassifier``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
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
