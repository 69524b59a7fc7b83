"""AsK-RFF (He et al. 2022) Figures 1-3 and Table 1, next to the published values.

Figures 2-3 and Table 1 are sweeps of the ordinary runner (see the ``askrff-*``
targets of the Makefile); this module turns their ``trials.csv`` files into the
paper's layout.  Table 1 and Figure 3 read one tree of runs, ``askrff/accuracy``:
Table 1's Asy cells are Figure 3's M = 2d points, the same runs.  Figure 1
(total-mass estimation on 1-D Gaussian data) needs no dataset, so it is
computed here.

    python -m rfbench.reports.askrff {fig1,fig2,fig3,table1} [--results results]
"""
from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from rfbench import plotting, results
from rfbench.feature_map import AsKRFF
from rfbench.kernel import PARTS, make_kernel

KERNELS = ("shift_gaussian", "sinh_gaussian", "cosh_gaussian")
#: Config columns that tell the points of Figures 2-3 and the cells of Table 1 apart.
POINT = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "feature_map.m_over_d"]
#: The paper's column for each dataset config (the fallback split stands in for cod-RNA).
PAPER_DATASET = {"cod_rna_stratified": "cod_rna"}
DATASET_ORDER = ("spambase", "ijcnn1", "letter", "cod_rna")
#: Dataset configs in that order; fixes each dataset's colour in Figure 3.
DATASET_CONFIGS = ("spambase", "ijcnn1", "letter", "cod_rna_stratified", "cod_rna")
#: Table 1's number of frequencies per input dimension (M = 2d).
TABLE1_M_OVER_D = 2.0
#: Table 1 and Figure 3 read one tree of classification runs (experiment=askrff_accuracy).
ACCURACY_RUNS = "accuracy"
METHOD_ORDER = [(k, a) for k in KERNELS for a in ("Asy", "Sym")] + [("gaussian", "RBF"), ("linear", "Linear")]


def published_table1() -> pd.DataFrame:
    """The paper's Table 1 (percent), from the labelled reference file."""
    path = resources.files("rfbench.reports") / "published" / "askrff_table1.csv"
    with resources.as_file(path) as csv:
        return pd.read_csv(csv, comment="#")


# --- Figure 1 -------------------------------------------------------------------
def fig1(out: Path, *, trials: int = 10, n_points: int = 2000, n_subset: int = 10,
         log2_max: int = 10, seed: int = 0) -> pd.DataFrame:
    """Estimated (eq. 12, Ns = n_subset) vs exact total masses on 1-D Gaussian points."""
    X = np.random.default_rng(seed).standard_normal((n_points, 1))
    rows = []
    for kernel in KERNELS:
        for m in 2 ** np.arange(1, log2_max + 1):
            for t in range(trials):
                state = int(np.random.SeedSequence(seed, spawn_key=(t,)).generate_state(1)[0])
                fmap = AsKRFF(kernel=kernel, n_components=int(m), n_subset=n_subset,
                              random_state=state).fit(X)
                rows.append({"kernel": kernel, "d": 1, "M": int(m), "m_over_d": int(m), "trial": t,
                             "seed": seed, "n_points": n_points, "n_subset": n_subset,
                             **_masses(fmap.total_masses_)})
    masses = pd.DataFrame(rows)
    exact = pd.DataFrame([{"kernel": k, **_masses(make_kernel(k, 1).exact_total_masses())}
                          for k in KERNELS])
    results.write_csv(out / "masses.csv", masses)
    results.write_csv(out / "exact.csv", exact)
    plotting.masses_vs_m(masses, exact, out / "fig1.png")
    _write_md(out / "fig1.md", "AsK-RFF Figure 1: total-mass estimation (d = 1, Ns = "
              f"{n_subset}, {n_points} points from N(0, 1), {trials} trials)",
              _fig1_table(masses, exact))
    return masses


def _masses(masses: dict) -> dict[str, float]:
    return {f"mass_{part}": float(masses.get(part, 0.0)) for part in PARTS}


