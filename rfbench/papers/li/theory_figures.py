r"""Li (KDD 2017) Figures 1-4 drawn from the records of the simulation jobs
(:mod:`rfbench.papers.li.theory`): each figure's theory curves, its simulated points, its check
(``figN.csv``, ``figN.md``, ``claims.csv``) and its image.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rfbench.engine import jobs, records  # noqa: E402
from rfbench.papers.li import variance as theory  # noqa: E402
from rfbench.papers.li.theory import ASYMPTOTIC_ALLOWANCE, ESTIMATORS, GRID_FIGURES  # noqa: E402
from rfbench.report import plotting, render  # noqa: E402
from rfbench.report.compare import FAILS, HOLDS  # noqa: E402

#: The jobs whose records the figures read (``configs/job/<name>.yaml``).
GRID, AGAINST_K = "li_variance_grid", "li_variance_k"
#: Curves are drawn on this many rhos in [0, 1].
CURVE_POINTS = 201


@dataclass(frozen=True)
class Setup:
    """A simulation job's parameters, as recorded in its trials.csv."""

    k: int
    repetitions: int
    recheck_k: int
    recheck_repetitions: int
    gammas: tuple[float, ...] = ()
    panels: tuple[tuple[float, float], ...] = ()
    ks: tuple[int, ...] = ()


def _run(results: Path, job: str, overrides: list[str]) -> Path:
    return jobs.run_of([f"job={job}", *overrides], results)


def _frame(run: Path, key: str) -> pd.DataFrame:
    return jobs.read(run, key).query("trial == 0").drop(columns="trial").reset_index(drop=True)


def _recorded(results: Path, figure: str, overrides: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, Setup]:
    """A figure's points, its rechecks and its job's setup, from the records (trial 0) of the job
    that ``configs/job/<job>.yaml`` with ``overrides`` composes to."""
    run = _run(results, AGAINST_K if figure == "fig2" else GRID, overrides)
    points = _frame(run, "points")
    if figure != "fig2":
        points = points[points["estimator"].isin(GRID_FIGURES[figure])].reset_index(drop=True)
    again = _frame(run, "recheck")
    again = again[again["figure"] == figure].drop(columns="figure").reset_index(drop=True) if len(again) else again
    row = records.read_trials(run / "trials.csv").iloc[0]
    value = {key.removeprefix("job."): row[key] for key in row.index if key.startswith("job.")}
    setup = Setup(int(value["k"]) if "k" in value else 0, int(value["repetitions"]), int(value["recheck_k"]),
                  int(value["recheck_repetitions"]), tuple(json.loads(value.get("gammas", "[]"))),
                  tuple(map(tuple, json.loads(value.get("panels", "[]")))), tuple(json.loads(value.get("ks", "[]"))))
    return points, (again if len(again) else pd.DataFrame()), setup


def _check_text(points: pd.DataFrame, again: pd.DataFrame, setup: Setup) -> str:
    bad = points[~points["within"]]
    text = (f"Theorem check: {int(points['within'].sum())} of {len(points)} simulated points within "
            f"|k MSE - V| <= 4 se + {ASYMPTOTIC_ALLOWANCE:g} V / k (no allowance for RFF, exact).")
    if len(bad):
        text += " Outside: " + "; ".join(f"{r.estimator} rho={r.rho:g} gamma={r.gamma:g} k={r.k} "
                                         f"({r.k_mse:.4g} vs {r.theory:.4g})" for r in bad.itertuples())
        text += (f". The theorems for NRFF and GCWS are asymptotic (Var = V / k + O(1/k^2)); the same points "
                 f"simulated at k = {setup.recheck_k:,} ({setup.recheck_repetitions:,} repetitions): "
                 f"{int(again['within'].sum())} of {len(again)} within: "
                 + "; ".join(f"{r.estimator} rho={r.rho:g} gamma={r.gamma:g} ({r.k_mse:.4g} vs {r.theory:.4g})"
                             for r in again.itertuples()))
    return text


