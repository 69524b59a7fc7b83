"""The verdict record: one row per compared cell or judged claim, the same schema for every paper.

Each paper's module (``rfbench/papers/<paper>/verdicts.py``) turns its committed comparison and
claim tables into these records and writes ``<results>/<paper>/verdicts.csv``; the project report
(:mod:`rfbench.report.project`) is built from those files alone.

The uncertainty rule
--------------------
Every cell carries the standard uncertainty of our value, ``u_ours``, and of the published one,
``u_published``, by one rule:

- ours over ``n >= 2`` trials: the standard error ``sd / sqrt(n)``;
- ours from one run (``n = 1``) of a test accuracy or error: the binomial standard error of a
  proportion over the test set, ``sqrt(p (1 - p) / n_test)`` (in the cell's unit);
- ours from one run of another metric: the spread of a measurement that the paper's module
  names (e.g. QMC's split-seed sweep), else 0 for a deterministic computation (said so);
- published with an sd: that sd, taken whole (papers seldom say whether +- is an sd over trials
  or a standard error: this errs towards agreeing);
- published without an sd: half a unit of its last printed digit (``92.69``: 0.005).

A cell **agrees** when ``|ours - published| <= 2 sqrt(u_ours^2 + u_published^2)``; the threshold
is never below either uncertainty, and no fixed tolerance enters it.

Categories
----------
``agrees``; ``higher`` / ``lower`` (than published: better or worse by the metric's direction)
only where our data and protocol are the paper's; ``not comparable`` where they differ (another
dataset, test set, features, preprocessing or multi-class scheme), with the difference named in
``reason``; ``not run: data not obtainable`` (``reason`` names why) apart from ``not run: not yet``
(``reason`` gives the command); ``no published value`` for a cell the paper lacks. A cell that
is higher, lower or not comparable has a ``cause``: ``explained: <the measurement that accounts for
it>`` or ``unexplained``. Claims (``kind`` ``claim``: the paper's statements; ``check``: checks we
added) hold, fail or are not run yet.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rfbench.engine import records
from rfbench.report import compare
from rfbench.report import published as published_csv
from rfbench.report.published import METRICS, UNIT_SCALE

CELL, CLAIM, CHECK = "cell", "claim", "check"
AGREES, HIGHER, LOWER = "agrees", "higher", "lower"
#: How the reports show a higher or lower cell: better or worse by the metric's direction (:func:`shown`).
BETTER, WORSE = "ours better", "ours worse"
NOT_COMPARABLE = "not comparable"
NOT_OBTAINABLE, NOT_YET = "not run: data not obtainable", "not run: not yet"
NO_PUBLISHED = "no published value"
HOLDS, FAILS = "holds", "fails"
#: Every verdict, in the order the reports count them.
VERDICTS = (AGREES, HIGHER, LOWER, NOT_COMPARABLE, NOT_OBTAINABLE, NOT_YET, NO_PUBLISHED, HOLDS, FAILS)
#: The verdicts a cell may have, and a claim or check.
CELL_VERDICTS = VERDICTS[:7]
CLAIM_VERDICTS = (HOLDS, FAILS, NOT_YET)
#: A cell's verdict as every table shows it (:func:`shown`), in the order the reports count them.
SHOWN = (AGREES, BETTER, WORSE, NOT_COMPARABLE, NOT_OBTAINABLE, NOT_YET, NO_PUBLISHED)
#: Cell verdicts that need a cause (explained or unexplained).
NEEDS_CAUSE = (HIGHER, LOWER, NOT_COMPARABLE)
#: Verdicts that need a reason: the difference named, why not obtainable, the command.
NEEDS_REASON = (NOT_COMPARABLE, NOT_OBTAINABLE, NOT_YET)
EXPLAINED, UNEXPLAINED = "explained: ", "unexplained"
#: The verdict record's columns.
COLUMNS = ("paper", "source", "kind", "cell", "metric", "unit", "mean", "sd", "n", "u_ours", "u_ours_rule",
           "published", "published_sd", "u_published", "difference", "threshold", "verdict", "better", "reason",
           "cause", "evidence")
#: The record's text columns (blank, never NaN).
TEXT = ("paper", "source", "kind", "cell", "metric", "unit", "u_ours_rule", "verdict", "better", "reason", "cause",
        "evidence")
FILE = "verdicts.csv"
RULE = ("Uncertainty of a cell: ours over n >= 2 trials, sd / sqrt(n); ours from one run, the binomial standard error "
        "sqrt(p (1 - p) / n_test) of a test accuracy or error, else the named measured spread (QMC: the split-seed "
        "sweep), else 0 for a deterministic computation; published, its sd, else half a unit of its last printed "
        "digit. A cell agrees when |ours - published| <= 2 sqrt(u_ours^2 + u_published^2); otherwise it is higher "
        "or lower (better or worse by the metric) where our data and protocol are the paper's, and not comparable, "
        "with the difference named, where they are not. Every cell that does not agree is explained by a named "
        "measurement or said to be unexplained.")


def half_unit(text: str) -> float:
    """Half a unit of the last digit printed in ``text`` (``"92.69"``: 0.005; ``"3.41e-3"``: 5e-6; ``"15"``: 0.5)."""
    match = re.fullmatch(r"\s*[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*", text)
    if not match or not (match.group(1) or match.group(2)):
        raise ValueError(f"{text!r} is not a printed number")
    decimals, exponent = len(match.group(2) or ""), int(match.group(3) or 0)
    return 0.5 * 10.0 ** (exponent - decimals)


def printed_resolution(paper: str) -> pd.DataFrame:
    """Per published number of ``paper``: its keys, ``source``, ``metric`` and ``half_unit`` of its text.

    The published CSV is read as text (:func:`rfbench.report.published.load` turns values into floats,
    which forget how many digits were printed).
    """
    path = published_csv.path_of(paper)
    table = published_csv.load(path)
    _, text = published_csv._data_lines(path)
    raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True)
    numbers = table["metric"] != published_csv.CLAIM
    table = table[numbers].assign(half_unit=[half_unit(v) for v in raw.loc[numbers, "value"].str.strip()])
    return table


def binomial_se(p: float, n_test: float) -> float:
    """Standard error of a proportion ``p`` (a fraction) estimated on ``n_test`` independent test rows."""
    return float(np.sqrt(p * (1 - p) / n_test))


@dataclass(frozen=True)
class Spread:
    """A measured spread of a one-run cell (in the cell's unit) and the measurement's name."""

    sd: float
    name: str


@dataclass(frozen=True)
class Rules:
    """What one paper knows about its cells beyond the numbers (each a function of a cell's row).

    Parameters
    ----------
    label : callable
        The cell's name in the records (e.g. ``"spambase shift_gaussian Asy"``).
    n_test : callable
        The number of test rows behind a one-run accuracy or error, or None.
    spread : callable
        A measured spread for a one-run cell of another metric, or None.
    not_comparable : callable
        The named difference of data or protocol that makes the cell not comparable, or None.
    not_obtainable : callable
        Why a cell not run cannot be run (its data cannot be obtained), or None.
    not_yet : callable
        The command that runs a cell not run yet (used when ``not_obtainable`` gives None).
    cause : callable
        For a cell that does not agree, ``explained: <measurement>`` or ``unexplained``.
    """

    label: Callable[[pd.Series], str]
    n_test: Callable[[pd.Series], float | None] = lambda row: None
    spread: Callable[[pd.Series], Spread | None] = lambda row: None
    not_comparable: Callable[[pd.Series], str | None] = lambda row: None
    not_obtainable: Callable[[pd.Series], str | None] = lambda row: None
    not_yet: Callable[[pd.Series], str] = lambda row: ""
    cause: Callable[[pd.Series], str] = lambda row: UNEXPLAINED


def ours_uncertainty(row: pd.Series, rules: Rules) -> tuple[float, str]:
    """``u_ours`` of a cell and the branch of the rule that gave it (see the module docstring)."""
    if np.isnan(row["mean"]):
        return np.nan, ""
    n = 0 if pd.isna(row["n"]) else int(row["n"])
    if n >= 2 and not pd.isna(row["sd"]):
        return float(row["sd"]) / np.sqrt(n), f"sd / sqrt({n})"
    scale = UNIT_SCALE[row["unit"]]
    n_test = rules.n_test(row)
    if row["metric"] in ("test accuracy", "test error") and n_test:
        return scale * binomial_se(row["mean"] / scale, n_test), f"binomial, n_test = {int(n_test)}"
    spread = rules.spread(row)
    if spread is not None:
        return spread.sd, spread.name
    return 0.0, "deterministic, one run: no spread measured"


def judge(difference: float, u_ours: float, u_published: float, higher_is_better: bool) -> tuple[str, float]:
    """The verdict of a comparable cell and its threshold ``2 sqrt(u_ours^2 + u_published^2)``."""
    threshold = 2 * float(np.hypot(u_ours, u_published))
    if abs(difference) <= threshold:
        return AGREES, threshold
    return (HIGHER if difference > 0 else LOWER), threshold


def cell_records(table: pd.DataFrame, paper: str, rules: Rules) -> pd.DataFrame:
    """Verdict records of a comparison table (:func:`rfbench.report.compare.compare`'s columns).

    The published uncertainty comes from the paper's published CSV (its sd, else half a unit of the
    printed value's last digit); the table's own threshold and verdict are not used.
    """
    printed = printed_resolution(paper)
    key = ["source", *[c for c in published_csv.key_columns(printed) if c != "half_unit"], "metric"]
    units = {_key(r, key): r["half_unit"] for _, r in printed.iterrows()}
    rows = [_cell_record(row, paper, rules, units.get(_key(row, key), np.nan)) for _, row in table.iterrows()]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def shown(record: pd.Series) -> str:
    """A cell record's verdict as the tables and the project report show it: higher or lower as
    :data:`BETTER` or :data:`WORSE` by the metric's direction (the record's ``better``), any other
    verdict as it is."""
    if record["verdict"] in (HIGHER, LOWER):
        return BETTER if record["better"] == "yes" else WORSE
    return str(record["verdict"])


def judged(table: pd.DataFrame, paper: str, rules: Rules) -> pd.DataFrame:
    """A comparison table (:func:`rfbench.report.compare.compare`) with each cell's ``threshold`` and
    ``verdict`` those of its verdict record (:func:`cell_records`, :func:`shown`): the one verdict
    source, so a paper's tables and its ``verdicts.csv`` (made from these tables) cannot disagree."""
    found = cell_records(table, paper, rules)
    out = table.assign(threshold=found["threshold"].to_numpy(float),
                       verdict=[shown(record) for _, record in found.iterrows()])
    at = list(table.columns).index("difference") + 1
    columns = [c for c in table.columns if c not in ("threshold", "verdict")]
    return out[[*columns[:at], "threshold", "verdict", *columns[at:]]]


def counts(table: pd.DataFrame) -> pd.DataFrame:
    """How many cells (or claims) of a table got each verdict, in :data:`SHOWN` then claim order,
    present ones only."""
    said = table["verdict"].value_counts()
    order = [v for v in (*SHOWN, HOLDS, FAILS, compare.NOT_RUN) if v in said]
    return pd.DataFrame({"verdict": order, "count": [int(said[v]) for v in order]})


def _key(row: pd.Series, key: list[str]) -> tuple[str, ...]:
    return tuple(_text(row.get(k, "")) for k in key)


def _text(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else (str(int(value)) if float(value).is_integer() else repr(float(value)))
    return str(value)


def _cell_record(row: pd.Series, paper: str, rules: Rules, printed_half: float) -> dict:
    u_ours, how = ours_uncertainty(row, rules)
    u_pub = np.nan if pd.isna(row["published"]) else (
        float(row["published_sd"]) if not pd.isna(row["published_sd"]) else printed_half)
    record = {"paper": paper, "source": row["source"], "kind": CELL, "cell": rules.label(row),
              "metric": row["metric"], "unit": row["unit"], "mean": row["mean"], "sd": row["sd"], "n": row["n"],
              "u_ours": u_ours, "u_ours_rule": how, "published": row["published"],
              "published_sd": row["published_sd"], "u_published": u_pub,
              "difference": row["mean"] - row["published"], "threshold": np.nan, "better": "", "reason": "",
              "cause": "", "evidence": "" if pd.isna(row.get("note", np.nan)) else str(row["note"])}
    if pd.isna(row["published"]):
        return {**record, "verdict": NO_PUBLISHED}
    if pd.isna(row["mean"]):
        obtainable = rules.not_obtainable(row)
        return {**record, "verdict": NOT_YET if obtainable is None else NOT_OBTAINABLE,
                "reason": rules.not_yet(row) if obtainable is None else obtainable}
    verdict, threshold = judge(record["difference"], u_ours, u_pub, METRICS[row["metric"]].higher_is_better)
    record["threshold"] = threshold
    if verdict != AGREES:
        record["better"] = "yes" if (verdict == HIGHER) == METRICS[row["metric"]].higher_is_better else "no"
    difference = rules.not_comparable(row)
    if difference is not None:
        return {**record, "verdict": NOT_COMPARABLE, "reason": difference, "cause": rules.cause(row)}
    return {**record, "verdict": verdict, "cause": rules.cause(row) if verdict != AGREES else ""}


def claim_records(claims: pd.DataFrame, paper: str, kind: Callable[[pd.Series], str],
                  not_yet: str = "") -> pd.DataFrame:
    """Verdict records of a claim table (:func:`rfbench.report.compare.check_claims`'s columns).

    ``kind(row)`` says whether a claim is the paper's (:data:`CLAIM`) or a check we added (:data:`CHECK`);
    a claim not run yet gets ``not_yet`` (its command) as reason.
    """
    rows = []
    for _, row in claims.iterrows():
        verdict = NOT_YET if row["verdict"] == "not run" else row["verdict"]
        label = " ".join(str(v) for v in (row.get("dataset", ""), row["claim"]) if isinstance(v, str) and v)
        rows.append({"paper": paper, "source": row["source"], "kind": kind(row), "cell": label, "verdict": verdict,
                     "reason": not_yet if verdict == NOT_YET else "", "evidence": row["evidence"]})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def normalized(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` in the record's column order, its text columns blank rather than NaN."""
    frame = frame.reindex(columns=list(COLUMNS))
    return frame.assign(**{c: frame[c].astype(object).fillna("").astype(str) for c in TEXT})


def validate(frame: pd.DataFrame, where: str = "verdict records") -> pd.DataFrame:
    """Check the schema: every column, known kinds and verdicts, a reason and a cause where one is due.

    Raises
    ------
    ValueError
        Naming the first offending row's cell, the value at fault and the valid choices.
    """
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{where}: missing column(s) {missing}; a verdict record has {list(COLUMNS)}")
    for _, row in frame.iterrows():
        at = f"{where}: {row['paper']} {row['source']} {row['cell']!r}"
        valid = CELL_VERDICTS if row["kind"] == CELL else CLAIM_VERDICTS
        if row["kind"] not in (CELL, CLAIM, CHECK):
            raise ValueError(f"{at}: kind {row['kind']!r} is not one of {[CELL, CLAIM, CHECK]}")
        if row["verdict"] not in valid:
            raise ValueError(f"{at}: verdict {row['verdict']!r} is not one of {list(valid)}")
        if row["verdict"] in NEEDS_REASON and not _filled(row["reason"]):
            raise ValueError(f"{at}: verdict {row['verdict']!r} needs a reason (the difference, why not "
                             "obtainable, or the command)")
        if row["kind"] == CELL and row["verdict"] in NEEDS_CAUSE and not (
                _filled(row["cause"]) and (row["cause"] == UNEXPLAINED or row["cause"].startswith(EXPLAINED))):
            raise ValueError(f"{at}: verdict {row['verdict']!r} needs a cause, {EXPLAINED!r}<measurement> or "
                             f"{UNEXPLAINED!r}; got {row['cause']!r}")
    return frame


def _filled(value) -> bool:
    return isinstance(value, str) and bool(value.strip())


def write(folder: Path, frame: pd.DataFrame) -> Path:
    """Validate ``frame`` and write it to ``folder/verdicts.csv`` (atomically)."""
    records.write_csv(folder / FILE, validate(normalized(frame), str(folder / FILE)))
    return folder / FILE


def load(path: Path) -> pd.DataFrame:
    """Read and validate a ``verdicts.csv`` (:func:`normalized`)."""
    return validate(normalized(pd.read_csv(path, dtype={c: str for c in TEXT})), str(path))


def tally(frame: pd.DataFrame) -> dict[str, int]:
    """Counts of one paper's records: cells per verdict, the paper's claims and our checks per verdict
    (``claim holds``, ``check fails``, ...), and the cells that needed a cause, explained or unexplained."""
    frame = normalized(frame)
    cells, said = frame[frame["kind"] == CELL], {}
    for verdict in CELL_VERDICTS:
        said[verdict] = int((cells["verdict"] == verdict).sum())
    for kind in (CLAIM, CHECK):
        for verdict in CLAIM_VERDICTS:
            said[f"{kind} {verdict}"] = int(((frame["kind"] == kind) & (frame["verdict"] == verdict)).sum())
    due = cells[cells["verdict"].isin(NEEDS_CAUSE)]
    said["explained"] = int(due["cause"].str.startswith(EXPLAINED).sum())
    said["unexplained"] = int((due["cause"] == UNEXPLAINED).sum())
    return said


#: Columns that make a CSV a comparison table: :func:`rfbench.report.compare.compare`'s, with the
#: ``threshold`` and ``verdict`` that :func:`judged` adds (a table written without them is no comparison).
COMPARISON = {"source", "metric", "unit", "mean", "sd", "n", "published", "published_sd", "difference",
              "threshold", "verdict"}
#: Columns that make a CSV a claim table (:func:`rfbench.report.compare.check_claims`).
CLAIMS = {"source", "dataset", "claim", "verdict", "evidence"}


def report_files(folder: Path, pattern: str) -> list[Path]:
    """The files matching ``pattern`` below ``folder``, outside run folders, sorted."""
    return sorted(p for p in folder.rglob(pattern) if "runs" not in p.relative_to(folder).parts)


def tables(folder: Path, columns: set[str]) -> list[pd.DataFrame]:
    """Every CSV below ``folder`` (run folders and the records themselves aside) that has ``columns``
    (:data:`COMPARISON`, :data:`CLAIMS`), each checked whole (:func:`checked_table`)."""
    found = []
    for path in report_files(folder, "*.csv"):
        header = set(pd.read_csv(path, nrows=0).columns) if path.name != FILE else set()
        if columns <= header or {"source", "verdict"} <= header:  # a table of verdicts missing a column: damage
            table = checked_table(path, header)
            if columns <= header:
                found.append(table)
    return found


def checked_table(path: Path, header: set[str]) -> pd.DataFrame:
    """The comparison or claim table at ``path``, or a RecordError naming its damage and what it would
    miscount: a cut or ragged file, a table of verdicts missing a column, a verdict that is none of
    the known ones, or a missing number (``mean`` unless not run, ``published`` unless there is none).
    Read silently, each would change the paper's counts."""
    fix = f"restore it (git checkout -- {path}) or rerun its target"
    if damage := records.table_damage(path):
        raise records.RecordError(f"{path} is {damage}; its verdicts are not counted: {fix}")
    if not (COMPARISON <= header or CLAIMS <= header):
        missing = min(COMPARISON - header, CLAIMS - header, key=len)
        raise records.RecordError(f"{path} holds verdicts but lacks the columns {sorted(missing)} of a comparison "
                                  f"or claim table; its verdicts are not counted: {fix}")
    table = pd.read_csv(path)
    known = SHOWN if COMPARISON <= header else compare.CLAIM_VERDICTS
    bad = ~table["verdict"].isin(known)
    if COMPARISON <= header:
        bad |= table["mean"].isna() & ~table["verdict"].isin((NOT_OBTAINABLE, NOT_YET))
        bad |= table["published"].isna() & (table["verdict"] != NO_PUBLISHED)
    if bad.any():
        rows = [int(i) + 2 for i in np.flatnonzero(bad)]  # file lines: the header is line 1
        raise records.RecordError(f"{path}, line(s) {rows}: a verdict that is none of {list(known)}, or "
                                  f"a missing mean or published value; those cells would be miscounted: {fix}")
    return table


def claim_kind(row: pd.Series) -> str:
    """A claim row is a check we added when its statement says so ("our check"), else the paper's."""
    return CHECK if "our check" in str(row["claim"]) else CLAIM


def paper_records(folder: Path, paper: str, rules: Rules, not_yet_claims: str = "",
                  kind: Callable[[pd.Series], str] = claim_kind) -> pd.DataFrame:
    """The verdict records of every comparison and claim table a paper's reports left below ``folder``."""
    parts = [cell_records(table, paper, rules) for table in tables(folder, COMPARISON)]
    parts += [claim_records(table.fillna({"dataset": ""}), paper, kind, not_yet_claims)
              for table in tables(folder, CLAIMS)]
    return normalized(pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(COLUMNS)))
