"""Li (KDD 2017) Tables 1-3: exact kernel SVMs (linear, RBF at its best (gamma, C), GMM), ours
next to the published accuracies, with a verdict per cell.

The runs are the ``li-tables`` sweep (``classifier=svc_precomputed``, one trial each, below
``<results>/li/kernel_svm/runs``). The paper picks (gamma, C) by the best test accuracy on the
grid; so do our ``selection=test_grid`` runs, which get the verdicts. Beyond the paper, the same
models with 5-fold CV selection on the training set are shown beside them, so the optimism of
choosing on the test set is visible. Every published dataset we have no run of is listed with
the reason (:data:`rfbench.papers.li.verdicts.NOT_OBTAINABLE`, or "not run yet" for a config that exists).

The linear column is LibLinear's one-vs-rest SVM, the paper's scheme (``li-linear-ovr``, below
``<results>/li/linear_ovr/runs``); libsvm's one-vs-one linear SVM of ``li-tables`` is the study's other
arm, shown beside it (``linear_scheme.csv``). The preprocessing study sits beside the tables without
changing the primary cells: the GMM and RBF test-grid SVMs on the data as given (``dataset.scale:
none``, below ``<results>/li/kernel_svm_given/runs``) and on ``minmax_unit_rows`` (below
``<results>/li/kernel_svm_minmax/runs``), each cell next to the unit-rows one and the paper's
(``scaling.csv``). Car and CTG are read as Table 1 prints them (6 ordinal columns, 35 columns: the
``li-features`` runs below ``<results>/li/kernel_svm_features`` and ``linear_ovr_features``, primary);
our former one-hot and 25-column configs are that study's other arm (``features.csv``), and their runs
serve no other study. The third round's studies (:mod:`rfbench.papers.li.studies`): LIBLINEAR's own ``-s 1``
at its default tolerance (an arm of the linear study, below ``<results>/li/linear_ovr_s1``; the fourth round adds
``-s 3``, the hinge loss, below ``linear_ovr_s3``), other draws of
the random splits (``split.csv``) and the C grid past its top (``c_top.csv``). Their rules: results/li/README.md,
"Studies of our protocol choices".
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from rfbench.engine import records
from rfbench.papers.li import studies as li_studies
from rfbench.papers.li import verdicts as li_verdicts
from rfbench.report import published, render, verdicts
from rfbench.report.compare import ClaimCheck, check_claims, compare, summarize
from rfbench.report.runs import collect_single_runs, deviations

PAPER = "li"
#: The tree of runs below ``<results>/li``.
RUNS = "kernel_svm"
#: The linear column's tree (LibLinear one-vs-rest, the paper's scheme), beside :data:`RUNS`.
LINEAR_RUNS = "linear_ovr"
#: The linear study's other LibLinear arms: name -> tree beside :data:`RUNS` (libsvm's is :data:`RUNS`).
LINEAR_ARMS = {"one-vs-rest, intercept": "linear_ovr_bias", "one-vs-rest, as given": "linear_ovr_given",
               "one-vs-rest, -s 1": "linear_ovr_s1", "one-vs-rest, -s 3": "linear_ovr_s3"}
#: Config columns that tell the cells apart.
POINT = ["dataset.name", "classifier.kernel", "classifier.selection"]
#: Our dataset configs and the paper's names for them.
PAPER_DATASET = {
    "letter_li": "Letter", "spambase_li": "SpamBase", "robot_navigation_li": "RobotNavi",
    "magic_li": "Magic", "page_blocks_li": "PageBlocks", "satimage_li": "Satimage",
    "skin10k_li": "SkinSeg10k", "splice_li": "Splice", "imageseg_li": "ImageSeg", "vowel_li": "Vowel",
    "car_li": "Car", "ctg_li": "CTG", "thyroid_li": "Thyroid2k", "musk_li": "Musk",
    "shuttle500_li": "Shuttle500", "ijcnn1_li": "IJCNN", "car_li_ordinal": "Car", "ctg_li35": "CTG",
}
#: The features study (results/li/README.md): Table 1's # dim as printed, the paper's reading and primary, ->
#: our former config, its other arm (whose runs stay in the trees of the other studies and serve none of them).
FEATURE_READINGS = {"car_li_ordinal": "car_li", "ctg_li35": "ctg_li"}
#: The features study's trees of the paper's reading: the kernel SVMs' and the linear column's.
FEATURE_RUNS, FEATURE_LINEAR_RUNS = "kernel_svm_features", "linear_ovr_features"
#: Our kernel names and the paper's columns.
METHOD = {"linear": "linear", "cosine_rbf": "rbf", "gmm": "gmm"}
METHODS = ("linear", "rbf", "gmm")
#: Table 4 (error rates on five of Table 3's datasets), and why it has no cells of its own here.
TABLE4 = ("Table 4 (test error rates on M-Basic, M-Rotate, M-Image, M-Rand, M-RotImg): its group 1 are "
          "[12]'s results (RBF and polynomial SVMs, neural nets), not Li's experiments; its group 2 (linear, RBF, "
          "GMM) is 100 minus Table 3's accuracies on those five datasets, none of which is obtainable (above), "
          "so none of its rows can be reproduced here.")
#: How our protocol departs from the paper's for every dataset (each config adds its own).
PROTOCOL = [
    ("SpamBase, RobotNavi, SkinSeg10k: a random split of the paper's sizes (seed 0)",
     "Li gives the sizes, not the split (their configs' `deviations` are empty: adding the line now would "
     "change their run ids)"),
    ("the linear column is LibLinear's one-vs-rest L2-loss SVM without intercept (solved to the optimum); "
     "RBF and GMM are libsvm's (one-vs-one on multi-class data)",
     "the paper names LIBLINEAR for its linear SVM and LIBSVM's pre-computed kernels for the kernel SVMs; "
     "libsvm's one-vs-one linear SVM is the multi-class study's other arm (linear_scheme.csv)"),
]
#: Why the C grids are what they are (one protocol line per grid the runs used, see :func:`c_grids`).
C_GRID_REASON = ("the paper gives no C grid; on unit rows linear, and RBF at small gamma, keep improving above "
                 "2^10 (the Fig. 6 report lists the curves whose best C is an end of the grid)")
#: Why a grid stops short of the widest one (RBF on Magic).
SHORT_C_GRID_REASON = ("cost: one libsvm fit at C above 2^10 takes minutes on Magic (gamma 7: 9 s at "
                       "C = 2^10, 492 s at 2^16), so 58 gammas x the widest grid would take days (README, Li)")
#: The data as Li used them, and the sentence the choice rests on (every *_li config: scale: unit_rows).
SCALING = (
    "Data: the raw features with each row divided by its l2 norm (`dataset.scale: unit_rows`). Li, Sec. 1: "
    "\"when using LIBLINEAR or LIBSVM packages [8], it is suggested to first normalize the input data vectors "
    "to unit l_2 norm\"; Fig. 5's caption: \"we always use normalized data (i.e., rho)\". So the linear kernel "
    "is the cosine rho; RBF exp(-gamma (1 - rho)) depends on rho only, so any row scaling gives the same RBF; "
    "GMM (eq. 3) takes the positive/negative split (eq. 2) of the unit rows (it is unchanged when both "
    "rows are scaled alike, not when each is divided by its own norm). Letter is LIBSVM's letter.scale "
    "(features in [-1, 1]) so normalized, as Li took Table 2's data from the LIBSVM site.")
#: The preprocessing study's other arms: name -> (tree of runs beside :data:`RUNS`, its ``dataset.scale``).
VARIANTS = {"as given": ("kernel_svm_given", "none"), "min-max, unit rows": ("kernel_svm_minmax", "minmax_unit_rows")}
#: The kernels the preprocessing study covers (the linear column's scheme is its own study).
STUDIED = ("rbf", "gmm")
#: What the preprocessing study is.
VARIANT_TEXT = (
    "Arms, all with the test grid: the data as given (`dataset.scale: none`, `make li-preprocessing`), unit "
    "rows (the tables above) and min-max per feature on the training part, then unit rows (`minmax_unit_rows`, "
    "LIBSVM's guide; `make li-preprocessing`, Letter's and Magic's RBF `make li-preprocessing-large`). The "
    "primary arm stays unit rows (results/li/README.md says why, from the paper's text); a cell that an arm "
    "brings at least half-way to the paper is explained by the study in its verdict record, not moved. RBF "
    "exp(-gamma (1 - rho)) is the same kernel on the data as given and on unit rows; GMM and every min-max "
    "cell are not.")
#: Published values of Tables 1-3 print two decimals.
DIGITS = 2


def tables(runs: Path, out: Path) -> pd.DataFrame:
    """Tables 1-3 from the runs below ``runs``: ``out/tables.{csv,md,png}``.

    Returns the comparison (one row per published or run cell of the test-grid selection).
    """
    former_svm = paper_names(collect_single_runs(runs, POINT))
    former_ovr = linear_ovr(runs.parent / LINEAR_RUNS)
    svm = pd.concat([_primary(former_svm), _kernel_svm(runs.parent / FEATURE_RUNS)], ignore_index=True)
    ovr = pd.concat([_primary(former_ovr), linear_ovr(runs.parent / FEATURE_LINEAR_RUNS)], ignore_index=True)
    trials = pd.concat([svm[svm["method"] != "linear"], ovr], ignore_index=True)
    pub = published.load(published.path_of(PAPER))
    on_test = trials[trials["classifier.selection"] == "test_grid"]
    table = verdicts.judged(compare(pub, summarize(on_test, ["dataset", "method"], "test_accuracy",
                                                   metric="test accuracy", unit="%")), PAPER,
                            li_verdicts.rules(out.parent))
    cv = trials[trials["classifier.selection"] == "cv"]
    records.write_csv(out / "tables.csv", table)
    render.difference_figure(table, out / "tables.png", ["dataset", "method"],
                             "Li Tables 1-3: our test accuracy minus the paper's (test-grid selection)")
    sections = []
    for source in sorted(set(table["source"].dropna())):
        part = table[table["source"] == source]
        ran = list(dict.fromkeys(part.dropna(subset=["mean"])["dataset"]))
        body = _layout(part, ran, on_test, cv, pub[pub["source"] == source]) if ran else "No dataset of it run."
        sections.append((f"{source} (ours with the paper's test-grid selection; CV beside it)", body))
    sections += [("Data scaling", SCALING),
                 ("", "Cell: ours (published) [ours - published] verdict; one deterministic run per cell. "
                  + verdicts.RULE + " Each cell's verdict is its record's in `results/li/verdicts.csv`, with the "
                  f"reason and cause there. Published values: `rfbench/papers/{PAPER}/published.csv`."),
                 ("Verdicts", verdicts.counts(table))]
    claims = check_claims(pub, {"gmm_above_rbf_majority": lambda _: _gmm_above_rbf(table)})
    records.write_csv(out / "claims.csv", claims)  # read by rfbench.report.project, as the next
    protocol = [*c_grids(on_test), *PROTOCOL]
    records.write_csv(out / "deviations.csv", pd.DataFrame(protocol, columns=["deviation", "reason"]))
    sections += [("Claims of the paper", claims),
                 *_features_sections(table, on_test, pd.concat([former_svm[former_svm["method"] != "linear"],
                                                               former_ovr], ignore_index=True), out),
                 *_scheme_sections(table, svm, ovr, {arm: _primary(linear_ovr(runs.parent / tree))
                                                     for arm, tree in LINEAR_ARMS.items()}, out),
                 ("Study: preprocessing of the GMM and RBF cells", VARIANT_TEXT),
                 *_scaling_sections(table, on_test, pub, runs.parent, out),
                 *_round_three_sections(table, on_test, runs.parent, out)]
    sections += [("Published datasets without a run", _missing(table)), ("", TABLE4)]
    render.write_markdown(out / "tables.md", "Li (2017) Tables 1-3: kernel SVM test accuracy (%), ours vs paper",
                          sections, [f"{line} — {reason}" for line, reason in protocol] + deviations(trials))
    return table


def _layout(part: pd.DataFrame, datasets: list[str], on_test: pd.DataFrame, cv: pd.DataFrame,
            pub: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset run, in the paper's order: each method's compared cell, RBF's gamma
    (ours; the paper's) and the CV-selected accuracies."""
    cells = part.set_index(["dataset", "method"])
    rows = []
    for name in datasets:
        row = {"dataset": name}
        for method in METHODS:
            key = (name, method)
            row[method] = render.cell_text(cells.loc[key], DIGITS) if key in cells.index else ""
        row["rbf gamma (ours; paper)"] = f"{_chosen(on_test, name, 'rbf', 'gamma')}; {paper_gamma(pub, name)}"
        row["C (linear; rbf; gmm)"] = "; ".join(_chosen(on_test, name, m, "C") for m in METHODS)
        for method in METHODS:
            acc = cv[(cv["dataset"] == name) & (cv["method"] == method)]["test_accuracy"]
            row[f"{method} (CV)"] = f"{100 * acc.mean():.2f}" if len(acc) else ""
        rows.append(row)
    return pd.DataFrame(rows)


