"""AsK-RFF's protocol studies: Table 1's cells under choices the paper leaves open.

- ``liblinear`` (``make askrff-liblinear``): the Linear cells of letter and ijcnn1 under LibLinear's
  solvers, intercept, C = 1 or the paper's CV grid, and the data as given or in [0, 1]
  (``<results>/askrff/liblinear/runs``);
- ``split_seeds`` (``make askrff-split-seeds``): spambase's cells over ten random partitions
  (``<results>/askrff/split_seeds/runs``).

Each writes ``<results>/askrff/<study>/<study>.{csv,md}``; the verdict records read the CSVs
(:mod:`rfbench.papers.askrff.verdicts`), whose rules are in results/askrff/README.md.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from rfbench.engine import records
from rfbench.report import published, render
from rfbench.report.runs import collect_single_runs

PAPER = "askrff"
#: The paper's C grid (Sec. 5.3) as the configs spell it; anything else is a fixed C.
PAPER_GRID = "[-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]"
#: The paper's scaling ("all data are normalized to [0,1]^d", Sec. 5): the configs' default.
PAPER_SCALE = "minmax"
#: Config columns that tell the LibLinear study's arms apart.
OPTIONS = ["dataset.name", "classifier.solver", "classifier.bias", "classifier.log2_C", "dataset.scale"]
#: What each solver is (LibLinear's -s; newton: rfbench's optimum of the -s 1 / -s 2 problem).
SOLVERS = {"newton": "L2-loss SVM to the optimum (ours)", "1": "-s 1 L2-loss SVM, dual (LibLinear's default)",
           "2": "-s 2 L2-loss SVM, primal", "3": "-s 3 L1-loss SVM, dual", "4": "-s 4 Crammer-Singer"}
#: Config columns that tell the split-seed study's cells apart.
SPLITS = ["kernel.name", "feature_map.name", "feature_map.part", "dataset.split.seed"]


def _published_table1(dataset: str) -> pd.DataFrame:
    pub = published.load(published.path_of(PAPER))
    return pub[(pub["source"] == "Table 1") & (pub["dataset"] == dataset)]


def liblinear(runs: Path, out: Path) -> pd.DataFrame:
    """One row per arm of the LibLinear study: accuracy (%), the C picked, the paper's Linear value and
    whether the paper's text allows the arm (its scaling and C grid); ``out/liblinear.{csv,md}``."""
    trials = collect_single_runs(runs, OPTIONS)
    scale = trials.get("dataset.scale", pd.Series(PAPER_SCALE, index=trials.index)).fillna(PAPER_SCALE)
    trials = trials.assign(scale=scale, solver=trials["classifier.solver"].astype(str))
    rows = []
    for keys, group in trials.groupby(["dataset.name", "solver", "classifier.bias", "classifier.log2_C", "scale"]):
        name, solver, bias, grid, scaled = keys
        paper = _published_table1(name).query("method == 'linear'")["value"]
        accuracy = 100 * group["test_accuracy"].mean()
        rows.append({"dataset": name, "solver": SOLVERS.get(solver, solver), "bias": bias,
                     "C": "CV over 2^-5..2^5 (paper)" if grid == PAPER_GRID else f"fixed, log2 C = {grid}",
                     "scale": "[0, 1] (paper)" if scaled == PAPER_SCALE else scaled,
                     "allowed": grid == PAPER_GRID and scaled == PAPER_SCALE, "accuracy": accuracy,
                     "n": len(group), "C picked": "; ".join(f"{c:g}" for c in group["C"]),
                     "paper": float(paper.iloc[0]), "difference": accuracy - float(paper.iloc[0]),
                     "run_id": group["run_id"].iloc[0]})
    table = pd.DataFrame(rows).sort_values(["dataset", "allowed", "difference"], ascending=[True, False, True],
                                           key=lambda column: column.abs() if column.name == "difference" else column)
    records.write_csv(out / "liblinear.csv", table)
    render.write_markdown(out / "liblinear.md", "AsK-RFF Table 1's Linear cells under LibLinear's options", [
        ("Arms (test accuracy %, one row per run; allowed: the paper's [0, 1] scaling and CV grid)",
         table.assign(accuracy=table["accuracy"].map("{:.3f}".format),
                      difference=table["difference"].map(lambda v: render.signed(v, 3)))),
        ("Rule", "results/askrff/README.md, \"Study: the Linear cells under LibLinear's options\".")])
    return table


def split_seeds(runs: Path, out: Path) -> pd.DataFrame:
    """Spambase's Table 1 cells per partition: per cell the mean over partitions of the partition means,
    their sd, range and the paper's value; ``out/split_seeds.{csv,md}``."""
    trials = collect_single_runs(runs, SPLITS)
    part = trials.get("feature_map.part", pd.Series(index=trials.index, dtype=object))
    approximation = [{"rff": "RBF", "identity": "Linear"}.get(f, "Asy" if p == "asymmetric" else "Sym")
                     for f, p in zip(trials["feature_map.name"], part)]
    trials = trials.assign(method=trials["kernel.name"], approximation=approximation)
    per_split = (trials.groupby(["method", "approximation", "dataset.split.seed"])["test_accuracy"].mean()
                 .mul(100).rename("accuracy").reset_index())
    pub = _published_table1("spambase").set_index(["method", "approximation"])["value"]
    rows = []
    for (method, approximation), group in per_split.groupby(["method", "approximation"]):
        paper = float(pub.get((method, approximation), float("nan")))
        mean, sd = group["accuracy"].mean(), group["accuracy"].std()
        rows.append({"method": method, "approximation": approximation, "partitions": len(group),
                     "mean": mean, "sd": sd, "min": group["accuracy"].min(), "max": group["accuracy"].max(),
                     "partition 0": float(group.loc[group["dataset.split.seed"] == 0, "accuracy"].iloc[0]),
                     "paper": paper, "within 2 sd": abs(paper - mean) <= 2 * sd,
                     "runs": " ".join(sorted(set(trials.loc[(trials["method"] == method)
                                                            & (trials["approximation"] == approximation),
                                                            "run_id"])))})
    table = pd.DataFrame(rows)
    records.write_csv(out / "split_seeds.csv", table)
    render.write_markdown(out / "split_seeds.md", "AsK-RFF Table 1, spambase: test accuracy (%) over ten partitions",
                          [("Per cell: over the partitions (each its trials' mean)", table.drop(columns="runs")),
                           ("Rule", "results/askrff/README.md, \"Study: spambase's partition\".")])
    return table
