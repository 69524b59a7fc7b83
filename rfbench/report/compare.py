"""Our results next to a paper's published values: the join, and the claims' checks.

:func:`compare` joins our cells to the published ones and gives each its difference; the verdict
of a cell is not given here but by the verdict records (:func:`rfbench.report.verdicts.judged`,
whose rule uses each cell's uncertainty and what the paper's module knows about its data), so
that a table and the records it feeds say the same thing.

Claims (published rows with ``metric = claim``) are qualitative statements, e.g. a figure's
trend; the paper's module supplies one check per claim (:func:`check_claims`), which says
whether the claim **holds** or **fails** on our results, with the numbers it looked at.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from rfbench.report.published import CLAIM, UNIT_SCALE, key_columns

HOLDS, FAILS, NOT_RUN = "holds", "fails", "not run"
#: A claim's verdicts (:func:`check_claims`).
CLAIM_VERDICTS = (HOLDS, FAILS, NOT_RUN)
#: Columns of our side of the join (besides the keys).
OURS = ("metric", "unit", "mean", "sd", "n")


class ClaimCheck(NamedTuple):
    """What a claim's check found: whether it holds (None when we have nothing to judge it on)
    and the numbers it looked at."""

    holds: bool | None
    evidence: str


def summarize(trials: pd.DataFrame, keys: Sequence[str], column: str, *, metric: str,
              unit: str = "fraction") -> pd.DataFrame:
    """Our side of a comparison: mean, sd and number of trials of ``column`` per cell.

    Parameters
    ----------
    trials : DataFrame
        One row per trial, with the key columns already in the paper's names.
    keys : sequence of str
        The columns that name a cell (:func:`~rfbench.report.published.key_columns`).
    column : str
        The recorded metric, on its own scale (accuracies and errors as fractions).
    metric : str
        The metric's name in the published CSV.
    unit : str
        The published unit; the values are converted to it (``%``: times 100).

    Returns
    -------
    DataFrame
        ``keys`` + ``metric, unit, mean, sd, n``; ``sd`` is the sample sd (ddof=1), NaN for one trial.
    """
    scaled = trials.assign(_value=trials[column] * UNIT_SCALE[unit])
    stats = scaled.groupby(list(keys), dropna=False)["_value"].agg(["mean", "std", "count"]).reset_index()
    stats = stats.rename(columns={"std": "sd", "count": "n"})
    return stats.assign(metric=metric, unit=unit)[[*keys, *OURS]]


def compare(published: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """Join our cells to the published ones, each with its difference (its verdict:
    :func:`rfbench.report.verdicts.judged`).

    Parameters
    ----------
    published : DataFrame
        From :func:`rfbench.report.published.load`; its claims are left out.
    ours : DataFrame
        From :func:`summarize` (several metrics may be concatenated), with the key columns of
        ``published``.

    Returns
    -------
    DataFrame
        One row per cell of either side: ``source``, the keys, ``metric``, ``unit``,
        ``mean, sd, n`` (ours), ``published, published_sd``, ``difference`` (ours - published), ``note``.

    Raises
    ------
    ValueError
        If ``ours`` lacks a key column, or a cell's units differ between the two sides.
    """
    keys = key_columns(published)
    missing = [c for c in [*keys, *OURS] if c not in ours.columns]
    if missing:
        raise ValueError(f"our results lack column(s) {missing} to join on the published {keys + ['metric']}")
    pub = published[published["metric"] != CLAIM].rename(columns={"value": "published", "sd": "published_sd"})
    on = [*keys, "metric"]
    table = _text_keys(pub, on).merge(_text_keys(ours, on), on=on, how="outer", suffixes=("", "_ours"))
    clash = table["unit_ours"].notna() & table["unit"].notna() & (table["unit"] != table["unit_ours"])
    if clash.any():
        row = table[clash].iloc[0]
        raise ValueError(f"cell {dict(row[on])}: published in {row['unit']!r}, ours in {row['unit_ours']!r}; "
                         "summarize ours with the published unit")
    table["unit"] = table["unit"].fillna(table["unit_ours"])
    table["difference"] = table["mean"] - table["published"]
    columns = ["source", *on, "unit", "mean", "sd", "n", "published", "published_sd", "difference", "note"]
    return table[columns].sort_values(["source", *on], na_position="last", ignore_index=True)


def _text_keys(frame: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Keys as text, so that a published ``"2"`` meets our ``2.0`` and a blank meets NaN."""
    return frame.assign(**{k: frame[k].map(_key_text) for k in keys})


def _key_text(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else (str(int(value)) if value.is_integer() else repr(float(value)))
    return str(value)


def check_claims(published: pd.DataFrame,
                 checks: Mapping[str, Callable[[pd.Series], ClaimCheck]]) -> pd.DataFrame:
    """Judge each published claim with the paper module's check of the same name.

    Parameters
    ----------
    published : DataFrame
        From :func:`rfbench.report.published.load`; only its ``metric = claim`` rows are read.
    checks : mapping of str to callable
        Per check name (the claim's ``method``), a function of the claim's row returning a
        :class:`ClaimCheck`.

    Returns
    -------
    DataFrame
        ``source, dataset, claim`` (the statement), ``verdict`` (holds / fails / not run),
        ``evidence``.

    Raises
    ------
    ValueError
        If a claim names a check that ``checks`` lacks.
    """
    claims = published[published["metric"] == CLAIM]
    unknown = sorted(set(claims["method"]) - set(checks))
    if unknown:
        raise ValueError(f"published claims name checks {unknown} that the report does not define; "
                         f"defined: {sorted(checks)}")
    rows = []
    for _, claim in claims.iterrows():
        found = checks[claim["method"]](claim)
        verdict = NOT_RUN if found.holds is None else (HOLDS if found.holds else FAILS)
        rows.append({"source": claim["source"], "dataset": claim["dataset"], "claim": claim["note"],
                     "verdict": verdict, "evidence": found.evidence})
    return pd.DataFrame(rows, columns=["source", "dataset", "claim", "verdict", "evidence"])


def all_of(cases: Mapping[str, bool], what: str) -> ClaimCheck:
    """A claim that must hold in every case (e.g. every dataset and kernel): holds when all do.

    The evidence counts the cases and names those where it fails; no case at all gives ``holds=None``
    (not run).
    """
    if not cases:
        return ClaimCheck(None, f"no {what} to check")
    failed = [name for name, ok in cases.items() if not ok]
    evidence = f"{len(cases) - len(failed)} of {len(cases)} {what}"
    return ClaimCheck(not failed, evidence + (f"; not in: {', '.join(failed)}" if failed else ""))
