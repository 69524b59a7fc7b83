"""A paper's published values: the CSV that holds them, its schema and its validation.

Each paper keeps the numbers it printed in one file, ``rfbench/papers/<paper>/published.csv``,
one row per published number (long format), headed by ``#`` comment lines that say where
the values were transcribed from.  They serve only for side-by-side comparison
(:mod:`rfbench.report.compare`); nothing in rfbench's own results is taken from them.

Columns (any order):

========  ==================================================================================
paper     the paper's report name, e.g. ``askrff`` (one per file)
source    where the number is printed: ``Table 1``, ``Fig. 2``, ``Sec. 5.4``
dataset   the dataset, in rfbench's name for it (blank for a claim about every dataset)
method    the method (the row or column heading, in rfbench's names); for a claim, the name
          of the check that the paper's module runs on it
metric    a key of :data:`METRICS` (``test accuracy``, ``relative error``, ...) or ``claim``
value     the published number (blank for a claim)
sd        its published standard deviation; blank if the paper gives none
unit      ``%`` or ``fraction`` (the metric's own scale), or ``s``; blank for a claim
note      free text: a transcription remark, or a claim's statement as the paper makes it
========  ==================================================================================

Any other column is a further key that tells cells apart (AsK-RFF's ``approximation``,
QMC's number of features ``s``), in the order of the file.

A source whose values carry a printed ``±`` says over how many trials that sd is, citing the
paper's sentence, in one comment line (:func:`sd_trials`)::

    # sd trials: Table 1 = 10: "the average and the standard deviation over 10 tirals" (Table 1 caption)
"""
from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

#: Columns every published CSV has; the others are further keys.
COLUMNS = ("paper", "source", "dataset", "method", "metric", "value", "sd", "unit", "note")
#: Columns that name a cell (with any further key columns of the file).
BASE_KEYS = ("dataset", "method")
#: The ``metric`` of a row that states a qualitative claim (a figure's trend) rather than a number.
CLAIM = "claim"
#: Our metrics are recorded on the ``fraction`` scale; the factor to each published unit.
UNIT_SCALE = {"fraction": 1.0, "%": 100.0, "s": 1.0}


@dataclass(frozen=True)
class Metric:
    """How to compare a published metric (the verdict rule itself: :mod:`rfbench.report.verdicts`).

    Parameters
    ----------
    higher_is_better : bool
        Whether a larger value is the better result (accuracy) or the worse one (errors, times).
    """

    higher_is_better: bool


#: The metrics the papers report.
METRICS: dict[str, Metric] = {
    "test accuracy": Metric(higher_is_better=True),
    "test error": Metric(higher_is_better=False),
    "relative error": Metric(higher_is_better=False),
    "gram error": Metric(higher_is_better=False),
    "time": Metric(higher_is_better=False),
    "box discrepancy": Metric(higher_is_better=False),
}


class PublishedError(ValueError):
    """A published-values CSV that does not follow the schema."""


def path_of(paper: str) -> Path:
    """The packaged published-values CSV of ``paper`` (``rfbench/papers/<paper>/published.csv``)."""
    return Path(str(resources.files("rfbench.papers") / paper / "published.csv"))


def load(path: Path, metrics: Mapping[str, Metric] = METRICS) -> pd.DataFrame:
    """Read and validate a published-values CSV.

    Parameters
    ----------
    path : Path
        The CSV; lines starting with ``#`` are comments.
    metrics : mapping of str to Metric
        The metric names the file may use (besides ``claim``).

    Returns
    -------
    DataFrame
        One row per published number or claim: key columns as text (blank for none),
        ``value`` and ``sd`` as floats (NaN where blank).

    Raises
    ------
    PublishedError
        Naming the file, the row (its line in the file) and the column at fault.
    """
    lines, text = _data_lines(path)
    try:
        raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise PublishedError(f"{path}: not a readable CSV: {err}") from err
    missing = [c for c in COLUMNS if c not in raw.columns]
    if missing:
        raise PublishedError(f"{path}: missing column(s) {missing}; a published CSV has {list(COLUMNS)} "
                             "plus any further key columns")
    table = raw.apply(lambda column: column.str.strip())
    for number in ("value", "sd"):
        table[number] = [_number(path, lines[i], number, text) for i, text in enumerate(table[number])]
    for i, row in table.iterrows():
        _check_row(path, lines[i], row, metrics)
    _check_unique(path, table, lines)
    return table


