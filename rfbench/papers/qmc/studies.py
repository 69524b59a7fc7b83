"""QMC: issue 45's studies of our protocol choices, drawn from their jobs' records only (each study's
rule, written before it ran: results/qmc/README.md).

    python -m rfbench.papers.qmc.studies STUDY [--results results]

- ``table1_protocol``: Table 1 (cpu) under the partition x scaling arms (``job=qmc_ridge_protocol``):
  ``arms.csv`` (every arm's cell: mean, sd, n) and ``explained.csv`` (per paper cell: the arms' range,
  each mean widened by twice its standard error, and whether it holds the paper's value);
- ``table2_sigma``: Table 2 (cpu) against sigma (``job=qmc_sigma_sweep``): ``sweep.csv`` and
  ``crossings.csv`` (per paper cell: the factors of our sigma at which our curve crosses it, the
  Halton cells' band, and whether a crossing lies in it), and the figure with the paper's values;
- ``table2_spread``: the one-run cells of Tables 2-3 over five variants (``job=qmc_spread``):
  ``spread.csv`` (per cell: n, sd, min, max, ours, and whether variant 0 equals the committed cell),
  which the verdicts take as the cell's u_ours;
- ``table3_sigma``: Table 3 (cpu, s = 100) relearnt at the sigmas of the band the paper's Halton cells of
  Table 2 fix (``job=qmc_table3_sigma``): ``explained.csv`` (per paper cell: ours at each factor, the
  range widened by twice the cell's measured spread, and whether it holds the paper's value);
- ``table3_lambda``: Table 3 (cpu) at every lambda of ridge's grid (``job=qmc_table3_lambda``):
  ``near_optimal.csv`` (per s and lambda: the summed CV error and the one-standard-error set) and
  ``explained.csv`` (per paper cell: our range over that set and whether it holds the paper's value);
- ``table2_scaling``: Tables 2-3 (cpu) under the feature scalings and Global run until CG stops
  (``job=qmc_table2_scaling``): ``arms.csv`` (every cell under every arm), ``explained.csv`` (per paper
  cell: each arm's value, the arms closing half of the gap, the range, and whether it explains the cell),
  ``history.csv`` and a figure of Global's discrepancy against the CG iterations with the paper's values.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from rfbench.engine import blas_pin, jobs, records
from rfbench.papers.qmc import datasets as qmc_datasets
from rfbench.papers.qmc import report as qmc
from rfbench.papers.qmc import table3 as table3_
from rfbench.papers.qmc.learnt import discrepancies, histories
from rfbench.papers.qmc.ridge import PARTITIONS, SCALINGS
from rfbench.report import plotting, render

CPU = "cpu_act_qmc"
#: The sizes s each study's campaign target runs (configs/campaign/qmc.yaml).
SWEEP_SIZES, SPREAD_SIZES = (100, 300, 500), (100,)
PROTOCOL, SIGMA, SPREAD, T3SIGMA = "table1_protocol", "table2_sigma", "table2_spread", "table3_sigma"
#: The size s Table 3's sigma study relearns, and the sizes its lambda study reads (configs/campaign/qmc.yaml).
T3SIGMA_S, T3LAMBDA_SIZES = 100, (100, 300, 500)
T3LAMBDA = "table3_lambda"
SCALING = "table2_scaling"
#: The sizes the scaling study runs; at the others than the first, only the arms other than ours
#: (configs/campaign/qmc.yaml: there ours is the committed Tables 2-3 runs).
SCALING_SIZES = (100, 300, 500)
#: Ours among the scaling study's arms: (scaling, CG iterations), as its job records them.
OURS = ("minmax", 100)


def protocol_overrides(partition: str, scaling: str) -> list[str]:
    """The ``qmc_ridge_protocol`` job of one arm, as the campaign runs it."""
    return ["job=qmc_ridge_protocol", *qmc_datasets.overrides(CPU), f"job.partition={partition}",
            f"job.scaling={scaling}"]


#: The sizes s at which the sigma sweep learns Halton only (configs/campaign/qmc.yaml).
HALTON_ONLY = (300, 500)


def variant_overrides(job: str, s: int) -> list[str]:
    """The ``qmc_sigma_sweep`` or ``qmc_spread`` job at s, as the campaign runs it."""
    schemes = ["job.schemes=[]"] if job == "qmc_sigma_sweep" and s in HALTON_ONLY else []
    return [f"job={job}", *qmc_datasets.overrides(CPU), f"job.s={s}", *schemes]


def run_ids(out: Path, runs: dict) -> str:
    """The run ids of ``runs`` (label -> overrides) that are recorded, comma-separated."""
    return ", ".join(jobs.run_of(o, out.parent).name for o in runs.values()
                     if records.recorded(jobs.run_of(o, out.parent) / "trials.csv"))


def _published(source: str) -> pd.DataFrame:
    pub = qmc.load_published()
    pub = pub[(pub["source"] == source) & (pub["dataset"] == "cpu") & (pub["metric"] != "claim")]
    return pub.assign(s=pub["s"].astype(float).astype(int))


def table1_protocol(out: Path) -> pd.DataFrame:
    """Table 1's cpu cells under every arm, and which paper cells the arms' range reaches."""
    runs = {(p, sc): protocol_overrides(p, sc) for p in PARTITIONS for sc in SCALINGS}
    errors = qmc.recorded(out, runs, "errors")
    if not errors:
        raise ValueError(f"no {PROTOCOL} runs under {out / PROTOCOL}; run `make qmc-table1-protocol` first")
    trials = pd.concat(errors.values(), ignore_index=True)
    arms = (trials.groupby(["partition", "scaling", "sequence", "s"])["relative_error"]
            .agg(mean="mean", sd="std", n="count").reset_index())
    se = (arms["sd"] / np.sqrt(arms["n"])).fillna(0.0)
    arms = arms.assign(low=arms["mean"] - 2 * se, high=arms["mean"] + 2 * se)
    rows = []
    for _, cell in _published("Table 1").iterrows():
        mine = arms[(arms["sequence"] == cell["method"]) & (arms["s"] == cell["s"])]
        ours = mine[(mine["partition"] == "random") & (mine["scaling"] == "minmax")]["mean"]
        holding = mine[(mine["low"] <= cell["value"]) & (cell["value"] <= mine["high"])]
        low, high = mine["low"].min(), mine["high"].max()
        rows.append({"method": cell["method"], "s": cell["s"], "published": cell["value"],
                     "primary": float(ours.iloc[0]) if len(ours) else np.nan, "low": low, "high": high,
                     "reached": bool(low <= cell["value"] <= high),
                     "arms_holding": "; ".join(f"{p}/{sc}" for p, sc in zip(holding["partition"], holding["scaling"]))})
    explained = pd.DataFrame(rows)
    explained["runs"] = run_ids(out, runs)
    settings = pd.concat(qmc.recorded(out, runs, "setting").values(), ignore_index=True).drop_duplicates(
        ["partition", "scaling"])[["partition", "scaling", "sigma", "lambda", "cv_score", "median_distance"]]
    dest = out / PROTOCOL
    same = _same_as_table1(out, trials)
    records.write_csv(dest / "arms.csv", arms)
    records.write_csv(dest / "explained.csv", explained)
    wide = arms.assign(cell=arms["mean"].map(lambda v: f"{v:.4f}")).pivot_table(
        index=["sequence", "s"], columns=["partition", "scaling"], values="cell", aggfunc="first")
    wide.columns = [f"{p}/{sc}" for p, sc in wide.columns]
    render.write_markdown(dest / f"{PROTOCOL}.md", "QMC Table 1 (cpu) against the partition rule and the feature "
                          "scaling (issue 45)", [
                              ("Rule (results/qmc/README.md, written before the runs)", _PROTOCOL_RULE),
                              ("Mean relative error per arm (partition/scaling; random/minmax is Table 1's own)",
                               wide.reset_index()),
                              ("Per paper cell: the arms' range (each mean +- 2 se) and whether it holds the "
                               "paper's value", explained.drop(columns="runs")),
                              ("sigma and lambda chosen in each arm (5-fold CV on MC features)", settings),
                              ("Check", f"the arm random/minmax equals Table 1's committed cpu trials: {same}"),
                              ("Runs", f"make qmc-table1-protocol: results/qmc/{PROTOCOL}/runs/ "
                               f"{explained['runs'].iloc[0]}")], ())
    return explained


def _same_as_table1(out: Path, trials: pd.DataFrame) -> str:
    """Whether the arm (random, minmax) gives Table 1's committed cpu errors bit for bit, trial by trial."""
    committed, _ = qmc.collect_table1(out)
    ours = trials[(trials["partition"] == "random") & (trials["scaling"] == "minmax")]
    both = committed[committed["config"] == CPU].merge(ours, on=["sequence", "s", "trial"], suffixes=("", "_arm"))
    equal = int((both["relative_error"] == both["relative_error_arm"]).sum())
    return f"{equal} of {len(both)} (sequence, s, trial) errors equal"