def _fig1_table(masses: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    top = masses[masses["M"] == masses["M"].max()]
    rows = []
    for kernel in KERNELS:
        truth = exact.set_index("kernel").loc[kernel]
        est = top[top["kernel"] == kernel]
        for part in PARTS:
            col = f"mass_{part}"
            rows.append({"kernel": kernel, "part": part, "exact": truth[col],
                         f"estimate at M={top['M'].iloc[0]}": _pm(est[col].mean(), est[col].std()),
                         "relative error of mean": _rel(est[col].mean(), truth[col])})
    return pd.DataFrame(rows)


# --- Figures 2 and 3 -----------------------------------------------------------------
def fig2(root: Path) -> pd.DataFrame:
    """Relative Gram error against log2(M/d), three kernels x the datasets run."""
    trials = collect_single_runs(root)
    plotting.metric_vs_m(trials, "gram_error", root / "fig2.png")
    summary = _curve_summary(trials, "gram_error")
    results.write_csv(root / "fig2.csv", summary)
    _write_md(root / "fig2.md", "AsK-RFF Figure 2: relative Gram error ||K - K~||_F / ||K||_F",
              summary, _deviations(trials))
    return summary


def fig3(runs: Path, out: Path) -> pd.DataFrame:
    """Test accuracy and feature-sampling time against log2(M/d), with the linear reference.

    Reads the Asy and Linear runs of the accuracy tree ``runs`` (shared with Table 1).
    """
    trials = collect_single_runs(runs)
    rff = trials[(trials["feature_map.name"] == "askrff") & (trials["feature_map.part"] == "asymmetric")]
    linear = trials[trials["feature_map.name"] == "identity"]
    _require_points(rff, runs, "Asy (feature_map=askrff feature_map.part=asymmetric)")
    plotting.accuracy_and_time_vs_m(rff, linear, out / "fig3.png", kernels=KERNELS,
                                    datasets=DATASET_CONFIGS)
    summary = _curve_summary(rff, "test_accuracy").merge(
        _curve_summary(rff, "time_fit"), on=["dataset.name", "kernel.name", "m_over_d"])
    results.write_csv(out / "fig3.csv", summary)
    lin = linear.groupby("dataset.name")["test_accuracy"].agg(["mean", "std", "count"]).reset_index()
    _write_md(out / "fig3.md", "AsK-RFF Figure 3: test accuracy and feature-sampling time",
              summary, _deviations(trials), extra=("Linear classifier (dashed lines)", lin))
    return summary


def collect_single_runs(root: Path) -> pd.DataFrame:
    """The trials below ``root``, after checking that each point comes from a single run.

    Runs of another config left in the same tree (say, from before a default
    changed) would otherwise be averaged in silently.

    Raises
    ------
    ValueError
        Naming the point, its runs and the config values they differ in.
    """
    trials = results.collect(root)
    keys = [k for k in POINT if k in trials.columns]
    for point, group in trials.groupby(keys, dropna=False):
        per_run = group.groupby("run_id").first()
        if len(per_run) > 1:
            columns = [c for c in results.config_columns(per_run) if per_run[c].nunique(dropna=False) > 1]
            values = "; ".join(f"{c}: {per_run[c].tolist()}" for c in columns)
            raise ValueError(
                f"{dict(zip(keys, point))} has {len(per_run)} runs below {root} ({', '.join(per_run.index)}) "
                f"that differ in {values or 'nothing recorded'}; move the stale runs/<run_id> directories "
                "away, or write each variant to its own results tree (RESULTS=...)")
    return trials


def _curve_summary(trials: pd.DataFrame, metric: str) -> pd.DataFrame:
    keys = ["dataset.name", "kernel.name", "m_over_d"]
    stats = trials.groupby(keys)[metric].agg(["mean", "std", "count"]).reset_index()
    return stats.rename(columns={s: f"{metric}_{s}" for s in ("mean", "std", "count")})


# --- Table 1 --------------------------------------------------------------------
def table1(runs: Path, out: Path) -> pd.DataFrame:
    """Test accuracy at M = 2d: ours vs the paper per cell, with a verdict.

    Reads the M = 2d and Linear runs of the accuracy tree ``runs`` (shared with Figure 3).
    A cell *agrees* when the two mean +- std bars overlap, |ours - paper| <= sd_ours + sd_paper.
    """
    trials = collect_single_runs(runs)
    trials = trials[(trials["feature_map.name"] == "identity") | (trials["m_over_d"] == TABLE1_M_OVER_D)]
    _require_points(trials, runs, f"M = {TABLE1_M_OVER_D} d")
    trials = trials.assign(method=trials["kernel.name"], approximation=trials.apply(_approximation, axis=1),
                           dataset=trials["dataset.name"].replace(PAPER_DATASET))
    ours = (trials.groupby(["method", "approximation", "dataset"])["test_accuracy"]
            .agg(["mean", "std", "count"]).mul([100, 100, 1]).reset_index()
            .rename(columns={"mean": "ours_mean", "std": "ours_std", "count": "trials"}))
    paper = published_table1().rename(columns={"accuracy_mean": "paper_mean", "accuracy_std": "paper_std"})
    table = ours.merge(paper, on=["method", "approximation", "dataset"], how="outer")
    table["difference"] = table["ours_mean"] - table["paper_mean"]
    # one trial has no sd: its bar is a point
    table["agrees"] = table["difference"].abs() <= table["ours_std"].fillna(0) + table["paper_std"]
    results.write_csv(out / "table1.csv", table)
    _write_md(out / "table1.md", "AsK-RFF Table 1: test accuracy (%) at M = 2d, ours vs paper",
              _paper_layout(table), _deviations(trials),
              note="Cell: ours mean +- sd (paper mean +- sd) [difference]; 'ok' when the +-1 sd bars "
                   "overlap, 'DIFFERS' otherwise. Published values: rfbench/reports/published/askrff_table1.csv.")
    return table


def _require_points(trials: pd.DataFrame, runs: Path, what: str) -> None:
    if trials.empty:
        raise ValueError(f"no {what} runs below {runs}; run the make target (or its sweeps) first")


def _approximation(row: pd.Series) -> str:
    if row["feature_map.name"] == "askrff":
        return "Asy" if row["feature_map.part"] == "asymmetric" else "Sym"
    return {"rff": "RBF", "identity": "Linear"}[row["feature_map.name"]]


def _paper_layout(table: pd.DataFrame) -> pd.DataFrame:
    cells = table.set_index(["method", "approximation", "dataset"])
    datasets = [d for d in DATASET_ORDER if d in set(table["dataset"])]
    full = table["trials"].max()
    rows = []
    for method, approx in METHOD_ORDER:
        row = {"kernel": method, "": approx}
        for name in datasets:
            key = (method, approx, name)
            row[name] = _cell(cells.loc[key], full) if key in cells.index else ""
        rows.append(row)
    return pd.DataFrame(rows)


def _cell(c: pd.Series, full: int) -> str:
    """One cell; a cell with fewer trials than the fullest cell says how many it has."""
    if np.isnan(c["ours_mean"]):
        return f"not run ({_pm(c['paper_mean'], c['paper_std'], 3)})"
    verdict = "ok" if c["agrees"] else "DIFFERS"
    partial = f", {int(c['trials'])} of {int(full)} trials" if c["trials"] < full else ""
    return (f"{_pm(c['ours_mean'], c['ours_std'], 3)} ({_pm(c['paper_mean'], c['paper_std'], 3)}) "
            f"[{c['difference']:+.2f}{partial}] {verdict}")


# --- formatting -------------------------------------------------------------------
def _pm(mean: float, std: float, digits: int = 4) -> str:
    """``mean +- std``; a single value (std NaN) prints its mean alone."""
    if digits == 4:
        text, sd = f"{mean:.{digits}g}", f"{std:.2g}"
    else:
        text, sd = f"{mean:.{digits}f}", f"{std:.{digits}f}"
    return text if np.isnan(std) else f"{text} +- {sd}"


def _rel(estimate: float, exact: float) -> str:
    return f"{abs(estimate - exact) / abs(exact):.2%}" if exact else f"{estimate:.2g} (exact 0)"


def _deviations(trials: pd.DataFrame) -> list[str]:
    return sorted({d for d in trials.get("deviations", pd.Series(dtype=str)).dropna() if d})


def _write_md(path: Path, title: str, table: pd.DataFrame, deviations: list[str] = (),
              note: str = "", extra: tuple[str, pd.DataFrame] | None = None) -> None:
    lines = [f"# {title}", "", table.to_markdown(index=False, floatfmt=".4g"), ""]
    if note:
        lines += [note, ""]
    if extra:
        lines += [f"## {extra[0]}", "", extra[1].to_markdown(index=False, floatfmt=".4g"), ""]
    if deviations:
        lines += ["## Deviations from the paper's protocol", ""] + [f"- {d}" for d in deviations] + [""]
    results.write_atomic(path, "\n".join(lines))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rfbench.reports.askrff", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=["fig1", "fig2", "fig3", "table1"])
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="results tree; the target writes <results>/askrff/<target> and reads its runs "
                             "there (fig2) or in <results>/askrff/accuracy (fig3, table1)")
    parser.add_argument("--trials", type=int, default=10, help="fig1 only")
    parser.add_argument("--log2-max", type=int, default=10, help="fig1 only: largest log2(M/d)")
    args = parser.parse_args(argv)
    out = args.results / "askrff" / args.target
    try:
        if args.target == "fig1":
            fig1(out, trials=args.trials, log2_max=args.log2_max)
        elif args.target == "fig2":
            fig2(out)
        else:
            {"fig3": fig3, "table1": table1}[args.target](args.results / "askrff" / ACCURACY_RUNS, out)
    except (FileNotFoundError, ValueError) as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {out}/{args.target}.*")


if __name__ == "__main__":
    main()
