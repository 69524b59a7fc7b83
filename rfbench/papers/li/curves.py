"""Li (KDD 2017) Figures 6, 7 and 10: test accuracy against the SVM's C, drawn from the
``grid.csv`` each trial writes (every C scored on the test set, Li's protocol), so no figure
trains anything.

- Fig. 6: the exact kernel SVMs of ``li-tables`` (``<results>/li/kernel_svm``): linear, RBF at
  its best gamma for every C (as Li's caption says), GMM; one panel per dataset.
- Figs. 7 and 10: LibLinear on GCWS (b-bit codes) and NRFF features (``<results>/li/hashing``),
  one panel per k, with the linear SVM on the data. Li's GCWS vectors are 0/1 with k ones, ours
  have k entries of 1/sqrt(k) (unit rows), so Li's C is ours divided by k; NRFF rows and the data
  have unit norm in both, so their C is Li's. NRFF is drawn at its best gamma for each k.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rfbench.engine import records
from rfbench.feature_map.gcws import index_width
from rfbench.papers.li import tables as li_tables
from rfbench.report import plotting, render
from rfbench.report.compare import FAILS, HOLDS, NOT_RUN, ClaimCheck
from rfbench.report.render import plt
from rfbench.report.runs import collect_single_runs, deviations

#: Config columns that tell the hashing runs apart.
HASH_POINT = ["dataset.name", "kernel.name", "feature_map.n_components", "feature_map.b", "kernel.gamma"]
#: Our kernel names and the paper's methods.
HASH_METHOD = {"gmm": "GCWS", "cosine_rbf": "NRFF", "linear": "linear"}


def grids(root: Path, point: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(trials, grid)``: the trials below ``root`` and every trial's grid rows, each grid row
    with the ``point`` columns of its run."""
    trials = collect_single_runs(root, point)
    paths = records.record_paths(root, "runs/*/grid.csv")  # plain or gzipped
    grid = pd.concat([records.read_trials(p) for p in paths], ignore_index=True)
    config = trials.groupby("run_id")[[c for c in point if c in trials.columns]].first()
    return trials, grid.merge(config, left_on="run_id", right_index=True)


def fig6(root: Path, out: Path, paper_dataset: dict[str, str]) -> pd.DataFrame:
    """Fig. 6 from the test-grid runs below ``root``: ``out/fig6.{csv,png,md}``."""
    trials, grid = grids(root, ["dataset.name", "classifier.kernel", "classifier.selection"])
    grid = grid[grid["classifier.selection"] == "test_grid"]
    curves = (grid.groupby(["dataset.name", "classifier.kernel", "C"])["test_score"].max()
              .mul(100).rename("accuracy").reset_index())
    curves["dataset"] = curves["dataset.name"].map(paper_dataset).fillna(curves["dataset.name"])
    curves["method"] = curves["classifier.kernel"].map({"cosine_rbf": "rbf"}).fillna(curves["classifier.kernel"])
    curves = curves[["dataset", "method", "C", "accuracy"]]
    records.write_csv(out / "fig6.csv", curves)
    names = list(dict.fromkeys(curves["dataset"]))
    _panels(out / "fig6.png", names, lambda ax, name: _fig6_panel(ax, curves[curves["dataset"] == name]),
            "Li Fig. 6: kernel SVM test accuracy vs C (RBF at its best gamma per C)")
    best = curves.pivot_table(index="dataset", columns="method", values="accuracy", aggfunc="max")
    edge = _edges(curves)
    claim = _above_linear(best)
    render.write_markdown(out / "fig6.md", "Li (2017) Fig. 6: kernel SVM test accuracy (%) against C", [
        ("Best accuracy over C (the Tables' cells)", best.round(2).reset_index()),
        ("Curves whose best C is the grid's smallest or largest", edge if len(edge) else "None."),
        ("Claim: both GMM and RBF improve on linear SVM", f"{_verdict(claim)}: {claim.evidence}"),
        ("", "Figure: [fig6.png](fig6.png); every point: `fig6.csv`. C grids (each run's `classifier.log2_C`): "
             + "; ".join(line for line, _ in _c_grids(trials, paper_dataset)) + ".")], deviations(trials))
    return curves


def _c_grids(trials: pd.DataFrame, paper_dataset: dict[str, str]) -> list[tuple[str, str]]:
    """:func:`rfbench.papers.li.tables.c_grids` of the test-grid trials, named as in the paper."""
    on_test = trials[trials["classifier.selection"] == "test_grid"]
    return li_tables.c_grids(li_tables.paper_names(on_test, paper_dataset))