_PROTOCOL_RULE = ("The paper is silent on cpu's partition and scaling: the primary cells stay ours (random, minmax); "
                  "a cell is explained when the paper's value lies within the range of the cell's means over the six "
                  "arms, each widened by twice its standard error (Halton: one run, not widened).")


def sweep(out: Path) -> pd.DataFrame:
    """Every recorded sweep row: s, box, method, the paper's name ``cell``, sigma_scale, normalized."""
    frames = qmc.recorded(out, {s: variant_overrides("qmc_sigma_sweep", s) for s in SWEEP_SIZES}, "discrepancy")
    if not frames:
        raise ValueError(f"no {SIGMA} runs under {out / SIGMA}; run `make qmc-table2-sigma` first")
    rows = pd.concat(frames.values(), ignore_index=True)
    return rows.assign(cell=rows["method"] + rows["box"].map({"b": "_b", "b/4": "_b4"}))[
        ["s", "box", "method", "cell", "sigma_scale", "sigma", "normalized", "expected_mc"]]


def crossings(factors: np.ndarray, values: np.ndarray, target: float) -> list[float]:
    """The factors at which the curve (factors, values), log-log linear between points, equals ``target``."""
    order = np.argsort(factors)
    f, v = np.log(factors[order]), np.log(values[order]) - np.log(target)
    found = []
    for i in range(len(f) - 1):
        if v[i] == 0 or v[i] * v[i + 1] < 0:
            found.append(float(np.exp(f[i] + (f[i + 1] - f[i]) * v[i] / (v[i] - v[i + 1]))))
    if len(v) and v[-1] == 0:
        found.append(float(np.exp(f[-1])))
    return found


