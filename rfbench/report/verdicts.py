"""The verdict record: one row per compared cell or judged claim, the same schema for every paper.

Each paper's module (``rfbench/papers/<paper>/verdicts.py``) turns its committed comparison and
claim tables into these records and writes ``<results>/<paper>/verdicts.csv``; the project report
(:mod:`rfbench.report.project`) is built from those files alone.

The uncertainty rule
--------------------
Every cell carries the standard uncertainty of our value, ``u_ours``, and of the published one,
``u_published``, each the root sum of squares of the terms that apply to it:

- ours over ``n >= 2`` trials: the standard error ``sd / sqrt(n)``;
- ours from one run of a test accuracy or error: the binomial standard error
  ``sqrt(p (1 - p) / n_test)`` over the test rows (in the cell's unit), ``p`` clipped to
  ``[0.5 / n_test, 1 - 0.5 / n_test]`` (:data:`CONTINUITY`) so that a perfect score still has one;
- ours from one run of another metric (deterministic given its inputs, compared across
  implementations): a measured spread that the paper's module passes with the record that holds
  it (:class:`Spread`: seeds, scrambles, sigma within its stated precision), else the stated
  relative tolerance :data:`RELATIVE_TOLERANCE` of the published value;
- ours, every cell of a table's dataset alike or none: the partition spread the paper's module
  passes for that (source, dataset) (:attr:`Rules.partition`: our partition is not the paper's);
- published with a ``±``: what the paper defines it as, the sd over its ``n`` trials, so
  ``sd / sqrt(n)`` with ``n`` from the paper's text, cited in its ``published.csv``
  (:func:`rfbench.report.published.sd_trials`); a ``±`` without a cited ``n`` is refused;
- published without a ``±`` of a test accuracy or error with a known test size: its binomial
  standard error, as ours (the paper's one run is a proportion over its test rows too);
- published, always: its rounding, a resolution: half a unit of its last printed digit taken as
  uniform, ``half_unit / sqrt(3)``; never the only term of a cell (ours has one of the above).

A cell **agrees** when ``|ours - published| <= K sqrt(u_ours^2 + u_published^2)`` with ``K = 2``
(:data:`K`). Agreement is decided first: a cell that agrees agrees, whatever its data.

Categories
----------
``agrees``; ``higher`` / ``lower`` (than published: better or worse by the metric's direction)
only where our data and protocol are the paper's; ``not comparable`` where they differ (another
dataset, test set, features, preprocessing or multi-class scheme), with the difference named in
``reason``; ``not run: data not obtainable`` (``reason`` names why) apart from ``not run: not yet``
(``reason`` gives the command); ``no published value`` for a cell the paper lacks. A cell that
is higher, lower or not comparable has a ``cause``: ``explained: <what shows it>`` naming the
record that shows it (``record: <paper>/<path>`` under the results folder, or ``make <target>``:
:func:`check_citations`), or ``unexplained``; an explained cell's ``evidence`` quotes the numbers of
that record, read when the verdicts are made (:mod:`rfbench.report.evidence`, :func:`check_evidence`).
Claims (``kind`` ``claim``: the paper's statements; ``check``: checks we added) hold, fail or are
not run yet.

At ``K = 2`` a cell whose two values measure the same thing disagrees by chance with probability
``P(|Z| > 2)``; :func:`chance` gives, per paper, the count of disagreements chance alone would give
and its 95 % binomial upper bound, beside the observed count.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from rfbench.engine import records
from rfbench.report import compare, evidence
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
#: Metrics that are a proportion of test rows (a binomial term applies to one run of them).
PROPORTIONS = ("test accuracy", "test error")
#: The verdict record's columns.
COLUMNS = ("paper", "source", "kind", "cell", "metric", "unit", "mean", "sd", "n", "u_ours", "u_ours_rule",
           "published", "published_sd", "u_published", "difference", "threshold", "verdict", "better", "reason",
           "cause", "evidence")
#: The record's text columns (blank, never NaN).
TEXT = ("paper", "source", "kind", "cell", "metric", "unit", "u_ours_rule", "verdict", "better", "reason", "cause",
        "evidence")
#: The record's number columns (blank where the cell has none, never text).
NUMBERS = tuple(c for c in COLUMNS if c not in TEXT)
#: Verdicts reached by :func:`judge`: the cell's threshold is a number.
JUDGED = (AGREES, HIGHER, LOWER, NOT_COMPARABLE)
FILE = "verdicts.csv"
#: How many combined standard uncertainties a difference may reach and still agree.
K = 2.0
#: The uncertainty of a deterministic one-run cell of ours compared across implementations, as a fraction of the
#: published value, when no measured spread is passed: library, solver stopping and summation order differ between
#: two implementations of one computation. Stated once here, before any cell was judged with it.
RELATIVE_TOLERANCE = 0.01
#: A binomial proportion is clipped to [CONTINUITY / n_test, 1 - CONTINUITY / n_test] (half a test row), so that
#: a perfect (or null) score keeps a sampling term.
CONTINUITY = 0.5
RULE = ("Each value's standard uncertainty is the root sum of squares of its terms. Ours: over n >= 2 trials, "
        "sd / sqrt(n); one run of a test accuracy or error, the binomial sqrt(p (1 - p) / n_test) with p clipped "
        "to `[0.5 / n_test, 1 - 0.5 / n_test]`; one run of another metric (deterministic given its inputs), a "
        "measured spread named with its record (seeds, scrambles, sigma within its precision), else 1 % of the "
        "published value; and, for every cell of a table's dataset or for none, the partition spread where one "
        "is measured. Published: a printed ± is the sd over the paper's n trials (n cited from its text), so "
        "sd / sqrt(n); a one-run accuracy or error without ± has the binomial term over its test rows; every "
        "printed value has its rounding, half a unit of the last digit as uniform (half-unit / sqrt(3)). A cell "
        "agrees when |ours - published| <= 2 sqrt(u_ours^2 + u_published^2), decided first; otherwise it is "
        "higher or lower (better or worse by the metric) where our data and protocol are the paper's, and not "
        "comparable, with the difference named, where they are not. Every cell that does not agree is explained "
        "by a record a reader can open (a results file or a make target), or said to be unexplained. At 2 sigma "
        "about 1 compared cell in 22 disagrees by chance alone; each paper's expected count is given.")


def half_unit(text: str) -> float:
    """Half a unit of the last digit printed in ``text`` (``"92.69"``: ``0.005``; ``"3.41e-3"``: ``5e-6``;
    ``"15"``: ``0.5``)."""
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
    lines, text = published_csv._data_lines(path)
    raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True)
    numbers = table["metric"] != published_csv.CLAIM
    halves = [half_unit(v) for v in raw.loc[numbers, "value"].str.strip()]  # printed numbers: load checked them
    return table[numbers].assign(half_unit=halves, line=[lines[i] for i in np.flatnonzero(numbers)])


def _check_current(table: pd.DataFrame, paper: str, known: dict[tuple[str, ...], pd.Series], key: list[str]) -> None:
    """Refuse a comparison table whose published value or sd differs from the paper's ``published.csv``:
    a table written before the file was edited would be judged (and printed) with a value the paper
    no longer has. The paper's report rewrites its tables from the records and the current file."""
    for i, row in table.reset_index(drop=True).iterrows():
        entry = known.get(_key(row, key))
        if entry is None:
            continue
        for ours, theirs in (("published", "value"), ("published_sd", "sd")):
            if not _same(row[ours], entry[theirs]):
                where = table.attrs.get("path", "a comparison table")
                raise records.RecordError(
                    f"{where}, line {i + 2}: {ours} {_text(row[ours]) or 'blank'} but "
                    f"{published_csv.path_of(paper)}, line {entry['line']}, column {theirs} says "
                    f"{_text(entry[theirs]) or 'blank'}; the table is stale: rerun `make {paper}` (its finished runs "
                    "are kept) to redraw it from the records and the current published values")


