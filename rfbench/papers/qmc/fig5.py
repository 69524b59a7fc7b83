"""QMC feature maps, Figure 5: integration error of MC, Halton and Global Adaptive sequences in 2-D.

Sec. 6.2, "Integral Approximation": the error |k(u) - (1/s) sum_l e^{-i u^T w_l}| of approximating
k(u) = E_w[e^{-i u^T w}], w ~ N(0, sigma^-2 I), over a grid of u in the box [-b, b]^2, for s
points of: MC, scrambled Halton, Global Adaptive learnt on the box b, and Global Adaptive learnt
on b/2. The mean squared error over a box is the normalized box discrepancy (Theorem 12), so
the claims are judged on its closed form; the heat maps show the error itself.
The paper's s, sigma and box are not stated (its integral is written over the unit square):
here s = 64, sigma = 1/2 and b = (1, 1), so u spans [-1, 1]^2 (the unit square's four
quadrants; |error| is even in u) and u/sigma reaches 2 standard deviations of w.

The point sets and their errors are a job of the engine (``rfbench job=qmc_fig5``,
``configs/job/qmc_fig5.yaml``, one trial, records under ``<results>/qmc/fig5/runs/``); the
adaptive sequences are Fig. 5's own (2-D), not those of Tables 2-3.  The report draws the
heat maps from the recorded points:

    python -m rfbench.papers.qmc.report fig5 [--results results]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtri

from rfbench.engine import blas_pin, jobs, records
from rfbench.papers.qmc import figures as qmc_figures
from rfbench.papers.qmc import report as qmc
from rfbench.qmc.adaptive import global_adaptive, halton_frequencies
from rfbench.qmc.discrepancy import BoxDiscrepancy
from rfbench.qmc.sequences import unit_points
from rfbench.report import render
from rfbench.report.compare import ClaimCheck, check_claims

S, SIGMA, B = 64, 0.5, np.array([1.0, 1.0])
#: CG iterations of the global sequences (unstated).
MAXITER = 200
#: Grid points per axis of the heat maps.
GRID = 101
SEQUENCES = {"mc": "MC", "halton": "Halton", "global_b": "Global adaptive (b)", "global_b2": "Global adaptive (b/2)"}


def frequencies(seed: int) -> dict[str, np.ndarray]:
    """The four point sets (s, 2): MC (``seed``), scrambled Halton and the global sequences from it."""
    start = halton_frequencies(S, 2, SIGMA)
    return {"mc": ndtri(unit_points("mc", S, 2, seed=seed)) / SIGMA, "halton": start,
            "global_b": global_adaptive(start, BoxDiscrepancy(B, SIGMA), maxiter=MAXITER),
            "global_b2": global_adaptive(start, BoxDiscrepancy(B / 2, SIGMA), maxiter=MAXITER)}


def error_grid(W: np.ndarray, u: np.ndarray) -> np.ndarray:
    """|k(u) - (1/s) sum_l e^{-i u^T w_l}| at the points u (m, 2)."""
    exact = np.exp(-0.5 * SIGMA**-2 * np.sum(u**2, axis=1))
    return np.abs(exact - np.mean(np.exp(-1j * u @ W.T), axis=1))


def heat_maps(points: dict[str, np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The grid axis over [-b, b] and each point set's |integration error| on the GRID x GRID points."""
    axis = np.linspace(-B[0], B[0], GRID)
    u = np.stack(np.meshgrid(axis, axis, indexing="xy"), axis=-1).reshape(-1, 2)
    return axis, {name: error_grid(W, u).reshape(GRID, GRID) for name, W in points.items()}


@blas_pin.needs_records_loops
def integration(trial: int, seed: int) -> dict[str, pd.DataFrame]:
    """Figure 5 (one trial: only MC draws, from ``seed``): ``errors``, the mean squared error over
    b, b/2 and b/4 (closed form) and the largest error on the heat map's grid per point set, and
    ``points``, the point sets themselves (w_1, w_2 per row)."""
    points = frequencies(seed)
    _, grids = heat_maps(points)
    rows = [{"sequence": name, "box": label, "mean_sq_error": BoxDiscrepancy(B * f, SIGMA, normalized=True).squared(W),
             "max_error_on_grid": float(grids[name].max())}
            for name, W in points.items() for label, f in (("b", 1.0), ("b/2", 0.5), ("b/4", 0.25))]
    recorded = pd.concat([pd.DataFrame(W, columns=["w1", "w2"]).assign(sequence=name) for name, W in points.items()],
                         ignore_index=True)
    return {"errors": pd.DataFrame(rows).assign(s=S, sigma=SIGMA), "points": recorded}


def fig5(out: Path) -> pd.DataFrame:
    """The heat maps, the mean squared errors on b, b/2 and b/4, and the verdicts, from the records."""
    run = jobs.run_of(["job=qmc_fig5"], out.parent)
    try:
        table, recorded = (jobs.read(run, key).drop(columns="trial") for key in ("errors", "points"))
    except FileNotFoundError as err:
        raise ValueError(f"{err}; run `make qmc-fig5` first") from None
    points = {name: group[["w1", "w2"]].to_numpy() for name, group in recorded.groupby("sequence", sort=False)}
    axis, grids = heat_maps(points)
    dest = out / "fig5"
    records.write_csv(dest / "fig5.csv", table)
    qmc_figures.error_maps(grids, axis, dest / "fig5.png", SEQUENCES,
                           f"|integration error| over u in [-1, 1]^2 (s = {S}, sigma = {SIGMA})")
    wide = table.pivot_table(index="sequence", columns="box", values="mean_sq_error")
    claims = judge(table)
    records.write_csv(dest / "claims.csv", claims)
    render.write_markdown(dest / "fig5.md", "QMC feature maps, Figure 5: integration error in 2-D",
                          [("Mean squared integration error over each box (normalized box discrepancy)",
                            wide.reset_index()), ("Claims of the paper (Sec. 6.2)", claims)],
                          ["the measure is the Gaussian kernel's N(0, sigma^-2 I), as everywhere in the paper; "
                           "s, sigma, the box and the CG iterations are not stated (module docstring)"])
    return table


def judge(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's Fig. 5 claims judged on the mean squared errors per (sequence, box) of ``fig5.csv``."""
    wide = table.pivot_table(index="sequence", columns="box", values="mean_sq_error")
    pub = qmc.load_published()
    return check_claims(pub[pub["source"] == "Fig. 5"], {
        "fig5_halton_below_mc": lambda _: _ratio_claim(wide, "halton", "mc", "b", 1.0),
        "fig5_global_order_below_halton": lambda _: _ratio_claim(wide, "global_b", "halton", "b", 0.1),
        "fig5_half_box_focus": lambda _: _ratio_claim(wide, "global_b2", "global_b", "b/2", 1.0)})


def _ratio_claim(wide: pd.DataFrame, ours: str, reference: str, box: str, factor: float) -> ClaimCheck:
    """Whether ``ours``'s mean squared error on ``box`` is below ``factor`` x ``reference``'s."""
    a, b = wide.loc[ours, box], wide.loc[reference, box]
    return ClaimCheck(bool(a < factor * b), f"on {box}: {ours} {a:.3g} vs {reference} {b:.3g} (ratio {a / b:.3g}, "
                      f"needed < {factor:g})")
