"""A report's numbers are numbers: a NaN or an infinity where one is needed stops the report, naming the file.

Pandas skips NaN in a minimum or a mean and formats it as ``nan``: read silently, a damaged record
would become a claim's evidence ("at least nan") or an average over fewer trials than it says.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from rfbench.engine.records import RecordError


def finite(frame: pd.DataFrame, columns: Sequence[str], where: str, fix: str) -> pd.DataFrame:
    """``frame`` itself, after checking that ``columns`` hold finite numbers in every row.

    Parameters
    ----------
    frame : DataFrame
        A job's frame (its rows named by their ``trial``) or a table read whole (its rows by their line in
        the file, the header being line 1).
    columns : sequence of str
        The columns the report computes with.
    where : str
        The file the frame was read from.
    fix : str
        What restores it (e.g. the command that recomputes it).

    Raises
    ------
    RecordError
        Naming the file, the column, the rows (their first five) and ``fix``.
    """
    for column in columns:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
        bad = ~np.isfinite(values)
        if bad.any():
            rows = (("trial", sorted({int(t) for t in frame.loc[bad, "trial"]})) if "trial" in frame
                    else ("line", [int(i) + 2 for i in np.flatnonzero(bad)]))
            raise RecordError(f"{where}, column {column}: {str(frame.loc[bad, column].iloc[0])!r} at "
                              f"{_rows(*rows)} where a number is needed; {fix}")
    return frame


def _rows(name: str, found: list[int], shown: int = 5) -> str:
    """``line 3`` or ``lines [51, 52, 53, 54, 55, ...] (951 in all)``."""
    if len(found) == 1:
        return f"{name} {found[0]}"
    more = f", ...] ({len(found)} in all)" if len(found) > shown else "]"
    return f"{name}s [{', '.join(map(str, found[:shown]))}{more}"
