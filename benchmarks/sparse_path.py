"""The ``sparse_path`` section of ``make bench``: exact solvers of the L2-loss SVM on wide sparse codes.

Where ``solver="newton"``'s dense path does not fit (Laplacian binning and GCWS on letter: 10 and
1.6 CPU-hours estimated), the model takes its iterative path (``newton_cost.choose_path``): on sparse
codes rfbench's Newton-CG on the active rows (``rfbench.model.sparse_newton``: all one-vs-rest
columns per pass over the rows, LibLinear ``-s 2``'s stopping rule at ``-e 1e-6``), warm-started
along the C grid.  This section measures it on one CV fold of one trial (the fold's training rows,
26 one-vs-rest columns, C = 2^-5..2^5 in increasing order), single-threaded, against:

* its natural peer, the path taken before it: LibLinear ``-s 2 -e 1e-6`` warm-started along C
  (``init_sol``), one ``train`` per C;
* the textbook loop, LibLinear ``-s 2 -e 1e-6`` cold at each C;
* LibLinear ``-s 1`` at its default ``-e 0.1``, cold at each C (what the former refusal named);
* and itself with its former Hessian product (``by_pattern=False``: each active pair reads the row's
  stored values, all columns in one pass over the rows), where the path taken multiplies by the codes'
  0/1 pattern and one value per column, class by class over its own active rows.

Each row gives CPU-seconds and the objective gap (f - f*) / f* at C = 32 (the grid's top, where
solvers stop shortest), f summed over the one-vs-rest problems, f* from LibLinear ``-s 2 -e 1e-10``
started from the best of them.
"""
from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import scipy.sparse as sp
from liblinear.liblinear import parameter
from sklearn.model_selection import StratifiedKFold

from rfbench.dataset import load_dataset
from rfbench.engine import components
from rfbench.model.liblinear import DEFAULT_C_GRID, _raw_w, _sparse_problem, _train
from rfbench.model.newton_cost import ITERATIVE_TOL
from rfbench.model.sparse_newton import squared_hinge_paths_sparse

#: The value of C at which the gaps are measured.
GAP_AT_C = 32.0


def fold_codes(overrides: Sequence[str], composed: Callable[..., dict], n_rows: int | None
               ) -> tuple[sp.csr_matrix, np.ndarray]:
    """The training rows of CV fold 0 of trial 0's features (float64 CSR) and their labels as indices."""
    cfg = composed(*overrides)
    data = load_dataset(cfg["dataset"])
    kernel = components.build_kernel(cfg, data.d)
    fmap = components.build_feature_map(cfg, kernel, random_state=0).fit(data.X_train[:n_rows])
    Z = sp.csr_matrix(fmap.transform(data.X_train[:n_rows]), dtype=np.float64)
    y = np.unique(data.y_train[:n_rows], return_inverse=True)[1]
    train, _ = next(StratifiedKFold(5, shuffle=True, random_state=0).split(Z, y))
    return Z[train], y[train]


def liblinear_path(Z: sp.csr_matrix, y: np.ndarray, Cs: Sequence[float], options: str, warm: bool,
                   start: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """LibLinear's weights (p, n_classes; columns in class order) at each C, each from the last if ``warm``."""
    prob, param = _sparse_problem(Z, y, -1.0), parameter(options + " -q")
    init = None
    if start is not None:
        init = start[:, _first_seen(y)].copy()  # class order -> LibLinear's label order
        param.init_sol = init.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    for C in Cs:
        model = _train(prob, param, C)
        W = _raw_w(model)
        if warm:
            init = W.copy()
            param.init_sol = init.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        yield W[:, np.argsort(model.get_labels())]


def _first_seen(y: np.ndarray) -> np.ndarray:
    """The labels in order of first appearance (LibLinear's label order)."""
    _, first = np.unique(y, return_index=True)
    return y[np.sort(first)]


def objective(Z: sp.csr_matrix, Y: np.ndarray, C: float, W: np.ndarray) -> float:
    """sum_k ||w_k||^2 / 2 + C sum_i max(0, 1 - y_ik z_i^T w_k)^2."""
    return float(0.5 * np.sum(W * W) + C * np.sum(np.maximum(0.0, 1.0 - Y * (Z @ W)) ** 2))


def contenders(Z: sp.csr_matrix, y: np.ndarray, Y: np.ndarray) -> dict[str, Callable[[], list[np.ndarray]]]:
    """Each contender's path over the grid, as a call returning the weights at every C."""
    e = f"{ITERATIVE_TOL:g}"
    return {
        f"Newton-CG on the active rows (sparse_newton), LibLinear -s 2's rule at -e {e}, warm-started":
            lambda: list(squared_hinge_paths_sparse(Z, Y, DEFAULT_C_GRID, tol=ITERATIVE_TOL)),
        "the same Newton-CG by the former product (stored values, one pass over the rows for all columns)":
            lambda: list(squared_hinge_paths_sparse(Z, Y, DEFAULT_C_GRID, tol=ITERATIVE_TOL, by_pattern=False)),
        f"LibLinear -s 2 -e {e}, warm-started along C":
            lambda: list(liblinear_path(Z, y, DEFAULT_C_GRID, f"-s 2 -e {e}", warm=True)),
        f"LibLinear -s 2 -e {e}, cold at each C (the textbook loop)":
            lambda: list(liblinear_path(Z, y, DEFAULT_C_GRID, f"-s 2 -e {e}", warm=False)),
        "LibLinear -s 1 (default -e 0.1), cold at each C":
            lambda: list(liblinear_path(Z, y, DEFAULT_C_GRID, "-s 1", warm=False)),
    }


def measure(Z: sp.csr_matrix, y: np.ndarray) -> dict[str, tuple[float, float]]:
    """(CPU-seconds, objective gap at ``GAP_AT_C``) of each contender on the fold's codes."""
    Y = np.where(y[:, None] == np.arange(y.max() + 1), 1.0, -1.0)
    at = DEFAULT_C_GRID.index(GAP_AT_C)
    results = {}
    for label, path in contenders(Z, y, Y).items():
        cpu = time.process_time()
        W = path()[at]
        results[label] = (time.process_time() - cpu, objective(Z, Y, GAP_AT_C, W), W)
    best = min(results.values(), key=lambda r: r[1])[2]
    (W_star,) = liblinear_path(Z, y, [GAP_AT_C], "-s 2 -e 1e-10", warm=False, start=best)
    f_star = min(objective(Z, Y, GAP_AT_C, W_star), *(f for _, f, _ in results.values()))
    return {label: (cpu, (f - f_star) / f_star) for label, (cpu, f, _) in results.items()}
