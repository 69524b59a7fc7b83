"""The evidence of an explained cell: the numbers of the record its cause cites, read when the verdicts are made.

A cause ``explained: ...`` names the record that shows it (``record: <paper>/<path>``, see
:mod:`rfbench.report.verdicts`). What the record says about the cell is quoted beside it, in the verdict
record's ``evidence``, so that a reader sees the numbers without opening the file, and they can never
drift from it: they are read from the file each time the verdicts are rendered, never typed.

:func:`quoted` does this for every cause alike: of each CSV record the cause cites, the one row that
concerns the cell (its :data:`KEYS` columns equal the cell's; a cited run narrows several rows to its
own), every column but its keys and run ids. A cause whose record has no such row (a sweep over
partitions, rows of another table) gives its evidence itself (:class:`rfbench.report.verdicts.Cause`).
The verdict records refuse an explained cell whose evidence quotes none of the records its cause cites
(:func:`quotes`).
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

#: The columns that name a cell in a comparison table and in a study's record (a study's record has some).
KEYS = ("source", "dataset", "method", "approximation", "s", "size")
#: Between the quotes of two records, and between a cell's note and its quotes.
BETWEEN = ". "


def quoted(paths: Iterable[str], cell: pd.Series, root: Path) -> str:
    """Per CSV record among ``paths`` (``<paper>/<path>`` under ``root``): its row for ``cell`` as
    ``<path> (<keys>): <column> = <value>; ...``; records without exactly one such row are left out.

    A run folder cited among ``paths`` (``.../runs/<id>``) picks, of several rows, the one naming that run.
    """
    paths = list(paths)
    runs = {Path(p).name for p in paths if Path(p).parent.name == "runs"}
    found = []
    for path in paths:
        file = root / path
        if file.suffix != ".csv" or not file.is_file():
            continue
        row = _row(pd.read_csv(file), cell, runs)
        if row is not None:
            found.append(quote(path, *row))
    return BETWEEN.join(found)


def quote(path: str, row: pd.Series, keys: list[str]) -> str:
    """``row`` of the record at ``path``: its keys as a label, then every other column but run ids that has a
    value (numbers to five significant digits)."""
    label = f" ({', '.join(f'{k} {text(row[k])}' for k in keys)})" if keys else ""
    said = [f"{column} = {text(value)}" for column, value in row.items()
            if column not in keys and not str(column).startswith("run") and not _missing(value)]
    return f"{path}{label}: {'; '.join(said)}"


def quotes(evidence: str, paths: Iterable[str]) -> bool:
    """Whether ``evidence`` quotes one of the records ``paths`` (as :func:`quote` writes it: ``<path>``, then a
    label or a colon)."""
    return any(f"{path}:" in evidence or f"{path} (" in evidence for path in paths)


def _row(table: pd.DataFrame, cell: pd.Series, runs: set[str]) -> tuple[pd.Series, list[str]] | None:
    keys = [k for k in KEYS if k in table.columns and k in cell.index and not _missing(cell[k])]
    match = np.ones(len(table), bool)
    for key in keys:
        match &= table[key].map(_key).to_numpy() == _key(cell[key])
    rows = table[match]
    if len(rows) > 1 and runs:
        rows = rows[rows.astype(str).isin(runs).any(axis=1)]
    return (rows.iloc[0], keys) if len(rows) == 1 else None


def _key(value) -> str:
    """A key as text, numbers by value (``100`` and ``100.0`` are one key)."""
    try:
        return f"{float(value):.12g}"
    except (TypeError, ValueError):
        return str(value).strip()


def text(value) -> str:
    """A value as the evidence writes it: numbers to five significant digits, whole numbers whole."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else f"{float(value):.5g}"
    return str(value)


def _missing(value) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and bool(np.isnan(value))) or value == ""
