"""The ``ridge_dual`` section of ``make bench``: ridge's lambda grid on codes wider than a fold's rows.

Rahimi and Recht's cpu_act protocol study (``rfbench.papers.rr.protocol``) fits ridge, lambda by
5-fold CV over 13 values (``classifier=ridge``'s grid), on random binning codes wider than a fold's
rows.  This section times that fit on the first ``n_rows`` training rows of cpu_act, P = 350 grids at
sigma = ``factor`` x the median L1 distance of the rows (as the study sets it), one BLAS thread,
CPU-seconds of this process:

* rfbench's path there, ``solver="dual"``: one eigendecomposition of each fold's n x n Gram serves
  every lambda, the refit one Cholesky solve;
* the path it replaces (within 8,192 columns), ``solver="eigen"``: one eigendecomposition of each
  fold's p x p Gram;
* the natural peer: scikit-learn's ``GridSearchCV`` over ``Ridge(solver="cholesky")`` with the same
  folds, grid and score (on data wider than tall it solves the kernel form, one Cholesky of
  X X^T + alpha I per alpha and fold), on the dense codes.

All three solve the same problems exactly: each row gives the chosen lambda and the largest
difference of its mean CV errors and refitted weights from the dual path's, relative to their
largest magnitude.
"""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import pdist
from sklearn.linear_model import Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV
from threadpoolctl import threadpool_limits

from rfbench.dataset import load_dataset
from rfbench.feature_map import RandomBinning
from rfbench.model.grid_search import make_folds
from rfbench.model.ridge import RidgeRegressorCV

#: Binning grids, as Table 1's cpu_act cell.
P = 350
#: Folds of the CV, as the study.
FOLDS = 5

DUAL = "rfbench ridge, solver='dual' (n x n Gram per fold)"
EIGEN = "rfbench ridge, solver='eigen' (p x p Gram per fold), the path it replaces"
PEER = "GridSearchCV(Ridge(solver='cholesky')), one solve per (lambda, fold)"

Fit = tuple[float, np.ndarray, np.ndarray]  # chosen lambda, mean CV errors in grid order, refitted weights


def binning_codes(composed: Callable[..., dict], n_rows: int, factor: float) -> tuple[sp.csr_matrix, np.ndarray]:
    """The first ``n_rows`` training rows of cpu_act as P-grid binning codes (CSR float64) and their targets."""
    data = load_dataset(composed("dataset=cpu_act", "classifier=ridge")["dataset"])
    X, y = data.X_train[:n_rows], data.y_train[:n_rows]
    rows = np.random.default_rng(0).choice(len(X), min(1000, len(X)), replace=False)
    sigma = factor * float(np.median(pdist(X[rows], "cityblock")))
    fmap = RandomBinning(n_components=P, sigma=sigma, random_state=0).fit(X)
    return sp.csr_matrix(fmap.transform(X), dtype=np.float64), y


def lambdas(composed: Callable[..., dict]) -> np.ndarray:
    """``classifier=ridge``'s grid, 2^log2_lambda."""
    return 2.0 ** np.asarray(composed("classifier=ridge")["classifier"]["log2_lambda"], dtype=np.float64)


def _ours(solver: str) -> Callable[[sp.csr_matrix, np.ndarray, np.ndarray], Fit]:
    def fit(Z: sp.csr_matrix, y: np.ndarray, grid: np.ndarray) -> Fit:
        model = RidgeRegressorCV(lambda_grid=grid, cv=FOLDS, solver=solver, random_state=0).fit(Z, y)
        return model.lambda_, model.cv_scores_, model.coef_
    return fit


def _peer(Z: sp.csr_matrix, y: np.ndarray, grid: np.ndarray) -> Fit:
    """scikit-learn's grid search on rfbench's folds and score (relative error, lower is better)."""
    folds = make_folds(FOLDS, y, stratified=False, random_state=0)
    score = make_scorer(lambda truth, pred: np.linalg.norm(pred - truth) / np.linalg.norm(truth),
                        greater_is_better=False)
    search = GridSearchCV(Ridge(solver="cholesky"), {"alpha": list(grid)}, cv=folds, scoring=score).fit(
        Z.toarray(), y)
    errors = -search.cv_results_["mean_test_score"]
    return search.best_params_["alpha"], errors, search.best_estimator_.coef_


def measure(Z: sp.csr_matrix, y: np.ndarray, grid: np.ndarray) -> dict[str, tuple[float, float, float, float]]:
    """Per contender: (CPU-seconds, chosen lambda, largest relative difference of the CV errors and of the refitted
    weights from the dual path's), one BLAS thread."""
    contenders = {DUAL: _ours("dual"), EIGEN: _ours("eigen"), PEER: _peer}
    fits: dict[str, tuple[float, Fit]] = {}
    with threadpool_limits(1):
        for name, fn in contenders.items():
            start = time.process_time()
            result = fn(Z, y, grid)
            fits[name] = (time.process_time() - start, result)
    _, (_, errors, coef) = fits[DUAL]
    return {name: (cpu, lam, _relative(cv, errors), _relative(w, coef)) for name, (cpu, (lam, cv, w)) in fits.items()}


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))