def _ratio_points(points: pd.DataFrame, top: str, bottom: str) -> pd.DataFrame:
    wide = points.pivot_table(index=["rho", "gamma"], columns="estimator", values="k_mse").reset_index()
    return wide.assign(ratio=wide[top] / wide[bottom])


def _ratio_figure(points: pd.DataFrame, setup: Setup, top: str, bottom: str, curve: Callable, ylabel: str,
                  title: str, path: Path, log: bool = False) -> Path:
    rho = np.linspace(0.0, 1.0, CURVE_POINTS)[:-1]  # both ratios are 0/0 at rho = 1
    sim = _ratio_points(points, top, bottom)
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for i, gamma in enumerate(setup.gammas):
        ax.plot(rho, curve(rho, gamma), color=f"C{i}", label=f"gamma = {gamma:g}")
        at = sim[sim["gamma"] == gamma]
        ax.plot(at["rho"], at["ratio"], "o", color=f"C{i}", ms=4, mfc="none")
    ax.set(xlabel="rho", ylabel=ylabel, title=title, xlim=(0, 1))
    if log:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, title=f"curves: theory; o: simulation (k = {setup.k}, {setup.repetitions:,} reps)",
              title_fontsize=7)
    return plotting.save(fig, path)


def _write(out: Path, name: str, title: str, points: pd.DataFrame, again: pd.DataFrame, text: str,
           setup: Setup) -> pd.DataFrame:
    records.write_csv(out / f"{name}.csv", pd.concat([points, again], ignore_index=True))
    holds = bool(again.empty or again["within"].all())  # every point within, at k or at the recheck's k
    records.write_csv(out / "claims.csv", pd.DataFrame([{  # read by rfbench.report.project
        "source": f"Fig. {name[3:]}", "dataset": "", "verdict": HOLDS if holds else FAILS,
        "claim": "the simulated k MSE matches the theorem's variance (asymptotically, for NRFF and GCWS)",
        "evidence": _check_text(points, again, setup)}]))
    shown = points.drop(columns=["repetitions", "tolerance"])
    render.write_markdown(out / f"{name}.md", title,
                          [("", f"![{name}]({name}.png)"), ("", text), ("", _check_text(points, again, setup)),
                           ("Simulated points", shown)])
    return points


def fig1(out: Path, results: Path, job_overrides: tuple[str, ...] = ()) -> pd.DataFrame:
    """V_n / V (Theorem 2.2 over Theorem 2.1) against rho, per gamma, with simulated k MSE ratios."""
    points, again, setup = _recorded(results, "fig1", list(job_overrides))
    _ratio_figure(points, setup, "NRFF", "RFF", lambda r, g: theory.nrff_variance(r, g) / theory.rff_variance(r, g),
                  "V_n / V", "Li Fig. 1: variance ratio NRFF / RFF", out / "fig1.png")
    return _write(out, "fig1", "Li (2017) Figure 1: the variance ratio V_n / V of NRFF over RFF", points, again,
                  "Curves: V_{n,rho,gamma} / V_{rho,gamma} (eqs. 13-14). Points: the ratio of the simulated "
                  "k MSE of NRFF and RFF at the same (rho, gamma).", setup)


