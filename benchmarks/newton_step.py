"""The ``newton_step`` section of ``make bench``: the dense Newton path's systems on wide features.

``solver="newton"``'s dense path (``rfbench.model.newton_svc``) takes each one-vs-rest column's
Newton step s = -(I + 2C Z_I^T Z_I)^-1 g by a p x p Cholesky of its active rows' Gram, kept up to
date as rows enter and leave the active set I.  On Li's Fig. 7 (NRFF on letter, k up to 4096, every
C of 2^-2..2^16 trained on the 15,000 training rows) the active sets at the large C are a few
hundred rows against p = k columns, and ``newton_step="auto"`` takes those steps by Woodbury's
|I| x |I| system instead.  This section runs one trial's path (trial 0's NRFF map at gamma = 1,
k = 1024, as the fig7 job; 26 one-vs-rest columns, the 10 values of C in increasing order, one
thread) on the first 5,000 of the training rows (``Sizes.n_newton``), CPU-seconds:

* rfbench, ``woodbury=True`` (``newton_step="auto"``);
* the path it would replace, ``woodbury=False`` (``newton_step="primal"``, the records');
* the natural peer, LibLinear ``-s 2`` (trust-region Newton, the same problem) at its default
  ``-e 0.01``, warm-started along C on the same features: at ``-e 1e-6`` it ran more than 20
  CPU-minutes on the 15,000 rows and more than 5 on the 5,000 before we stopped it, so the peer here
  stops short of the optimum (its objective difference says by how much).

Each row gives the largest relative difference of its objective from the p x p path's over the grid,
and how many of the 10 x 5,000 test predictions differ from that path's (0: no test score moves).
"""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from benchmarks.sparse_path import liblinear_path, objective
from rfbench.dataset import load_dataset
from rfbench.engine import components
from rfbench.model.newton_svc import squared_hinge_paths

OURS = "rfbench, newton_step='auto' (Woodbury where cheaper)"
PRIMAL = "rfbench, newton_step='primal' (the records'), the path it would replace"
PEER = "LibLinear -s 2 at its default -e 0.01, warm-started along C"

#: Fig. 7's NRFF run (configs/campaign/li.yaml, vars.nrff) at one of its gammas.
OVERRIDES = ("experiment=li_hashing", "dataset=letter_li", "kernel=cosine_rbf", "kernel.gamma=1")
#: Its grid of C, 2^-2..2^16.
CS = tuple(2.0 ** e for e in range(-2, 17, 2))


def nrff_problem(composed: Callable[..., dict], k: int, n_rows: int | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Trial 0's NRFF features of letter_li's training and test rows (float64) and their labels as indices."""
    cfg = composed(*OVERRIDES, f"feature_map.n_components={k}")
    data = load_dataset(cfg["dataset"])
    kernel = components.build_kernel(cfg, data.d)
    fmap = components.build_feature_map(cfg, kernel, random_state=0).fit(data.X_train[:n_rows])
    classes, y = np.unique(data.y_train[:n_rows], return_inverse=True)
    y_test = np.searchsorted(classes, data.y_test[:n_rows])
    return (np.ascontiguousarray(fmap.transform(data.X_train[:n_rows]), dtype=np.float64), y,
            np.ascontiguousarray(fmap.transform(data.X_test[:n_rows]), dtype=np.float64), y_test)


def contenders(Z: np.ndarray, y: np.ndarray, Y: np.ndarray) -> dict[str, Callable[[], list[np.ndarray]]]:
    """Each contender's path over the grid: the weights (p, 26) at every C."""
    return {OURS: lambda: list(squared_hinge_paths(Z, Y, CS, woodbury=True)),
            PRIMAL: lambda: list(squared_hinge_paths(Z, Y, CS)),
            PEER: lambda: list(liblinear_path(sp.csr_matrix(Z), y, CS, "-s 2", warm=True))}


def measure(Z: np.ndarray, y: np.ndarray, Z_test: np.ndarray) -> dict[str, tuple[float, float, int]]:
    """Per contender: (CPU-seconds, largest relative objective difference from the p x p path's over the
    grid, test predictions that differ from its)."""
    Y = np.where(y[:, None] == np.arange(y.max() + 1), 1.0, -1.0)
    paths, seconds = {}, {}
    for name, path in contenders(Z, y, Y).items():
        with threadpool_limits(limits=1):  # one BLAS thread, as the model's workers
            start = time.process_time()
            paths[name] = path()
            seconds[name] = time.process_time() - start
    objectives = {name: [objective(Z, Y, C, W) for C, W in zip(CS, path)] for name, path in paths.items()}
    predicted = {name: [np.argmax(Z_test @ W, axis=1) for W in path] for name, path in paths.items()}
    f_ref, predicted_ref = objectives[PRIMAL], predicted[PRIMAL]
    return {name: (seconds[name], max(abs(f - r) / r for f, r in zip(objectives[name], f_ref)),
                   sum(int(np.count_nonzero(p != q)) for p, q in zip(predicted[name], predicted_ref)))
            for name in paths}