def _same(a, b) -> bool:
    if pd.isna(a) or pd.isna(b):
        return pd.isna(a) and pd.isna(b)
    return bool(np.isclose(float(a), float(b), rtol=1e-12, atol=0.0))


def binomial_se(p: float, n_test: float) -> float:
    """Standard error of a proportion ``p`` (a fraction) estimated on ``n_test`` independent test rows, ``p``
    clipped to ``[CONTINUITY / n_test, 1 - CONTINUITY / n_test]`` (at 0 or 1 the plain formula gives 0)."""
    floor = CONTINUITY / n_test
    p = min(max(p, floor), 1 - floor)
    return float(np.sqrt(p * (1 - p) / n_test))


def rounding(half: float) -> float:
    """The standard uncertainty of a printed value's rounding: half a unit of its last digit, as uniform."""
    return half / np.sqrt(3)


@dataclass(frozen=True)
class Spread:
    """A measured spread (an sd, in the cell's unit), the measurement's name and the record that holds it.

    ``record`` is a path under the results folder (``qmc/table1/splits.csv``) or ``make <target>``; the
    verdict records name it, and :func:`check_citations` requires it to exist.
    """

    sd: float
    name: str
    record: str

    def __str__(self) -> str:
        return f"{self.name} (record: {self.record})" if "/" in self.record else f"{self.name} ({self.record})"


