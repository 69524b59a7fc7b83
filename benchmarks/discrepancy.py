"""The ``discrepancy`` section of ``make bench``: the box discrepancy and its gradient, QMC's adaptive learning.

Avron et al.'s adaptive sequences (QMC Tables 2-3, ``rfbench.papers.qmc.learnt``) minimize the
normalized box discrepancy D(S)^2 by nonlinear CG; each CG evaluation is D^2 and its gradient, whose
cost is the sum over the s (s + 1) / 2 pairs of frequencies of prod_j sinc(b_j (w_lj - w_mj)) and its
derivative in every coordinate (``rfbench.qmc.discrepancy._pair_kernel``, numba, one thread).  This
section times one evaluation of the pair sum and its gradient on Halton frequencies at s = 800 on
census_house's bounding box b and on b/4 (d = 16, as the ``qmc_learnt`` job on census_house), CPU-seconds, best of
``--repeats`` interleaved rounds:

* rfbench, ``trig="tables"``: sin and cos of b_j w_lj once per point, the pairs' by the difference
  formulas, sin(z) / z and its derivative by their Taylor series below `|z| = 0.25` (no call in the
  inner loop);
* the path it replaces, ``trig="direct"`` (the committed records'): sin and cos of every pair's
  difference;
* the natural peer, the same sums in numpy (:func:`numpy_value_and_gradient`): the pairs' (s, s, d)
  differences in blocks of rows, ``np.sinc`` and cumulative products for the products of the others.

Each gives its largest difference from the direct path's value and gradient, relative to their
largest magnitude (0.0: bit for bit).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from rfbench.dataset import load_dataset
from rfbench.qmc import discrepancy
from rfbench.qmc.adaptive import halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy, bounding_box

OURS = "rfbench, trig='tables'"
DIRECT = "rfbench, trig='direct' (the records'), the path it replaces"
PEER = "numpy, the pairs in blocks of rows"

Evaluation = Callable[[], tuple[float, np.ndarray]]


def numpy_value_and_gradient(W: np.ndarray, b: np.ndarray, block: int = 32) -> tuple[float, np.ndarray]:
    """sum_{l,m} xi_l xi_m prod_j sinc(b_j (w_lj - w_mj)), xi = 1/s, and the gradient that ``_pair_sum``
    returns (half the pair term's), in numpy."""
    s, _ = W.shape
    xi = 1.0 / s
    total, grad = 0.0, np.zeros_like(W)
    for start in range(0, s, block):
        z = b * (W[start:start + block, None, :] - W[None, :, :])  # (rows, s, d)
        factor = np.sinc(z / np.pi)
        total += xi * xi * float(np.sum(np.prod(factor, axis=-1)))
        small = np.abs(z) < 1e-3
        safe = np.where(small, 1.0, z)
        derivative = np.where(small, -z / 3.0 + z**3 / 30.0, (np.cos(z) - factor) / safe)
        grad[start:start + block] = xi * xi * np.sum(b * derivative * discrepancy._products_of_others(factor), axis=1)
    return total, grad


#: census_house's sigma in QMC Tables 2-3, chosen by the qmc_learnt job's CV and recorded in
#: results/qmc/learnt/runs/2fa4dd94432a/setting.csv (the cost does not depend on it).
SIGMA = 0.3118427035240794


def census_house_problem(composed: Callable[..., dict], s: int, fractions: Sequence[float]
                         ) -> tuple[np.ndarray, list[BoxDiscrepancy]]:
    """Halton frequencies (s, 16) at census_house's sigma and the normalized discrepancy on each of ``fractions``
    x its training rows' bounding box (Tables 2-3's boxes: 1 and 1/4)."""
    X = load_dataset(composed("dataset=census_house")["dataset"]).X_train
    box = bounding_box(X)
    objectives = [BoxDiscrepancy(fraction * box, SIGMA, normalized=True) for fraction in fractions]
    return halton_frequencies(s, X.shape[1], SIGMA), objectives


def contenders(W: np.ndarray, objective: BoxDiscrepancy) -> dict[str, Evaluation]:
    """Each contender's evaluation of the pair sum and its gradient at W (uniform weights)."""
    b = np.asarray(np.broadcast_to(objective.b, W.shape[1]), dtype=np.float64)
    xi = np.full(len(W), 1.0 / len(W))

    return {OURS: lambda: discrepancy._pair_sum(W, W, xi, xi, b, True, "tables"),
            DIRECT: lambda: discrepancy._pair_sum(W, W, xi, xi, b, True, "direct"),
            PEER: lambda: numpy_value_and_gradient(W, b)}


def measure(W: np.ndarray, objective: BoxDiscrepancy, repeats: int) -> dict[str, tuple[float, float]]:
    """Per contender: (best CPU-seconds of ``repeats`` interleaved rounds, largest difference of its value and
    gradient from the direct path's relative to their largest magnitude; 0.0 means bit for bit)."""
    runs = contenders(W, objective)
    results = {name: fn() for name, fn in runs.items()}  # compiles numba's kernels outside the timing
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, fn in runs.items():
            start = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - start)
    value, grad = results[DIRECT]
    return {name: (best[name], max(abs(v - value) / abs(value), float(np.max(np.abs(g - grad)) / np.max(np.abs(grad)))))
            for name, (v, g) in results.items()}
