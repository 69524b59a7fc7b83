"""Li Tables 1-3: the studies of issue 45's third round (results/li/README.md, "What the remaining cells depend
on"), each a record beside the tables with one row per studied cell.

* The split (``split.csv``): other draws (``dataset.split.seed`` 1, 2) of the random splits whose rows Li does
  not give, beside the primary draw (seed 0): each draw's test-grid accuracy, and their range widened by twice
  each one's binomial standard error over its test rows.
* The C grid's top (``c_top.csv``): the cells whose best C is the top of the primary grid, run again on C past
  it only; the arm is the best over both grids (ties to the smaller C, the primary grid's), and the record says
  whether its best C is again the top.

LIBLINEAR's own ``-s 1`` is an arm of the linear study (``linear_scheme.csv``,
:data:`rfbench.papers.li.tables.LINEAR_ARMS`). The functions take trials already named as the paper names
them (``dataset``, ``method``), so that this module needs nothing of the tables'.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from rfbench.report import verdicts

#: The split study's trees beside the primary runs (results/li/<tree>): the kernel SVMs', the linear column's.
SPLIT_TREES = ("kernel_svm_split", "linear_ovr_split")
#: The C-top study's trees: the kernel SVMs', the linear column's (C past the primary grid's top only).
C_TOP_TREES = ("kernel_svm_ctop", "linear_ovr_ctop")
#: The config column of a run's split draw, and the primary draw's value (every ``*_li`` config's).
SEED = "dataset.split.seed"
PRIMARY_SEED = 0
#: The columns of :func:`c_top_comparison` (accuracies in %, C as the runs chose it).
C_TOP_COLUMNS = ("primary grid", "C primary grid", "extension", "C extension", "extended grid", "C extended grid",
                 "top again")


def _test_grid(trials: pd.DataFrame) -> pd.DataFrame:
    return trials[trials["classifier.selection"] == "test_grid"]


def split_comparison(table: pd.DataFrame, on_test: pd.DataFrame, draws: pd.DataFrame) -> pd.DataFrame:
    """Per cell with another draw: each draw's test-grid accuracy (%), the paper's, and the draws' band.

    Parameters
    ----------
    table : DataFrame
        The tables' comparison (``dataset, method, mean, published``), the primary cells.
    on_test : DataFrame
        The primary test-grid trials (the draw :data:`PRIMARY_SEED`), with ``run_id``.
    draws : DataFrame
        The other draws' trials (``dataset, method, classifier.selection``, :data:`SEED`, ``test_accuracy``,
        ``n_test``, ``run_id``).

    Returns
    -------
    DataFrame
        ``dataset, method``, ``seed <s>`` per draw (the primary first), ``paper``, ``n_test``, ``band_low`` and
        ``band_high`` (the draws' range, each accuracy widened by :data:`rfbench.report.verdicts.K` binomial
        standard errors over its test rows), ``holds`` (the band holds the paper's value), ``run seed <s>``.
    """
    draws = _test_grid(draws)
    if draws.empty:
        return pd.DataFrame()
    seeds = [PRIMARY_SEED, *sorted(int(s) for s in draws[SEED].unique())]
    cells = table.dropna(subset=["mean"]).set_index(["dataset", "method"])
    primary = on_test.set_index(["dataset", "method"])
    rows = []
    for (name, method), part in draws.groupby(["dataset", "method"], sort=False):
        key = (name, method)
        if key not in cells.index:
            continue
        found = {PRIMARY_SEED: primary.loc[key], **{int(r[SEED]): r for _, r in part.iterrows()}}
        accuracy = {s: float(r["test_accuracy"]) for s, r in found.items()}
        n_test = int(found[PRIMARY_SEED]["n_test"])
        half = [verdicts.K * verdicts.binomial_se(p, n_test) for p in accuracy.values()]
        low = min(100 * (p - h) for p, h in zip(accuracy.values(), half))
        high = max(100 * (p + h) for p, h in zip(accuracy.values(), half))
        paper = float(cells.loc[key, "published"])
        rows.append({"dataset": name, "method": method,
                     **{f"seed {s}": 100 * accuracy[s] if s in accuracy else np.nan for s in seeds},
                     "paper": paper, "n_test": n_test, "band_low": low, "band_high": high,
                     "holds": bool(low <= paper <= high),
                     **{f"run seed {s}": found[s]["run_id"] if s in found else "" for s in seeds}})
    return pd.DataFrame(rows)


def c_top_comparison(table: pd.DataFrame, on_test: pd.DataFrame, extension: pd.DataFrame) -> pd.DataFrame:
    """Per cell run on C past the primary grid's top: the best of each grid and of both.

    Parameters
    ----------
    table, on_test : DataFrame
        As for :func:`split_comparison`; ``on_test`` has the chosen ``C``.
    extension : DataFrame
        The extension's trials (``dataset, method, classifier.selection, classifier.log2_C, C, test_accuracy,
        run_id``), its grid all above the primary one's.

    Returns
    -------
    DataFrame
        ``dataset, method``, :data:`C_TOP_COLUMNS` (``extended grid``: the better of the two, the primary grid's
        on a tie; ``top again``: its C is the extension's largest), ``paper``, ``run primary grid`` and
        ``run extension``.
    """
    extension = _test_grid(extension)
    if extension.empty:
        return pd.DataFrame()
    cells = table.dropna(subset=["mean"]).set_index(["dataset", "method"])
    primary = on_test.set_index(["dataset", "method"])
    rows = []
    for _, ext in extension.iterrows():
        key = (ext["dataset"], ext["method"])
        if key not in cells.index:
            continue
        base = primary.loc[key]
        better = ext["test_accuracy"] > base["test_accuracy"]
        best = ext if better else base
        rows.append({"dataset": key[0], "method": key[1], "primary grid": 100 * base["test_accuracy"],
                     "C primary grid": base["C"], "extension": 100 * ext["test_accuracy"], "C extension": ext["C"],
                     "extended grid": 100 * best["test_accuracy"], "C extended grid": best["C"],
                     "top again": bool(better and ext["C"] == 2.0 ** max(json.loads(ext["classifier.log2_C"]))),
                     "paper": cells.loc[key, "published"], "run primary grid": base["run_id"],
                     "run extension": ext["run_id"]})
    return pd.DataFrame(rows, columns=["dataset", "method", *C_TOP_COLUMNS, "paper", "run primary grid",
                                       "run extension"])
