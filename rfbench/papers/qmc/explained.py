"""What issue 45's QMC studies give the verdicts, read from their records (rules: results/qmc/README.md).

- :func:`spreads`: the measured spread of a one-run cpu cell of Tables 2-3 (``table2_spread/spread.csv``:
  sd over ``sigma x (1 -+ 0.001)`` and three Halton scrambles), where the study ran;
- :func:`causes`: a cpu cell explained by a study: Table 1's when its range over the partition x scaling
  arms holds the paper's value (``table1_protocol/explained.csv``), Table 2's when the paper's value lies
  on our sweep of sigma inside the band the paper's Halton cells fix (``table2_sigma/crossings.csv``), Table 3's
  (s = 100) when our range over the sigmas of that band, widened by twice the cell's measured spread, holds the
  paper's value (``table3_sigma/explained.csv``), or when its range over the lambdas near-optimal in the
  CV (one-standard-error rule) holds it (``table3_lambda/explained.csv``); a cell of Table 2 or 3 when, under
  the feature scalings and Global run until CG stops, an arm closes half of its gap or the arms' range holds
  the paper's value (``table2_scaling/explained.csv``).

Each names the make target and the record (``record: qmc/<path>``) whose numbers show it.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

SPREAD, PROTOCOL, SIGMA = "table2_spread/spread.csv", "table1_protocol/explained.csv", "table2_sigma/crossings.csv"
T3SIGMA, T3LAMBDA = "table3_sigma/explained.csv", "table3_lambda/explained.csv"
SCALING = "table2_scaling/explained.csv"


def spreads(folder: Path) -> Callable[[pd.Series], tuple[float, str, str] | None]:
    """A cell's measured spread, its name and its record (``qmc/<path>``), or None where none was measured."""
    table = _indexed(folder / SPREAD, ["source", "cell", "s"])

    def spread(row: pd.Series) -> tuple[float, str, str] | None:
        key = (row["source"], row["method"], _s(row))
        if row["dataset"] != "cpu" or key not in table.index:
            return None
        cell = table.loc[key]
        return (float(cell["sd"]), f"measured spread, sd over {int(cell['n'])} variants (sigma moved by its stated "
                f"precision, Halton scrambles; make qmc-table2-spread)", f"qmc/{SPREAD}")

    return spread


def causes(folder: Path) -> Callable[[pd.Series], str | None]:
    """The study that explains a cell (without the ``explained: `` prefix), or None."""
    protocol, crossings = _indexed(folder / PROTOCOL, ["method", "s"]), _indexed(folder / SIGMA, ["method", "s"])
    table3_sigma, table3_lambda = (_indexed(folder / path, ["method", "s"]) for path in (T3SIGMA, T3LAMBDA))
    scaling = _indexed(folder / SCALING, ["source", "method", "s"])

    def cause(row: pd.Series) -> str | None:
        key = (row["method"], _s(row))
        if row["dataset"] != "cpu":
            return None
        if row["source"] == "Table 1" and key in protocol.index and bool(protocol.loc[key, "reached"]):
            cell = protocol.loc[key]
            alone = cell["arms_holding"] if isinstance(cell["arms_holding"], str) else "none"
            return (f"the partition x scaling study (make qmc-table1-protocol; record: qmc/{PROTOCOL}; runs "
                    f"{cell['runs']}): this cell's means over its arms (+- 2 se) span a range holding the paper's "
                    f"value (a single arm holding it: {alone}; the range in the record)")
        if row["source"] == "Table 2" and key in crossings.index and bool(crossings.loc[key, "explained"]):
            cell = crossings.loc[key]
            return (f"the sigma sweep (make qmc-table2-sigma; record: qmc/{SIGMA}; runs {cell['runs']}): our "
                    "sequence reaches the paper's value at a sigma inside the band where the paper's six Halton cells "
                    "sit (the crossing and the band in the record); the paper's cpu sigma is not printed")
        if row["source"] == "Table 3" and key in table3_sigma.index and bool(table3_sigma.loc[key, "explained"]):
            return (f"the Table 3 sigma study (make qmc-table3-sigma; record: qmc/{T3SIGMA}; runs "
                    f"{table3_sigma.loc[key, 'runs']}): at the sigmas of the band the paper's Halton cells of Table 2 "
                    "fix, our cell's range (widened by twice its measured spread) holds the paper's value")
        if row["source"] == "Table 3" and key in table3_lambda.index and bool(table3_lambda.loc[key, "explained"]):
            cell = table3_lambda.loc[key]
            return (f"the Table 3 lambda study (make qmc-table3-lambda; record: qmc/{T3LAMBDA}; runs {cell['runs']}): "
                    "over the lambdas near-optimal in the CV of the seven maps (one-standard-error rule), our cell's "
                    "range holds the paper's value (the set and the range in the record); the paper's lambda "
                    "(\"near-optimal for both sequences\") is not printed")
        if (row["source"], *key) in scaling.index and bool(scaling.loc[(row["source"], *key), "explained"]):
            cell = scaling.loc[(row["source"], *key)]
            how = (f"the arm(s) {cell['closing']} close at least half of its gap to the paper's value"
                   if isinstance(cell["closing"], str) else "the arms' range holds the paper's value")
            return (f"the scaling study (make qmc-table2-scaling; record: qmc/{SCALING}; runs {cell['runs']}): "
                    f"{how}; cpu's feature scaling and Global's CG iterations are not stated (every arm's value in "
                    "the record)")
        return None

    return cause


def _s(row: pd.Series) -> int:
    return int(float(row["s"]))


def _indexed(path: Path, keys: list[str]) -> pd.DataFrame:
    """The CSV at ``path`` indexed by ``keys`` (s as an integer); empty when it is not there."""
    if not path.exists():
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=keys))
    frame = pd.read_csv(path)
    return frame.assign(s=frame["s"].astype(int)).set_index(keys)
