"""SORF and Fastfood transforms against the dense float32 GEMM + fused sincos path, and against the
Python peers that install here, in one run.

    nice .venv/bin/python -m benchmarks.structured_maps [--quick] [--repeats 3] [--out results/bench/structured.csv]

D is the number of frequencies; every rfbench map writes its 2D columns [cos, sin] in float32
unless said otherwise.  Wall time is the best of ``--repeats`` interleaved rounds after one
untimed call (``benchmarks.bench.interleaved_seconds``), the one that measures peak memory: the
largest total of arrays alive during the call beyond its input (``tracemalloc``, which numpy
reports to), plus the map's stored parameters.  ``os.getloadavg()`` is recorded with every row
(the machine is shared).

* ``grid``: n = 1,000 rows at d = 256, 1024, 4096 and D = 2^10, 2^12, 2^14, 2^15: the dense path
  (rfbench's engine ``cos_sin`` on W already in float32: one GEMM, the fused sincos, the engine's
  threads), ``StructuredOrthogonalRFF`` and ``Fastfood``.  Synthetic rows N(0, I / d), sigma = 1.
* ``sorf_goal``: at d = 1024, D = 16,384 the time ratio dense / SORF (goal >= 3) and the relative
  Frobenius Gram error of both, mean of 3 seeds on 1,000 rows with covariance eigenvalues
  proportional to 1/k (so distances vary), sigma the median distance (goal: SORF's no worse).
* ``peers``: scikit-learn-extra issue #116's sizes, n = 100,000 synthetic rows N(0, I / d),
  d = 100, D = 64 .. 2048: scikit-learn-extra's ``Fastfood`` (float64, ``tradeoff_mem_accuracy=
  "accuracy"``, which rounds D up to a multiple of the padded p = 128: every contender runs at
  that rounded D, so all give the same columns; the table's D is the one asked), rfbench
  ``Fastfood`` in float32 and float64, the dense path, scikit-learn's ``RBFSampler`` (float64, as
  many columns) and ``Nystroem`` (as many landmarks, D <= 256 only: its transform is an n x 2D x 2D
  GEMM).  Goal: rfbench's Fastfood
  >= 10x faster than scikit-learn-extra's.  The PyPI wheel of scikit-learn-extra 0.3.0 is built
  against numpy 1 and does not import with numpy 2 ("numpy.dtype size changed"); built from source
  (``pip install --no-build-isolation --no-binary scikit-learn-extra scikit-learn-extra`` with
  Cython present) it does.  Without it the section says so and measures the others.

``--quick`` runs tiny sizes (a smoke test, not a measurement).
"""
from __future__ import annotations

import argparse
import os
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import cdist, pdist
from sklearn.kernel_approximation import Nystroem, RBFSampler

from benchmarks.bench import interleaved_seconds
from rfbench.feature_map import Fastfood, GaussianRFF, StructuredOrthogonalRFF, trig_threads
from rfbench.feature_map._trig import cos_sin
from rfbench.metrics import relative_gram_error


@dataclass(frozen=True)
class Sizes:
    """Problem sizes of one run."""

    grid_n: int
    grid_d: tuple[int, ...]
    grid_D: tuple[int, ...]
    goal_d: int
    goal_D: int
    goal_n_gram: int
    peers_n: int
    peers_d: int
    peers_D: tuple[int, ...]
    nystroem_max_D: int


FULL = Sizes(1000, (256, 1024, 4096), (2**10, 2**12, 2**14, 2**15), 1024, 2**14, 1000,
             100_000, 100, (64, 128, 256, 512, 1024, 2048), 256)
QUICK = Sizes(50, (16, 64), (64, 256), 64, 256, 60, 500, 10, (16, 64), 16)


@dataclass
class Row:
    """One line of structured.csv."""

    section: str
    name: str
    d: int
    D: int
    seconds: float = float("nan")
    peak_mib: float = float("nan")
    ratio: float = float("nan")
    goal: str = ""
    met: bool | None = None
    note: str = ""
    load1: float = field(default_factory=lambda: os.getloadavg()[0])


