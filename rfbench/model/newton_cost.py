"""What ``solver="newton"`` will cost on given features, said before it starts, and its refusal.

The generalized Newton method (:mod:`rfbench.model.newton_svc`) factors one r x r Hessian per step
and one-vs-rest column, r the width of the design (its row space's for sparse codes, at most
the width).  Along an increasing grid of C, warm-started, it takes about ``STEPS_PER_C`` steps
per C and column (3.49 measured: 5,083 steps for the 1,456 solves of a letter AsK-RFF trial,
26 classes x (5 folds x 11 C + the refit)), so a model selection costs about

.. math::

    T \\approx s\\, n_w\\, n_{\\rm solves} \\left(\\frac{r^3 / 3 + 6 n r}{R} + t_0\\right)

CPU-seconds (n_solves: the values of C solved along all paths, cv n_C + 1 with cross-validation):
r^3 / 3 flops per Cholesky factorization, about 6 n r per step for the products
with the n x r design, R = ``FLOPS_PER_CPU_SECOND``, measured on these papers' runs (Letter
NRFF at k = 4,096 columns: 10 C x 26 classes, about 1,090 CPU-s per trial), and t_0 =
``STEP_OVERHEAD_SECONDS`` for what a step costs beyond them (line search, active-set updates,
Python: about half of the 8.9 CPU-s of the letter AsK-RFF trial above, r = 192).  Beyond
``MAX_CPU_SECONDS`` the run is refused before the solver starts, with the cost and the
options that cost less.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger("rfbench")

#: Newton steps per value of C and one-vs-rest column along a warm-started grid.
STEPS_PER_C = 3.5
#: Floating-point operations per CPU-second of the solver's BLAS and LAPACK calls on one core.
FLOPS_PER_CPU_SECOND = 2e10
#: CPU-seconds of a Newton step beyond its flops, measured on narrow designs.
STEP_OVERHEAD_SECONDS = 1e-3
#: Estimated CPU time above which ``solver="newton"`` refuses the features (one trial's model selection).
MAX_CPU_SECONDS = 3600.0


@dataclass(frozen=True)
class NewtonCost:
    """The estimated cost of one model selection by ``solver="newton"``.

    Attributes
    ----------
    steps : int
        Newton steps, each one Cholesky factorization of an r x r matrix.
    width : int
        r: the design's columns (an upper bound of its row space's for sparse features).
    cpu_seconds : float
        The estimate T of the module's docstring.
    """

    steps: int
    width: int
    cpu_seconds: float


def newton_cost(n_rows: int, width: int, n_columns: int, n_solves: int) -> NewtonCost:
    """The cost of ``n_solves`` solves (one C on one fold or the refit) of ``n_columns`` labels each.

    Parameters
    ----------
    n_rows : int
        Training rows n (each fold holds fewer; the refit all).
    width : int
        Columns r of the design the Newton steps factor.
    n_columns : int
        One-vs-rest label columns n_w (1 for two classes).
    n_solves : int
        Values of C solved: cv n_C + 1 with cross-validation, n_C on a test-set grid, else 1.
    """
    steps = round(STEPS_PER_C * n_columns * n_solves)
    flops = steps * (width**3 / 3 + 6 * n_rows * width)
    return NewtonCost(steps, width, flops / FLOPS_PER_CPU_SECOND + steps * STEP_OVERHEAD_SECONDS)


def widest_affordable(n_rows: int, n_columns: int, n_solves: int) -> int:
    """The widest design whose ``newton_cost`` stays within ``MAX_CPU_SECONDS`` (bisection on r)."""
    low, high = 1, 1 << 20
    while low < high:
        mid = (low + high + 1) // 2
        if newton_cost(n_rows, mid, n_columns, n_solves).cpu_seconds <= MAX_CPU_SECONDS:
            low = mid
        else:
            high = mid - 1
    return low


def check_newton_cost(n_rows: int, width: int, n_columns: int, n_solves: int, sparse: bool,
                      quiet: bool = False) -> NewtonCost:
    """The cost of the Newton path, logged (unless ``quiet``); ValueError naming it and the cheaper options
    above ``MAX_CPU_SECONDS``."""
    cost = newton_cost(n_rows, width, n_columns, n_solves)
    what = (f"{n_rows} rows x {width} columns{' (sparse, densified and solved on their row space)' if sparse else ''}, "
            f"{n_columns} one-vs-rest column(s) x {n_solves} solve(s) of one C")
    if cost.cpu_seconds > MAX_CPU_SECONDS:
        widest = widest_affordable(n_rows, n_columns, n_solves)
        raise ValueError(
            f"solver='newton' on {what} would take about {cost.steps} Newton steps, each a Cholesky "
            f"factorization of up to {width} x {width}: about {cost.cpu_seconds / 3600:.2g} CPU-hours, more than the "
            f"limit of {MAX_CPU_SECONDS / 3600:g} CPU-hour; choose solver=1 (LibLinear -s 1, the same problem on the "
            f"{'sparse' if sparse else 'dense'} features, stopped at its tolerance -e 0.1) or features of at most "
            f"{widest} columns (e.g. a smaller feature_map.n_components{' or feature_map.b' if sparse else ''})")
    if not quiet:
        log.info("model: solver=newton, exact, on %s: about %d Newton steps, ~%.0f CPU-s", what, cost.steps,
                 cost.cpu_seconds)
    return cost