class Cause(str):
    """An explained cause (``explained: ...``, citing its record) whose record has no row of its own for the
    cell (a sweep, rows of another table), with its ``evidence``: the numbers the paper's module read from
    that record for it, quoted as :func:`rfbench.report.evidence.quote` does (``<paper>/<path> (<rows>):
    ...``). A string, so that it reads as any cause; any other explained cause is a plain string, its
    evidence quoted from its record."""

    evidence: str

    def __new__(cls, text: str, evidence: str) -> Cause:
        cause = super().__new__(cls, text)
        cause.evidence = evidence
        return cause


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
        A measured spread for a one-run cell of another metric (deterministic given its inputs), or None
        (then :data:`RELATIVE_TOLERANCE`).
    partition : callable
        ``(source, dataset)`` -> the partition spread added to every cell of that table's dataset, or None:
        a function of the table, never of the cell, so that it applies to all its cells or to none.
    not_comparable : callable
        The named difference of data or protocol that makes the cell not comparable, or None.
    not_obtainable : callable
        Why a cell not run cannot be run (its data cannot be obtained), or None.
    not_yet : callable
        The command that runs a cell not run yet (used when ``not_obtainable`` gives None).
    cause : callable
        For a cell that does not agree, ``explained: <measurement>`` (a string, or a :class:`Cause` with the
        numbers of its record) or ``unexplained``.
    """

    label: Callable[[pd.Series], str]
    n_test: Callable[[pd.Series], float | None] = lambda row: None
    spread: Callable[[pd.Series], Spread | None] = lambda row: None
    partition: Callable[[str, str], Spread | None] = lambda source, dataset: None
    not_comparable: Callable[[pd.Series], str | None] = lambda row: None
    not_obtainable: Callable[[pd.Series], str | None] = lambda row: None
    not_yet: Callable[[pd.Series], str] = lambda row: ""
    cause: Callable[[pd.Series], str | Cause] = lambda row: UNEXPLAINED


def ours_uncertainty(row: pd.Series, rules: Rules) -> tuple[float, str]:
    """``u_ours`` of a cell and the terms of the rule that gave it (see the module docstring)."""
    if np.isnan(row["mean"]):
        return np.nan, ""
    n = 0 if pd.isna(row["n"]) else int(row["n"])
    scale = UNIT_SCALE[row["unit"]]
    n_test = rules.n_test(row)
    if n >= 2 and not pd.isna(row["sd"]):
        u, how = float(row["sd"]) / np.sqrt(n), f"sd / sqrt({n})"
    elif row["metric"] in PROPORTIONS and n_test:
        u, how = scale * binomial_se(row["mean"] / scale, n_test), f"binomial, n_test = {int(n_test)}"
    elif (spread := rules.spread(row)) is not None:
        u, how = spread.sd, str(spread)
    elif pd.isna(row["published"]):
        u, how = 0.0, "deterministic, one run"
    else:
        u, how = RELATIVE_TOLERANCE * abs(float(row["published"])), \
            f"deterministic, one run: {RELATIVE_TOLERANCE:.0%} of the published value"
    partition = rules.partition(row["source"], row.get("dataset", ""))
    if partition is not None:
        u, how = float(np.hypot(u, partition.sd)), f"{how}; partition: {partition}"
    return u, how


def published_uncertainty(row: pd.Series, rules: Rules, printed_half: float, trials: dict[str, int]) -> float:
    """``u_published`` of a cell (see the module docstring): the sd over the paper's trials, or the binomial
    term of a one-run accuracy, with its rounding; NaN where there is no published value.

    Raises
    ------
    ValueError
        For a published ``±`` whose number of trials the paper's ``published.csv`` does not cite.
    """
    if pd.isna(row["published"]):
        return np.nan
    if np.isnan(printed_half):  # a value not in the paper's published.csv: its shortest form stands for its print
        printed_half = half_unit(repr(float(row["published"])))
    terms = [rounding(printed_half)]
    if not pd.isna(row["published_sd"]):
        n = trials.get(row["source"])
        if n is None:
            raise ValueError(f"{row['source']}: a published ± but no number of trials cited for it; add "
                             f"'# sd trials: {row['source']} = <n>: <the paper's sentence>' to published.csv")
        terms.append(float(row["published_sd"]) / np.sqrt(n))
    elif row["metric"] in PROPORTIONS and (n_test := rules.n_test(row)):
        scale = UNIT_SCALE[row["unit"]]
        terms.append(scale * binomial_se(float(row["published"]) / scale, n_test))
    return float(np.sqrt(np.sum(np.square(terms))))


def judge(difference: float, u_ours: float, u_published: float) -> tuple[str, float]:
    """The verdict of a comparable cell and its threshold ``K sqrt(u_ours^2 + u_published^2)``: it agrees when
    the difference is at most the threshold (equality included).

    Raises
    ------
    ValueError
        For an uncertainty that is not a number >= 0 (a NaN would judge every difference beyond it).
    """
    if not (u_ours >= 0 and u_published >= 0):
        raise ValueError(f"u_ours = {u_ours}, u_published = {u_published}: an uncertainty must be a number >= 0")
    threshold = K * float(np.hypot(u_ours, u_published))
    if abs(difference) <= threshold:
        return AGREES, threshold
    return (HIGHER if difference > 0 else LOWER), threshold


def cell_records(table: pd.DataFrame, paper: str, rules: Rules, root: Path | None = None) -> pd.DataFrame:
    """Verdict records of a comparison table (:func:`rfbench.report.compare.compare`'s columns).

    The published uncertainty comes from the paper's published CSV (:func:`published_uncertainty`: its sd over
    the cited trials, the binomial term, its rounding); the table's own threshold and verdict are not used.
    With ``root`` (the results folder), an explained cell's evidence quotes the records its cause cites
    (:func:`rfbench.report.evidence.quoted`) after the cell's note.
    """
    printed = printed_resolution(paper)
    key = ["source", *[c for c in published_csv.key_columns(printed) if c not in ("half_unit", "line")], "metric"]
    known = {_key(r, key): r for _, r in printed.iterrows()}
    units = {k: r["half_unit"] for k, r in known.items()}
    _check_current(table, paper, known, key)
    trials = published_csv.sd_trials(published_csv.path_of(paper))
    rows = [_cell_record(row, paper, rules, units.get(_key(row, key), np.nan), trials, root)
            for _, row in table.iterrows()]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _explanation(cause: str | Cause, row: pd.Series, note: str, root: Path | None) -> dict[str, str]:
    """A cell's ``cause`` and ``evidence``: its note, then, for an explained cause and a ``root``, the numbers
    of the record it cites (the :class:`Cause`'s own, else read now from that record)."""
    text = str(cause)
    if root is None or not text.startswith(EXPLAINED):
        return {"cause": text, "evidence": note}
    found = cause.evidence if isinstance(cause, Cause) else evidence.quoted(citations(text)[0], row, root)
    return {"cause": text, "evidence": evidence.BETWEEN.join(t for t in (note, found) if t)}


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


def _cell_record(row: pd.Series, paper: str, rules: Rules, printed_half: float, trials: dict[str, int],
                 root: Path | None) -> dict:
    u_ours, how = ours_uncertainty(row, rules)
    u_pub = published_uncertainty(row, rules, printed_half, trials)
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
    try:
        verdict, threshold = judge(record["difference"], u_ours, u_pub)
    except ValueError as err:  # e.g. a measured spread whose record has no sd for the cell
        raise ValueError(f"{paper} {row['source']}, {record['cell']} (u_ours by {how or 'no rule'}): {err}") from None
    record["threshold"] = threshold
    difference = rules.not_comparable(row)
    if verdict == AGREES:  # decided first: a cell that agrees agrees, its named difference kept as the reason
        return {**record, "verdict": AGREES, "reason": difference or ""}
    record["better"] = "yes" if (verdict == HIGHER) == METRICS[row["metric"]].higher_is_better else "no"
    record |= _explanation(rules.cause(row), row, record["evidence"], root)
    if difference is not None:
        return {**record, "verdict": NOT_COMPARABLE, "reason": difference}
    return {**record, "verdict": verdict}


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


#: A missing number as pandas prints it, in a record's evidence: ``nan``, ``inf`` (NaN in the records behind it).
MISSING_NUMBER = re.compile(r"(?<![\w.])[-+]?(nan|inf)(?![\w])", re.IGNORECASE)


def validate(frame: pd.DataFrame, where: str = "verdict records") -> pd.DataFrame:
    """Check the schema: every column, numbers where numbers belong (a threshold for every judged cell), known
    kinds and verdicts, a reason and a cause where one is due.

    Raises
    ------
    rfbench.engine.records.RecordError
        Naming the first offending row's cell, the value at fault and the valid choices.
    """
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise records.RecordError(f"{where}: missing column(s) {missing}; a verdict record has {list(COLUMNS)}")
    numbers = frame[list(NUMBERS)].apply(pd.to_numeric, errors="coerce")
    for index, row in frame.iterrows():
        at = f"{where}: {row['paper']} {row['source']} {row['cell']!r}"
        if text := [f"{c}={row[c]!r}" for c in NUMBERS if pd.isna(numbers.at[index, c]) and _filled(row[c])]:
            raise records.RecordError(f"{at}: {', '.join(text)} where a number belongs; rerun the report that "
                                      "wrote it")
        if row["kind"] == CELL and row["verdict"] in JUDGED and not np.isfinite(numbers.at[index, "threshold"]):
            raise records.RecordError(f"{at}: verdict {row['verdict']!r} without a threshold (got "
                                      f"{row['threshold']!r}); rerun the report that wrote it")
        valid = CELL_VERDICTS if row["kind"] == CELL else CLAIM_VERDICTS
        if row["kind"] not in (CELL, CLAIM, CHECK):
            raise records.RecordError(f"{at}: kind {row['kind']!r} is not one of {[CELL, CLAIM, CHECK]}")
        if row["verdict"] not in valid:
            raise records.RecordError(f"{at}: verdict {row['verdict']!r} is not one of {list(valid)}")
        if row["verdict"] in NEEDS_REASON and not _filled(row["reason"]):
            raise records.RecordError(f"{at}: verdict {row['verdict']!r} needs a reason (the difference, why not "
                             "obtainable, or the command)")
        if MISSING_NUMBER.search(row["evidence"]):
            raise records.RecordError(f"{at}: its evidence {row['evidence']!r} quotes a missing number (NaN in the "
                                      "records it was judged on); restore the records or rerun their job")
        if row["kind"] == CELL and row["verdict"] in NEEDS_CAUSE and not (
                _filled(row["cause"]) and (row["cause"] == UNEXPLAINED or row["cause"].startswith(EXPLAINED))):
            raise records.RecordError(f"{at}: verdict {row['verdict']!r} needs a cause, {EXPLAINED!r}<measurement> or "
                             f"{UNEXPLAINED!r}; got {row['cause']!r}")
        check_evidence(row, at)
    return frame


def check_evidence(row: pd.Series, at: str) -> None:
    """Refuse an explained cause whose evidence quotes none of the records it cites (their numbers, read when
    the verdicts were made: :mod:`rfbench.report.evidence`).

    Raises
    ------
    rfbench.engine.records.RecordError
        Naming the cell, its cause and what it cites.
    """
    if not row["cause"].startswith(EXPLAINED):
        return
    paths, _ = citations(row["cause"])
    if not evidence.quotes(row["evidence"], paths):
        raise records.RecordError(
            f"{at}: its cause {row['cause']!r} is explained, but its evidence {row['evidence']!r} quotes none of "
            f"the records it cites ({paths or 'none'}); an explanation cites a CSV record ('record: <paper>/<path>') "
            "with a row for the cell, or gives the numbers it read from it (rfbench.report.verdicts.Cause)")


def _filled(value) -> bool:
    return isinstance(value, str) and bool(value.strip())


def write(folder: Path, frame: pd.DataFrame) -> Path:
    """Validate ``frame`` and write it to ``folder/verdicts.csv`` (atomically)."""
    records.write_csv(folder / FILE, validate(normalized(frame), str(folder / FILE)))
    return folder / FILE


def load(path: Path) -> pd.DataFrame:
    """Read and validate a ``verdicts.csv`` (:func:`normalized`): a missing column is refused before the
    record is normalized (which would fill it with blanks and count the rows as if whole).

    Raises
    ------
    rfbench.engine.records.RecordError
        Naming the file, its damage or the missing columns, and the fix.
    """
    fix = "rerun the project report (make report) to rewrite it from the papers' tables"
    if damage := records.table_damage(path):
        raise records.RecordError(f"{path} is {damage}; its verdicts are not counted: {fix}")
    missing = [c for c in COLUMNS if c not in pd.read_csv(path, nrows=0).columns]
    if missing:
        raise records.RecordError(f"{path} lacks the column(s) {missing} of a verdict record; its verdicts are "
                                  f"not counted: {fix}")
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
            table.attrs["path"] = str(path)  # named by the checks that read it (:func:`_check_current`)
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
    parts = [cell_records(table, paper, rules, folder.parent) for table in tables(folder, COMPARISON)]
    parts += [claim_records(table.fillna({"dataset": ""}), paper, kind, not_yet_claims)
              for table in tables(folder, CLAIMS)]
    return normalized(pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(COLUMNS)))


