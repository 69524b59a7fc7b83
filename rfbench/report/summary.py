"""A paper's reproducibility summary, in the manner of the ML Reproducibility Challenge reports.

Generated from the paper's verdict records (:mod:`rfbench.report.verdicts`): the claims checked and
how many hold, the cells reproduced or not and why, then the paper module's own notes on what was
easy, what was hard and what remains (``NOTES`` in ``rfbench/papers/<paper>/verdicts.py``).
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from rfbench.report.verdicts import (
    AGREES,
    CHECK,
    CLAIM,
    FAILS,
    HIGHER,
    HOLDS,
    LOWER,
    NO_PUBLISHED,
    NOT_COMPARABLE,
    NOT_OBTAINABLE,
    NOT_YET,
    tally,
)


def markdown(title: str, frame: pd.DataFrame, notes: Mapping[str, str]) -> str:
    """``## Reproducibility summary`` of one paper: counts from ``frame``, then ``notes`` (easy, hard, remains)."""
    said = tally(frame)
    better = int(((frame["verdict"].isin((HIGHER, LOWER))) & (frame["better"] == "yes")).sum())
    compared = sum(said[v] for v in (AGREES, HIGHER, LOWER))
    lines = [f"# {title}: reproducibility summary", "",
             f"- **Claims checked:** {_claims(said, CLAIM)} of the paper's; {_claims(said, CHECK)} of our own checks.",
             f"- **Cells:** {compared} compared like for like: {said[AGREES]} agree, {better} ours better, "
             f"{said[HIGHER] + said[LOWER] - better} ours worse; {said[NOT_COMPARABLE]} not comparable (the "
             f"difference named per cell); {said[NOT_OBTAINABLE]} not run, the data not obtainable; "
             f"{said[NOT_YET]} not run yet" + (f"; {said[NO_PUBLISHED]} without a published value" if
                                              said[NO_PUBLISHED] else "") + ".",
             f"- **Differences:** {said['explained']} explained by a named measurement, {said['unexplained']} "
             "unexplained (of the cells higher, lower or not comparable).",
             f"- **What was easy:** {notes['easy']}.",
             f"- **What was hard:** {notes['hard']}.",
             f"- **What remains, and why:** {notes['remains']}.", ""]
    return "\n".join(lines)


def _claims(said: Mapping[str, int], kind: str) -> str:
    total = sum(said[f"{kind} {v}"] for v in (HOLDS, FAILS, NOT_YET))
    if not total:
        return "none"
    yet = said[f"{kind} {NOT_YET}"]
    return (f"{total} ({said[f'{kind} {HOLDS}']} hold, {said[f'{kind} {FAILS}']} fail"
            + (f", {yet} not run yet" if yet else "") + ")")