def table2_sigma(out: Path) -> pd.DataFrame:
    """Where each of the paper's Table 2 cpu values sits on our sweep of sigma, and the Halton band."""
    rows = sweep(out)
    cells = []
    for _, cell in _published("Table 2").iterrows():
        curve = rows[(rows["cell"] == cell["method"]) & (rows["s"] == cell["s"])]
        if curve.empty:  # an s not swept (yet): no crossing to report
            continue
        found = crossings(curve["sigma_scale"].to_numpy(float), curve["normalized"].to_numpy(float), cell["value"])
        cells.append({"method": cell["method"], "s": cell["s"], "published": cell["value"],
                      "ours_at_1": float(curve.loc[curve["sigma_scale"] == 1.0, "normalized"].iloc[0]),
                      "lowest": curve["normalized"].min(), "highest": curve["normalized"].max(),
                      "crossings": " ".join(f"{f:.3f}" for f in found), "n_crossings": len(found)})
    table = pd.DataFrame(cells)
    halton = table[table["method"].str.startswith("halton")]["crossings"].str.split().explode().dropna().astype(float)
    low, high = (float(halton.min()), float(halton.max())) if len(halton) else (np.nan, np.nan)
    table["band_low"], table["band_high"] = low, high
    table["explained"] = [any(low <= float(f) <= high for f in c.split()) for c in table["crossings"]]
    table["runs"] = run_ids(out, {s: variant_overrides("qmc_sigma_sweep", s) for s in SWEEP_SIZES})
    dest = out / SIGMA
    records.write_csv(dest / "sweep.csv", rows)
    records.write_csv(dest / "crossings.csv", table)
    _sigma_figure(rows, table, dest / f"{SIGMA}.png")
    render.write_markdown(dest / f"{SIGMA}.md", "QMC Table 2 (cpu) against sigma (issue 45)", [
        ("Rule (results/qmc/README.md, written before the runs)", _SIGMA_RULE),
        ("Per paper cell: our value at the CV's sigma, the sweep's range, the factors of our sigma where our "
         f"curve crosses the paper's value; Halton band {low:.3f}-{high:.3f}", table.drop(columns="runs")),
        ("The figure", f"![sweep]({SIGMA}.png): our normalized D^2 against sigma / (the CV's sigma), one panel per "
         "box and s, the paper's values as dashed lines of the same colour"),
        ("Runs", f"make qmc-table2-sigma: results/qmc/{SIGMA}/runs/ {table['runs'].iloc[0]}")], ())
    return table


_SIGMA_RULE = ("The paper's cpu sigma is not printed: our CV's stays primary. The six Halton cells' crossings give the "
               "band of factors the paper's sigma can have; a cell is explained when the paper's value is crossed on "
               "the sweep inside that band.")


