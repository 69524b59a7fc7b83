"""A paper's reproducibility summary, in the manner of the ML Reproducibility Challenge reports.

Generated from the paper's verdict records (:mod:`rfbench.report.verdicts`): the claims checked and
how many hold, the cells reproduced or not and why, then the paper module's own notes on what was
easy, what was hard and what remains (``NOTES`` in ``rfbench/papers/<paper>/verdicts.py``).
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from rfbench.report import verdicts as rv


def markdown(title: str, frame: pd.DataFrame, notes: Mapping[str, str]) -> str:
    """``## Reproducibility summary`` of one paper: counts from ``frame``, then ``notes`` (easy, hard, remains)."""
    said = rv.tally(frame)
    better = int(((frame["verdict"].isin((rv.HIGHER, rv.LOWER))) & (frame["better"] == "yes")).sum())
    compared = sum(said[v] for v in (rv.AGREES, rv.HIGHER, rv.LOWER))
    lines = [f"# {title}: reproducibility summary", "",
             f"- **Claims checked:** {_claims(said, rv.CLAIM)} of the paper's; {_claims(said, rv.CHECK)} of our "
             "own checks.",
             f"- **Cells:** {compared} compared like for like: {said[rv.AGREES]} agree, {better} ours better, "
             f"{said[rv.HIGHER] + said[rv.LOWER] - better} ours worse; {said[rv.NOT_COMPARABLE]} not comparable (the "
             f"difference named per cell); {said[rv.NOT_OBTAINABLE]} not run, the data not obtainable; "
             f"{said[rv.NOT_YET]} not run yet" + (f"; {said[rv.NO_PUBLISHED]} without a published value" if
                                              said[rv.NO_PUBLISHED] else "") + ".",
             f"- **Differences:** {said['explained']} explained by a record a reader can open, {said['unexplained']} "
             "unexplained (of the cells higher, lower or not comparable).",
             f"- **What was easy:** {notes['easy']}.",
             f"- **What was hard:** {notes['hard']}.",
             f"- **What remains, and why:** {notes['remains']}.", ""]
    return "\n".join(lines)


def _claims(said: Mapping[str, int], kind: str) -> str:
    total = sum(said[f"{kind} {v}"] for v in (rv.HOLDS, rv.FAILS, rv.NOT_YET))
    if not total:
        return "none"
    yet = said[f"{kind} {rv.NOT_YET}"]
    return (f"{total} ({said[f'{kind} {rv.HOLDS}']} hold, {said[f'{kind} {rv.FAILS}']} fail"
            + (f", {yet} not run yet" if yet else "") + ")")