def _fig6_panel(ax, part: pd.DataFrame) -> None:
    for method, style in (("linear", "k-*"), ("rbf", "b--o"), ("gmm", "r-s")):
        curve = part[part["method"] == method]
        if len(curve):
            ax.plot(curve["C"], curve["accuracy"], style, ms=3, label=method)
    ax.set_xscale("log", base=2)


def _edges(curves: pd.DataFrame) -> pd.DataFrame:
    """The (dataset, method) curves whose best C is an end of their grid."""
    rows = []
    for (name, method), curve in curves.groupby(["dataset", "method"], sort=False):
        best = curve.loc[curve["accuracy"].idxmax(), "C"]
        if best in (curve["C"].min(), curve["C"].max()):
            rows.append({"dataset": name, "method": method, "best C": best,
                         "grid": f"{curve['C'].min():g}..{curve['C'].max():g}"})
    return pd.DataFrame(rows)


def _above_linear(best: pd.DataFrame) -> ClaimCheck:
    if not {"linear", "rbf", "gmm"} <= set(best.columns):
        return ClaimCheck(None, "linear, RBF and GMM not all run")
    both = best.dropna(subset=["linear", "rbf", "gmm"])
    fails = both[(both["rbf"] <= both["linear"]) | (both["gmm"] <= both["linear"])].index.tolist()
    return ClaimCheck(not fails, f"both above linear on {len(both) - len(fails)} of {len(both)} datasets"
                      + (f"; not on {', '.join(fails)}" if fails else ""))


def hashing(root: Path, out: Path, dataset: str, figure: str, title: str,
            published_linear: float | None = None, paper_ks: Sequence[int] = (),
            paper_gamma: float | None = None) -> pd.DataFrame:
    """Fig. 7 or 10 for ``dataset`` from the runs below ``root``: ``out/<figure>.{csv,png,md}``.

    ``published_linear``, the paper's linear SVM accuracy (%) on the dataset (Table 2), is set
    beside our linear baseline; the k of ``paper_ks`` (the paper's panels) without a run are listed.
    NRFF is drawn at its best gamma for each k; at ``paper_gamma``, the best gamma of the paper's
    exact RBF on the dataset, it is also tabled and judged.

    Returns the curves: accuracy (mean over trials) per method, k, b, gamma and C (ours and Li's).
    """
    trials, grid = grids(root, HASH_POINT)
    grid = grid[grid["dataset.name"] == dataset]
    trials = trials[trials["dataset.name"] == dataset]
    if grid.empty:
        raise FileNotFoundError(f"no hashing run of dataset={dataset} below {root}")
    grid = grid.assign(method=grid["kernel.name"].map(HASH_METHOD), k=grid["feature_map.n_components"],
                       b=grid.get("feature_map.b"), gamma=grid.get("kernel.gamma"))
    keys = ["method", "k", "b", "gamma", "C"]
    curves = (grid.groupby(keys, dropna=False)["test_score"].agg(["mean", "count"]).reset_index()
              .rename(columns={"mean": "accuracy", "count": "trials"}))
    curves["accuracy"] *= 100
    curves["C_li"] = np.where(curves["method"] == "GCWS", curves["C"] / curves["k"], curves["C"])
    per_gamma = _nrff_per_gamma(curves)
    at_paper = curves[(curves["method"] == "NRFF") & (curves["gamma"] == paper_gamma)].groupby("k")["accuracy"].max()
    curves = _best_nrff_gamma(curves)
    records.write_csv(out / f"{figure}.csv", curves)
    ks = sorted(curves["k"].dropna().unique())
    _panels(out / f"{figure}.png", ks, lambda ax, k: _hash_panel(ax, curves, k), title)
    best = _best_per_k(curves)
    claims = [("GCWS (its best b) above NRFF (its best gamma) at every k", _gcws_above_nrff(best, "NRFF"))]
    if len(at_paper):
        column = f"NRFF at gamma {paper_gamma:g}"
        best.insert(best.columns.get_loc("NRFF gamma") + 1, column, best["k"].map(at_paper).round(2))
        claims.append((f"GCWS (its best b) above NRFF at gamma {paper_gamma:g} (the paper's exact RBF's) at every k",
                       _gcws_above_nrff(best, column)))
    if len(ks):
        claims.append((f"GCWS at k = {ks[0]:g} above linear SVM",
                       _smallest_k_above_linear(best, ks[0], published_linear)))
    records.write_csv(out / "claims.csv", pd.DataFrame([  # read by rfbench.report.project
        {"source": f"Fig. {figure[3:]}", "dataset": li_tables.PAPER_DATASET.get(dataset, dataset), "claim": claim,
         "verdict": {True: HOLDS, False: FAILS, None: NOT_RUN}[check.holds], "evidence": check.evidence}
        for claim, check in claims]))
    render.write_markdown(out / f"{figure}.md", title, [
        ("Best test accuracy (%) over C, per k", best),
        ("Claims of the paper", pd.DataFrame([{"claim": c, "verdict": _verdict(v), "detail": v.evidence}
                                               for c, v in claims])),
        ("Solvers (one L2-loss SVM problem: newton solves it exactly, LibLinear's -s 1 to its default "
         "tolerance)", _solvers(trials)),
        *_index_bits(trials),
        *per_gamma,
        ("Linear baseline", (f"ours {best['linear'].max():.2f} %" if best["linear"].notna().any() else "ours not run")
                            + " (the L2-loss linear SVM on the unit rows, best C; its solver under Solvers); "
                            + (f"the paper's Table 2: {published_linear:.2f} %" if published_linear else
                               "no published value")),
        ("", f"Figure: [{figure}.png]({figure}.png), x-axis Li's C (ours / k for GCWS); every point with our "
             f"C: `{figure}.csv`. Accuracies are means over the trials column's repetitions (Li: 10)."),
        *_paper_ks_not_run(paper_ks, ks)],
        _solver_deviation(trials) + deviations(trials))
    return curves


