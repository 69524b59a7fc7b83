"""AsK-RFF's protocol studies: Table 1's cells under choices the paper leaves open.

- ``liblinear`` (``make askrff-liblinear``): the Linear cells of letter and ijcnn1 under LibLinear's
  solvers, intercept, C = 1 or the paper's CV grid, and the data as given or in [0, 1]
  (``<results>/askrff/liblinear/runs``);
- ``split_seeds`` (``make askrff-split-seeds``, ``make askrff-split-seeds-letter``): spambase's cells over
  ten random partitions, letter's over five (``<results>/askrff/split_seeds/runs``);
- ``kernel_options`` (``make askrff-kernel-options``): letter's and ijcnn1's kernel cells with RBF as
  sqrt(2/M) cos(w'x + b) and with LibLinear's ``-s 0``-``-s 3`` beside ours at C = 32 (``-s 1``, the default, may
  explain a cell; the others are the losses study's screen)
  (``<results>/askrff/kernel_options/runs``).
- ``data_options`` (``make askrff-data-options``): letter's and ijcnn1's cells with the [0, 1] scaling
  fitted on the training and test rows together or on each part alone, with the i-block of Sec. 5.3
  dropped or kept, and our former Table 1 (``<results>/askrff/former/runs``), paired by trial with Table 1's
  runs (``<results>/askrff/data_options/runs``).

Each writes ``<results>/askrff/<study>/<study>.{csv,md}``; the verdict records read the CSVs
(:mod:`rfbench.papers.askrff.verdicts`), whose rules are in results/askrff/README.md.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from rfbench.engine import config, records
from rfbench.report import published, render
from rfbench.report.runs import collect_single_runs

PAPER = "askrff"
#: The paper's column for each dataset config (the fallback split stands in for cod-RNA).
PAPER_DATASET = {"cod_rna_stratified": "cod_rna"}
#: The paper's C grid (Sec. 5.3) as the configs spell it; anything else is a fixed C.
PAPER_GRID = "[-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]"
#: The paper's scaling ("all data are normalized to [0,1]^d", Sec. 5, before the partition): Table 1's map,
#: fitted on the training and test rows together.
PAPER_SCALE = "minmax_pooled"
#: The dataset configs' own scaling, which a run recorded before the key existed had.
DEFAULT_SCALE = config.IMPLIED_VALUES["dataset.scale"]
#: Config columns that tell the LibLinear study's arms apart.
OPTIONS = ["dataset.name", "classifier.solver", "classifier.bias", "classifier.log2_C", "dataset.scale"]
#: What each solver is (LibLinear's -s; newton: rfbench's optimum of the -s 1 / -s 2 problem).
SOLVERS = {"newton": "L2-loss SVM to the optimum (ours)", "0": "-s 0 logistic regression, primal",
           "1": "-s 1 L2-loss SVM, dual (LibLinear's default)", "2": "-s 2 L2-loss SVM, primal",
           "3": "-s 3 L1-loss SVM, dual", "4": "-s 4 Crammer-Singer", "5": "-s 5 L1-regularized L2-loss SVM",
           "6": "-s 6 L1-regularized logistic regression", "7": "-s 7 logistic regression, dual"}
#: The kernel-options solver arms at C = 32 that may explain a cell (the study's rule of 2026-11-27: -s 1, the
#: primary's problem); the others are the losses study's screen (README, "Study: LibLinear's other losses").
EXPLAINS_AT_C32 = ("1",)
#: Config columns that tell the split-seed study's cells apart.
SPLITS = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "dataset.split.seed"]
#: Config columns that tell the kernel-options study's arms apart.
KERNEL_OPTIONS = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "feature_map.variant",
                  "classifier.solver", "classifier.log2_C"]


def _published_table1(dataset: str | None = None) -> pd.DataFrame:
    pub = published.load(published.path_of(PAPER))
    pub = pub[pub["source"] == "Table 1"]
    return pub if dataset is None else pub[pub["dataset"] == dataset]


def cells(trials: pd.DataFrame) -> pd.DataFrame:
    """``trials`` with Table 1's cell names: ``dataset`` (the paper's column), ``method``, ``approximation``."""
    part = trials.get("feature_map.part", pd.Series(index=trials.index, dtype=object))
    approximation = [{"rff": "RBF", "identity": "Linear"}.get(f, "Asy" if p == "asymmetric" else "Sym")
                     for f, p in zip(trials["feature_map.name"], part)]
    return trials.assign(dataset=trials["dataset.name"].replace(PAPER_DATASET), method=trials["kernel.name"],
                         approximation=approximation)


def liblinear(runs: Path, out: Path) -> pd.DataFrame:
    """One row per arm of the LibLinear study: accuracy (%), the C picked, the paper's Linear value and
    whether the paper's text allows the arm (its scaling and C grid); ``out/liblinear.{csv,md}``."""
    trials = collect_single_runs(runs, OPTIONS)
    scale = trials.get("dataset.scale", pd.Series(DEFAULT_SCALE, index=trials.index)).fillna(DEFAULT_SCALE)
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
    trials = cells(collect_single_runs(runs, SPLITS))
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
    trials = cells(collect_single_runs(runs, KERNEL_OPTIONS))
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
        halves = abs(accuracy - paper) <= abs(gap) / 2  # a map, not a solver: moving half the gap explains
        rows.append({**base, "arm": form["arm"].iloc[0], "n": len(form), "accuracy": accuracy, "shift": float("nan"),
                     "difference": accuracy - paper, "moves half the gap": halves, "explains": halves,
                     "runs": " ".join(sorted(set(form["run_id"])))})
    fixed = group[~group["arm"].str.startswith("RBF")]
    newton = fixed[fixed["solver"] == "newton"].set_index("trial")
    for solver in sorted(set(fixed["solver"]) - {"newton"}):
        liblinear = fixed[fixed["solver"] == solver].set_index("trial")
        paired = newton.index.intersection(liblinear.index)
        if not len(paired):
            continue
        shift = 100 * (liblinear.loc[paired, "test_accuracy"] - newton.loc[paired, "test_accuracy"]).mean()
        for frame in (newton, liblinear) if solver == "1" else (liblinear,):
            accuracy = 100 * frame.loc[paired, "test_accuracy"].mean()
            is_arm = frame is liblinear
            rows.append({**base, "arm": frame["arm"].iloc[0], "n": len(paired), "accuracy": accuracy,
                         "shift": shift if is_arm else 0.0, "difference": accuracy - paper,
                         "moves half the gap": is_arm and abs(gap + shift) <= abs(gap) / 2,
                         "explains": is_arm and solver in EXPLAINS_AT_C32 and abs(gap + shift) <= abs(gap) / 2,
                         "runs": " ".join(sorted(set(frame["run_id"])))})
    return rows


