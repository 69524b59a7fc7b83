"""AsK-RFF's protocol studies: Table 1's cells under choices the paper leaves open.

- ``liblinear`` (``make askrff-liblinear``): the Linear cells of letter and ijcnn1 under LibLinear's
  solvers, intercept, C = 1 or the paper's CV grid, and the data as given or in [0, 1]
  (``<results>/askrff/liblinear/runs``);
- ``split_seeds`` (``make askrff-split-seeds``, ``make askrff-split-seeds-letter``): spambase's cells over
  ten random partitions, letter's over five (``<results>/askrff/split_seeds/runs``);
- ``kernel_options`` (``make askrff-kernel-options``): letter's and ijcnn1's kernel cells with RBF as
  sqrt(2/M) cos(w'x + b) and with LibLinear's default ``-s 1`` beside ours at C = 32
  (``<results>/askrff/kernel_options/runs``).

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
SPLITS = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "dataset.split.seed"]
#: Config columns that tell the kernel-options study's arms apart.
KERNEL_OPTIONS = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "feature_map.variant",
                  "classifier.solver", "classifier.log2_C"]


def _published_table1(dataset: str | None = None) -> pd.DataFrame:
    pub = published.load(published.path_of(PAPER))
    pub = pub[pub["source"] == "Table 1"]
    return pub if dataset is None else pub[pub["dataset"] == dataset]


def _cells(trials: pd.DataFrame) -> pd.DataFrame:
    """``trials`` with Table 1's cell names: ``method`` (the kernel) and ``approximation``."""
    part = trials.get("feature_map.part", pd.Series(index=trials.index, dtype=object))
    approximation = [{"rff": "RBF", "identity": "Linear"}.get(f, "Asy" if p == "asymmetric" else "Sym")
                     for f, p in zip(trials["feature_map.name"], part)]
    return trials.assign(dataset=trials["dataset.name"], method=trials["kernel.name"], approximation=approximation)


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
    """Table 1's cells per partition, per dataset: per cell the mean over partitions of the partition means,
    their sd, range and the paper's value; ``out/split_seeds.{csv,md}``."""
    trials = _cells(collect_single_runs(runs, SPLITS))
    cell = ["dataset", "method", "approximation"]
    per_split = (trials.groupby([*cell, "dataset.split.seed"])["test_accuracy"].mean()
                 .mul(100).rename("accuracy").reset_index())
    pub = _published_table1().set_index(cell)["value"]
    rows = []
    for (dataset, method, approximation), group in per_split.groupby(cell):
        paper = float(pub.get((dataset, method, approximation), float("nan")))
        mean, sd = group["accuracy"].mean(), group["accuracy"].std()
        ran = trials[(trials["dataset"] == dataset) & (trials["method"] == method)
                     & (trials["approximation"] == approximation)]
        rows.append({"dataset": dataset, "method": method, "approximation": approximation,
                     "partitions": len(group), "mean": mean, "sd": sd, "min": group["accuracy"].min(),
                     "max": group["accuracy"].max(),
                     "partition 0": group.loc[group["dataset.split.seed"] == 0, "accuracy"].mean(),
                     "paper": paper, "within 2 sd": abs(paper - mean) <= 2 * sd,
                     "runs": " ".join(sorted(set(ran["run_id"])))})
    table = pd.DataFrame(rows)
    records.write_csv(out / "split_seeds.csv", table)
    render.write_markdown(out / "split_seeds.md", "AsK-RFF Table 1: test accuracy (%) over random partitions",
                          [("Per cell: over the partitions (each its trials' mean)", table.drop(columns="runs")),
                           ("Rule", "results/askrff/README.md, \"Study: spambase's partition\" and "
                                    "\"Study: letter's and ijcnn1's kernel cells\".")])
    return table


def _arm(row: pd.Series) -> str:
    if row["feature_map.name"] == "rff" and row.get("feature_map.variant") == "cos_offset":
        return "RBF as sqrt(2/M) cos(w'x + b), M columns"
    return SOLVERS.get(str(row["classifier.solver"]), str(row["classifier.solver"])) + " at C = 32"


def kernel_options(runs: Path, out: Path, table1: Path) -> pd.DataFrame:
    """One row per (cell, arm) of the kernel-options study: the arm's accuracy (%), ours in Table 1
    (``table1``: its ``table1.csv``) and the paper's; for the solver arm the paired shift (``-s 1`` minus
    ours at C = 32, the same trials' features); ``out/kernel_options.{csv,md}``."""
    trials = _cells(collect_single_runs(runs, KERNEL_OPTIONS))
    trials = trials.assign(arm=trials.apply(_arm, axis=1), solver=trials["classifier.solver"].astype(str))
    cell = ["dataset", "method", "approximation"]
    ours = pd.read_csv(table1).set_index(cell)[["mean", "published"]]
    rows = []
    for (dataset, method, approximation), group in trials.groupby(cell):
        table1_mean, paper = ours.loc[(dataset, method, approximation)]
        rows.extend(_arm_rows(group, dataset, method, approximation, table1_mean, paper))
    table = pd.DataFrame(rows)
    records.write_csv(out / "kernel_options.csv", table)
    render.write_markdown(out / "kernel_options.md", "AsK-RFF Table 1, letter and ijcnn1: kernel cells under "
                          "settings the paper leaves open", [
        ("Arms (test accuracy %; shift: the arm minus ours on the same trials, solver arm only)",
         table.drop(columns="runs")),
        ("Rule", "results/askrff/README.md, \"Study: letter's and ijcnn1's kernel cells\".")])
    return table


def _arm_rows(group: pd.DataFrame, dataset: str, method: str, approximation: str, table1_mean: float,
              paper: float) -> list[dict]:
    """The cell's arms: RBF's other map against Table 1's cell, ``-s 1`` against ours paired by trial."""
    gap = table1_mean - paper
    base = {"dataset": dataset, "method": method, "approximation": approximation, "ours": table1_mean,
            "paper": paper}
    rows = []
    form = group[group["arm"].str.startswith("RBF")]
    if len(form):
        accuracy = 100 * form["test_accuracy"].mean()
        rows.append({**base, "arm": form["arm"].iloc[0], "n": len(form), "accuracy": accuracy, "shift": float("nan"),
                     "difference": accuracy - paper, "explains": abs(accuracy - paper) <= abs(gap) / 2,
                     "runs": " ".join(sorted(set(form["run_id"])))})
    fixed = group[~group["arm"].str.startswith("RBF")]
    newton, liblinear = (fixed[fixed["solver"] == s].set_index("trial") for s in ("newton", "1"))
    paired = newton.index.intersection(liblinear.index)
    if len(paired):
        shift = 100 * (liblinear.loc[paired, "test_accuracy"] - newton.loc[paired, "test_accuracy"]).mean()
        for frame in (newton, liblinear):
            accuracy = 100 * frame.loc[paired, "test_accuracy"].mean()
            is_arm = frame is liblinear
            rows.append({**base, "arm": frame["arm"].iloc[0], "n": len(paired), "accuracy": accuracy,
                         "shift": shift if is_arm else 0.0, "difference": accuracy - paper,
                         "explains": is_arm and abs(gap + shift) <= abs(gap) / 2,
                         "runs": " ".join(sorted(set(frame["run_id"])))})
    return rows