SD_TRIALS = re.compile(r"^#\s*sd trials:\s*(?P<source>[^=]+?)\s*=\s*(?P<n>\d+)\s*:\s*(?P<cite>\S.*)$")


def sd_trials(path: Path) -> dict[str, int]:
    """Per source, the number of trials its printed ``±`` is the sd over, from the file's
    ``# sd trials: <source> = <n>: <citation>`` lines (a line without its citation is refused)."""
    found = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.lstrip().startswith("#") and "sd trials:" in line:
            match = SD_TRIALS.match(line.strip())
            if not match or int(match["n"]) < 2:
                raise PublishedError(f"{path}, line {number}: {line.strip()!r} is not '# sd trials: <source> = "
                                     "<n >= 2>: <the paper's sentence>'")
            found[match["source"]] = int(match["n"])
    return found


def key_columns(published: pd.DataFrame) -> list[str]:
    """The columns that name a cell: ``dataset``, ``method``, then any further keys of the file."""
    return list(BASE_KEYS) + [c for c in published.columns if c not in COLUMNS]


def _data_lines(path: Path) -> tuple[list[int], str]:
    """The file's line number of each data row, and the header and rows as text.

    Only whole lines starting with ``#`` are comments: a note may contain ``#``.
    """
    kept = [(n, line) for n, line in enumerate(Path(path).read_text().splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")]
    return [n for n, _ in kept[1:]], "\n".join(line for _, line in kept)


#: A number as a paper prints it: digits with an optional point and exponent (Python's ``float`` also takes
#: ``nan``, ``inf`` and ``1_000``, which no paper prints and whose precision cannot be read).
PRINTED = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _number(path: Path, line: int, column: str, text: str) -> float:
    if text == "":
        return np.nan
    if not PRINTED.fullmatch(text):
        raise PublishedError(f"{path}, line {line}, column {column}: {text!r} is not a number as printed "
                             "(digits, an optional point and exponent, e.g. `92.69` or `3.41e-3`); fix the value")
    return float(text)


def _check_row(path: Path, line: int, row: pd.Series, metrics: Mapping[str, Metric]) -> None:
    where = f"{path}, line {line}"
    if not row["paper"] or not row["source"]:
        raise PublishedError(f"{where}: columns paper and source must not be blank")
    metric, unit = row["metric"], row["unit"]
    if metric == CLAIM:
        if not row["method"] or not row["note"] or not (np.isnan(row["value"]) and unit == ""):
            raise PublishedError(f"{where}: a claim names its check in column method and states itself in "
                                 "column note, with value and unit blank")
        return
    if metric not in metrics:
        raise PublishedError(f"{where}, column metric: {metric!r} is not known; valid: "
                             f"{sorted(metrics) + [CLAIM]}")
    if unit not in UNIT_SCALE:
        raise PublishedError(f"{where}, column unit: {unit!r} is not known; valid: {list(UNIT_SCALE)}")
    if np.isnan(row["value"]):
        raise PublishedError(f"{where}, column value: blank; a published number needs its value")
    if row["sd"] < 0:
        raise PublishedError(f"{where}, column sd: {row['sd']} is negative")


def _check_unique(path: Path, table: pd.DataFrame, lines: list[int]) -> None:
    keys = ["source", *key_columns(table), "metric"]
    repeated = table.duplicated(keys, keep=False)
    if repeated.any():
        at = [lines[i] for i in np.flatnonzero(repeated)]
        raise PublishedError(f"{path}, lines {at}: the same {keys} more than once")
    papers = sorted(set(table["paper"]))
    if len(papers) > 1:
        raise PublishedError(f"{path}, column paper: one paper per file, found {papers}")