#: Config columns that tell the data-options study's arms apart.
DATA_OPTIONS = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "dataset.scale",
                "feature_map.imaginary", "classifier.log2_C"]
#: What each ``dataset.scale`` of the study is.
SCALES = {"minmax": "[0, 1] fitted on the training rows",
          "minmax_pooled": "[0, 1] fitted on the training and test rows together",
          "minmax_each": "[0, 1] fitted on each part alone"}
#: The kernels whose map carries the i-block of Sec. 5.3 (Sinh has no mu_R^- part).
BLOCK_KERNELS = ("shift_gaussian", "cosh_gaussian")
#: How each arm stands to the text (results/askrff/README.md, the study's rule): only ``secondary``, a reading the
#: text allows other than Table 1's, may explain a cell.
READINGS = {"primary": "Table 1's readings (pooled scaling, no i-block)", "secondary": "a reading the text allows",
            "former": "our former choices (Table 1 before)", "one former choice": "one of our former choices kept"}


def _block(row: pd.Series) -> str:
    """The i-block's treatment where the map has one, else ``none``."""
    if row["kernel.name"] not in BLOCK_KERNELS or row["feature_map.name"] != "askrff":
        return "none"
    imaginary = row.get("feature_map.imaginary")
    return "magnitude" if pd.isna(imaginary) else str(imaginary)


def _reading(row: pd.Series) -> str:
    """How an arm stands to the text: Table 1's primary readings, the secondary scaling, or a former choice kept."""
    if row["source"] == "former":
        return "former"
    if row["dataset.scale"] == "minmax" or row["imaginary"] == "magnitude":
        return "one former choice"
    return "secondary" if row["dataset.scale"] == "minmax_each" else "primary"