def _kernel_svm(root: Path, point: tuple[str, ...] = ()) -> pd.DataFrame:
    """The kernel SVMs' trials below ``root``, in the paper's names (``point``: config columns that tell runs
    apart beyond :data:`POINT`); none yet: empty."""
    if not (root / "runs").is_dir():
        return pd.DataFrame(columns=["dataset", "method", "classifier.selection", "test_accuracy"])
    return paper_names(collect_single_runs(root, [*POINT, *point]))


def _primary(trials: pd.DataFrame) -> pd.DataFrame:
    """``trials`` without the runs of a config the features study replaced (:data:`FEATURE_READINGS`)."""
    if trials.empty:
        return trials
    return trials[~trials["dataset.name"].isin(FEATURE_READINGS.values())]


#: The features study's arms (:func:`features_comparison`): the primary cell first.
FEATURE_ARMS = ("paper's reading", "ours before")


def features_comparison(table: pd.DataFrame, on_test: pd.DataFrame, former: pd.DataFrame) -> pd.DataFrame:
    """The features study: per Car and CTG cell, the test-grid accuracy (%) of the paper's reading (the primary
    cell of ``table``, its run in ``on_test``), of our former config (``former``: its trials, every method), the
    paper's, each arm's config and run id."""
    cells = table.dropna(subset=["mean"]).set_index(["dataset", "method"])
    primary = on_test.set_index(["dataset", "method"])["run_id"]
    ours = former[former["dataset.name"].isin(FEATURE_READINGS.values())
                  & (former["classifier.selection"] == "test_grid")].set_index(["dataset", "method"])
    rows = []
    for reading, config in FEATURE_READINGS.items():
        name = PAPER_DATASET[reading]
        for method in METHODS:
            key = (name, method)
            if key not in cells.index:
                continue
            rows.append({"dataset": name, "method": method, "paper's reading": cells.loc[key, "mean"],
                         "ours before": 100 * ours.loc[key, "test_accuracy"] if key in ours.index else float("nan"),
                         "paper": cells.loc[key, "published"], "config paper's reading": reading,
                         "config ours before": config, "run paper's reading": primary.get(key, ""),
                         "run ours before": ours.loc[key, "run_id"] if key in ours.index else ""})
    return pd.DataFrame(rows, columns=["dataset", "method", *FEATURE_ARMS, "paper", "config paper's reading",
                                       "config ours before", "run paper's reading", "run ours before"])


