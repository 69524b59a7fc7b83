"""What ``solver="newton"`` will cost on given features, said before it starts, and its refusal.

The generalized Newton method (:mod:`rfbench.model.newton_svc`) factors one r x r Hessian per step
and one-vs-rest column, r the width of the design (its row space's for sparse codes, at most
the width).  Along an increasing grid of C, warm-started, it takes about ``STEPS_PER_C`` steps
per C and column (measured: 5,083 steps for the 1,456 solves of a letter AsK-RFF trial,
26 classes x (5 folds x 11 C + the refit)), so a model selection costs about

.. math::

    T \\approx s\\, n_w\\, n_{\\rm solves} \\left(\\frac{r^3 / 3 + 6 n r}{R} + t_0\\right)

CPU-seconds (n_solves: the values of C solved along all paths, cv n_C + 1 with cross-validation):
r^3 / 3 flops per Cholesky factorization, about 6 n r per step for the products
with the n x r design, R = ``FLOPS_PER_CPU_SECOND``, measured on these papers' runs (Letter
NRFF at k = 4,096 columns: 10 C x 26 classes, about 1,090 CPU-s per trial), and t_0 =
``STEP_OVERHEAD_SECONDS`` for what a step costs beyond them (line search, active-set updates,
Python: about half of the 8.9 CPU-s of the letter AsK-RFF trial above, r = 192).

Beyond ``MAX_CPU_SECONDS`` the dense path gives way to the iterative one (:func:`choose_path`), on the
features as they are (sparse rows stay sparse), warm-started along the C grid, stopped by LibLinear
``-s 2``'s rule at the tight tolerance ``ITERATIVE_TOL``, the same problem to that tolerance: on
sparse codes rfbench's Newton-CG on the active rows (:mod:`rfbench.model.sparse_newton`, all
one-vs-rest columns per pass over the rows; ``make bench``, section ``sparse_path``, measures it
against LibLinear's ``-s 2`` path), on dense features LibLinear's primal Newton (``-s 2``) itself.
Its cost is proportional to the stored values it reads,

.. math::

    T \\approx c\\, n_{\\rm stored}\\, n_w\\, n_{\\rm solves}

with c = ``ITERATIVE_SECONDS_PER_VALUE`` (measured with LibLinear ``-s 2`` on the letter kernels' sparse
codes: binning, 12,000 x 7,541 with 30 values a row, and GCWS, 12,000 x 4,096 with 128; 6-8e-8 CPU-s
a value, column and solve along a warm-started grid; the Newton-CG takes less on GCWS: an upper
bound).  Only where that too exceeds ``MAX_CPU_SECONDS`` is
the run refused, naming LibLinear ``-s 1`` at its own tolerance, which takes any width.
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
#: Estimated CPU time above which a path of ``solver="newton"`` is not taken (one trial's model selection).
MAX_CPU_SECONDS = 3600.0
#: LibLinear's solver on the iterative path (dense features; on sparse ones its problem and stopping rule).
ITERATIVE_SOLVER = 2
#: Its ``-e``: stop at ||g(w)|| <= e min(n+, n-) / n ||g(0)|| (LibLinear's rule for ``-s 2``); 1e-6 puts the
#: objective within ~1e-9 of the optimum on the letter codes, where the default ``0.01`` stops 5 % short.
ITERATIVE_TOL = 1e-6
#: CPU-seconds per stored value, one-vs-rest column and value of C of the iterative path (an upper bound
#: of the letter codes' 6-8e-8).
ITERATIVE_SECONDS_PER_VALUE = 1e-7
#: Stored values a row from which sparse codes go to rfbench's Newton-CG on the iterative path, sparser ones to
#: LibLinear -s 2 itself (``make bench``, section ``sparse_path``, one letter fold's C path: the Newton-CG is the
#: faster on GCWS's 128 values a row, LibLinear on binning's 30; the times are in benchmarks/README.md).  The
#: Newton-CG reads a row once for all one-vs-rest columns, which pays where rows are long.
NEWTON_CG_MIN_VALUES_PER_ROW = 64
#: The paths of ``solver="newton"``.
DENSE, ITERATIVE = "dense", "iterative"


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


def iterative_cost(stored: int, n_columns: int, n_solves: int) -> float:
    """Estimated CPU-seconds of the iterative path on ``stored`` values (all rows), ``n_columns``
    one-vs-rest columns and ``n_solves`` values of C."""
    return ITERATIVE_SECONDS_PER_VALUE * stored * n_columns * n_solves


@dataclass(frozen=True)
class NewtonPath:
    """The path ``solver="newton"`` takes on given features.

    Attributes
    ----------
    kind : str
        ``DENSE`` (:mod:`rfbench.model.newton_svc` on the densified design) or ``ITERATIVE`` (on the
        features as given, warm-started along C, to ``-s ITERATIVE_SOLVER -e ITERATIVE_TOL``'s rule:
        :mod:`rfbench.model.sparse_newton` on sparse ones, LibLinear itself on dense ones).
    cpu_seconds : float
        Its estimated CPU time for one model selection.
    problem : tuple of int and bool
        (rows, width, one-vs-rest columns, solves, sparse): what it solves.
    newton_cg : bool
        The iterative path runs :mod:`rfbench.model.sparse_newton` (sparse codes of at least
        ``NEWTON_CG_MIN_VALUES_PER_ROW`` stored values a row), not LibLinear.
    """

    kind: str
    cpu_seconds: float
    problem: tuple[int, int, int, int, bool]
    newton_cg: bool = False

    def describe(self, tol: float) -> str:
        """The path with its full configuration (``tol``: the dense path's), as a trial's ``model_path`` records it."""
        if self.kind == DENSE:
            design = "densified sparse features on their row space" if self.problem[-1] else "dense features"
            return f"newton dense: generalized Newton on the {design}, ||g|| <= {tol:g} ||g(0)||, warm-started along C"
        if self.newton_cg:
            return (f"newton iterative: rfbench's Newton-CG on the active rows, LibLinear -s {ITERATIVE_SOLVER}'s "
                    f"stopping rule ||g|| <= {ITERATIVE_TOL:g} min(n+, n-)/n ||g(0)|| (its -e {ITERATIVE_TOL:g}), "
                    "on the sparse features as given, warm-started along C")
        features = "sparse" if self.problem[-1] else "dense"
        return (f"newton iterative: LibLinear -s {ITERATIVE_SOLVER} -e {ITERATIVE_TOL:g} (trust-region Newton, "
                f"||g|| <= {ITERATIVE_TOL:g} min(n+, n-)/n ||g(0)||) on the {features} features as given, "
                "warm-started along C")

    @property
    def what(self) -> str:
        n_rows, width, n_columns, n_solves, sparse = self.problem
        return (f"{n_rows} rows x {width} columns{' (sparse)' if sparse else ''}, "
                f"{n_columns} one-vs-rest column(s) x {n_solves} solve(s) of one C")


def newton_cg_takes(values_per_row: float) -> bool:
    """Whether the iterative path runs rfbench's Newton-CG on sparse codes of this many stored values a row."""
    return values_per_row >= NEWTON_CG_MIN_VALUES_PER_ROW


def dense_fits(n_rows: int, width: int, n_columns: int, n_solves: int, max_width: int) -> bool:
    """Whether the dense path is taken: its estimate within ``MAX_CPU_SECONDS``, its Hessian within ``max_width``."""
    return width <= max_width and newton_cost(n_rows, width, n_columns, n_solves).cpu_seconds <= MAX_CPU_SECONDS


def choose_path(n_rows: int, width: int, n_columns: int, n_solves: int, sparse: bool,
                stored: int | None, max_width: int) -> NewtonPath:
    """The exact path that fits: dense Newton when its estimate is within ``MAX_CPU_SECONDS`` (and its
    p x p Hessian within ``max_width``), else the iterative path when its estimate is; ValueError naming
    both costs and a command that runs otherwise.

    Parameters
    ----------
    n_rows, width, n_columns, n_solves
        As for :func:`newton_cost` (width: the design's columns, bias included).
    sparse : bool
        Whether the features come sparse (the dense path densifies them).
    stored : int or None
        Values stored in the whole training matrix (n_rows x width for dense features); None when not
        known yet (a sparse map's codes before they exist): the iterative path is then not refused.
    max_width : int
        The widest design the dense path takes (its p x p Hessian).
    """
    problem = (n_rows, width, n_columns, n_solves, sparse)
    dense = newton_cost(n_rows, width, n_columns, n_solves)
    if dense_fits(n_rows, width, n_columns, n_solves, max_width):
        return NewtonPath(DENSE, dense.cpu_seconds, problem)
    stored = n_rows * width if stored is None and not sparse else stored
    iterative = iterative_cost(stored or 0, n_columns, n_solves)
    if iterative <= MAX_CPU_SECONDS:
        newton_cg = sparse and stored is not None and newton_cg_takes(stored / n_rows)
        return NewtonPath(ITERATIVE, iterative, problem, newton_cg)
    raise ValueError(
        f"solver='newton' on {NewtonPath(DENSE, 0.0, problem).what} would take about {dense.cpu_seconds / 3600:.2g} "
        f"CPU-hours on its dense path ({dense.steps} Cholesky factorizations of up to {width} x {width}) and about "
        f"{iterative / 3600:.2g} CPU-hours on its iterative one (LibLinear -s {ITERATIVE_SOLVER} -e {ITERATIVE_TOL:g} "
        f"over {stored} stored values), both more than the limit of {MAX_CPU_SECONDS / 3600:g} CPU-hour; choose "
        "classifier.solver=1 (LibLinear -s 1, the same problem stopped at its own tolerance -e 0.1, any width) or "
        f"features of at most {widest_affordable(n_rows, n_columns, n_solves)} columns (e.g. a smaller "
        "feature_map.n_components)")


def log_once(path: NewtonPath, tol: float) -> None:
    """Log the path and its cost the first time this process (or the one it was forked from) takes it on
    a problem of these rows, classes and solves: once per run, as the runner's workers fork after its
    first trial (a sparse map's width, which varies from trial to trial, is left out)."""
    n_rows, _, n_columns, n_solves, sparse = path.problem
    key = (path.kind, path.newton_cg, n_rows, n_columns, n_solves, sparse)
    if key in _LOGGED:
        return
    _LOGGED.add(key)
    log.info("model: %s; on %s: ~%.0f CPU-s per model selection", path.describe(tol), path.what, path.cpu_seconds)


#: The paths already logged by this process.
_LOGGED: set[tuple] = set()
