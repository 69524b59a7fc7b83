"""AsK-RFF's verdict records (:mod:`rfbench.report.verdicts`) and its reproducibility summary.

Table 1's cells come from ``<results>/askrff/table1/table1.csv``, the claims from every target's
``claims.csv``. What is known about the cells beyond their numbers (the README's reproduction notes,
the deviations of :data:`rfbench.papers.askrff.report.PROTOCOL`):

- cod_rna is **not comparable**: its test set is a third of the training file, not cod-rna.t;
  the shift is shared by every method, the deterministic Linear included (the measurement);
- spambase's cells are explained by the split-seed sweep (the partition moves a whole column);
- ijcnn1's Asy cells by the equal-width study (Asy has 3-4x RBF's columns at M = 2d);
- letter's Linear cell by the multi-class formulation, which moves it by up to 10 points.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rfbench.report import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Rules

PAPER = "askrff"
COD_RNA = ("other test set: a stratified third of cod-rna's 59,535-row training file (the other two thirds train), "
           "not the paper's 271,617-row cod-rna.t")
SPLIT_SWEEP = (EXPLAINED + "the split-seed sweep (dataset.split.seed = 0..9): the partition moves a whole column by "
               "more than the per-trial sds, and the partition means sit at the paper's values (Table 1 deviations)")
EQUAL_WIDTH = (EXPLAINED + "the equal-width study (equal_width/equal_width.md): at M = 2d Asy has 3-4x RBF's columns "
               "and ijcnn1's accuracy climbs steeply with width")
MULTICLASS = (EXPLAINED + "the multi-class formulation, which the paper does not name, moves letter's Linear by up "
              "to 10 points (we keep LibLinear's one-vs-rest); the split-seed sweep does not (68.42 ± 0.26)")


def rules(table: pd.DataFrame) -> Rules:
    """What AsK-RFF's Table 1 cells need beyond their numbers."""
    cod = table[(table["dataset"] == "cod_rna") & (table["method"] == "linear")]
    shift = float((cod["mean"] - cod["published"]).iloc[0]) if len(cod) else float("nan")

    def cause(row: pd.Series) -> str:
        if row["dataset"] == "cod_rna" and not np.isnan(shift):
            return (EXPLAINED + f"a shift shared by every method, the deterministic Linear included "
                    f"({shift:+.2f} points): the test set")
        if row["dataset"] == "spambase":
            return SPLIT_SWEEP
        if row["dataset"] == "ijcnn1" and row["approximation"] == "Asy":
            return EQUAL_WIDTH
        if row["dataset"] == "letter" and row["method"] == "linear":
            return MULTICLASS
        return UNEXPLAINED

    return Rules(label=lambda row: f"{row['dataset']} {row['method']} {row['approximation']}",
                 not_comparable=lambda row: COD_RNA if row["dataset"] == "cod_rna" else None,
                 not_yet=lambda row: "make askrff-table1", cause=cause)


def records(root: Path) -> pd.DataFrame:
    """Every AsK-RFF verdict record from the reports under ``root/askrff``."""
    folder = root / PAPER
    path = folder / "table1" / "table1.csv"
    table = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["dataset", "method", "mean", "published"])
    return verdicts.paper_records(folder, PAPER, rules(table), not_yet_claims="make askrff")


#: What was easy, what was hard and what remains (the counts come from the records).
NOTES = {
    "easy": "the Gram-error and mass curves (Figs. 1-2) and the Fig. 3 sweep: the maps, the sampler and LibLinear "
            "run as the paper describes them, ten trials per point in minutes",
    "hard": "Table 1's absolute accuracies: the paper gives neither its partitions, its feature counts at M = 2d "
            "nor its multi-class scheme, and cod-rna.t is not obtainable; each cell's gap was traced to a "
            "measurement (split seeds, equal width, multi-class scheme) or is said to be unexplained",
    "remains": "ijcnn1's Linear cell and letter's kernel cells that do not agree are unexplained: no LibLinear "
               "option we varied moves them, and the partition does not",
}
