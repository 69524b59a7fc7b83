"""Rahimi and Recht (2007)'s verdict records (:mod:`rfbench.report.verdicts`) and reproducibility summary.

Cells: Table 1 (``table1/table1.csv``, three trials per cell). **Not comparable**: census_house
(a substitute for the paper's Census) and KDDCUP99 (the 10 % subset split at random, 73.5 % of whose
test rows duplicate a training row, not the paper's 'corrected' test set; the duplicate count is the
measurement that explains its low errors). **Not obtainable**: covtype
(:data:`NOT_OBTAINABLE`).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from rfbench.report import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Rules

PAPER = "rr"
#: Rows the mirror cannot serve, and why; their cells are not run.
NOT_OBTAINABLE = {
    "covtype": "the data (581,012 x 54) is not in the dataset mirror: every known copy exceeds its "
               "4 MiB snapshot limit (../shared/datasets/README.md).",
}
NOT_COMPARABLE = {
    "census_house": "another dataset: census_house (Delve, block-group house prices) stands in for the paper's "
                    "119-dimensional Census",
    "kddcup99": "other data and test set: the 10 % subset split at random 400,000 / 94,021, not the 4.9 million "
                "rows and the 'corrected' test set, whose attack types are absent from training",
}
DUPLICATES = (EXPLAINED + "the duplicate count: 69,151 of the 94,021 test rows (73.5 %) are identical to a training "
              "row, so our test errors are far easier than the paper's")


def rules() -> Rules:
    """Rahimi and Recht's rules (the test sets here are large; three trials give each cell its sd)."""
    return Rules(label=lambda row: f"{row['dataset']} {row['method']} {row['size']}",
                 not_comparable=lambda row: NOT_COMPARABLE.get(row["dataset"]),
                 not_obtainable=lambda row: NOT_OBTAINABLE.get(row["dataset"]),
                 not_yet=lambda row: f"make rr-{row['dataset']}",
                 cause=lambda row: DUPLICATES if row["dataset"] == "kddcup99" else UNEXPLAINED)


def records(root: Path) -> pd.DataFrame:
    """Every Rahimi-Recht verdict record from the reports under ``root/rr``."""
    return verdicts.paper_records(root / PAPER, PAPER, rules(), not_yet_claims="make rr-table1")


NOTES = {
    "easy": "the feature maps (Fourier with offsets, random binning) and ridge with lambda by CV; Adult matches the "
            "paper within its printed digit",
    "hard": "the paper states no bandwidth, split or regularization; its Census and Forest Cover data are not "
            "obtainable, and the mirror's KDDCUP99 is the duplicated 10 % subset",
    "remains": "cpu_act's cells, below the paper's errors, are unexplained; Forest Cover needs a copy of covtype "
               "that the mirror cannot hold",
}
