"""The ``libsvm_grid`` section of ``make bench``: Li's exact RBF-kernel SVM grid on libsvm.

Li's Tables 1-3 score every (gamma, C) of a grid with libsvm on the exact kernel
exp(-gamma (1 - rho)), rho the cosine of two rows (``PrecomputedKernelSVC(kernel="cosine_rbf")``,
``selection="test_grid"``).  This section times one such grid on one dataset (Li's split, rows
scaled to unit norm), one thread, CPU-seconds of this process, best of ``repeats`` interleaved rounds:

* rfbench: one matrix of half squared distances 1 - rho for every gamma, one Gram per gamma
  shared by every C, the grid's fit at the chosen point kept as the model;
* the path it replaces: the same, then the chosen point refitted (as ``fit`` did before);
* rfbench with libsvm's shrinking off (``SVC(shrinking=False)``; it is on everywhere else);
* the natural peers, one fit per grid point: scikit-learn's ``SVC(kernel="precomputed")`` on the
  train and test Grams of that point, computed for it, and ``SVC(kernel="rbf", gamma=gamma / 2)``
  on the unit rows (exp(-gamma/2 ||u - v||^2) = exp(-gamma (1 - rho)): libsvm computes and caches
  the kernel itself).

The path it replaces and the precomputed peer solve the same problems on the same Grams, so they
must give rfbench's test accuracy at every grid point bit for bit; shrinking off and libsvm's own
kernel (another order of rounding) reach the same optimum within libsvm's tolerance (tol = 1e-3 on
the largest KKT violation), and their largest accuracy difference is reported.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from rfbench.dataset import load_dataset
from rfbench.model.kernel_svm import PrecomputedKernelSVC, squared_distances

#: Li's gammas (a subset of his 58) and C = 2^-2 .. 2^10 in steps of 16x: 5 x 4 grid points.
GAMMAS: tuple[float, ...] = (0.1, 1.0, 6.0, 20.0, 100.0)
CS: tuple[float, ...] = tuple(2.0 ** np.arange(-2, 11, 4))

REFERENCE = "rfbench (one Gram per gamma, the choice kept)"
TODAY = "the path it replaces (the same, the choice refitted)"
NO_SHRINKING = "rfbench with libsvm's shrinking off"
PRECOMPUTED_PEER = "SVC(kernel='precomputed'), the Grams computed per (gamma, C)"
RBF_PEER = "SVC(kernel='rbf', gamma=gamma/2) on the unit rows, per (gamma, C)"

Data = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def li_data(composed: Callable[..., dict], dataset: str, n_rows: int | None) -> Data:
    """Li's split of ``dataset`` as the tables read it (rows scaled to unit norm), the first ``n_rows`` of each part."""
    cfg = composed("experiment=li_kernel_svm", "kernel=linear", "feature_map=identity", "classifier=svc_precomputed",
                   f"dataset={dataset}")
    data = load_dataset(cfg["dataset"])
    return data.X_train[:n_rows], data.y_train[:n_rows], data.X_test[:n_rows], data.y_test[:n_rows]


class _NoShrinking(PrecomputedKernelSVC):
    """PrecomputedKernelSVC whose every libsvm fit runs without shrinking."""

    def _svc(self, C: float) -> SVC:
        return super()._svc(C).set_params(shrinking=False)


def _rfbench(estimator: type[PrecomputedKernelSVC] = PrecomputedKernelSVC, refit: bool = False
             ) -> Callable[[Data], np.ndarray]:
    def run(data: Data) -> np.ndarray:
        X, y, X_test, y_test = data
        model = estimator(kernel="cosine_rbf", gamma_grid=GAMMAS, C_grid=CS, selection="test_grid")
        model.fit(X, y, X_test, y_test)
        if refit:  # what fit did before: the chosen point once more, on its Gram
            SVC(kernel="precomputed", C=model.C_).fit(_gram(X, X, model.gamma_), y)
        return model.test_scores_
    return run


def _gram(A: np.ndarray, X: np.ndarray, gamma: float) -> np.ndarray:
    """exp(-gamma (1 - rho)) between the rows of A and X, as rfbench computes it (unit rows, centered expansion)."""
    return np.exp(-gamma * 0.5 * squared_distances(A, X, X.mean(axis=0)))


def _precomputed_per_point(data: Data) -> np.ndarray:
    X, y, X_test, y_test = data
    return np.array([[SVC(kernel="precomputed", C=C).fit(_gram(X, X, g), y).score(_gram(X_test, X, g), y_test)
                      for C in CS] for g in GAMMAS])


def _rbf_per_point(data: Data) -> np.ndarray:
    X, y, X_test, y_test = data
    return np.array([[SVC(kernel="rbf", gamma=g / 2, C=C).fit(X, y).score(X_test, y_test) for C in CS]
                     for g in GAMMAS])


def contenders() -> dict[str, Callable[[Data], np.ndarray]]:
    return {REFERENCE: _rfbench(), TODAY: _rfbench(refit=True), NO_SHRINKING: _rfbench(_NoShrinking),
            PRECOMPUTED_PEER: _precomputed_per_point, RBF_PEER: _rbf_per_point}


def measure(data: Data, repeats: int, names: Sequence[str] | None = None) -> dict[str, tuple[float, float]]:
    """(best CPU-seconds over ``repeats`` interleaved rounds, largest |test accuracy - rfbench's| over the grid)
    of each contender, one BLAS thread (the campaign runs one job per core)."""
    runs = {name: fn for name, fn in contenders().items() if names is None or name in names}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    scores: dict[str, np.ndarray] = {}
    with threadpool_limits(1):
        for _ in range(repeats):
            for name, fn in runs.items():
                start = time.process_time()
                scores[name] = fn(data)
                seconds[name].append(time.process_time() - start)
    reference = scores[REFERENCE]
    return {name: (min(seconds[name]), float(np.max(np.abs(scores[name] - reference)))) for name in runs}