def fig2(out: Path, results: Path, job_overrides: tuple[str, ...] = ()) -> pd.DataFrame:
    """MSE of RFF and NRFF against k per (rho, gamma) panel, with V / k and V_n / k dashed."""
    points, again, setup = _recorded(results, "fig2", list(job_overrides))
    ks = np.array(setup.ks, dtype=float)
    fig, axes = plt.subplots(2, len(setup.panels) // 2, figsize=(12, 6), sharex=True)
    for ax, (rho, gamma) in zip(axes.ravel(), setup.panels):
        panel = points[(points["rho"] == rho) & (points["gamma"] == gamma)]
        for name, color in (("RFF", "C3"), ("NRFF", "C0")):
            sim = panel[panel["estimator"] == name]
            ax.plot(sim["k"], sim["k_mse"] / sim["k"], "-o", color=color, ms=3, label=f"{name} MSE")
            ax.plot(ks, ESTIMATORS[name][0](rho, gamma) / ks, "--", color=color, lw=1, label=f"{name} theory")
        ax.set(xscale="log", yscale="log", title=f"rho = {rho:g}, gamma = {gamma:g}")
        ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("k")
    for ax in axes[:, 0]:
        ax.set_ylabel("MSE")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"Li Fig. 2: MSE of RFF and NRFF vs k ({setup.repetitions:,} repetitions per point)", fontsize=10)
    plotting.save(fig, out / "fig2.png")
    return _write(out, "fig2", "Li (2017) Figure 2: MSE of RFF and NRFF against k", points, again,
                  "Solid: simulated MSE (bias^2 + var); dashed: V / k and V_n / k (Theorems 2.1, 2.2). "
                  "The check uses k MSE, so the O(1/k) allowance matters only at small k.", setup)


def fig3(out: Path, results: Path, job_overrides: tuple[str, ...] = ()) -> pd.DataFrame:
    """Var / E^2 against E: RFF and NRFF (estimating exp(-gamma (1 - rho))) and GCWS's indicator."""
    points, again, setup = _recorded(results, "fig3", list(job_overrides))
    points = pd.concat([points, _frame(_run(results, GRID, list(job_overrides)), "indicator")], ignore_index=True)
    points["relative"] = points["k_mse"] / points["kernel"] ** 2
    E = np.logspace(-5, 0, CURVE_POINTS)
    curves = {"RFF": theory.rff_variance(np.log(E) + 1, 1.0) / E**2,  # V depends on E = K alone
              "NRFF": theory.nrff_variance(np.log(E) + 1, 1.0) / E**2,
              "GCWS": theory.gcws_indicator_variance(E) / E**2}
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for i, (name, curve) in enumerate(curves.items()):
        ax.plot(E, curve, color=f"C{i}", label=f"{name} theory")
        sim = points[points["estimator"] == name]
        ax.plot(sim["kernel"], sim["relative"], "o", color=f"C{i}", ms=4, mfc="none", label=f"{name} simulation")
    ax.set(xlabel="E (the kernel value estimated)", ylabel="k Var / E^2", yscale="log",
           title="Li Fig. 3: relative variance", xscale="log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    plotting.save(fig, out / "fig3.png")
    return _write(out, "fig3", "Li (2017) Figure 3: Var / E^2 of RFF, NRFF and GCWS", points, again,
                  "RFF and NRFF estimate E = exp(-gamma (1 - rho)); their V depends on E alone, so one curve "
                  "each serves every gamma (points: every (rho, gamma) of the grid). GCWS: the collision "
                  "indicator's Var / E^2 = (1 - E) / E with E = GMM (eq. 7), simulated as binomial(k, E) / k "
                  "at E = g(rho) of eq. (16); k times Var / E^2 is plotted.", setup)


def fig4(out: Path, results: Path, job_overrides: tuple[str, ...] = ()) -> pd.DataFrame:
    """V_n / V_g (NRFF over GCWS, both estimating exp(-gamma (1 - rho))) against rho, per gamma."""
    points, again, setup = _recorded(results, "fig4", list(job_overrides))
    _ratio_figure(points, setup, "NRFF", "GCWS", lambda r, g: theory.nrff_variance(r, g) / theory.gcws_variance(r, g),
                  "V_n / V_g", "Li Fig. 4: variance ratio NRFF / GCWS", out / "fig4.png", log=True)
    return _write(out, "fig4", "Li (2017) Figure 4: the variance ratio V_n / V_g of NRFF over GCWS", points, again,
                  "Curves: V_{n,rho,gamma} (eq. 13) / V_{g,gamma} (eq. 20), both estimators of exp(-gamma (1 - rho)) "
                  "under the model of Section 3 (GMM = g(rho), eq. 16). Points: the ratio of simulated k MSE.", setup)


FIGURES = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4}