def _data_arm(row: pd.Series) -> str:
    parts = [SCALES.get(row["dataset.scale"], str(row["dataset.scale"]))]
    parts += {"drop": ["the i-block dropped"], "magnitude": ["the i-block without its i"]}.get(row["imaginary"], [])
    if str(row["classifier.log2_C"]) != PAPER_GRID:
        parts.append(f"log2 C = {row['classifier.log2_C']}")
    return ("ours before: " if row["source"] == "former" else "") + "; ".join(parts)


def _table1_trials(accuracy_runs: Path) -> pd.DataFrame:
    """Table 1's trials (M = 2d and Linear) of an accuracy tree, with their cell names."""
    trials = collect_single_runs(accuracy_runs, ["dataset.name", "kernel.name", "feature_map.name",
                                                 "feature_map.part", "feature_map.m_over_d"])
    trials = trials[(trials["feature_map.name"] == "identity") | (trials["feature_map.m_over_d"] == 2)]
    return cells(trials)


def _arm_trials(runs: Path, former_runs: Path) -> pd.DataFrame:
    """The study's arms: its own runs and the former Table 1's, named, with their reading."""
    study = cells(collect_single_runs(runs, DATA_OPTIONS)).assign(source="study")
    former = _table1_trials(former_runs).assign(source="former")
    trials = pd.concat([study, former], ignore_index=True)
    trials["dataset.scale"] = trials["dataset.scale"].fillna(DEFAULT_SCALE)
    trials = trials.assign(imaginary=trials.apply(_block, axis=1), scale=trials["dataset.scale"])
    return trials.assign(arm=trials.apply(_data_arm, axis=1), reading=trials.apply(_reading, axis=1))


def _same_trials(ours: pd.DataFrame, cell: tuple[str, str, str], group: pd.DataFrame) -> pd.DataFrame:
    """Table 1's trials of ``cell`` (``ours``, indexed by cell and trial) paired with an arm's trials ``group``;
    refuses unless each pair has the same experiment seed (so the same frequencies, mass subsets and folds)."""
    same = ours.loc[[(*cell, t) for t in group["trial"]]]
    if (same["seed"].to_numpy() != group["seed"].to_numpy()).any():
        raise ValueError(f"{' '.join(cell)}: the arm's experiment seeds {group['seed'].tolist()} are not Table 1's "
                         f"{same['seed'].tolist()}; the pairing needs the same seeds")
    return same


def data_options(runs: Path, out: Path, accuracy_runs: Path, former_runs: Path, table1: Path) -> pd.DataFrame:
    """One row per (cell, arm) of the data-options study: the arm's accuracy (%) and Table 1's on the same
    trials (``accuracy_runs``, the same seeds, so the same frequencies, mass subsets and folds), their paired
    shift, Table 1's cell mean (``table1``) and the paper's. The arms are the study's runs (``runs``) and the
    former Table 1 (``former_runs``); ``explains`` is the study's rule (results/askrff/README.md): a reading
    the text allows other than Table 1's closes at least half of the gap; ``out/data_options.{csv,md}``."""
    trials = _arm_trials(runs, former_runs)
    cell = ["dataset", "method", "approximation"]
    ours = _table1_trials(accuracy_runs).set_index([*cell, "trial"])
    table = pd.read_csv(table1).set_index(cell)[["mean", "published"]]
    rows = []
    arms = ["arm", "reading", "scale", "imaginary"]
    for (dataset, method, approximation, arm, reading, scale, block), group in trials.groupby([*cell, *arms]):
        table1_mean, paper = table.loc[(dataset, method, approximation)]
        same = _same_trials(ours, (dataset, method, approximation), group)
        shift = 100 * (group["test_accuracy"].to_numpy() - same["test_accuracy"].to_numpy())
        gap = table1_mean - paper
        rows.append({"dataset": dataset, "method": method, "approximation": approximation, "arm": arm,
                     "reading": reading, "scale": scale, "imaginary": block, "n": len(group),
                     "accuracy": 100 * group["test_accuracy"].mean(),
                     "ours same trials": 100 * same["test_accuracy"].mean(), "shift": shift.mean(),
                     "shift sd": shift.std(ddof=1) if len(shift) > 1 else float("nan"),
                     "C picked": "; ".join(f"{c:g}" for c in group["C"]),
                     "ours C": "; ".join(f"{c:g}" for c in same["C"]), "ours": table1_mean, "paper": paper,
                     "gap": gap, "ours + shift": table1_mean + shift.mean(),
                     "explains": reading == "secondary" and abs(gap + shift.mean()) <= abs(gap) / 2,
                     "runs": " ".join(sorted(set(group["run_id"])))})
    result = pd.DataFrame(rows)
    records.write_csv(out / "data_options.csv", result)
    render.write_markdown(out / "data_options.md", "AsK-RFF Table 1, letter and ijcnn1: the data's scaling and "
                          "the imaginary unit", [
        ("Arms (test accuracy %; shift: the arm minus Table 1's run on the same trials; explains: "
         "|gap + shift| <= |gap| / 2, gap = ours - paper)", result.drop(columns="runs")),
        ("Readings", pd.DataFrame(READINGS.items(), columns=["reading", "what it is"])),
        ("Rule", "results/askrff/README.md, \"Study: the data's scaling and the imaginary unit\" and \"Table 1 under "
                 "the text's readings\".")])
    return result