def peak_mib(fn: Callable[[], object]) -> float:
    """MiB of the largest total of traced allocations alive during one call of ``fn``."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def measure(section: str, d: int, D: int, runs: dict[str, tuple[Callable[[], object], int]],
            repeats: int) -> dict[str, Row]:
    """A Row per contender: ``runs`` maps its name to (call, bytes of its stored parameters)."""
    # the traced call is each contender's untimed warm-up
    peaks = {name: peak_mib(fn) + stored / 2**20 for name, (fn, stored) in runs.items()}
    times = interleaved_seconds({name: fn for name, (fn, _) in runs.items()}, repeats, warm_up=False)
    return {name: Row(section, name, d, D, min(times[name]), peaks[name], note=f"best of {repeats}")
            for name in runs}


def ratio_row(section: str, name: str, d: int, D: int, ratio: float, threshold: float | None) -> Row:
    goal = "" if threshold is None else f">= {threshold:g}"
    return Row(section, name, d, D, ratio=ratio, goal=goal, met=None if threshold is None else bool(ratio >= threshold))


# --- dense path against SORF and Fastfood -------------------------------------------------
DENSE, SORF, FASTFOOD = "dense float32 GEMM + fused sincos", "rfbench SORF float32", "rfbench Fastfood float32"


def dense_run(X: np.ndarray, D: int, sigma: float) -> tuple[Callable[[], object], int]:
    """The dense path on X (W drawn once and pre-cast to float32) and W's bytes."""
    W = (np.random.default_rng(0).standard_normal((X.shape[1], D)) / sigma).astype(np.float32)
    scale = np.sqrt(1.0 / D)
    return (lambda: cos_sin(X, W, scale=scale)), W.nbytes


def map_run(fmap, X: np.ndarray) -> tuple[Callable[[], object], int]:
    """The fitted rfbench map's transform of X and the bytes of its stored parameters."""
    fmap.fit(X)
    return (lambda: fmap.transform(X)), fmap.output_size(X.shape[1])[1] * 8


def bench_grid(sizes: Sizes, repeats: int) -> list[Row]:
    rows = []
    for d in sizes.grid_d:
        X = (np.random.default_rng(d).standard_normal((sizes.grid_n, d)) / np.sqrt(d)).astype(np.float32)
        for D in sizes.grid_D:
            runs = {DENSE: dense_run(X, D, 1.0),
                    SORF: map_run(StructuredOrthogonalRFF(n_components=D, random_state=0), X),
                    FASTFOOD: map_run(Fastfood(n_components=D, random_state=0), X)}
            timed = measure("grid", d, D, runs, repeats)
            rows += list(timed.values())
            for name in (SORF, FASTFOOD):
                ratio = timed[DENSE].seconds / timed[name].seconds
                rows.append(ratio_row("grid", f"dense / {name}", d, D, ratio, None))
    return rows


def bench_sorf_goal(sizes: Sizes, repeats: int, grid: list[Row]) -> list[Row]:
    """The time ratio at (goal_d, goal_D), from the grid, and both maps' Gram errors."""
    d, D = sizes.goal_d, sizes.goal_D
    seconds = {row.name: row.seconds for row in grid if (row.d, row.D) == (d, D) and row.name in (DENSE, SORF)}
    rng = np.random.default_rng(1)
    X = rng.standard_normal((sizes.goal_n_gram, d)) / np.sqrt(np.arange(1, d + 1))
    sigma = float(np.median(pdist(X)))
    K = np.exp(-cdist(X, X, "sqeuclidean") / (2 * sigma**2))
    errors = {name: np.mean([relative_gram_error(K, cls(n_components=D, sigma=sigma, random_state=s).fit(X), X)
                             for s in range(3)])
              for name, cls in ((DENSE, GaussianRFF), (SORF, StructuredOrthogonalRFF))}
    note = f"Gram error dense {errors[DENSE]:.4g}, SORF {errors[SORF]:.4g} (mean of 3 seeds, n={len(X)})"
    return [ratio_row("sorf_goal", "dense / SORF time", d, D, seconds[DENSE] / seconds[SORF], 3.0),
            Row("sorf_goal", "SORF / dense Gram error", d, D, ratio=errors[SORF] / errors[DENSE], goal="<= 1",
                met=bool(errors[SORF] <= errors[DENSE]), note=note)]


# --- peers ----------------------------------------------------------------------------------
EXTRA, OURS64 = "scikit-learn-extra Fastfood float64", "rfbench Fastfood float64"


def extra_fastfood() -> tuple[type | None, str]:
    """scikit-learn-extra's Fastfood class, or None and why it is missing."""
    try:
        from sklearn_extra.kernel_approximation import Fastfood as ExtraFastfood
    except Exception as err:  # ImportError, or the ValueError of a wheel built for another numpy
        return None, f"{type(err).__name__}: {err}"
    return ExtraFastfood, ""