def _sigma_figure(rows: pd.DataFrame, table: pd.DataFrame, path: Path) -> None:
    boxes, sizes = ["b", "b/4"], sorted(rows["s"].unique())
    fig, axes = plt.subplots(len(boxes), len(sizes), figsize=(4 * len(sizes), 3.4 * len(boxes)), squeeze=False)
    colors = dict(zip(["halton", "global", "greedy", "weighted"], plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for i, box in enumerate(boxes):
        for j, s in enumerate(sizes):
            ax = axes[i][j]
            for method, curve in rows[(rows["box"] == box) & (rows["s"] == s)].groupby("method"):
                curve = curve.sort_values("sigma_scale")
                ax.plot(curve["sigma_scale"], curve["normalized"], "o-", color=colors[method], label=method)
                paper = table[(table["method"] == curve["cell"].iloc[0]) & (table["s"] == s)]["published"]
                if len(paper):
                    ax.axhline(float(paper.iloc[0]), color=colors[method], ls="--", lw=1)
            ax.axvspan(table["band_low"].iloc[0], table["band_high"].iloc[0], color="grey", alpha=0.15)
            ax.set(yscale="log", title=f"cpu, box {box}, s = {s}", xlabel="sigma / CV sigma")
    _save_panels(fig, axes, "QMC Table 2 (cpu) vs sigma: ours solid, paper dashed, Halton band grey", path)


def _save_panels(fig, axes, title: str, path: Path) -> None:
    """A grid of discrepancy panels (rows: boxes), labelled, titled and written to ``path``."""
    for row in axes:
        row[0].set_ylabel("normalized D^2")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    plotting.save(fig, path)  # the project's PNG: 120 dpi, a 256-colour palette where it changes no pixel visibly


def table2_spread(out: Path) -> pd.DataFrame:
    """Per one-run cell of Tables 2-3 at the spread's sizes: its spread over the variants, and whether
    variant 0 equals the committed cell."""
    runs = {s: variant_overrides("qmc_spread", s) for s in SPREAD_SIZES}
    disc, cells = qmc.recorded(out, runs, "discrepancy"), qmc.recorded(out, runs, "cells")
    if not disc:
        raise ValueError(f"no {SPREAD} runs under {out / SPREAD}; run `make qmc-table2-spread` first")
    committed2 = discrepancies(out, CPU)
    committed2 = committed2.assign(cell=committed2["method"] + committed2["box"].map({"b": "_b", "b/4": "_b4"}))
    committed3 = table3_.recorded(out)
    committed3 = committed3[committed3["config"] == CPU]
    parts = []
    for s, frame in disc.items():
        frame = frame.assign(cell=frame["method"] + frame["box"].map({"b": "_b", "b/4": "_b4"}))
        parts.append(_spread(frame, "Table 2", "box discrepancy", "normalized", committed2[committed2["s"] == s]))
    for s, frame in cells.items():
        parts.append(_spread(frame.assign(cell=frame["method"]), "Table 3", "relative error", "relative_error",
                             committed3[committed3["s"] == s].assign(cell=lambda f: f["method"])))
    table = pd.concat(parts, ignore_index=True)
    table["runs"] = run_ids(out, runs)
    dest = out / SPREAD
    records.write_csv(dest / "spread.csv", table)
    render.write_markdown(dest / f"{SPREAD}.md", "QMC Tables 2-3 (cpu): spread of the one-run cells (issue 45)", [
        ("Rule (results/qmc/README.md, written before the runs)", _SPREAD_RULE),
        ("Per cell: ours (variant 0), whether it equals the committed cell, and the spread over the variants",
         table.drop(columns="runs")),
        ("Runs", f"make qmc-table2-spread: results/qmc/{SPREAD}/runs/ {table['runs'].iloc[0]}")], ())
    return table


_SPREAD_RULE = ("Five variants per s: ours (trial 0), `sigma x (1 -+ 0.001)`, Halton scramble seeds 1 and 2. "
                "The sd over them is the cell's measured spread, which the verdicts use as its u_ours.")


def _spread(frame: pd.DataFrame, source: str, metric: str, value: str, committed: pd.DataFrame) -> pd.DataFrame:
    ours = frame[frame["trial"] == 0].set_index("cell")[value]
    before = committed.set_index("cell")[value]
    stats = frame.groupby(["cell", "s"])[value].agg(n="count", sd="std", min="min", max="max").reset_index()
    return stats.assign(source=source, metric=metric, ours=stats["cell"].map(ours),
                        committed=stats["cell"].map(before),
                        equal=stats["cell"].map(ours).to_numpy() == stats["cell"].map(before).to_numpy())[
        ["source", "metric", "cell", "s", "ours", "committed", "equal", "n", "sd", "min", "max"]]


def table3_sigma(out: Path) -> pd.DataFrame:
    """Per Table 3 cpu cell at s = 100: our range over the sigmas of the band the paper's Halton cells of
    Table 2 fix, widened by twice the cell's measured spread, and whether it holds the paper's value."""
    runs = {T3SIGMA_S: [f"job=qmc_{T3SIGMA}", *qmc_datasets.overrides(CPU), f"job.s={T3SIGMA_S}"]}
    cells = qmc.recorded(out, runs, "cells")
    if not cells:
        raise ValueError(f"no {T3SIGMA} runs under {out / T3SIGMA}; run `make qmc-table3-sigma` first")
    rows = pd.concat(cells.values(), ignore_index=True)
    band = pd.read_csv(out / SIGMA / "crossings.csv")[["band_low", "band_high"]].iloc[0]
    check_band(rows["sigma_scale"].unique(), float(band["band_low"]), float(band["band_high"]))
    spread = pd.read_csv(out / SPREAD / "spread.csv")
    spread = spread[spread["source"] == "Table 3"].set_index(["cell", "s"])["sd"]
    primary = table3_.recorded(out)
    primary = primary[primary["config"] == CPU].set_index(["method", "s"])["relative_error"]
    table = []
    for _, cell in _published("Table 3").iterrows():
        mine = rows[(rows["method"] == cell["method"]) & (rows["s"] == cell["s"])]
        if mine.empty:  # an s the study does not run
            continue
        sd = float(spread.get((cell["method"], cell["s"]), np.nan))
        low, high = widened(mine["relative_error"].to_numpy(float), sd)
        table.append({"method": cell["method"], "s": cell["s"], "published": cell["value"],
                      "primary": float(primary.get((cell["method"], cell["s"]), np.nan)),
                      **{f"at_{f:.3f}": float(v) for f, v in zip(mine["sigma_scale"], mine["relative_error"])},
                      "spread_sd": sd, "low": low, "high": high, "explained": bool(low <= cell["value"] <= high)})
    table = pd.DataFrame(table)
    table["runs"] = run_ids(out, runs)
    lambdas = rows.drop_duplicates("sigma_scale")[["sigma_scale", "sigma", "lam"]]
    dest = out / T3SIGMA
    records.write_csv(dest / "explained.csv", table)
    render.write_markdown(dest / f"{T3SIGMA}.md", "QMC Table 3 (cpu, s = 100) at the sigma the paper's Halton cells "
                          "fix (issue 45)", [
                              ("Rule (results/qmc/README.md, written before the runs)", _T3SIGMA_RULE),
                              ("Per paper cell: ours at our CV's sigma (primary), at each factor of the band "
                               f"{band['band_low']:.3f}-{band['band_high']:.3f}, the range widened by twice the "
                               "measured spread, and whether it holds the paper's value", table.drop(columns="runs")),
                              ("sigma and the lambda the CV over the seven maps chose at each factor", lambdas),
                              ("Runs", f"make qmc-table3-sigma: results/qmc/{T3SIGMA}/runs/ {table['runs'].iloc[0]}")],
                          ())
    return table


def check_band(factors, low: float, high: float) -> None:
    """ValueError unless the sigma factors include the band's two ends (as its record prints them, 3 decimals)
    and lie inside it: the study's runs must be at the band the paper's Halton cells fix."""
    found = sorted(float(f) for f in factors)
    if not {round(low, 3), round(high, 3)} <= set(found) or not all(low - 5e-4 <= f <= high + 5e-4 for f in found):
        raise ValueError(f"{T3SIGMA}: its sigma factors {found} are not the ends and inside of the band "
                         f"{low:.3f}-{high:.3f} of {SIGMA}/crossings.csv; rerun the study at the band's factors")


def widened(values: np.ndarray, sd: float) -> tuple[float, float]:
    """The range of ``values`` widened on each side by twice ``sd`` (a cell without a measured spread: NaN, so
    its range holds nothing)."""
    return float(values.min() - 2 * sd), float(values.max() + 2 * sd)


_T3SIGMA_RULE = ("Our CV's sigma stays primary. Every Table 2 sequence is relearnt at s = 100 and Table 3's cells "
                 "recomputed (lambda by the same CV) at the ends and the middle of the band of factors the paper's six "
                 "Halton cells of Table 2 fix; a cell is explained when the paper's value lies within our range over "
                 "those sigmas, widened by twice the cell's measured spread (table2_spread/spread.csv).")


def near_optimal(folds: pd.DataFrame) -> pd.DataFrame:
    """Per (s, lambda): the summed CV error over the maps (mean over the folds), the least of its s, that least
    one's standard error (sd over the folds of the per-fold summed error, / sqrt(folds)) and whether lambda is
    near-optimal by the one-standard-error rule (at most the least plus its standard error)."""
    per_fold = folds.groupby(["s", "lam", "fold"])["cv_error"].sum()
    summed = per_fold.groupby(["s", "lam"]).mean()
    rows = []
    for s, curve in summed.groupby(level="s"):
        best = curve.idxmin()[1]
        at_best = per_fold.loc[(s, best)]
        se = float(at_best.std(ddof=1) / np.sqrt(len(at_best)))
        for (_, lam), value in curve.items():
            rows.append({"s": s, "lam": lam, "summed_cv": value, "least": curve.min(), "least_lam": best, "se": se,
                         "near_optimal": bool(value <= curve.min() + se)})
    return pd.DataFrame(rows)


def table3_lambda(out: Path) -> pd.DataFrame:
    """Per Table 3 cpu cell: our test error over its s's near-optimal lambdas, widened by twice the cell's
    measured spread where one is measured, and whether it holds the paper's value."""
    runs = {s: [f"job=qmc_{T3LAMBDA}", *qmc_datasets.overrides(CPU), f"job.s={s}"] for s in T3LAMBDA_SIZES}
    folds, cells = qmc.recorded(out, runs, "folds"), qmc.recorded(out, runs, "cells")
    if not folds:
        raise ValueError(f"no {T3LAMBDA} runs under {out / T3LAMBDA}; run `make qmc-table3-lambda` first")
    folds, cells = pd.concat(folds.values(), ignore_index=True), pd.concat(cells.values(), ignore_index=True)
    sets = near_optimal(folds)
    spread = pd.read_csv(out / SPREAD / "spread.csv")
    spread = spread[spread["source"] == "Table 3"].set_index(["cell", "s"])["sd"]
    primary = table3_.recorded(out)
    primary = primary[primary["config"] == CPU].set_index(["method", "s"])
    table = []
    for _, cell in _published("Table 3").iterrows():
        lams = sets[(sets["s"] == cell["s"]) & sets["near_optimal"]]["lam"]
        mine = cells[(cells["method"] == cell["method"]) & (cells["s"] == cell["s"]) & cells["lam"].isin(lams)]
        if mine.empty:  # an s the study does not read
            continue
        low, high = widened(mine["relative_error"].to_numpy(float), float(spread.get((cell["method"], cell["s"]), 0.0)))
        table.append({"method": cell["method"], "s": cell["s"], "published": cell["value"],
                      "primary": float(primary.loc[(cell["method"], cell["s"]), "relative_error"]),
                      "near_optimal": " ".join(f"{lam:g}" for lam in sorted(lams)), "low": low, "high": high,
                      "explained": bool(low <= cell["value"] <= high)})
    table = pd.DataFrame(table)
    table["runs"] = run_ids(out, runs)
    dest = out / T3LAMBDA
    records.write_csv(dest / "near_optimal.csv", sets)
    records.write_csv(dest / "explained.csv", table)
    wide = cells.pivot_table(index=["s", "lam"], columns="method", values="relative_error")[list(table3_.METHODS)]
    render.write_markdown(dest / f"{T3LAMBDA}.md", "QMC Table 3 (cpu) over the lambdas near-optimal in the CV "
                          "(issue 45)", [
                              ("Rule (results/qmc/README.md, written before the runs)", _T3LAMBDA_RULE),
                              ("Per paper cell: ours (primary), the near-optimal lambdas of its s, our range over "
                               "them (s = 100: widened by twice the measured spread) and whether it holds the "
                               "paper's value", table.drop(columns="runs")),
                              ("Per s and lambda: the summed CV error over the seven maps, the least, its standard "
                               "error and the near-optimal set", sets),
                              ("Test error of every map at every lambda", wide.reset_index()),
                              ("Check", _primary_check(folds, primary)),
                              ("Runs", f"make qmc-table3-lambda: results/qmc/{T3LAMBDA}/runs/ "
                               f"{table['runs'].iloc[0]}")], ())
    return table


def _primary_check(folds: pd.DataFrame, primary: pd.DataFrame) -> str:
    """Whether the least summed CV lambda and every map's mean CV error there are the committed Table 3 run's."""
    mean_cv = folds.groupby(["s", "lam", "method"])["cv_error"].mean()
    least = mean_cv.groupby(level=["s", "lam"]).sum().groupby(level="s").idxmin()
    same = [bool(primary.loc[(m, s), "lam"] == lam and np.isclose(mean_cv[(s, lam, m)], primary.loc[(m, s), "cv_error"],
                                                                 rtol=1e-8, atol=0.0))
            for s, (_, lam) in least.items() for m in table3_.METHODS]
    return (f"the least summed CV lambda and the maps' mean CV errors there equal the committed Table 3 run's in "
            f"{sum(same)} of {len(same)} (s, map)")


_T3LAMBDA_RULE = ("Our lambda (least summed 5-fold CV error over the seven maps) stays primary. The near-optimal set "
                  "of an s: the grid's lambdas whose summed CV error is at most the least plus its standard error "
                  "(one-standard-error rule, over the five folds); a cell is explained when the paper's value lies "
                  "within our range over that set, widened by twice the cell's measured spread at s = 100.")


def scaling_overrides(s: int) -> list[str]:
    """The ``qmc_table2_scaling`` job at s, as the campaign runs it."""
    others = ([] if s == SCALING_SIZES[0]
              else ["job.variants=[{scaling:none},{scaling:standard}]", "experiment.trials=2"])
    return ["job=qmc_table2_scaling", *qmc_datasets.overrides(CPU), f"job.s={s}", *others]


def arm_name(scaling: str, maxiter: int) -> str:
    """An arm as the records name it: its scaling, and Global's CG iterations where they are not ours."""
    return scaling if int(maxiter) == OURS[1] else f"{scaling}_cg{int(maxiter)}"


def table2_scaling(out: Path) -> pd.DataFrame:
    """Per Table 2-3 cpu cell: its value under every arm, the arms closing half of its gap, the arms' range, and
    whether the study explains it (rule: results/qmc/README.md)."""
    runs = {s: scaling_overrides(s) for s in SCALING_SIZES}
    disc, cells = qmc.recorded(out, runs, "discrepancy"), qmc.recorded(out, runs, "cells")
    if not disc:
        raise ValueError(f"no {SCALING} runs under {out / SCALING}; run `make qmc-table2-scaling` first")
    arms, same = scaling_arms(out, pd.concat(disc.values(), ignore_index=True),
                              pd.concat(cells.values(), ignore_index=True))
    spread = pd.read_csv(out / SPREAD / "spread.csv")
    spread = spread[spread["source"] == "Table 3"].set_index(["cell", "s"])["sd"]
    table = pd.concat([scaling_explained(arms, _published(source), source, spread if source == "Table 3" else None)
                       for source in ("Table 2", "Table 3")], ignore_index=True)
    table["runs"] = run_ids(out, runs)
    history = pd.concat([frame.assign(s=s) for s, frame in qmc.recorded(out, runs, "history").items()],
                        ignore_index=True)
    history = history.assign(arm=[arm_name(a, m) for a, m in zip(history["scaling"], history["maxiter"])])
    ours = histories(out, CPU)  # ours from the committed runs (the study's own arm ours, where run, is equal)
    ours = ours[ours["s"].isin(SCALING_SIZES)].assign(arm=arm_name(*OURS))
    history = pd.concat([history[history["arm"] != arm_name(*OURS)], ours], ignore_index=True)
    settings = pd.concat(qmc.recorded(out, runs, "setting").values(), ignore_index=True).drop_duplicates("scaling")[
        ["scaling", "sigma", "lambda", "cv_score", "median_distance"]]
    dest = out / SCALING
    records.write_csv(dest / "arms.csv", arms)
    records.write_csv(dest / "explained.csv", table)
    records.write_csv(dest / "history.csv", history[["arm", "s", "box", "iteration", "normalized"]])
    _history_figure(history, _published("Table 2"), dest / f"{SCALING}.png")
    explained = table[table["explained"]]
    closing = sorted({a for c in explained["closing"].dropna() for a in c.split()})
    render.write_markdown(dest / f"{SCALING}.md", "QMC Tables 2-3 (cpu) against the feature scaling and Global's "
                          "CG iterations (issue 45)", [
                              ("Rule (results/qmc/README.md, written before the runs)", _SCALING_RULE),
                              ("Per paper cell: ours (min-max, 100 CG iterations), each other arm, the arms closing "
                               "half of the gap, the arms' range and whether the study explains it",
                               table.drop(columns="runs")),
                              ("Which arms explain", f"{len(explained)} of {len(table)} cells explained; arms closing "
                               f"half of an explained cell's gap: {', '.join(closing) or 'none'}"),
                              ("The figure", f"![iterations]({SCALING}.png): Global's normalized D^2 against the CG "
                               "iterations (0: its Halton start), one panel per box and s, each arm a line (ours: "
                               "the committed Table 2 runs), the paper's Global cell dashed"),
                              ("sigma and lambda chosen in each scaling (5-fold CV on MC features)", settings),
                              ("Check", same),
                              ("Runs", f"make qmc-table2-scaling: results/qmc/{SCALING}/runs/ "
                               f"{table['runs'].iloc[0]}")], ())
    return table


def scaling_arms(out: Path, disc: pd.DataFrame, cells: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Every Table 2-3 cpu cell under every arm of the scaling study (``source``, ``method``, ``s``, ``arm``,
    ``value``): the study's runs, and ours at the sizes the study leaves to the committed runs; and the check
    that the study's own arm ours equals the committed cells bit for bit."""
    disc = disc.assign(method=disc["method"] + disc["box"].map({"b": "_b", "b/4": "_b4"}), source="Table 2",
                       value=disc["normalized"])
    cells = cells.assign(source="Table 3", value=cells["relative_error"])
    study = pd.concat([disc, cells], ignore_index=True)
    study = study.assign(arm=[arm_name(a, m) for a, m in zip(study["scaling"], study["maxiter"])])
    committed2 = discrepancies(out, CPU)
    committed2 = committed2.assign(method=committed2["method"] + committed2["box"].map({"b": "_b", "b/4": "_b4"}),
                                   source="Table 2", value=committed2["normalized"])
    committed3 = table3_.recorded(out)
    committed3 = committed3[committed3["config"] == CPU].assign(source="Table 3", value=lambda f: f["relative_error"])
    committed = pd.concat([committed2, committed3], ignore_index=True).assign(arm=arm_name(*OURS))
    keys = ["source", "method", "s", "arm"]
    own = study[study["arm"] == arm_name(*OURS)].merge(committed[keys + ["value"]], on=keys,
                                                        suffixes=("", "_committed"))
    equal = int((own["value"] == own["value_committed"]).sum())
    check = (f"the arm {arm_name(*OURS)} of the study equals the committed Tables 2-3 cells in {equal} of {len(own)} "
             f"cells (s = {', '.join(str(s) for s in sorted(own['s'].unique()))})")
    ours_elsewhere = committed[committed["s"].isin(SCALING_SIZES) & ~committed["s"].isin(own["s"].unique())]
    return pd.concat([study[keys + ["value"]], ours_elsewhere[keys + ["value"]]], ignore_index=True), check


def scaling_explained(arms: pd.DataFrame, published: pd.DataFrame, source: str, spread: pd.Series | None
                      ) -> pd.DataFrame:
    """Per paper cell of ``source``: each arm's value, the arms other than ours that close half of the gap (Table 2:
    on the log scale), the arms' range (Table 3: widened by twice ``spread``, the cell's measured sd, where it has
    one) and whether either explains the cell."""
    rows = []
    for _, cell in published.iterrows():
        mine = arms[(arms["source"] == source) & (arms["method"] == cell["method"]) & (arms["s"] == cell["s"])]
        values = mine.set_index("arm")["value"]
        if arm_name(*OURS) not in values.index or len(values) < 2:  # an s the study does not run
            continue
        paper, ours = float(cell["value"]), float(values[arm_name(*OURS)])
        closing = [arm for arm, v in values.items()
                   if arm != arm_name(*OURS) and gap(v, paper, source) <= gap(ours, paper, source) / 2]
        sd = float(spread.get((cell["method"], cell["s"]), 0.0)) if spread is not None else np.nan
        low, high = widened(values.to_numpy(float), 0.0 if np.isnan(sd) else sd)
        rows.append({"source": source, "dataset": "cpu", "method": cell["method"], "s": cell["s"],
                     "published": paper, "ours": ours, **{arm: float(v) for arm, v in values.items()
                                                            if arm != arm_name(*OURS)},
                     "spread_sd": sd, "low": low, "high": high, "closing": " ".join(closing) or None,
                     "in_range": bool(low <= paper <= high), "explained": bool(closing) or bool(low <= paper <= high)})
    return pd.DataFrame(rows)


def gap(value: float, paper: float, source: str) -> float:
    """A cell's distance to the paper's value: on the log scale for Table 2's discrepancies (they span decades),
    in the cell's own units otherwise."""
    return abs(float(np.log(value / paper))) if source == "Table 2" else abs(value - paper)


_SCALING_RULE = ("cpu's feature scaling and Global's CG iterations are not stated: ours (min-max, 100 iterations) "
                 "stays primary. A cell is explained when an arm other than ours closes at least half of its gap to "
                 "the paper's value (Table 2: on the log scale) or the paper's value lies within the cell's range over "
                 "the arms (Table 3: widened by twice its measured spread at s = 100).")


def _history_figure(history: pd.DataFrame, published: pd.DataFrame, path: Path) -> None:
    boxes, sizes = ["b", "b/4"], sorted(history["s"].unique())
    fig, axes = plt.subplots(len(boxes), len(sizes), figsize=(4 * len(sizes), 3.4 * len(boxes)), squeeze=False)
    # One colour per arm in every panel (not ``plot``'s cycle, which restarts with the arms a panel has),
    # so the first panel's legend reads for all (the arms run differ between panels).
    colors = plotting.dataset_colors(sorted(history["arm"].unique()), [])
    for i, box in enumerate(boxes):
        for j, s in enumerate(sizes):
            ax = axes[i][j]
            for arm, curve in history[(history["box"] == box) & (history["s"] == s)].groupby("arm"):
                ax.plot(curve["iteration"], curve["normalized"], label=arm, color=colors[arm])
            cell = "global_" + box.replace("/", "")
            paper = published[(published["s"] == s) & (published["method"] == cell)]["value"]
            if len(paper):
                ax.axhline(float(paper.iloc[0]), color="k", ls="--", lw=1, label="paper")
            ax.set_xscale("symlog", linthresh=1)
            ax.set(yscale="log", xlim=(0, None), title=f"cpu, Global on {box}, s = {s}", xlabel="CG iterations")
    _save_panels(fig, axes, "QMC Table 2 (cpu): Global's discrepancy against CG iterations per scaling; the paper's "
                 "cell dashed", path)


def main(argv: list[str] | None = None) -> None:
    studies = {PROTOCOL: table1_protocol, SIGMA: table2_sigma, SPREAD: table2_spread, T3SIGMA: table3_sigma,
               T3LAMBDA: table3_lambda, SCALING: table2_scaling}
    parser = argparse.ArgumentParser(prog="python -m rfbench.papers.qmc.studies", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("study", choices=list(studies), help="the study's report, from its records")
    parser.add_argument("--results", type=Path, default=Path("results"), help="results tree (<results>/qmc)")
    args = parser.parse_args(argv)
    out = args.results / qmc.PAPER
    qmc.run_report(parser, lambda: studies[args.study](out), out / args.study)


if __name__ == "__main__":
    blas_pin.pin()
    main()
