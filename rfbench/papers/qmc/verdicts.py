"""QMC feature maps' verdict records (:mod:`rfbench.report.verdicts`) and its reproducibility summary.

Cells: Tables 1 and 3 (cpu: relative error), Table 2 (cpu: box discrepancy), and the paper's census
cells beside ours on the substitute house_16h (``census_cells.csv``: **not comparable**, another
dataset; census cells at an s the substitute was not run at: **not obtainable**, the census data is
not in the mirror). Claims: every target's ``claims.csv``.

One-run cpu cells of relative error (Halton in Table 1, every cell of Table 3) take as uncertainty
the split-seed sweep's spread (``table1/splits.csv``: MC at s = 500 on 6 seeded partitions of cpu,
the paper's partition being unknown). The one-run cells of Tables 2-3 at the sizes the spread study
ran take its measured spread (``table2_spread/spread.csv``: sd over sigma x (1 -+ 0.001) and three
Halton scrambles), with Table 3's the split sweep's too (in quadrature).

Causes are issue 45's studies, each a campaign target with its rule in results/qmc/README.md: a cpu
cell of Table 1 is explained when its range over the partition x scaling arms holds the paper's value
(``table1_protocol/explained.csv``), one of Table 2 when the paper's value lies on our sweep of sigma
inside the band the paper's Halton cells fix (``table2_sigma/crossings.csv``); every other cell that
does not agree is unexplained.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rfbench.report import verdicts
from rfbench.report.verdicts import EXPLAINED, UNEXPLAINED, Rules, Spread

PAPER = "qmc"
SUBSTITUTE = ("another dataset: Delve's house_16h (16 features, 18,000 training rows) stands in for the paper's "
              "119-feature census")
NOT_OBTAINABLE = ("the paper's census (119 features) is not in ../shared/datasets; its substitute house_16h is "
                  "not run at this s either")


def rules(folder: Path) -> Rules:
    """QMC's rules, from the split-seed sweep and the studies' tables below ``folder`` when present."""
    splits = _read(folder / "table1" / "splits.csv")
    sweep = Spread(float(splits["mean"].std()) if len(splits) >= 2 else np.nan,
                   f"split-seed sweep: sd of MC's s = 500 error over {len(splits)} cpu partitions")
    spread = _indexed(_read(folder / "table2_spread" / "spread.csv"), ["source", "cell", "s"])
    protocol = _indexed(_read(folder / "table1_protocol" / "explained.csv"), ["method", "s"])
    crossings = _indexed(_read(folder / "table2_sigma" / "crossings.csv"), ["method", "s"])

    def measured(row: pd.Series) -> Spread | None:
        if row["dataset"] != "cpu":
            return None
        key = (row["source"], row["method"], int(float(row["s"])))
        one_run = row["metric"] == "relative error" and not np.isnan(sweep.sd)
        if key in spread.index:
            cell = spread.loc[key]
            sd = float(np.hypot(cell["sd"], sweep.sd)) if one_run else float(cell["sd"])
            return Spread(sd, f"measured spread: sd over {int(cell['n'])} variants (sigma x (1 -+ 0.001), Halton "
                          f"scrambles; make qmc-table2-spread, {SPREAD_PATH})" + (f" and the {sweep.name}"
                                                                                   if one_run else ""))
        return sweep if one_run else None

    def cause(row: pd.Series) -> str:
        if row["dataset"] != "cpu":
            return UNEXPLAINED
        key = (row["method"], int(float(row["s"])))
        if row["source"] == "Table 1" and key in protocol.index and bool(protocol.loc[key, "reached"]):
            cell = protocol.loc[key]
            return (EXPLAINED + f"the partition x scaling study (make qmc-table1-protocol, {PROTOCOL_PATH}, runs "
                    f"{cell['runs']}): this cell's means over its six arms (+- 2 se) span {cell['low']:.4f}-"
                    f"{cell['high']:.4f}, holding the paper's {cell['published']:g} (a single arm holding it: "
                    f"{cell['arms_holding'] if isinstance(cell['arms_holding'], str) else 'none'})")
        if row["source"] == "Table 2" and key in crossings.index and bool(crossings.loc[key, "explained"]):
            cell = crossings.loc[key]
            return (EXPLAINED + f"the sigma sweep (make qmc-table2-sigma, {SIGMA_PATH}, runs {cell['runs']}): our "
                    f"sequence reaches the paper's {cell['published']:g} at sigma = {cell['crossings']} x our CV's, "
                    f"inside the band {cell['band_low']:.2f}-{cell['band_high']:.2f} where the paper's six Halton "
                    "cells sit; the paper's cpu sigma is not printed")
        return UNEXPLAINED

    return Rules(label=lambda row: f"{row['dataset']} {row['method']} s={row['s']}", spread=measured,
                 not_comparable=lambda row: SUBSTITUTE if row["dataset"] == "census" else None,
                 not_obtainable=lambda row: NOT_OBTAINABLE if row["dataset"] == "census" else None,
                 not_yet=lambda row: f"make qmc-{row['source'].lower().replace(' ', '')}", cause=cause)


SPREAD_PATH = "results/qmc/table2_spread/spread.csv"
PROTOCOL_PATH = "results/qmc/table1_protocol/explained.csv"
SIGMA_PATH = "results/qmc/table2_sigma/crossings.csv"


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.exists() else pd.DataFrame()


def _indexed(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``frame`` indexed by ``keys`` (s as an integer); an empty frame when there is none."""
    if frame.empty:
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=keys))
    return frame.assign(s=frame["s"].astype(int)).set_index(keys)


def records(root: Path) -> pd.DataFrame:
    """Every QMC verdict record from the reports under ``root/qmc``."""
    folder = root / PAPER
    return verdicts.paper_records(folder, PAPER, rules(folder), not_yet_claims="make qmc")


NOTES = {
    "easy": "the Gram-error curves (Figs. 2-3) and the discrepancy of Fig. 4: the sequences and the closed-form box "
            "discrepancy were checked against numerical integration, and the claims about orders hold or fail "
            "clearly",
    "hard": "absolute cells: the paper gives neither cpu's partition nor its sigma, lambda or feature scaling, and "
            "its census data (119 features) is not obtainable; Table 2's discrepancies depend on the box in units "
            "of sigma, which the paper does not print (make qmc-table2-sigma places its values on our sweep)",
    "remains": "Table 2's adaptive cells below the sigma the paper's Halton cells imply (the paper's learnt sequences "
               "are lower than ours there); the spread of the one-run cells is measured at s = 100 only; the census "
               "rows can only be read qualitatively",
}
