"""Reading a paper's tree of runs for its reports."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from rfbench.engine import records


def collect_single_runs(root: Path, point: Sequence[str]) -> pd.DataFrame:
    """The trials below ``root``, after checking that each point comes from a single run.

    Runs of another config left in the same tree (say, from before a default
    changed) would otherwise be averaged in silently.

    Parameters
    ----------
    root : Path
        A tree of ``runs/<run_id>/trials.csv``.
    point : sequence of str
        The config columns that tell the report's points (cells, curve points) apart; those
        absent from the trials are ignored.

    Raises
    ------
    rfbench.engine.records.RecordError
        If there is no run below ``root``, or a run's file is damaged or leads out of it.
    ValueError
        Naming the point, its runs and the config values they differ in.
    """
    trials = records.collect(root)
    keys = [k for k in point if k in trials.columns]
    for values, group in trials.groupby(keys, dropna=False):
        per_run = group.groupby("run_id").first()
        if len(per_run) > 1:
            columns = [c for c in records.config_columns(per_run) if per_run[c].nunique(dropna=False) > 1]
            differ = "; ".join(f"{c}: {per_run[c].tolist()}" for c in columns)
            raise ValueError(
                f"{dict(zip(keys, values))} has {len(per_run)} runs below {root} ({', '.join(per_run.index)}) "
                f"that differ in {differ or 'nothing recorded'}; move the stale runs/<run_id> directories "
                "away, or write each variant to its own results tree (RESULTS=...)")
    return trials


def deviations(trials: pd.DataFrame) -> list[str]:
    """The distinct, non-empty ``deviations`` of the trials (how the runs depart from the paper).

    A trial's deviations are "; "-joined, its dataset's first; an entry that opens a longer one
    (a CV run's beside the test-grid run's, which adds its selection) says nothing more, and is left out.
    """
    found = {d for d in trials.get("deviations", pd.Series(dtype=str)).dropna() if d}
    return sorted(d for d in found if not any(other.startswith(d + "; ") for other in found))