def bench_peers(sizes: Sizes, repeats: int) -> list[Row]:
    d, rows = sizes.peers_d, []
    X = np.random.default_rng(2).standard_normal((sizes.peers_n, d)) / np.sqrt(d)
    X32 = X.astype(np.float32)
    extra, missing = extra_fastfood()
    if extra is None:
        rows.append(Row("peers", EXTRA, d, 0, note=f"not measured: {missing}"))
    p = 1 << (d - 1).bit_length()
    for D_asked in sizes.peers_D:
        D = -(-D_asked // p) * p  # scikit-learn-extra's own rounding, so widths match
        runs = {DENSE: dense_run(X32, D, 1.0),
                FASTFOOD: map_run(Fastfood(n_components=D, random_state=0), X),
                OURS64: map_run(Fastfood(n_components=D, dtype="float64", random_state=0), X),
                "RBFSampler float64": _sklearn_run(RBFSampler(gamma=0.5, n_components=2 * D, random_state=0), X)}
        if D <= sizes.nystroem_max_D:
            runs["Nystroem float64 (uniform landmarks)"] = _sklearn_run(
                Nystroem(gamma=0.5, n_components=2 * D, random_state=0), X)
        if extra is not None:
            runs[EXTRA] = _sklearn_run(extra(sigma=1.0, n_components=D_asked, random_state=0), X)
        timed = measure("peers", d, D_asked, runs, repeats)
        rows += list(timed.values())
        if extra is not None:
            rows += [ratio_row("peers", f"{EXTRA} / {FASTFOOD}", d, D_asked,
                               timed[EXTRA].seconds / timed[FASTFOOD].seconds, 10.0),
                     ratio_row("peers", f"{EXTRA} / {OURS64}", d, D_asked,
                               timed[EXTRA].seconds / timed[OURS64].seconds, None)]
    return rows


def _sklearn_run(estimator, X: np.ndarray) -> tuple[Callable[[], object], int]:
    """(transform of the fitted estimator, bytes of its fitted arrays)."""
    estimator.fit(X)
    stored = sum(v.nbytes for v in vars(estimator).values() if isinstance(v, np.ndarray))
    return (lambda: estimator.transform(X)), stored


# --- table ----------------------------------------------------------------------------------
def run(sizes: Sizes, repeats: int) -> pd.DataFrame:
    grid = bench_grid(sizes, repeats)
    rows = grid + bench_sorf_goal(sizes, repeats, grid) + bench_peers(sizes, repeats)
    return pd.DataFrame([asdict(row) for row in rows])


def markdown(table: pd.DataFrame, command: str) -> str:
    """Times and peak memory per (section, d, D), then the ratios and goals."""
    load = table.load1.agg(["min", "max"])
    lines = [f"`{command}` (engine threads {trig_threads()}; load average 1 min {load['min']:.2f}-{load['max']:.2f})",
             "", "| section | d | D | contender | time (s) | peak memory (MiB) |", "|---|---|---|---|---|---|"]
    for row in table[table.ratio.isna()].itertuples():
        seconds = "" if pd.isna(row.seconds) else f"{row.seconds:.4g}"
        memory = "" if pd.isna(row.peak_mib) else f"{row.peak_mib:.4g}"
        lines.append(f"| {row.section} | {row.d} | {row.D} | {row.name}"
                     f"{'' if row.seconds == row.seconds else ': ' + row.note} | {seconds} | {memory} |")
    lines += ["", "| section | d | D | ratio | figure | goal | met |", "|---|---|---|---|---|---|---|"]
    for row in table[table.ratio.notna()].itertuples():
        met = "" if row.met is None or pd.isna(row.met) else ("yes" if row.met else "NO")
        note = f" ({row.note})" if row.note and row.section == "sorf_goal" else ""
        lines.append(f"| {row.section} | {row.d} | {row.D} | {row.name} | {row.ratio:.2f}x{note} | {row.goal} "
                     f"| {met} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks/structured_maps.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the bench runs, measures nothing")
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds per measurement (best of); default 3")
    parser.add_argument("--out", type=Path, default=Path("results/bench/structured.csv"))
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    table = run(QUICK if args.quick else FULL, args.repeats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    command = "make bench" if not args.quick else "python -m benchmarks.structured_maps --quick"
    print(markdown(table, command))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
