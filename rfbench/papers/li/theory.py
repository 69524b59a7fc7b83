r"""Li (KDD 2017) Figures 1-4, the computation: simulation points of Theorems 2.1, 2.2 and 3.1
(k times the empirical MSE, :mod:`rfbench.papers.li.simulation`), as jobs of the engine.

Every point is checked against its theorem: ``|k MSE - V| <= 4 se + 20 V / k`` (se the
standard error of k MSE over the repetitions; the second term is the allowance for the
O(1/k) terms of the asymptotic results, none for RFF, whose variance V / k is exact), the
tolerance of ``tests/papers/li/test_variance.py``; points outside it are simulated again at a
larger k (the theorems are asymptotic in k).

``rfbench job=li_variance_grid`` (Figs 1, 3 and 4: one grid of (rho, gamma)) and ``rfbench
job=li_variance_k`` (Fig. 2: panels against k) record the points; trial t simulates with the seed
``experiment.seed + t``.  :mod:`rfbench.papers.li.theory_figures` draws the figures from the records.

The figures are images in the paper whose axes and legends did not survive the text
extraction, so the grids of rho and gamma (``configs/job/li_variance_*.yaml``) are ours, chosen
to span the paper's statements: ``gamma`` from ``0.5`` to ``10`` (Table 1's best gammas lie mostly in
``0.1 .. 20``), rho over ``[0, 1)``, and k from ``1`` to ``1000`` in Figure 2 ("accurate for merely k > 10").
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from rfbench.papers.li import variance as theory
from rfbench.papers.li.simulation import scaled_mse, simulate_gcws, simulate_rff

#: The allowance for the O(1/k) terms of the asymptotic theorems, in units of V / k.
ASYMPTOTIC_ALLOWANCE = 20.0
#: Per estimator: its theoretical V(rho, gamma) and whether V / k is only asymptotic.
ESTIMATORS: dict[str, tuple[Callable, bool]] = {
    "RFF": (theory.rff_variance, False),
    "NRFF": (theory.nrff_variance, True),
    "GCWS": (theory.gcws_variance, True),
}
#: The estimators each figure of the grid shows (Fig. 3 adds GCWS's collision indicator).
GRID_FIGURES = {"fig1": ("RFF", "NRFF"), "fig3": ("RFF", "NRFF"), "fig4": ("NRFF", "GCWS")}


def grid(trial: int, seed: int, rhos: Sequence[float], gammas: Sequence[float], k: int, repetitions: int,
         recheck_k: int, recheck_repetitions: int) -> dict[str, pd.DataFrame]:
    """Figs 1, 3, 4: every estimator at every (rho, gamma), GCWS's indicator, and each figure's rechecks.

    Returns ``points`` (:func:`simulate`), ``indicator`` (GCWS's collision indicator, Fig. 3) and
    ``recheck`` (per figure, its points outside the tolerance simulated again at ``recheck_k``).
    """
    seed += trial
    points = simulate(rhos, gammas, k, repetitions, seed)
    again = [recheck(points[points["estimator"].isin(shown)].reset_index(drop=True), recheck_k, recheck_repetitions,
                     seed).assign(figure=figure) for figure, shown in GRID_FIGURES.items()]
    again = [frame for frame in again if len(frame)]  # an empty frame in a concat would turn ints to floats
    return {"points": points, "indicator": _gcws_indicator_points(rhos, k, repetitions, seed),
            "recheck": pd.concat(again, ignore_index=True) if again else pd.DataFrame({"figure": []})}


def against_k(trial: int, seed: int, panels: Sequence[Sequence[float]], ks: Sequence[int], repetitions: int,
              recheck_k: int, recheck_repetitions: int) -> dict[str, pd.DataFrame]:
    """Fig. 2: RFF and NRFF at each (rho, gamma) panel and k, and the rechecks of the points outside."""
    seed += trial
    points = pd.concat([simulate([rho], [gamma], k, repetitions, seed) for rho, gamma in panels for k in ks],
                       ignore_index=True)
    points = points[points["estimator"] != "GCWS"].reset_index(drop=True)
    return {"points": points, "recheck": recheck(points, recheck_k, recheck_repetitions, seed).assign(figure="fig2")}


def simulate(rhos, gammas, k: int, repetitions: int, seed: int) -> pd.DataFrame:
    """k MSE of the RFF, NRFF and GCWS estimates of exp(-gamma (1 - rho)) at every (rho, gamma).

    Returns
    -------
    DataFrame
        One row per (rho, gamma, estimator): ``k, repetitions, kernel`` (the target),
        ``k_mse, se`` (simulated), ``theory`` (V), ``tolerance`` and ``within`` (the check of
        the module docstring).
    """
    rows = []
    for i, (rho, gamma) in enumerate((r, g) for g in gammas for r in rhos):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i, k)))
        target = float(theory.rbf_value(rho, gamma))
        rff, nrff = simulate_rff(rho, gamma, k, repetitions, rng)
        estimates = {"RFF": rff, "NRFF": nrff, "GCWS": simulate_gcws(rho, gamma, k, repetitions, rng)}
        for name, values in estimates.items():
            variance, asymptotic = ESTIMATORS[name]
            measured, se = scaled_mse(values, target, k)
            v = float(variance(rho, gamma))
            tolerance = 4 * se + (ASYMPTOTIC_ALLOWANCE * v / k if asymptotic else 0.0)
            rows.append({"rho": rho, "gamma": gamma, "estimator": name, "k": k, "repetitions": repetitions,
                         "kernel": target, "k_mse": measured, "se": se, "theory": v, "tolerance": tolerance,
                         "within": abs(measured - v) <= tolerance})
    return pd.DataFrame(rows)


def recheck(points: pd.DataFrame, k: int, repetitions: int, seed: int) -> pd.DataFrame:
    """The (rho, gamma, estimator) points outside the tolerance, simulated again at ``k``."""
    bad = points[~points["within"] & points["gamma"].notna()]
    again = [simulate([r.rho], [r.gamma], k, repetitions, seed) for r in bad.itertuples()]
    if not again:
        return pd.DataFrame()
    again = pd.concat(again, ignore_index=True)
    return again.merge(bad[["rho", "gamma", "estimator"]], on=["rho", "gamma", "estimator"])


def _gcws_indicator_points(rhos, k: int, repetitions: int, seed: int) -> pd.DataFrame:
    rows = []
    for rho in rhos:
        g = float(theory.gmm_of_rho(rho))
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(rho * 1000), k, 3)))
        measured, se = scaled_mse(rng.binomial(k, g, repetitions) / k, g, k)
        v = float(theory.gcws_indicator_variance(g))
        rows.append({"rho": rho, "gamma": np.nan, "estimator": "GCWS", "k": k, "repetitions": repetitions,
                     "kernel": g, "k_mse": measured, "se": se, "theory": v, "tolerance": 4 * se,
                     "within": abs(measured - v) <= 4 * se})
    return pd.DataFrame(rows)