def _paper_ks_not_run(paper_ks: Sequence[int], ks: Sequence[float]) -> list[tuple[str, str]]:
    missing = sorted(set(paper_ks) - set(ks))
    return [("Not run", f"the paper's k = {', '.join(map(str, missing))}: no run below the results folder yet "
                        f"(`make li-fig7` runs it; its cost: README, Li)")] if missing else []


def _nrff_per_gamma(curves: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """NRFF's best accuracy over C for every k and gamma run (the curves keep its best gamma per k only)."""
    nrff = curves[curves["method"] == "NRFF"]
    if nrff.empty:
        return []
    table = nrff.pivot_table(index="k", columns="gamma", values="accuracy", aggfunc="max")
    table = table.map(lambda v: f"{v:.2f}" if pd.notna(v) else "")
    table.columns = [f"gamma {g:g}" for g in table.columns]
    table.index = table.index.astype(int)
    return [("NRFF: best test accuracy (%) over C, per k and gamma (blank: not run)", table.reset_index())]


def _solver_deviation(trials: pd.DataFrame) -> list[str]:
    """A deviation line when some runs were solved by rfbench's Newton method rather than LIBLINEAR."""
    if not (trials["classifier.solver"].astype(str) == "newton").any():
        return []
    return ["solver: Li trains every point with LIBLINEAR; the runs the Solvers section lists under newton are "
            "solved by rfbench's exact Newton method instead: the same L2-loss SVM problem, to its optimum"]


def _index_bits(trials: pd.DataFrame) -> list[tuple[str, str]]:
    """How many bits GCWS's sampled index has on this dataset, and so which b matches Li's b = 8."""
    gcws = trials[trials["kernel.name"] == "gmm"]
    if gcws.empty:
        return []
    d = int(gcws["d"].iloc[0])
    split = bool(gcws["feature_map.gmm_transform"].iloc[0])
    m = 2 * d if split else d
    width = index_width(m)
    text = f"i* takes m = {m} values ({'2D' if split else 'D'}, D = {d}), so b = {width} keeps all of it"
    if width <= 8:  # Li's b = 8 then adds only columns that no row ever sets
        text += (f", and Li's b = 8 keeps no more: its codes are ours plus 2^8 - 2^{width} always-zero columns "
                 "per sample (the same linear SVM)")
    return [("Bits of the index", f"{text}; b > {width} is refused.")]


def _solvers(trials: pd.DataFrame) -> pd.DataFrame:
    """The values of k each method (and b) was trained at, per ``classifier.solver``."""
    b = [f"{v:g}" if pd.notna(v) else "-" for v in trials.get("feature_map.b", [np.nan] * len(trials))]
    points = trials.assign(method=trials["kernel.name"].map(HASH_METHOD), b=b,
                           solver=trials["classifier.solver"].astype(str))
    return (points.groupby(["method", "b", "solver"], dropna=False)["feature_map.n_components"]
            .agg(lambda k: ", ".join(f"{v:g}" for v in sorted(k.dropna().unique())) or "-")
            .rename("k").reset_index())


def _best_nrff_gamma(curves: pd.DataFrame) -> pd.DataFrame:
    """The curves with NRFF kept only at its best gamma (highest accuracy over C) for each k."""
    nrff = curves[curves["method"] == "NRFF"]
    if nrff.empty:
        return curves
    top = nrff.groupby(["k", "gamma"])["accuracy"].max().reset_index()
    keep = top.loc[top.groupby("k")["accuracy"].idxmax(), ["k", "gamma"]]
    nrff = nrff.merge(keep, on=["k", "gamma"])
    return pd.concat([curves[curves["method"] != "NRFF"], nrff], ignore_index=True)


def _hash_panel(ax, curves: pd.DataFrame, k: float) -> None:
    gcws = curves[curves["method"] == "GCWS"]
    colors = {b: f"C{i}" for i, b in enumerate(sorted(gcws["b"].unique()))}  # the same b, the same colour
    for b, curve in gcws[gcws["k"] == k].groupby("b"):
        ax.plot(curve["C_li"], curve["accuracy"], "-", marker="s", ms=3, color=colors[b], label=f"GCWS b={b:g}")
    nrff = curves[(curves["method"] == "NRFF") & (curves["k"] == k)]
    if len(nrff):
        ax.plot(nrff["C_li"], nrff["accuracy"], "b--o", ms=3, label="NRFF at its best gamma")
    linear = curves[curves["method"] == "linear"]
    ax.plot(linear["C_li"], linear["accuracy"], "k-*", ms=4, label="linear")
    ax.set_xscale("log", base=2)
    gamma = f", NRFF gamma {nrff['gamma'].iloc[0]:g}" if len(nrff) else ""
    ax.set_title(f"k = {k:g}{gamma}", fontsize=9)


def _best_per_k(curves: pd.DataFrame) -> pd.DataFrame:
    """One row per k: the best accuracy over C of each GCWS b, of NRFF (its gamma) and of linear."""
    rows = []
    linear = curves.loc[curves["method"] == "linear", "accuracy"].max()
    for k, part in curves.dropna(subset=["k"]).groupby("k"):
        row = {"k": int(k)}
        for b, curve in part[part["method"] == "GCWS"].groupby("b"):
            row[f"GCWS b={b:g}"] = round(curve["accuracy"].max(), 2)
        nrff = part[part["method"] == "NRFF"]
        if len(nrff):
            row["NRFF"] = round(nrff["accuracy"].max(), 2)
            row["NRFF gamma"] = f"{nrff['gamma'].iloc[0]:g}"
        row["linear"] = round(linear, 2)
        row["trials"] = int(part["trials"].min())
        rows.append(row)
    return pd.DataFrame(rows)


def _gcws_above_nrff(best: pd.DataFrame, nrff: str) -> ClaimCheck:
    """Whether the best GCWS is above the ``nrff`` column of ``best`` at every k with both."""
    gcws = best.filter(like="GCWS").max(axis=1)
    if nrff not in best or gcws.isna().all():
        return ClaimCheck(None, "GCWS and NRFF not both run")
    both = best.assign(gcws=gcws).dropna(subset=["gcws", nrff])
    fails = both.loc[both["gcws"] <= both[nrff], "k"].tolist()
    return ClaimCheck(not fails, f"above at {len(both) - len(fails)} of {len(both)} k"
                      + (f"; not at k = {', '.join(f'{k:g}' for k in fails)}" if fails else ""))


def _smallest_k_above_linear(best: pd.DataFrame, k: float, published_linear: float | None) -> ClaimCheck:
    """Judged against our linear SVM; the paper's linear accuracy is named beside it."""
    row = best[best["k"] == k].iloc[0]
    gcws = row.filter(like="GCWS").max()
    if np.isnan(gcws) or np.isnan(row["linear"]):
        return ClaimCheck(None, "GCWS or linear not run")
    paper = f" (the paper's linear: {published_linear:.2f})" if published_linear else ""
    return ClaimCheck(bool(gcws > row["linear"]), f"GCWS {gcws:.2f} vs linear {row['linear']:.2f}{paper}")


def _verdict(check: ClaimCheck) -> str:
    return {True: "holds", False: "fails", None: "not judged"}[check.holds]


def _panels(path: Path, keys: list, draw, title: str) -> None:
    """One panel per key (``draw(ax, key)``), shared legend, saved to ``path``."""
    cols = min(4, len(keys))
    rows = -(-len(keys) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.8 * rows), squeeze=False)
    for ax, key in zip(axes.flat, keys):
        draw(ax, key)
        if not ax.get_title():
            ax.set_title(str(key), fontsize=9)
        ax.set_xlabel("C", fontsize=8)
        ax.set_ylabel("test accuracy (%)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(keys):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    plotting.save(fig, path)