def _features_sections(table: pd.DataFrame, on_test: pd.DataFrame, former: pd.DataFrame,
                       out: Path) -> list[tuple[str, pd.DataFrame | str]]:
    """The features study's section and ``out/features.csv`` (no Car or CTG cell on the paper's reading: a note)."""
    side = features_comparison(table, on_test, former)
    if side.empty:
        return [("Study: Car's and CTG's features", "No Car or CTG cell on Table 1's reading yet: `make li-features`.")]
    records.write_csv(out / "features.csv", side)
    return [("Study: Car's and CTG's features (test-grid accuracy %; the cells above are the paper's reading, "
             "`make li-features`)", side.round(DIGITS))]


def linear_ovr(root: Path, point: tuple[str, ...] = ()) -> pd.DataFrame:
    """The linear column's trials (LibLinear one-vs-rest) below ``root``, in the paper's names (``point``: config
    columns that tell runs apart beyond the dataset and selection); none yet: empty."""
    if not (root / "runs").is_dir():
        return pd.DataFrame(columns=["dataset", "method", "classifier.selection", "test_accuracy"])
    trials = collect_single_runs(root, ["dataset.name", "classifier.selection", *point])
    return trials.assign(dataset=trials["dataset.name"].map(PAPER_DATASET).fillna(trials["dataset.name"]),
                         method="linear")