#: Config columns that tell the losses study's arms apart.
LOSSES = ["dataset.name", "kernel.name", "feature_map.name", "feature_map.part", "classifier.solver"]


def losses(runs: Path, out: Path, accuracy_runs: Path, table1: Path) -> pd.DataFrame:
    """One row per (cell, solver) of the losses study's CV stage: the arm's accuracy (%) with the paper's CV grid
    and Table 1's on the same trials (``accuracy_runs``, the same seeds), their paired shift, Table 1's cell mean
    (``table1``) and the paper's. ``complete``: the solver ran on every Table 1 cell of that dataset; ``explains``
    is the study's rule (results/askrff/README.md, "Study: LibLinear's other losses"): a complete arm whose shift
    closes at least half of the gap; ``out/losses.{csv,md}``."""
    trials = cells(collect_single_runs(runs, LOSSES))
    trials = trials.assign(solver=trials["classifier.solver"].astype(str))
    cell = ["dataset", "method", "approximation"]
    ours = _table1_trials(accuracy_runs).set_index([*cell, "trial"])
    table = pd.read_csv(table1).set_index(cell)[["mean", "published"]]
    rows = []
    for (dataset, method, approximation, solver), group in trials.groupby([*cell, "solver"]):
        table1_mean, paper = table.loc[(dataset, method, approximation)]
        same = _same_trials(ours, (dataset, method, approximation), group)
        shift = 100 * (group["test_accuracy"].to_numpy() - same["test_accuracy"].to_numpy()).mean()
        rows.append({"dataset": dataset, "method": method, "approximation": approximation,
                     "solver": SOLVERS.get(solver, solver), "n": len(group),
                     "accuracy": 100 * group["test_accuracy"].mean(),
                     "ours same trials": 100 * same["test_accuracy"].mean(), "shift": shift,
                     "C picked": "; ".join(f"{c:g}" for c in group["C"]),
                     "ours C": "; ".join(f"{c:g}" for c in same["C"]), "ours": table1_mean, "paper": paper,
                     "gap": table1_mean - paper, "ours + shift": table1_mean + shift,
                     "runs": " ".join(sorted(set(group["run_id"])))})
    result = pd.DataFrame(rows)
    if len(result):
        width = table.reset_index().groupby("dataset").size()
        ran = result.groupby(["dataset", "solver"])["method"].transform("size")
        result["complete"] = ran.to_numpy() == result["dataset"].map(width).to_numpy()
        result["explains"] = result["complete"] & ((result["gap"] + result["shift"]).abs() <= result["gap"].abs() / 2)
    records.write_csv(out / "losses.csv", result)
    render.write_markdown(out / "losses.md", "AsK-RFF Table 1, letter and ijcnn1: LibLinear's other losses with "
                          "the paper's CV grid", [
        ("Arms (test accuracy %; shift: the arm minus Table 1's run on the same trials; complete: the solver ran on "
         "every cell of the dataset; explains: complete and |gap + shift| <= |gap| / 2, gap = ours - paper)",
         result.drop(columns="runs") if len(result) else result),
        ("Rule", "results/askrff/README.md, \"Study: LibLinear's other losses\".")])
    return result