#: A cited record in a cause or a spread: ``record: <paper>/<path>`` (under the results folder) or ``make <target>``.
CITED_RECORD = re.compile(r"record: (?P<path>[\w.-]+(?:/[\w.*-]+)+)")
CITED_TARGET = re.compile(r"`?make (?P<target>[a-z][\w-]*)`?")


def citations(text: str) -> tuple[list[str], list[str]]:
    """The record paths and make targets that ``text`` cites."""
    return CITED_RECORD.findall(text), CITED_TARGET.findall(text)


def check_citations(frame: pd.DataFrame, root: Path, targets: set[str]) -> pd.DataFrame:
    """Check that every ``explained:`` cause, and every measured spread a cell's rule names, cites a record a
    reader can open: a path that exists under ``root`` (the results folder) or one of ``targets`` (make targets).

    Raises
    ------
    ValueError
        Naming the cell, its text and what it cites (or that it cites nothing).
    """
    for _, row in normalized(frame).iterrows():
        for text in (row["cause"] if row["cause"].startswith(EXPLAINED) else "",
                     row["u_ours_rule"] if "record:" in row["u_ours_rule"] else ""):
            if not text:
                continue
            paths, made = citations(text)
            missing = [p for p in paths if not any(root.glob(p))] + [t for t in made if t not in targets]
            if missing or not (paths or made):
                raise ValueError(f"{row['paper']} {row['cell']!r}: {text!r} cites "
                                 f"{'no record' if not (paths or made) else f'what does not exist: {missing}'}; "
                                 f"an explanation names a record under {root} ('record: <paper>/<path>') or a make "
                                 "target ('make <target>') whose numbers show it")
    return frame


def chance(frame: pd.DataFrame, k: float = K, level: float = 0.95) -> dict[str, float]:
    """How many of a paper's cells compared like for like would disagree by chance alone at ``k`` if each
    cell's two values measured the same thing with the stated uncertainties (normal): ``compared`` cells (both
    values, no named difference of data or protocol), the ``expected`` count ``compared * P(|Z| > k)``, its
    ``bound`` (the ``level`` quantile of that binomial count) and the ``observed`` count of them that do not
    agree (higher or lower)."""
    cells = normalized(frame)
    judged_cells = pd.to_numeric(cells["threshold"], errors="coerce").notna()
    cells = cells[(cells["kind"] == CELL) & judged_cells & (cells["reason"] == "")]
    p = float(2 * stats.norm.sf(k))
    compared = len(cells)
    return {"compared": compared, "expected": compared * p,
            "bound": int(stats.binom.ppf(level, compared, p)) if compared else 0,
            "observed": int((cells["verdict"] != AGREES).sum())}