#: The linear study's arms (:func:`scheme_comparison`): the primary cell first.
SCHEME_ARMS = ("one-vs-rest", "one-vs-one", *LINEAR_ARMS)


def scheme_comparison(table: pd.DataFrame, svm: pd.DataFrame, ovr: pd.DataFrame,
                      others: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The linear column's study: per dataset with a primary cell, the test-grid accuracy (%) of each arm of
    :data:`SCHEME_ARMS` (LibLinear one-vs-rest without intercept on unit rows: the cell; libsvm's one-vs-one;
    the LibLinear arms of ``others``, by :data:`LINEAR_ARMS`' names; NaN for an arm not run), the paper's, and
    each arm's run id (``run <arm>``)."""
    def on_test(trials: pd.DataFrame) -> pd.DataFrame:
        return trials[(trials["method"] == "linear") & (trials["classifier.selection"] == "test_grid")].set_index(
            "dataset")

    arms = {"one-vs-rest": on_test(ovr), "one-vs-one": on_test(svm),
            **{arm: on_test(others.get(arm, ovr.iloc[:0])) for arm in LINEAR_ARMS}}
    cells = table[table["method"] == "linear"].dropna(subset=["mean"]).set_index("dataset")
    rows = []
    for name in cells.index:
        row = {"dataset": name, "paper": cells.loc[name, "published"]}
        for arm, frame in arms.items():
            row[arm] = 100 * frame.loc[name, "test_accuracy"] if name in frame.index else float("nan")
            row[f"run {arm}"] = frame.loc[name, "run_id"] if name in frame.index else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=["dataset", *SCHEME_ARMS, "paper", *[f"run {arm}" for arm in SCHEME_ARMS]])


def _scheme_sections(table: pd.DataFrame, svm: pd.DataFrame, ovr: pd.DataFrame, others: dict[str, pd.DataFrame],
                     out: Path) -> list[tuple[str, pd.DataFrame | str]]:
    """The linear study's section and ``out/linear_scheme.csv`` (no one-vs-rest run yet: a note)."""
    if ovr.empty:
        return [("Study: the linear column's multi-class scheme", f"No run below {LINEAR_RUNS} yet: "
                 "`make li-linear-ovr`.")]
    side = scheme_comparison(table, svm, ovr, others)
    records.write_csv(out / "linear_scheme.csv", side)
    return [("Study: the linear column's multi-class scheme (test-grid accuracy %; the cells above are "
             "one-vs-rest)", side.round(DIGITS))]


def _study_trials(root: Path, trees: tuple[str, str]) -> pd.DataFrame:
    """The trials of a study's two trees below ``root`` (kernel SVMs, linear column), each split draw its own
    point."""
    kernel, linear = trees
    point = (li_studies.SEED,)
    return pd.concat([_kernel_svm(root / kernel, point), linear_ovr(root / linear, point)], ignore_index=True)


def _round_three_sections(table: pd.DataFrame, on_test: pd.DataFrame, root: Path,
                          out: Path) -> list[tuple[str, pd.DataFrame | str]]:
    """The split and C-top studies' sections, and their records ``out/split.csv``, ``out/c_top.csv`` (a study
    without runs: a note)."""
    studies = [("split.csv", "Study: other draws of the random splits (test-grid accuracy %; seed 0 is the cell "
                "above; band: the draws' range, each widened by twice its binomial standard error)",
                li_studies.split_comparison, li_studies.SPLIT_TREES, "make li-split"),
               ("c_top.csv", "Study: C past the grid's top (test-grid accuracy %; the extended grid is the better "
                "of the two, the primary's on a tie)", li_studies.c_top_comparison, li_studies.C_TOP_TREES,
                "make li-c-top")]
    sections: list[tuple[str, pd.DataFrame | str]] = []
    for file, title, compare_arms, trees, target in studies:
        side = compare_arms(table, on_test, _study_trials(root, trees))
        if side.empty:
            sections.append((title, f"No run yet: `{target}`."))
            continue
        records.write_csv(out / file, side)
        sections.append((title, side.drop(columns=[c for c in side if c.startswith("run ")]).round(DIGITS)))
    return sections


def _scaling_sections(table: pd.DataFrame, on_test: pd.DataFrame, pub: pd.DataFrame, root: Path,
                      out: Path) -> list[tuple[str, pd.DataFrame | str]]:
    """The preprocessing study: ``out/scaling.csv`` and its report sections (no arm run yet: a note)."""
    if not any((root / tree / "runs").is_dir() for tree, _ in VARIANTS.values()):
        return [("", "No run of the preprocessing study yet: `make li-preprocessing`.")]
    side = scaling_comparison(table, on_test, pub, root)
    if side.empty:
        return [("", "No cell of the preprocessing study beside a primary one yet: `make li-preprocessing`.")]
    records.write_csv(out / "scaling.csv", side)
    shown = side.drop(columns=["threshold", *[c for c in side if c.startswith("run ")]]).assign(
        **{c: side[c].map(f"{{:.{DIGITS}f}}".format, na_action="ignore") for c in SCALING_ACCURACIES},
        **{c: side[c].map(lambda v: render.signed(v, DIGITS), na_action="ignore")
           for c in SCALING_CHANGES})  # an arm not run stays missing: the table shows "-"
    return [("Test accuracy (%) by preprocessing (test-grid selection; the verdicts stay on unit rows)", shown),
            ("What it shows", _scaling_summary(side))]


#: The accuracy (%) and difference columns of :func:`scaling_comparison`.
SCALING_ACCURACIES = ("as given", "unit rows", "min-max, unit rows", "paper")
SCALING_CHANGES = ("change", "as given - paper", "unit rows - paper", "min-max - paper")


def _variant(root: Path, scale: str) -> pd.DataFrame:
    """The test-grid trials of one arm's tree, after checking that every run has the arm's scaling."""
    if not (root / "runs").is_dir():
        return pd.DataFrame(columns=["dataset", "method", "test_accuracy", "run_id", "gamma"])
    trials = collect_single_runs(root, POINT)
    scales = trials.get("dataset.scale", pd.Series(index=trials.index, dtype=object)).fillna("minmax")
    if (scales != scale).any():
        raise ValueError(f"runs {sorted(set(trials.loc[scales != scale, 'run_id']))} below {root} have "
                         f"dataset.scale {sorted(set(scales) - {scale})}, not {scale!r}; move them away")
    return _primary(paper_names(trials[trials["classifier.selection"] == "test_grid"]))


def scaling_comparison(table: pd.DataFrame, on_test: pd.DataFrame, pub: pd.DataFrame, root: Path) -> pd.DataFrame:
    """Each GMM and RBF cell of the preprocessing study's arms beside the primary one and the paper's.

    Parameters
    ----------
    table, on_test : DataFrame
        The primary comparison and its test-grid trials (see :func:`tables`).
    pub : DataFrame
        The published values (RBF's gamma is in their notes).
    root : Path
        The folder holding the arms' trees of runs (:data:`VARIANTS`).

    Returns
    -------
    DataFrame
        One row per cell with at least one arm run, in the tables' order: ``dataset, method``, the
        accuracies (%) :data:`SCALING_ACCURACIES` (NaN for an arm not run), the differences
        :data:`SCALING_CHANGES` (``change``: min-max minus unit rows; each arm minus the paper), the tables'
        ``threshold`` of agreement, RBF's gammas, and each run's id (``run <arm>``).

    Raises
    ------
    ValueError
        If a run of an arm's tree has another scaling, or a point has several runs.
    """
    arms = {name: _variant(root / tree, scale).set_index(["dataset", "method"]) for name, (tree, scale) in
            VARIANTS.items()}
    primary = table.dropna(subset=["mean"]).set_index(["dataset", "method"])
    primary_runs = on_test.set_index(["dataset", "method"])["run_id"]
    rows = []
    for key in [k for k in primary.index if k[1] in STUDIED and any(k in arm.index for arm in arms.values())]:
        (name, method), cell = key, primary.loc[key]
        value = {arm: 100 * frame.loc[key, "test_accuracy"] if key in frame.index else float("nan")
                 for arm, frame in arms.items()}
        gamma = "" if method != "rbf" else "; ".join(
            [_chosen(on_test, name, method, "gamma"), *[_chosen(frame.reset_index(), name, method, "gamma")
                                                        for frame in arms.values()], paper_gamma(pub, name)])
        rows.append({"dataset": name, "method": method, "as given": value["as given"], "unit rows": cell["mean"],
                     "min-max, unit rows": value["min-max, unit rows"], "paper": cell["published"],
                     "change": value["min-max, unit rows"] - cell["mean"],
                     "as given - paper": value["as given"] - cell["published"],
                     "unit rows - paper": cell["mean"] - cell["published"],
                     "min-max - paper": value["min-max, unit rows"] - cell["published"],
                     "threshold": cell["threshold"], "rbf gamma (unit rows; as given; min-max; paper)": gamma,
                     "run as given": arms["as given"].loc[key, "run_id"] if key in arms["as given"].index else "",
                     "run unit rows": primary_runs.get(key, ""),
                     "run min-max, unit rows": arms["min-max, unit rows"].loc[key, "run_id"]
                     if key in arms["min-max, unit rows"].index else ""})
    return pd.DataFrame(rows)


def _scaling_summary(side: pd.DataFrame) -> str:
    """Per method: each arm's mean distance to the paper over the cells it has, and how many are within the
    tables' agreement threshold."""
    lines = []
    for method in STUDIED:
        part = side[side["method"] == method]
        if part.empty:
            continue
        said = []
        for arm in ("as given", "unit rows", "min-max, unit rows"):
            have = part.dropna(subset=[arm])
            if have.empty:
                continue
            gaps = (have[arm] - have["paper"]).abs()
            near = int((gaps <= have["threshold"]).sum())
            said.append(f"{arm} {gaps.mean():.{DIGITS}f} over {len(have)} cells, {near} within the threshold")
        lines.append(f"- {method}, mean distance to the paper: " + "; ".join(said) + ".")
    return "\n".join(lines)


def paper_names(trials: pd.DataFrame, paper_dataset: dict[str, str] = PAPER_DATASET) -> pd.DataFrame:
    """The trials with the paper's ``dataset`` name (ours where it has none) and ``method`` column."""
    return trials.assign(dataset=trials["dataset.name"].map(paper_dataset).fillna(trials["dataset.name"]),
                         method=trials["classifier.kernel"].map(METHOD))


def c_grids(trials: pd.DataFrame) -> list[tuple[str, str]]:
    """One ``(deviation, reason)`` per C grid of the runs: its range and which cells it served.

    Parameters
    ----------
    trials : DataFrame
        Trials with ``classifier.log2_C`` (e.g. "[-6, -4, ..., 16]"), ``dataset`` and ``method``.
    """
    grids = sorted(((grid, json.loads(grid)) for grid in trials["classifier.log2_C"].unique()),
                   key=lambda item: (-max(item[1]), -len(item[1])))  # the widest first
    everywhere, lines = set(trials["dataset"]), []
    for grid, exponents in grids:
        part = trials[trials["classifier.log2_C"] == grid]
        names = {method: set(part.loc[part["method"] == method, "dataset"]) for method in METHODS}
        cells = "; ".join(f"{method} on {'every dataset' if on == everywhere else ', '.join(sorted(on))}"
                          for method, on in names.items() if on)
        lines.append((f"C over 2^{min(exponents)}..2^{max(exponents)} ({len(exponents)} values): {cells}",
                      C_GRID_REASON if exponents == grids[0][1] else SHORT_C_GRID_REASON))
    return lines


def _gmm_above_rbf(table: pd.DataFrame) -> ClaimCheck:
    """Holds when GMM's accuracy is above RBF's on more than half of the datasets with both run."""
    ours = table.dropna(subset=["mean"]).pivot_table(index="dataset", columns="method", values="mean")
    if not {"gmm", "rbf"} <= set(ours.columns):
        return ClaimCheck(None, "no dataset with both GMM and RBF run")
    both = ours.dropna(subset=["gmm", "rbf"])
    above = both[both["gmm"] > both["rbf"]].index.tolist()
    return ClaimCheck(2 * len(above) > len(both), f"GMM above RBF on {len(above)} of {len(both)} datasets "
                      f"({', '.join(above)})")


def _chosen(trials: pd.DataFrame, dataset: str, method: str, param: str) -> str:
    run = trials[(trials["dataset"] == dataset) & (trials["method"] == method)]
    return f"{run[param].iloc[0]:g}" if len(run) else "-"


def paper_gamma(pub: pd.DataFrame, dataset: str) -> str:
    """The best gamma of the paper's RBF cell on ``dataset`` (from its note), or "-"."""
    note = pub[(pub["dataset"] == dataset) & (pub["method"] == "rbf")]["note"]
    return note.iloc[0].rpartition("best gamma ")[2] if len(note) else "-"


def _missing(table: pd.DataFrame) -> pd.DataFrame:
    """The published datasets of which no cell was run, with the reason."""
    ran = set(table.dropna(subset=["mean"])["dataset"])
    names = [n for n in dict.fromkeys(table["dataset"]) if n not in ran]
    configs = {paper: config for config, paper in PAPER_DATASET.items()}
    reasons = [li_verdicts.NOT_OBTAINABLE.get(n) or (f"config dataset={configs[n]}: not run yet" if n in configs
                                                     else "not in ../shared/datasets") for n in names]
    return pd.DataFrame({"dataset": names, "reason": reasons})

